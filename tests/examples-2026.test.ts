/**
 * The 129 example messages of the 2026-07-28 schema (tests/fixtures/examples-2026, copied from the
 * specification repository): each validates against its own definition and, placed where its
 * definition belongs in a modern exchange (tests/examples-2026-placement.ts), gets no finding from
 * mcpcheck's validator in the stateless era. Deliberately broken copies then show the test can
 * fail: each gets exactly its rule.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../src/validate/finding.js';
import { schemaFor } from '../src/validate/schemas.js';
import { SessionValidator } from '../src/validate/session.js';
import { type Frame, PLACEMENT, request } from './examples-2026-placement.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/examples-2026');
const definitions = readdirSync(DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const examples = definitions.flatMap((def) =>
  readdirSync(join(DIR, def)).filter((f) => f.endsWith('.json')).sort().map((file) => ({ def, file, example: JSON.parse(readFileSync(join(DIR, def, file), 'utf8')) as Record<string, unknown> })),
);

/** Every finding the stateless-era validator gives the frames, in order (the session's end included). */
export function judge(frames: readonly Frame[]): Finding[] {
  const session = new SessionValidator({ transport: 'stdio' }, 'stateless');
  const findings = frames.flatMap((f, i) => {
    const found = f.raw !== undefined ? session.raw(f.from, f.raw, i) : session.message(f.from, f.message, i, undefined, JSON.stringify(f.message));
    return f.probe ? [] : found;
  });
  return [...findings, ...session.end()];
}

/** A finding as one line: severity, ids, frame and pointer, message. */
function line(f: Finding): string {
  return `${f.severity} ${f.requirements.join('+')} @${f.frame ?? '-'}${f.pointer}: ${f.message}`;
}

/**
 * Info notes the catalog itself asks for on conforming traffic: a deprecated feature in use
 * (DEPR-GEN-01, "never a failure"), a schema in another dialect than 2020-12 (JSCH-DIAL-03), and
 * a request the example places alone, whose answer is no part of the example (BASE-ID-04).
 */
const EXPECTED_NOTES = new Set(['DEPR-GEN-01', 'JSCH-DIAL-03', 'BASE-ID-04']);

/**
 * Examples that break a rule of the catalog, read against the spec text: each pinned here with its
 * finding, so that none passes unnoticed and none is silently skipped.
 */
const EXAMPLE_FINDINGS: Readonly<Record<string, { finding: string; why: string }>> = {
  'ReadResourceResultResponse/read-resource-result-response.json': {
    finding: 'fail CACHE-RES-01',
    why:
      'a complete resources/read result without ttlMs and cacheScope: ReadResourceResult requires both, and the example validates as ReadResourceResultResponse only because its InputRequiredResult branch needs nothing but resultType (2026-07-28 §19.14: absence is a server failure; ruling cacheable-discover). The sibling example -with-ttl carries them.',
  },
  'CallToolResult/result-with-array-structured-content.json': {
    finding: 'warn TOOL-OUT-03',
    why: 'structuredContent without a text block holding the same JSON: tools.mdx#structured-content says a tool returning structured content SHOULD also return it serialised in a TextContent block; this example\'s text block is prose.',
  },
};

function unexpected(findings: Finding[]): string[] {
  return findings.filter((f) => !(f.severity === 'info' && EXPECTED_NOTES.has(f.requirements[0]!))).map(line);
}

describe('the 2026-07-28 examples', () => {
  it('are all here: 129 messages of 88 definitions, each definition placed', () => {
    expect(examples.length).toBe(129);
    expect(definitions.length).toBe(88);
    expect(definitions.filter((d) => !(d in PLACEMENT))).toEqual([]);
    expect(Object.keys(PLACEMENT).filter((d) => !definitions.includes(d))).toEqual([]);
  });

  for (const { def, file, example } of examples) {
    it(`${def}/${file} validates as ${def} and gets no finding where it belongs`, () => {
      expect(schemaFor('2026-07-28').validate(def, example)).toBeNull();
      const frames = PLACEMENT[def]!(structuredClone(example));
      expect(frames.length).toBeGreaterThan(0);
      const pinned = EXAMPLE_FINDINGS[`${def}/${file}`];
      const found = unexpected(judge(frames));
      if (pinned) {
        expect(found.length, pinned.why).toBe(1);
        expect(found[0]).toMatch(new RegExp(`^${pinned.finding} `));
      } else expect(found).toEqual([]);
    });
  }
});

type Json = Record<string, unknown>;
const read = (def: string, file: string): Json => structuredClone(examples.find((e) => e.def === def && e.file === file)!.example);

/** The ids of the failing and warning findings, each once. */
function ids(findings: Finding[]): string[] {
  return [...new Set(findings.filter((f) => f.severity !== 'info').map((f) => f.requirements.join('+')))];
}

