import { Buffer } from 'node:buffer';
import { note, ptr, show, violation, type Finding } from './finding.js';
import { isObject } from '../json.js';
import { ruling } from '../spec/rulings.js';

const SIZE = /^(?:[1-9][0-9]*x[1-9][0-9]*|any)$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*\s*(?:;.*)?$/i;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const UNSAFE = new Set(['javascript', 'file', 'ftp', 'ws', 'wss', 'vbscript', 'blob']);
/** Base64 characters decoded for sniffing (a multiple of 4): 768 bytes, enough for an SVG preamble. */
const SNIFF_CHARS = 1024;

type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/svg+xml';
const KNOWN = new Set<string>(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml']);

/** Checks an `icons` array (ICON-FMT-01..03). An absent array is fine. */
export function checkIcons(icons: unknown, pointer: string): Finding[] {
  if (icons === undefined) return [];
  if (!Array.isArray(icons)) return [violation('ICON-FMT-01', `icons: expected an array of Icon objects, got ${show(icons)}`, pointer)];
  const findings: Finding[] = [];
  icons.forEach((icon, i) => checkIcon(icon, pointer + ptr(i), findings));
  return findings;
}

function checkIcon(icon: unknown, at: string, out: Finding[]): void {
  if (!isObject(icon)) {
    out.push(violation('ICON-FMT-01', `icon: expected an object with a string "src", got ${show(icon)}`, at));
    return;
  }
  const { src, mimeType, sizes, theme } = icon;

  let declared: string | undefined;
  if (mimeType !== undefined) {
    if (typeof mimeType !== 'string') {
      out.push(violation('ICON-FMT-01', `icon mimeType: expected a string, got ${show(mimeType)}`, at + '/mimeType'));
    } else if (!MEDIA_TYPE.test(mimeType)) {
      out.push(violation('ICON-FMT-01', `icon mimeType: expected a media type like "image/png", got ${show(mimeType)}`, at + '/mimeType', 'warn'));
    } else {
      declared = mimeType;
    }
  }

  if (sizes !== undefined) {
    if (!Array.isArray(sizes)) {
      out.push(violation('ICON-FMT-01', `icon sizes: expected an array of strings, got ${show(sizes)}`, at + '/sizes'));
    } else {
      sizes.forEach((s, j) => {
        if (typeof s !== 'string') {
          out.push(violation('ICON-FMT-01', `icon sizes entry: expected a string, got ${show(s)}`, at + ptr('sizes', j)));
        } else if (!SIZE.test(s)) {
          out.push(violation('ICON-FMT-02', `icon sizes entry: expected "WxH" in pixels (e.g. "48x48") or "any", got ${show(s)}`, at + ptr('sizes', j)));
        }
      });
    }
  }

  if (theme !== undefined && theme !== 'light' && theme !== 'dark') {
    out.push(violation('ICON-FMT-01', `icon theme: expected "light" or "dark", got ${show(theme)}`, at + '/theme'));
  }

  if (typeof src !== 'string') {
    const what = src === undefined ? 'it is missing' : `got ${show(src)}`;
    out.push(violation('ICON-FMT-01', `icon src: expected a URI string, ${what}`, src === undefined ? at : at + '/src'));
  } else {
    checkSrc(src, declared, at + '/src', out);
  }
}

function checkSrc(src: string, declared: string | undefined, at: string, out: Finding[]): void {
  const scheme = SCHEME.exec(src)?.[1]?.toLowerCase();
  const expected = 'expected an https: URL or a base64 data: URI';
  if (scheme === undefined) {
    out.push(violation('ICON-FMT-03', `icon src: ${expected}, got ${show(src)} (not an absolute URI)`, at));
    return;
  }
  if (scheme === 'data') {
    checkDataUri(src, declared, at, out);
    return;
  }
  if (scheme !== 'https' && scheme !== 'http') {
    const why = UNSAFE.has(scheme) ? 'an unsafe scheme consumers must reject' : 'a scheme consumers must reject';
    out.push(violation('ICON-FMT-03', `icon src: ${expected}, got ${show(src)} (${scheme}: is ${why})`, at));
    return;
  }
  if (!URL.canParse(src)) {
    out.push(violation('ICON-FMT-03', `icon src: ${expected}, got ${show(src)} (not a parsable URL)`, at));
    return;
  }
  if (scheme === 'http') {
    // The page allows HTTP URLs, but consumers may only fetch https: (ruling http-icons).
    out.push(violation('ICON-FMT-03', `icon src: ${expected}, got plain http: ${show(src)}; consumers must not fetch it (${ruling('http-icons').cite})`, at));
  }
}

function checkDataUri(src: string, declared: string | undefined, at: string, out: Finding[]): void {
  const comma = src.indexOf(',');
  if (comma < 0) {
    out.push(violation('ICON-FMT-03', `icon src: expected "data:<type>;base64,<data>", got ${show(src)} (no comma)`, at));
    return;
  }
  const params = src.slice(5, comma).split(';');
  if (params.length < 2 || params[params.length - 1]!.trim().toLowerCase() !== 'base64') {
    out.push(violation('ICON-FMT-03', `icon src: expected a base64 data: URI (";base64,"), got ${show(src)}`, at));
    return;
  }
  const payload = src.slice(comma + 1);
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) {
    out.push(
      violation(
        'ICON-FMT-03',
        `icon src: data: URI payload is not valid base64 (alphabet A-Z a-z 0-9 + /, "=" padding, length a multiple of 4), got ${show(src)}`,
        at,
      ),
    );
    return;
  }
  if (payload.length === 0) {
    out.push(violation('ICON-FMT-03', `icon src: data: URI has no image bytes, got ${show(src)}`, at));
    return;
  }

  const type = normalise(declared ?? params[0]!);
  const detected = sniff(Buffer.from(payload.slice(0, SNIFF_CHARS), 'base64'));
  const source = declared !== undefined ? 'mimeType' : 'data: URI media type';
  if (type && type !== detected && (detected !== undefined || KNOWN.has(type))) {
    const found = detected ?? 'not a recognised image (PNG, JPEG, GIF, WebP, SVG)';
    out.push(violation('ICON-FMT-03', `icon src: ${source} declares ${show(type)} but the bytes are ${found}`, at));
  } else if (detected === undefined) {
    // Neither side names a type we can verify: worth a note, not a verdict.
    const claim = type ? `${source} declares ${show(type)}` : 'no type declared';
    out.push(note('ICON-FMT-03', `icon src: bytes are not a recognised image type (PNG, JPEG, GIF, WebP, SVG); ${claim}`, at));
  }
}

function normalise(mediaType: string): string {
  const t = mediaType.split(';')[0]!.trim().toLowerCase();
  return t === 'image/jpg' ? 'image/jpeg' : t;
}

function sniff(b: Buffer): ImageType | undefined {
  const starts = (...sig: number[]) => sig.every((v, i) => b[i] === v);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  const ascii = b.toString('latin1', 0, 12);
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'image/gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image/webp';
  return looksLikeSvg(b.toString('utf8')) ? 'image/svg+xml' : undefined;
}

/** `<svg` after an optional BOM, whitespace, XML declaration, comments and doctype. */
function looksLikeSvg(text: string): boolean {
  let s = text.replace(/^\uFEFF/, '');
  for (;;) {
    s = s.trimStart();
    const skip = s.startsWith('<?') ? '?>' : s.startsWith('<!--') ? '-->' : /^<!doctype/i.test(s) ? '>' : undefined;
    if (skip === undefined) break;
    const end = s.indexOf(skip, 2);
    if (end < 0) return false; // preamble longer than the sniffed window
    s = s.slice(end + skip.length);
  }
  return /^<svg[\s>/]/.test(s);
}
