import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolListArbitrary } from '../src/property/served-tools.js';
import type { Finding } from '../src/validate/finding.js';
import { SessionValidator } from '../src/validate/session.js';

// A list page sent again is judged by what it repeats (src/validate/repeats.ts). The oracle is a
// session that sees the page for the first time: the repeat must get exactly its findings.

const opening = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
  { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities: { tools: {}, resources: {}, prompts: {} }, serverInfo: { name: 's', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];

/** Feeds the opening, then each (request, response) pair; returns the findings of the last response. */
function lastResponseFindings(method: string, results: unknown[]): Finding[] {
  const s = new SessionValidator({ transport: 'stdio' });
  let frame = 0;
  s.message('client', opening[0], frame++);
  s.message('server', opening[1], frame++);
  s.message('client', opening[2], frame++);
  let last: Finding[] = [];
  results.forEach((result, i) => {
    const id = 10 + i;
    s.message('client', { jsonrpc: '2.0', id, method, params: {} }, frame++);
    last = s.message('server', { jsonrpc: '2.0', id, result }, frame++);
  });
  return last.map(({ frame: _frame, ...rest }) => rest as Finding);
}

const page = fc.oneof(
  toolListArbitrary(4).map((tools) => ({ tools })),
  fc.record({ tools: fc.array(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ name: fc.string({ maxLength: 5 }), inputSchema: fc.jsonValue({ maxDepth: 3 }) })), { maxLength: 3 }) }),
  fc.record({ resources: fc.array(fc.record({ uri: fc.string({ maxLength: 12 }), name: fc.string({ maxLength: 4 }) }), { maxLength: 3 }) }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** The page again, or the page with one member changed. */
const second = (first: unknown) =>
  fc.oneof(
    fc.constant(structuredClone(first)),
    fc.jsonValue({ maxDepth: 2 }).map((v) => (first !== null && typeof first === 'object' && !Array.isArray(first) ? { ...structuredClone(first), tools: [v] } : v)),
    page,
  );

describe('a list page sent again', () => {
  for (const method of ['tools/list', 'resources/list', 'prompts/list']) {
    it(`${method}: gets the findings a first sight of it gets, whether or not it repeats the page before`, () => {
      fc.assert(
        fc.property(
          page.chain((first) => fc.tuple(fc.constant(first), second(first))),
          ([first, again]) => {
            expect(lastResponseFindings(method, [first, again])).toEqual(lastResponseFindings(method, [again]));
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it('repeats a violation at the new frame (an invalid tool name, listed twice)', () => {
    const result = { tools: [{ name: 'bad name!', inputSchema: { type: 'object' } }] };
    const findings = lastResponseFindings('tools/list', [result, structuredClone(result)]);
    expect(findings.map((f) => f.requirements[0])).toContain('TOOL-NAME-01');
  });
});