describe('broken copies of the examples get exactly their rule', () => {
  it('a result without resultType: BASE-RES-04', () => {
    const result = read('ListToolsResult', 'tools-list-with-cursor-and-ttl.json');
    delete result.resultType;
    expect(ids(judge(PLACEMENT.ListToolsResult!(result)))).toEqual(['BASE-RES-04']);
  });

  it('ttlMs: -1 on a cacheable result: CACHE-TTL-01', () => {
    const result = read('ListToolsResult', 'tools-list-with-cursor-and-ttl.json');
    result.ttlMs = -1;
    expect(ids(judge(PLACEMENT.ListToolsResult!(result)))).toEqual(['CACHE-TTL-01']);
  });

  it('a cacheable result without cacheScope: CACHE-RES-01', () => {
    const result = read('DiscoverResult', 'server-capabilities-discovery.json');
    delete result.cacheScope;
    expect(ids(judge(PLACEMENT.DiscoverResult!(result)))).toEqual(['CACHE-RES-01']);
  });

  it('an InputRequiredResult with neither inputRequests nor requestState: MRTR-SRV-03', () => {
    const result = read('InputRequiredResult', 'input-required-result-with-request-state-only.json');
    delete result.requestState;
    expect(ids(judge(PLACEMENT.InputRequiredResult!(result)))).toEqual(['MRTR-SRV-03']);
  });

  it('an InputRequiredResult answering tools/list: MRTR-SRV-02', () => {
    const result = read('InputRequiredResult', 'input-required-result-with-request-state-only.json');
    const sent = request('tools/list');
    expect(ids(judge([sent, { from: 'server', message: { jsonrpc: '2.0', id: sent.message.id, result } }]))).toEqual(['MRTR-SRV-02']);
  });

  it('an input request the request did not declare: MRTR-SRV-05, relying on an undeclared capability (META-REQ-04)', () => {
    const result = read('InputRequiredResult', 'input-required-result-with-elicitation-and-sampling-and-request-state.json');
    const sent = request('tools/call', { name: 'get_weather', arguments: {} }, { elicitation: {} });
    expect(ids(judge([sent, { from: 'server', message: { jsonrpc: '2.0', id: sent.message.id, result } }]))).toEqual(['MRTR-SRV-05+META-REQ-04']);
  });

  it('an input request of no input kind, and a duplicate key in the text: MRTR-SRV-04', () => {
    const sent = request('tools/call', { name: 'get_weather', arguments: {} }, { elicitation: {} });
    const bad = { jsonrpc: '2.0', id: sent.message.id, result: { resultType: 'input_required', inputRequests: { a: { method: 'tools/list' } } } };
    expect(ids(judge([sent, { from: 'server', message: bad }]))).toEqual(['MRTR-SRV-04']);
    const session = new SessionValidator({}, 'stateless');
    session.message('client', sent.message, 0);
    const text = `{"jsonrpc":"2.0","id":${JSON.stringify(sent.message.id)},"result":{"resultType":"input_required","inputRequests":{"k":{"method":"roots/list"},"k":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{}}}}}}}`;
    expect(ids(session.message('server', JSON.parse(text), 1, undefined, text))).toEqual(['MRTR-SRV-04']);
  });

  it('a request whose _meta lacks protocolVersion: META-REQ-01', () => {
    const message = read('CallToolRequest', 'call-tool-request.json');
    delete ((message.params as Json)._meta as Json)['io.modelcontextprotocol/protocolVersion'];
    expect(ids(judge([{ from: 'client', message }]))).toEqual(['META-REQ-01']);
  });

  it('a request without clientInfo: META-REQ-02 (a warning)', () => {
    const message = read('CallToolRequest', 'call-tool-request.json');
    delete ((message.params as Json)._meta as Json)['io.modelcontextprotocol/clientInfo'];
    const findings = judge([{ from: 'client', message }]);
    expect(ids(findings)).toEqual(['META-REQ-02']);
    expect(findings[0]!.severity).toBe('warn');
  });

  it('a retired error code: BASE-ERR-08; an undefined one of the modern range: BASE-ERR-07; a legacy one: BASE-ERR-05', () => {
    const error = (code: number) => PLACEMENT.InvalidParamsError!({ code, message: 'Resource not found' });
    expect(ids(judge(error(-32002)))).toEqual(['BASE-ERR-08']);
    expect(ids(judge(error(-32050)))).toEqual(['BASE-ERR-07']);
    expect(ids(judge(error(-32010)))).toEqual(['BASE-ERR-05']);
  });

  it('a −32022 error without data.supported: VER-NEG-01', () => {
    const response = read('UnsupportedProtocolVersionError', 'unsupported-version.json');
    delete ((response.error as Json).data as Json).supported;
    expect(ids(judge(PLACEMENT.UnsupportedProtocolVersionError!(response)))).toEqual(['VER-NEG-01+BASE-ERR-07']);
  });

  it('resultType "task" without the tasks extension: EXT-NEG-02', () => {
    const result = read('CallToolResult', 'result-with-unstructured-text.json');
    result.resultType = 'task';
    expect(ids(judge(PLACEMENT.CallToolResult!(result)))).toEqual(['EXT-NEG-02+BASE-RES-07+TASK-NEG-01']);
  });

  it('an extension identifier without a prefix, from either side: EXT-ID-01', () => {
    expect(ids(judge(PLACEMENT.ClientCapabilities!({ extensions: { tasks: {} } })))).toEqual(['EXT-ID-01']);
    expect(ids(judge(PLACEMENT.ServerCapabilities!({ extensions: { 'ui': {} } })))).toEqual(['EXT-ID-01']);
  });

  it('a removed method, and a server request: BASE-SCHEMA-01, MRTR-SRV-01 (with STDIO-DIR-02 on stdio)', () => {
    expect(ids(judge([request('ping')]))).toEqual(['BASE-SCHEMA-01']);
    const elicit = read('ElicitRequest', 'elicitation-request.json');
    expect(ids(judge([{ from: 'server', message: { jsonrpc: '2.0', id: 5, ...elicit } }]))).toEqual(['MRTR-SRV-01+BASE-DIR-01+STDIO-DIR-02']);
  });

  it('a progress notification on a subscription: SUBS-SCOPE-01', () => {
    const note = read('ProgressNotification', 'progress-message.json');
    (note.params as Json)._meta = { 'io.modelcontextprotocol/subscriptionId': 'listen-1' };
    expect(ids(judge(PLACEMENT.ProgressNotification!(note)))).toEqual(['SUBS-SCOPE-01']);
  });
});
