import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkIcons } from '../src/validate/icons.js';
import { BOMB_SIDE, bombPng, dataUri, gif, GIF_FRAMES, manyFrameGif, namesDataUri } from '../suites/client/icon-bytes.js';
import { acceptable } from './fixtures/client/icons.js';
import { findRequirement } from '../src/spec/catalog.js';
import type { Finding } from '../src/validate/finding.js';

const P = '/result/tools/3/icons';

function ids(findings: Finding[]): string[] {
  return findings.map((f) => `${f.requirements[0]}:${f.severity}`);
}

function b64(bytes: number[] | string): string {
  return Buffer.from(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Uint8Array.from(bytes)).toString('base64');
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52];
const JPEG = [0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0];
const GIF87 = [...Buffer.from('GIF87a'), 1, 0, 1, 0];
const GIF89 = [...Buffer.from('GIF89a'), 1, 0, 1, 0];
const WEBP = [...Buffer.from('RIFF'), 36, 0, 0, 0, ...Buffer.from('WEBPVP8 ')];
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>';

function data(type: string, bytes: number[] | string): string {
  return `data:${type};base64,${b64(bytes)}`;
}

describe('valid icons', () => {
  it('accepts an https icon with every optional field', () => {
    const icons = [
      { src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48', '96x96', 'any'], theme: 'light' },
      { src: 'HTTPS://example.com/dark.svg', mimeType: 'image/svg+xml', theme: 'dark' },
      { src: 'https://example.com/plain.webp' },
    ];
    expect(checkIcons(icons, P)).toEqual([]);
  });

  it('accepts absent and empty icon lists', () => {
    expect(checkIcons(undefined, P)).toEqual([]);
    expect(checkIcons([], P)).toEqual([]);
  });

  it.each([
    ['image/png', PNG],
    ['image/jpeg', JPEG],
    ['image/jpg', JPEG],
    ['image/gif', GIF87],
    ['image/gif', GIF89],
    ['image/webp', WEBP],
    ['image/svg+xml', SVG],
    ['image/svg+xml', '\uFEFF  \n' + SVG],
    ['image/svg+xml', '<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n' + SVG],
    [
      'image/svg+xml',
      '<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">' + SVG,
    ],
    ['image/svg+xml', '<svg>\n</svg>'],
  ])('accepts a base64 data: URI of %s whose bytes match', (type, bytes) => {
    // Declared by the data: URI only, by the icon only, and by both.
    expect(checkIcons([{ src: data(type, bytes) }], P)).toEqual([]);
    expect(checkIcons([{ src: `data:;base64,${b64(bytes)}`, mimeType: type }], P)).toEqual([]);
    expect(checkIcons([{ src: data(type, bytes), mimeType: type.toUpperCase() + '; charset=x' }], P)).toEqual([]);
  });
});

describe('ICON-FMT-01: icon shape', () => {
  it('fails a non-array icons value', () => {
    for (const v of [null, {}, 'https://example.com/i.png', 3]) {
      const f = checkIcons(v, P);
      expect(ids(f)).toEqual(['ICON-FMT-01:fail']);
      expect(f[0]!.pointer).toBe(P);
    }
  });

  it('fails a non-object icon', () => {
    const f = checkIcons([{ src: 'https://example.com/a.png' }, 'https://example.com/b.png', null, []], P);
    expect(ids(f)).toEqual(['ICON-FMT-01:fail', 'ICON-FMT-01:fail', 'ICON-FMT-01:fail']);
    expect(f.map((x) => x.pointer)).toEqual([`${P}/1`, `${P}/2`, `${P}/3`]);
    expect(f[0]!.message).toContain('"https://example.com/b.png"');
  });

  it('fails a missing or non-string src', () => {
    const f = checkIcons([{ mimeType: 'image/png' }, { src: 42 }, { src: null }], P);
    expect(ids(f)).toEqual(['ICON-FMT-01:fail', 'ICON-FMT-01:fail', 'ICON-FMT-01:fail']);
    expect(f.map((x) => x.pointer)).toEqual([`${P}/0`, `${P}/1/src`, `${P}/2/src`]);
    expect(f[0]!.message).toContain('missing');
    expect(f[1]!.message).toContain('42');
  });

  it('fails a non-string mimeType and warns on a malformed one', () => {
    const f = checkIcons(
      [
        { src: 'https://example.com/a.png', mimeType: 5 },
        { src: 'https://example.com/a.png', mimeType: 'png' },
        { src: 'https://example.com/a.png', mimeType: 'image/' },
        { src: 'https://example.com/a.png', mimeType: 'image png' },
      ],
      P,
    );
    expect(ids(f)).toEqual(['ICON-FMT-01:fail', 'ICON-FMT-01:warn', 'ICON-FMT-01:warn', 'ICON-FMT-01:warn']);
    expect(f.map((x) => x.pointer)).toEqual([0, 1, 2, 3].map((i) => `${P}/${i}/mimeType`));
    expect(f[1]!.message).toContain('"png"');
  });

  it('fails non-array sizes and non-string entries', () => {
    const f = checkIcons(
      [
        { src: 'https://example.com/a.png', sizes: '48x48' },
        { src: 'https://example.com/a.png', sizes: ['48x48', 48] },
      ],
      P,
    );
    expect(ids(f)).toEqual(['ICON-FMT-01:fail', 'ICON-FMT-01:fail']);
    expect(f.map((x) => x.pointer)).toEqual([`${P}/0/sizes`, `${P}/1/sizes/1`]);
  });

  it('fails a theme other than light or dark', () => {
    for (const theme of ['blue', 'Light', '', null, 1]) {
      const f = checkIcons([{ src: 'https://example.com/a.png', theme }], P);
      expect(ids(f)).toEqual(['ICON-FMT-01:fail']);
      expect(f[0]!.pointer).toBe(`${P}/0/theme`);
    }
  });
});

describe('ICON-FMT-02: sizes entries', () => {
  it.each([['48'], ['48X48'], ['0x16'], ['16x0'], ['48x48 96x96'], ['-1x-1'], ['1.5x2'], ['ANY'], [''], ['048x48 ']])(
    'warns on %j',
    (size) => {
      const f = checkIcons([{ src: 'https://example.com/a.png', sizes: ['16x16', size] }], P);
      expect(ids(f)).toEqual(['ICON-FMT-02:warn']);
      expect(f[0]!.pointer).toBe(`${P}/0/sizes/1`);
      expect(f[0]!.message).toContain(JSON.stringify(size));
      expect(f[0]!.message).toContain('WxH');
    },
  );

  it.each([['1x1'], ['48x48'], ['512x256'], ['any']])('accepts %j', (size) => {
    expect(checkIcons([{ src: 'https://example.com/a.png', sizes: [size] }], P)).toEqual([]);
  });
});

describe('ICON-FMT-03: src URIs', () => {
  function srcFindings(src: string, extra: Record<string, unknown> = {}): Finding[] {
    const f = checkIcons([{ src: 'https://example.com/ok.png' }, { src, ...extra }], P);
    for (const x of f) expect(x.pointer).toBe(`${P}/1/src`);
    return f;
  }

  it('warns on plain http: (§15.10)', () => {
    const f = srcFindings('http://example.com/icon.png');
    expect(ids(f)).toEqual(['ICON-FMT-03:warn']);
    expect(f[0]!.message).toContain('http:');
  });

  it.each([
    ['javascript:alert(1)'],
    ['file:///etc/passwd'],
    ['ftp://example.com/i.png'],
    ['ws://example.com/'],
    ['wss://example.com/'],
    ['chrome-extension://abc/i.png'],
    ['mailto:a@example.com'],
  ])('flags the scheme of %j', (src) => {
    const f = srcFindings(src);
    expect(ids(f)).toEqual(['ICON-FMT-03:warn']);
    expect(f[0]!.message).toContain(JSON.stringify(src));
    expect(f[0]!.message).toContain('expected an https: URL or a base64 data: URI');
  });

  it.each([['icon.png'], ['/icons/a.png'], ['//example.com/a.png'], [''], ['https://'], ['https://exa mple.com/a.png'], ['1http://x']])(
    'flags the unparsable or relative URI %j',
    (src) => {
      expect(ids(srcFindings(src))).toEqual(['ICON-FMT-03:warn']);
    },
  );

  it('flags a data: URI that is not base64', () => {
    const f = srcFindings('data:image/svg+xml,%3Csvg%2F%3E');
    expect(ids(f)).toEqual(['ICON-FMT-03:warn']);
    expect(f[0]!.message).toContain('base64');
    expect(ids(srcFindings('data:image/png;base64'))).toEqual(['ICON-FMT-03:warn']); // no comma
  });

  it.each([
    ['bad alphabet', b64(PNG).slice(0, 8) + '-_' + b64(PNG).slice(10)],
    ['missing padding', 'iVBORw0KGgo'],
    ['too much padding', 'iVBORw0KGg==='],
    ['padding inside', 'iVBO=w0KGgo='],
    ['whitespace', 'iVBO Rw0KGgo='],
    ['percent-encoded', 'iVBORw0KGgo%3D'],
  ])('flags invalid base64 (%s)', (_why, payload) => {
    const f = srcFindings(`data:image/png;base64,${payload}`);
    expect(ids(f)).toEqual(['ICON-FMT-03:warn']);
    expect(f[0]!.message).toContain('not valid base64');
  });

  it('flags an empty payload', () => {
    expect(ids(srcFindings('data:image/png;base64,'))).toEqual(['ICON-FMT-03:warn']);
  });

  it('names declared and detected types on a mismatch', () => {
    const f = srcFindings(data('image/png', JPEG));
    expect(ids(f)).toEqual(['ICON-FMT-03:warn']);
    expect(f[0]!.message).toContain('"image/png"');
    expect(f[0]!.message).toContain('image/jpeg');
    // The icon's mimeType wins over the data: URI media type.
    const g = srcFindings(data('image/png', PNG), { mimeType: 'image/gif' });
    expect(ids(g)).toEqual(['ICON-FMT-03:warn']);
    expect(g[0]!.message).toContain('mimeType declares "image/gif" but the bytes are image/png');
    // SVG bytes declared as PNG, and a non-image type.
    expect(ids(srcFindings(data('image/png', SVG)))).toEqual(['ICON-FMT-03:warn']);
    expect(ids(srcFindings(data('text/html', SVG)))).toEqual(['ICON-FMT-03:warn']);
  });

  it('flags bytes that are not the declared known type', () => {
    const f = srcFindings(data('image/png', 'hello world'));
    expect(ids(f)).toEqual(['ICON-FMT-03:warn']);
    expect(f[0]!.message).toContain('not a recognised image');
    // An SVG whose preamble hides the <svg element is not SVG.
    expect(ids(srcFindings(data('image/svg+xml', '<html><svg/></html>')))).toEqual(['ICON-FMT-03:warn']);
    expect(ids(srcFindings(data('image/gif', 'GIF88a....')))).toEqual(['ICON-FMT-03:warn']);
    expect(ids(srcFindings(data('image/webp', 'RIFF....WAVE')))).toEqual(['ICON-FMT-03:warn']);
  });

  it('notes an image type it cannot verify', () => {
    const ico = [0, 0, 1, 0, 1, 0, 16, 16];
    const f = srcFindings(data('image/x-icon', ico));
    expect(ids(f)).toEqual(['ICON-FMT-03:info']);
    expect(f[0]!.message).toContain('"image/x-icon"');
    expect(ids(srcFindings(`data:;base64,${b64(ico)}`))).toEqual(['ICON-FMT-03:info']);
  });

  it('sniffs a large data: URI quickly', () => {
    const big = Buffer.alloc(6 * 1024 * 1024, 7);
    Buffer.from(PNG).copy(big);
    const src = `data:image/png;base64,${big.toString('base64')}`;
    const start = performance.now();
    for (let i = 0; i < 5; i++) expect(checkIcons([{ src }], P)).toEqual([]);
    expect(performance.now() - start).toBeLessThan(2_000);
  });

  it('escapes and bounds the quoted src', () => {
    const src = 'javascript:' + '\u0000\n"'.repeat(500);
    const f = srcFindings(src);
    expect(f[0]!.message).not.toMatch(/[\u0000\n]/);
    expect(f[0]!.message.length).toBeLessThan(400);
  });
});

describe('robustness', () => {
  const field = fc.oneof(
    fc.anything(),
    fc.constantFrom('https://example.com/a.png', 'http://x', 'data:image/png;base64,iVBORw0KGgo=', 'data:,', 'javascript:x'),
    fc.string(),
  );
  const iconLike = fc.oneof(
    fc.anything(),
    fc.record(
      { src: field, mimeType: fc.oneof(field, fc.constantFrom('image/png', 'image/jpg', 'png')), sizes: fc.oneof(field, fc.array(field)), theme: field },
      { requiredKeys: [] },
    ),
  );

  it('never throws and cites known requirements with pointers under the given one', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.array(iconLike)), (icons) => {
        const f = checkIcons(icons, P);
        for (const x of f) {
          for (const id of x.requirements) expect(findRequirement(id), id).toBeDefined();
          expect(x.pointer.startsWith(P)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the hostile icons of client.icons.hostile-data', () => {
  it('are well-formed images that say what they are, small on the wire', () => {
    const bomb = bombPng();
    expect(bomb.readUInt32BE(16)).toBe(BOMB_SIDE);
    expect(bomb.readUInt32BE(20)).toBe(BOMB_SIDE);
    // Its IDAT (after the signature and the 25-byte IHDR chunk) is a zlib stream of 32 MiB.
    const idat = bomb.subarray(41, 41 + bomb.readUInt32BE(33));
    expect(inflateSync(idat).length).toBe(32 * 1024 * 1024);
    expect(manyFrameGif().length).toBeLessThan(64 * 1024);
    const icons = [{ src: dataUri('image/png', bomb), mimeType: 'image/png' }, { src: dataUri('image/gif', manyFrameGif()), mimeType: 'image/gif' }];
    expect(checkIcons(icons, P)).toEqual([]);
    expect(JSON.stringify(icons).length).toBeLessThan(128 * 1024);
  });

  it('are refused by the client fixture without decompressing, while a small icon of the declared type is taken', () => {
    expect(acceptable(bombPng(), 'image/png')).toBe(false);
    expect(acceptable(manyFrameGif(), 'image/gif')).toBe(false);
    expect(acceptable(gif(GIF_FRAMES, 16), 'image/gif')).toBe(false);
    expect(acceptable(gif(3, 16), 'image/gif')).toBe(true);
    // The data: icon of client.icons.data-not-fetched: GIF bytes labelled PNG.
    expect(acceptable(gif(1, 1), 'image/png')).toBe(false);
    expect(checkIcons([{ src: dataUri('image/png', gif(1, 1)), mimeType: 'image/png' }], P).map((f) => f.requirements[0])).toEqual(['ICON-FMT-03']);
  });

  it('a request path names a data: URI as sent or percent-encoded, and nothing else does', () => {
    expect(namesDataUri('/data:image/png;base64,R0lGOD')).toBe(true);
    expect(namesDataUri('/mcp/DATA%3Aimage%2Fpng')).toBe(true);
    expect(namesDataUri('/.well-known/oauth-protected-resource')).toBe(false);
    expect(namesDataUri('/%E0%A4%A')).toBe(false);
  });
});
