import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionValidator } from '../src/validate/session.js';

// A transcript line lets the session skip the _meta/icons walk when the text shows there is
// nothing to walk for (mayHoldWalked in src/validate/walk.ts). The oracle is the same session
// judging the same message without the text: findings and applied rules must not change.

const opening = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
  { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities: { tools: {}, resources: {}, logging: {} }, serverInfo: { name: 's', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];

/** Members the walk judges, good and bad, placed somewhere in a message. */
const walked = fc.oneof(
  fc.record({ _meta: fc.dictionary(fc.constantFrom('ok', 'bad key!', 'io.x/y', '-no', 'mcp.dev/z'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }) }),
  fc.record({ icons: fc.array(fc.record({ src: fc.constantFrom('https://x.test/i.png', 'javascript:alert(1)', 'not a uri', 'data:image/png;base64,AA==') }), { maxLength: 2 }) }),
  fc.record({ annotations: fc.record({ lastModified: fc.constantFrom('2025-01-12T15:00:58Z', 'yesterday', '2025-13-45') }) }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/** A message the server sends, and the request it answers when it is a response. */
interface Sent {
  request?: { jsonrpc: '2.0'; id: number; method: string };
  message: unknown;
}

const sent: fc.Arbitrary<Sent> = fc.oneof(
  walked.map((extra) => ({ message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1, ...extra } } })),
  fc.tuple(walked, walked).map(([a, b]) => ({
    request: { jsonrpc: '2.0' as const, id: 7, method: 'tools/list' },
    message: { jsonrpc: '2.0', id: 7, result: { tools: [{ name: 't', inputSchema: { type: 'object' }, ...a }], ...b } },
  })),
  fc.tuple(walked, walked).map(([a, b]) => ({
    request: { jsonrpc: '2.0' as const, id: 7, method: 'resources/list' },
    message: { jsonrpc: '2.0', id: 7, result: { resources: [{ uri: 'file:///a', name: 'a', ...a }], ...b } },
  })),
);

/** The message's transcript line, with some of the walked names written as \u escapes, as any JSON encoder may. */
const withLine = fc.tuple(sent, fc.boolean(), fc.boolean(), fc.boolean()).map(([s, meta, icons, modified]) => {
  let t = JSON.stringify(s.message);
  if (meta) t = t.replaceAll('"_meta"', '"\\u005fmeta"');
  if (icons) t = t.replaceAll('"icons"', '"\\u0069cons"');
  if (modified) t = t.replaceAll('"lastModified"', '"l\\u0061stModified"');
  return { ...s, line: `{"from":"server","message":${t}}` };
});

function judged(s: Sent & { line: string }, withLine: boolean): { findings: unknown[]; applied: string[] } {
  const session = new SessionValidator({ transport: 'stdio' });
  opening.forEach((m, i) => session.message(i === 1 ? 'server' : 'client', m, i));
  if (s.request) session.message('client', s.request, 3);
  const { message } = JSON.parse(s.line) as { message: unknown };
  const findings = session.message('server', message, 4, undefined, withLine ? s.line : undefined);
  return { findings, applied: [...session.appliedBy.server].sort() };
}

describe('judging with the transcript line at hand', () => {
  it('gives exactly the findings and applied rules of judging without it', () => {
    fc.assert(
      fc.property(withLine, (s) => {
        expect(judged(s, true)).toEqual(judged(s, false));
      }),
      { numRuns: 400 },
    );
  });
});
