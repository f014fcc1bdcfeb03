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

/** How a response's text may be laid out: mcpcheck's transcripts, or another encoder's. */
type Layout = 'id-first' | 'id-last' | 'spaced';

/** A transcript line holding the response, laid out as `layout` says. */
function responseLine(id: number, result: unknown, layout: Layout): string {
  const r = JSON.stringify(result);
  const message =
    layout === 'id-first' ? `{"jsonrpc":"2.0","id":${id},"result":${r}}` : layout === 'id-last' ? `{"jsonrpc":"2.0","result":${r},"id":${id}}` : `{"jsonrpc":"2.0", "id": ${id}, "result":${r}}`;
  return `{"from":"server","message":${message}}`;
}

/**
 * Feeds the opening, then each (request, response) pair; returns the findings of the last
 * response. With layouts, each response is parsed from its transcript line, which the session is given.
 */
function lastResponseFindings(method: string, results: unknown[], layouts?: Layout[]): Finding[] {
  const s = new SessionValidator({ transport: 'stdio' });
  let frame = 0;
  s.message('client', opening[0], frame++);
  s.message('server', opening[1], frame++);
  s.message('client', opening[2], frame++);
  let last: Finding[] = [];
  results.forEach((result, i) => {
    const id = 10 + i;
    s.message('client', { jsonrpc: '2.0', id, method, params: {} }, frame++);
    const layout = layouts?.[i];
    if (layout === undefined) last = s.message('server', { jsonrpc: '2.0', id, result }, frame++);
    else {
      const line = responseLine(id, result, layout);
      last = s.message('server', (JSON.parse(line) as { message: unknown }).message, frame++, undefined, line);
    }
  });
  return last.map(({ frame: _frame, ...rest }) => rest as Finding);
}

/** A page that holds an `"id":` of its own, which a comparison of texts must not take for the response's. */
const nestedId = (n: number) => ({ tools: [{ name: 'a', inputSchema: { type: 'object' }, _meta: { 'x.test/ref': { id: n } } }, { name: 'b!' }] });
/** Pages of the same length whose one tool name is valid or not: texts that differ in one character only. */
const named = (name: string) => ({ tools: [{ name, inputSchema: { type: 'object' } }] });

const page = fc.oneof(
  fc.constantFrom(nestedId(10), nestedId(11), named('a'), named('!')),
  toolListArbitrary(4).map((tools) => ({ tools })),
  fc.record({ tools: fc.array(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ name: fc.string({ maxLength: 5 }), inputSchema: fc.jsonValue({ maxDepth: 3 }) })), { maxLength: 3 }) }),
  fc.record({ resources: fc.array(fc.record({ uri: fc.string({ maxLength: 12 }), name: fc.string({ maxLength: 4 }) }), { maxLength: 3 }) }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** The page again, or the page with one member changed. */
const second = (first: unknown) =>
  fc.oneof(
    fc.constant(structuredClone(first)),
    fc.constantFrom(nestedId(11), named('a'), named('!')),
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

    it(`${method}: the same, when each response comes with its transcript line, in any layout`, () => {
      fc.assert(
        fc.property(
          page.chain((first) => fc.tuple(fc.constant(first), second(first))),
          fc.constantFrom<Layout>('id-first', 'id-last', 'spaced'),
          fc.constantFrom<Layout>('id-first', 'id-last', 'spaced'),
          ([first, again], layout, layoutAgain) => {
            expect(lastResponseFindings(method, [first, again], [layout, layoutAgain])).toEqual(lastResponseFindings(method, [again], [layoutAgain]));
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it.each<Layout>(['id-first', 'id-last', 'spaced'])('a page one character apart from the one before is judged anew (%s)', (layout) => {
    const findings = (first: unknown, again: unknown) => lastResponseFindings('tools/list', [first, again], [layout, layout]).map((f) => f.requirements[0]);
    expect(findings(named('a'), named('!'))).toContain('TOOL-NAME-01');
    expect(findings(named('!'), named('a'))).not.toContain('TOOL-NAME-01');
  });

  it('repeats a violation at the new frame (an invalid tool name, listed twice)', () => {
    const result = { tools: [{ name: 'bad name!', inputSchema: { type: 'object' } }] };
    const findings = lastResponseFindings('tools/list', [result, structuredClone(result)]);
    expect(findings.map((f) => f.requirements[0])).toContain('TOOL-NAME-01');
  });
});
