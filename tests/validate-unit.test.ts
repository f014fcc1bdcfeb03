/**
 * Unit tests of the passive validator, piece by piece: envelope classification, `_meta` keys,
 * per-revision schemas, responses typed by their request, the session ledger (lifecycle, versions,
 * capabilities both ways, ids per direction, cancellation, progress, logging) and frame-level rules.
 * Tests marked `it.fails` pin validator bugs that were reported, not fixed here.
 */
import { describe, expect, it } from 'vitest';
import { checkEnvelope } from '../src/validate/envelope.js';
import type { Finding } from '../src/validate/finding.js';
import { type MessageContext, validateMessage } from '../src/validate/message.js';
import { checkMeta } from '../src/validate/meta.js';
import { type StatefulRevision as Revision } from '../src/spec/revisions.js';
import { schemaFor } from '../src/validate/schemas.js';
import { SessionValidator } from '../src/validate/session.js';
import { checkCallToolResult, checkToolList } from '../src/validate/tools.js';
import { checkContentBlock, checkResourceUri } from '../src/validate/content.js';
import { judgeClientExchange } from '../src/validate/client-http.js';

// ---- helpers ----------------------------------------------------------------------------------

/** "ID:severity" for every finding, all requirement ids joined with "+". */
function tags(findings: Finding[]): string[] {
  return findings.map((f) => `${f.requirements.join('+')}:${f.severity}`);
}

/** Requirement ids cited by fail/warn findings. */
function blocking(findings: Finding[]): string[] {
  return [...new Set(findings.filter((f) => f.severity !== 'info').flatMap((f) => f.requirements))].sort();
}

const rpc = (msg: Record<string, unknown>) => ({ jsonrpc: '2.0', ...msg });
const req = (id: string | number, method: string, params?: unknown) => rpc({ id, method, ...(params !== undefined ? { params } : {}) });
const notif = (method: string, params?: unknown) => rpc({ method, ...(params !== undefined ? { params } : {}) });
const res = (id: string | number, result: unknown) => rpc({ id, result });
const err = (id: string | number | null | undefined, code: unknown, message: unknown = 'failed') =>
  rpc({ ...(id !== undefined ? { id } : {}), error: { code, message } });

function ctx(revision: Revision, from: 'client' | 'server', request?: MessageContext['request']): MessageContext {
  return { from, revision, ...(request ? { request } : {}) };
}

const CLIENT_INFO = { name: 'unit-client', version: '1.0.0' };
const SERVER_INFO = { name: 'unit-server', version: '1.0.0' };

/** A session driven frame by frame; `open()` performs a complete initialization. */
class Harness {
  readonly s: SessionValidator;
  /** The index the next frame gets. */
  n = 0;
  constructor(transport?: 'stdio' | 'http') {
    this.s = new SessionValidator(transport ? { transport } : {});
  }
  client(msg: unknown, raw?: string): Finding[] {
    return this.s.message('client', msg, this.n++, raw);
  }
  server(msg: unknown, raw?: string): Finding[] {
    return this.s.message('server', msg, this.n++, raw);
  }
  open(rev: Revision = '2025-11-25', clientCaps: object = {}, serverCaps: object = {}, serverRev: string = rev): Finding[] {
    return [
      ...this.client(req(1, 'initialize', { protocolVersion: rev, capabilities: clientCaps, clientInfo: CLIENT_INFO })),
      ...this.server(res(1, { protocolVersion: serverRev, capabilities: serverCaps, serverInfo: SERVER_INFO })),
      ...this.client(notif('notifications/initialized')),
    ];
  }
}

// ---- envelope -----------------------------------------------------------------------------------

describe('checkEnvelope: classification', () => {
  it.each([
    ['request', req(1, 'tools/list')],
    ['request', req('abc', 'ping')],
    ['request', req(0, 'ping')],
    ['request', req(-7, 'ping')],
    ['notification', notif('notifications/initialized')],
    ['notification', notif('mcpcheck/custom-notification')],
    ['result', res(1, {})],
    ['result', res('x', { anything: [1, 2] })],
    ['error', err(1, -32601)],
    ['error', err(undefined, -32700, 'Parse error')],
  ])('%s: %j', (kind, message) => {
    const env = checkEnvelope(message);
    expect(env.kind).toBe(kind);
    expect(env.findings).toEqual([]);
  });

  it('keeps the method and id of requests', () => {
    const env = checkEnvelope(req('r-1', 'tools/call', { name: 'x' }));
    expect(env).toMatchObject({ kind: 'request', method: 'tools/call', id: 'r-1' });
  });

  it('BASE-MSG-05: a top-level array is a batch', () => {
    const env = checkEnvelope([req(1, 'ping'), req(2, 'ping')]);
    expect(env.kind).toBe('invalid');
    expect(tags(env.findings)).toEqual(['BASE-MSG-05:fail']);
  });

  it.each([[null], [5], ['{"jsonrpc":"2.0"}'], [true]])('BASE-MSG-01: a non-object frame %j', (message) => {
    const env = checkEnvelope(message);
    expect(env.kind).toBe('invalid');
    expect(tags(env.findings)).toEqual(['BASE-MSG-01:fail']);
  });

  it.each([['1.0'], [2], [undefined], ['2.0 ']])('BASE-MSG-01: "jsonrpc": %j', (version) => {
    const msg: Record<string, unknown> = { id: 1, method: 'ping' };
    if (version !== undefined) msg.jsonrpc = version;
    expect(tags(checkEnvelope(msg).findings)).toEqual(['BASE-MSG-01:fail']);
  });

  it('BASE-MSG-01: a method that is not a string', () => {
    const env = checkEnvelope(rpc({ id: 1, method: 42 }));
    expect(env.kind).toBe('invalid');
    expect(tags(env.findings)).toEqual(['BASE-MSG-01:fail']);
  });

  it('BASE-MSG-01: a member set that is neither request nor response', () => {
    expect(tags(checkEnvelope(rpc({ id: 1 })).findings)).toEqual(['BASE-MSG-01:fail']);
    expect(tags(checkEnvelope(rpc({ id: 1, method: 'ping', result: {} })).findings)).toEqual(['BASE-MSG-01:fail']);
  });

  it.each([[1.5], [true], [{ n: 1 }], [[1]]])('BASE-ID-01: request id %j', (id) => {
    const env = checkEnvelope(rpc({ id, method: 'ping' }));
    expect(env.kind).toBe('invalid');
    expect(tags(env.findings)).toEqual(['BASE-ID-01:fail']);
  });

  it('BASE-ID-02: a null request id', () => {
    const env = checkEnvelope(rpc({ id: null, method: 'tools/list' }));
    expect(env.kind).toBe('invalid');
    expect(tags(env.findings)).toEqual(['BASE-ID-02:fail']);
  });

  it('BASE-NOTIF-01: a notifications/* method with an id is still a notification, with a finding', () => {
    for (const id of [1, 'x', null]) {
      const env = checkEnvelope(rpc({ id, method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }));
      expect(env.kind).toBe('notification');
      expect(tags(env.findings)).toEqual(['BASE-NOTIF-01:fail']);
    }
  });

  it('BASE-MSG-04: result and error together', () => {
    const env = checkEnvelope(rpc({ id: 1, result: {}, error: { code: -1, message: 'x' } }));
    expect(tags(env.findings)).toEqual(['BASE-MSG-04:fail']);
  });

  it.each([[[]], ['ok'], [0], [null], [[{}]]])('BASE-RES-02: result %j is not an object', (result) => {
    expect(tags(checkEnvelope(res(1, result)).findings)).toEqual(['BASE-RES-02:fail']);
  });

  it('BASE-RES-01: a result without a usable id', () => {
    expect(tags(checkEnvelope(rpc({ result: {} })).findings)).toEqual(['BASE-RES-01:fail']);
    expect(tags(checkEnvelope(rpc({ id: null, result: {} })).findings)).toEqual(['BASE-RES-01:fail']);
    expect(tags(checkEnvelope(rpc({ id: 2.5, result: {} })).findings)).toEqual(['BASE-RES-01:fail']);
  });

  it.each([['-32601'], [-32601.5], [null], [undefined]])('BASE-ERR-02: error code %j', (code) => {
    expect(tags(checkEnvelope(err(1, code)).findings)).toEqual(['BASE-ERR-02:fail']);
  });

  it('BASE-ERR-02: error message not a string, error not an object', () => {
    expect(tags(checkEnvelope(err(1, -32600, 7)).findings)).toEqual(['BASE-ERR-02:fail']);
    expect(tags(checkEnvelope(rpc({ id: 1, error: 'boom' })).findings)).toEqual(['BASE-ERR-02:fail']);
    expect(tags(checkEnvelope(rpc({ id: 1, error: [] })).findings)).toEqual(['BASE-ERR-02:fail']);
  });

  it('ROBUST-08: "id": null on an error is only an info note', () => {
    const env = checkEnvelope(err(null, -32700, 'Parse error'));
    expect(env.kind).toBe('error');
    expect(tags(env.findings)).toEqual(['ROBUST-08:info']);
    expect(env.id).toBeUndefined();
  });

  it('BASE-ERR-01: an error id of the wrong type', () => {
    expect(tags(checkEnvelope(rpc({ id: { x: 1 }, error: { code: -32600, message: 'x' } })).findings)).toEqual(['BASE-ERR-01:fail']);
  });

  it('an error may carry data of any type', () => {
    for (const data of [null, 1, 'x', [1], { uri: 'file:///x' }]) {
      expect(checkEnvelope(rpc({ id: 1, error: { code: -32002, message: 'Resource not found', data } })).findings).toEqual([]);
    }
  });
});

// ---- _meta ---------------------------------------------------------------------------------------

describe('checkMeta: key grammar and reserved keys', () => {
  const P = '/params/_meta';
  const one = (key: string, value: unknown = 'v') => tags(checkMeta({ [key]: value }, P));

  it.each([
    'progressToken', 'x', 'a1', 'trace-id', 'a.b_c-d', '9lives', '', 'com.example/trace-id', 'com.example/', 'io.github.acme/x',
    'a/b', 'a1-b2.c3/v2.0', 'com.example-corp.tools/cache_hit', 'X/Y',
  ])('valid key %j', (key) => {
    expect(one(key)).toEqual([]);
  });

  it.each(['1abc/x', 'ab-/x', '-ab/x', 'a_b/x', '/x', 'com..example/x', 'com.example./x', 'com.ex ample/x', 'com:example/x', 'cöm.example/x'])(
    'META-KEY-02: bad prefix label in %j',
    (key) => {
      expect(one(key)).toContain('META-KEY-02:fail');
      expect(one(key)).not.toContain('META-KEY-04:fail');
    },
  );

  it.each(['-x', 'x-', '_x', 'x_', '.x', 'x.', 'a b', 'a:b', 'naïve', 'com.example/-x', 'com.example/x_', 'com.example/a/b', 'a/b/c', 'com.example/ x'])(
    'META-KEY-04: bad name in %j',
    (key) => {
      expect(one(key)).toContain('META-KEY-04:fail');
    },
  );

  it.each(['example.com/x', 'acme.io/x', 'github.io/x', 'my-app.dev/x'])('META-KEY-03: %j looks like a forward domain (warning)', (key) => {
    expect(one(key)).toEqual(['META-KEY-03:warn']);
  });

  it.each(['com.example/x', 'io.github/x', 'dev.acme.tools/x', 'localhost/x', 'internal.build/x'])('no META-KEY-03 for %j', (key) => {
    expect(one(key)).toEqual([]);
  });

  it.each(['io.modelcontextprotocol/foo', 'dev.mcp/x', 'com.mcp.tools/x', 'org.modelcontextprotocol.sub/x', 'IO.MCP/x'])('META-RSV-01: %j is a reserved prefix', (key) => {
    expect(one(key)).toContain('META-RSV-01:fail');
  });

  it.each(['com.example.mcp/x', 'mcp/x', 'mcp.example/x', 'io.modelcontextprotocolx/x'])('not reserved: %j', (key) => {
    expect(one(key).filter((t) => t.startsWith('META-RSV'))).toEqual([]);
  });

  it('the spec-defined reserved keys are allowed with their defined shapes', () => {
    expect(tags(checkMeta({ 'io.modelcontextprotocol/related-task': { taskId: 't-1' } }, P))).toEqual([]);
    expect(tags(checkMeta({ 'io.modelcontextprotocol/model-immediate-response': 'Working on it' }, P))).toEqual([]);
  });

  it('META-RSV-03: values at defined keys have their defined shape', () => {
    expect(one('io.modelcontextprotocol/related-task', { id: 't' })).toEqual(['META-RSV-03:fail']);
    expect(one('io.modelcontextprotocol/related-task', 't')).toEqual(['META-RSV-03:fail']);
    expect(one('io.modelcontextprotocol/model-immediate-response', 5)).toEqual(['META-RSV-03:warn']);
    // 2026-07-28 restates the progressToken rule as META-RSV-04: the finding cites both, each revision keeps its own.
    for (const bad of [{ id: 1 }, 1.5, null, true, ['a']]) expect(one('progressToken', bad), JSON.stringify(bad)).toEqual(['META-RSV-03+META-RSV-04:fail']);
    for (const good of ['tok', 0, -3, 12345678901]) expect(one('progressToken', good)).toEqual([]);
  });

  it.each([[null], ['x'], [[]], [3]])('META-RSV-03: _meta %j is not an object', (meta) => {
    expect(tags(checkMeta(meta, P))).toEqual(['META-RSV-03:fail']);
  });

  it('META-OTEL-01: traceparent, tracestate and baggage follow W3C, judged at 2026-07-28 only', () => {
    const otel = (key: string, value: unknown) => tags(checkMeta({ [key]: value }, P, 'stateless'));
    for (const good of ['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00-later-field']) expect(otel('traceparent', good), good).toEqual([]);
    const badParents = [
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-more',
      '00-mcpcheck',
    ];
    for (const bad of [...badParents, 7]) expect(otel('traceparent', bad), String(bad)).toEqual(['META-OTEL-01:fail']);
    for (const good of ['rojo=00f067aa0ba902b7,congo=t61rcWkgMzE', 'tenant@vendor=x', '', 'a=1 , b=2']) expect(otel('tracestate', good), good).toEqual([]);
    for (const bad of ['Rojo=1', 'rojo', 'a=b=c', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')]) expect(otel('tracestate', bad), bad).toEqual(['META-OTEL-01:fail']);
    for (const good of ['userId=alice,serverNode=DF%2028,isProduction=false', 'k=v;prop1;p2=x', 'k = v']) expect(otel('baggage', good), good).toEqual([]);
    for (const bad of ['key with space=1', 'k="quoted"', 'novalue', 'k=v;bad prop']) expect(otel('baggage', bad), bad).toEqual(['META-OTEL-01:fail']);
    // The initialize era reserves no such keys; other keys, even on Object.prototype, are none of its business.
    expect(tags(checkMeta({ traceparent: 'x' }, P))).toEqual([]);
    expect(otel('constructor', 'x')).toEqual([]);
  });

  it('findings point at the key (RFC 6901 escaped)', () => {
    const [f] = checkMeta({ 'com.1x/a~b': 1 }, P);
    expect(f?.pointer).toBe('/params/_meta/com.1x~1a~0b');
  });

  it('validateMessage finds _meta at any depth', () => {
    const msg = res(1, { tools: [{ name: 't', inputSchema: { type: 'object' }, _meta: { 'bad key': 1 } }], _meta: { 'com.example/ok': 1 } });
    const findings = validateMessage(msg, ctx('2025-11-25', 'server', { method: 'tools/list' }));
    expect(tags(findings)).toEqual(['META-KEY-04:fail']);
    expect(findings[0]?.pointer).toBe('/result/tools/0/_meta/bad key');
  });
});

// ---- per-method schemas per revision ---------------------------------------------------------------

describe('validateMessage: per-method schema of each revision', () => {
  const REVS: Revision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

  it.each(REVS)('%s: a correct initialize request and result', (rev) => {
    const init = req(1, 'initialize', { protocolVersion: rev, capabilities: { roots: { listChanged: true }, sampling: {} }, clientInfo: CLIENT_INFO });
    expect(tags(validateMessage(init, ctx(rev, 'client')))).toEqual([]);
    const result = res(1, { protocolVersion: rev, capabilities: { tools: { listChanged: true }, logging: {} }, serverInfo: SERVER_INFO });
    expect(tags(validateMessage(result, ctx(rev, 'server', { method: 'initialize' })))).toEqual([]);
  });

  it.each(REVS)('%s: initialize without clientInfo breaks BASE-SCHEMA-01 and LIFE-INIT-01', (rev) => {
    const init = req(1, 'initialize', { protocolVersion: rev, capabilities: {} });
    expect(tags(validateMessage(init, ctx(rev, 'client')))).toEqual(['BASE-SCHEMA-01+LIFE-INIT-01:fail']);
  });

  it.each(REVS)('%s: tools/call without name breaks BASE-SCHEMA-01', (rev) => {
    expect(tags(validateMessage(req(3, 'tools/call', { arguments: {} }), ctx(rev, 'client')))).toEqual(['BASE-SCHEMA-01:fail']);
  });

  it.each(REVS)('%s: capability shape errors are LIFE-CAP-01', (rev) => {
    const init = req(1, 'initialize', { protocolVersion: rev, capabilities: { roots: { listChanged: 'yes' } }, clientInfo: CLIENT_INFO });
    expect(blocking(validateMessage(init, ctx(rev, 'client')))).toContain('LIFE-CAP-01');
  });

  const audio = res(2, { content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] });
  it('audio content: not in 2024-11-05, allowed from 2025-03-26', () => {
    const call = { method: 'tools/call', params: { name: 'x' } };
    // A later revision's construct departs from the negotiated version: LIFE-OP-01, a SHOULD in
    // 2024-11-05 (ruling later-revision-construct).
    expect(tags(validateMessage(audio, ctx('2024-11-05', 'server', call)))).toEqual(['LIFE-OP-01+BASE-RES-03+TOOL-CALL-01:warn']);
    for (const rev of REVS.slice(1)) expect(tags(validateMessage(audio, ctx(rev, 'server', call))), rev).toEqual([]);
  });

  const link = res(2, { content: [{ type: 'resource_link', uri: 'file:///a.txt', name: 'a' }] });
  it('resource_link content: allowed from 2025-06-18', () => {
    const call = { method: 'tools/call', params: { name: 'x' } };
    for (const rev of REVS.slice(0, 2)) expect(tags(validateMessage(link, ctx(rev, 'server', call))), rev).toEqual(['LIFE-OP-01+BASE-RES-03+TOOL-CALL-01:warn']);
    for (const rev of REVS.slice(2)) expect(tags(validateMessage(link, ctx(rev, 'server', call))), rev).toEqual([]);
  });

  it('elicitation content: string arrays only from 2025-11-25', () => {
    const accept = res(4, { action: 'accept', content: { colours: ['red', 'blue'] } });
    const request = { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: {} } } };
    // LIFE-OP-01 is a MUST from 2025-06-18: the later construct fails there.
    expect(tags(validateMessage(accept, ctx('2025-06-18', 'client', request)))).toEqual(['LIFE-OP-01+BASE-RES-03+ELIC-RESP-01:fail']);
    expect(tags(validateMessage(accept, ctx('2025-11-25', 'client', request)))).toEqual([]);
  });

  it('sampling results with tool_use blocks: only from 2025-11-25', () => {
    const result = res(5, { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'f', input: {} }], model: 'm', stopReason: 'toolUse' });
    const request = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };
    expect(tags(validateMessage(result, ctx('2025-06-18', 'client', request)))).toEqual(['LIFE-OP-01+BASE-RES-03+SAMP-RES-01:fail']);
    expect(tags(validateMessage(result, ctx('2025-11-25', 'client', request)))).toEqual([]);
  });

  it('URL-mode elicitation: valid in 2025-11-25, a schema failure in 2025-06-18', () => {
    const msg = req(6, 'elicitation/create', { mode: 'url', message: 'Sign in', elicitationId: 'e', url: 'https://example.com/x' });
    expect(tags(validateMessage(msg, ctx('2025-11-25', 'server')))).toEqual([]);
    expect(blocking(validateMessage(msg, ctx('2025-06-18', 'server')))).toContain('BASE-SCHEMA-01');
  });

  it('notifications/cancelled without requestId: a schema failure before 2025-11-25 only', () => {
    const msg = notif('notifications/cancelled', { reason: 'x' });
    for (const rev of REVS.slice(0, 2)) expect(tags(validateMessage(msg, ctx(rev, 'client'))), rev).toEqual(['LIFE-OP-01+BASE-SCHEMA-01+CANCEL-04:warn']);
    expect(tags(validateMessage(msg, ctx('2025-06-18', 'client')))).toEqual(['LIFE-OP-01+BASE-SCHEMA-01+CANCEL-04:fail']);
    expect(tags(validateMessage(msg, ctx('2025-11-25', 'client')))).toEqual([]);
  });

  it('LIFE-OP-01: methods newer than the negotiated revision', () => {
    // "Both parties SHOULD: Respect the negotiated protocol version" in 2025-03-26; MUST from 2025-06-18.
    expect(tags(validateMessage(req(2, 'elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties: {} } }), ctx('2025-03-26', 'server')))).toEqual(['LIFE-OP-01:warn']);
    expect(tags(validateMessage(req(2, 'tasks/get', { taskId: 't' }), ctx('2025-06-18', 'client')))).toEqual(['LIFE-OP-01:fail']);
    expect(tags(validateMessage(notif('notifications/elicitation/complete', { elicitationId: 'e' }), ctx('2025-06-18', 'server')))).toEqual(['LIFE-OP-01:fail']);
    expect(tags(validateMessage(req(2, 'tasks/get', { taskId: 't' }), ctx('2025-11-25', 'client')))).toEqual([]);
  });

  it('BASE-SCHEMA-01: requests and notifications sent in the wrong direction', () => {
    expect(blocking(validateMessage(req(2, 'sampling/createMessage', { messages: [], maxTokens: 1 }), ctx('2025-11-25', 'client')))).toEqual(['BASE-SCHEMA-01']);
    expect(blocking(validateMessage(req(2, 'tools/list'), ctx('2025-11-25', 'server')))).toEqual(['BASE-SCHEMA-01']);
    expect(blocking(validateMessage(notif('notifications/initialized'), ctx('2025-11-25', 'server')))).toEqual(['BASE-SCHEMA-01']);
    expect(blocking(validateMessage(notif('notifications/message', { level: 'info', data: 1 }), ctx('2025-11-25', 'client')))).toEqual(['BASE-SCHEMA-01']);
    // Both sides may ping, cancel, report progress; custom methods are not judged.
    for (const from of ['client', 'server'] as const) {
      expect(tags(validateMessage(req(2, 'ping'), ctx('2025-11-25', from)))).toEqual([]);
      expect(tags(validateMessage(notif('notifications/cancelled', { requestId: 1 }), ctx('2025-11-25', from)))).toEqual([]);
      expect(tags(validateMessage(notif('notifications/progress', { progressToken: 't', progress: 1 }), ctx('2025-11-25', from)))).toEqual([]);
      expect(tags(validateMessage(req(2, 'com.example/custom', { any: 1 }), ctx('2025-11-25', from)))).toEqual([]);
    }
  });

  it('every revision schema resolves the definitions the validator relies on', () => {
    for (const rev of REVS) {
      const s = schemaFor(rev);
      expect(s.requestDef('tools/call')).toBe('CallToolRequest');
      expect(s.resultDef('ping', false)).toBe('EmptyResult');
      expect(s.resultDef('tools/list', false)).toBe('ListToolsResult');
      expect(s.notificationDef('notifications/progress')).toBe('ProgressNotification');
      expect(s.requestDef('mcpcheck/none')).toBeUndefined();
    }
    expect(schemaFor('2025-06-18').requestDef('elicitation/create')).toBe('ElicitRequest');
    expect(schemaFor('2025-03-26').requestDef('elicitation/create')).toBeUndefined();
    expect(schemaFor('2025-11-25').resultDef('tools/call', true)).toBe('CreateTaskResult');
    expect(schemaFor('2025-06-18').resultDef('tools/call', true)).toBe('CallToolResult');
  });
});

// ---- responses typed by their request ---------------------------------------------------------------

describe('validateMessage: a response is typed by the request it answers (BASE-RES-03)', () => {
  const task = { taskId: 't-1', status: 'working', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttl: null };

  it('the same result passes or fails depending on the method', () => {
    const result = res(2, { tools: [] });
    expect(tags(validateMessage(result, ctx('2025-11-25', 'server', { method: 'tools/list' })))).toEqual([]);
    expect(tags(validateMessage(result, ctx('2025-11-25', 'server', { method: 'prompts/list' })))).toEqual(['BASE-RES-03+PROMPT-LIST-01:fail']);
    expect(tags(validateMessage(result, ctx('2025-11-25', 'server', { method: 'resources/list' })))).toEqual(['BASE-RES-03+RES-LIST-01:fail']);
  });

  it('PING-01 and the other empty results', () => {
    expect(tags(validateMessage(res(2, {}), ctx('2025-11-25', 'server', { method: 'ping' })))).toEqual([]);
    expect(tags(validateMessage(res(2, { _meta: { 'com.example/x': 1 } }), ctx('2025-11-25', 'client', { method: 'ping' })))).toEqual([]);
    expect(tags(validateMessage(res(2, { ok: true }), ctx('2025-11-25', 'client', { method: 'ping' })))).toEqual(['PING-01:fail']);
    expect(tags(validateMessage(res(2, {}), ctx('2025-11-25', 'server', { method: 'logging/setLevel', params: { level: 'info' } })))).toEqual([]);
  });

  it('a task-augmented request is answered by a CreateTaskResult, or by its own result (a receiver that did not declare tasks for it)', () => {
    const request = { method: 'tools/call', params: { name: 'x', task: { ttl: 1000 } } };
    expect(tags(validateMessage(res(2, { task }), ctx('2025-11-25', 'server', request)))).toEqual([]);
    // Which of the two was owed is the session's to judge (TASK-SUP-01, TASK-CREATE-01): it knows the capabilities.
    expect(tags(validateMessage(res(2, { content: [{ type: 'text', text: 'done' }] }), ctx('2025-11-25', 'server', request)))).toEqual([]);
    expect(blocking(validateMessage(res(2, { task: { ...task, status: 'sleeping' } }), ctx('2025-11-25', 'server', request)))).toContain('BASE-RES-03');
  });

  it('task augmentation of sampling and elicitation requests (server → client)', () => {
    const sampling = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1, task: {} } };
    expect(tags(validateMessage(res(2, { task }), ctx('2025-11-25', 'client', sampling)))).toEqual([]);
    // A plain result is judged as the method's own: a receiver that did not declare tasks for it answers so (TASK-SUP-01); whether one was owed is the session's to say (TASK-CREATE-01).
    expect(tags(validateMessage(res(2, { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' }), ctx('2025-11-25', 'client', sampling)))).toEqual([]);
    expect(blocking(validateMessage(res(2, { role: 'assistant' }), ctx('2025-11-25', 'client', sampling)))).toContain('BASE-RES-03');
  });

  it('before 2025-11-25 a `task` member does not change the expected result', () => {
    const request = { method: 'tools/call', params: { name: 'x', task: {} } };
    expect(tags(validateMessage(res(2, { content: [] }), ctx('2025-06-18', 'server', request)))).toEqual([]);
  });

  it('tasks/get, tasks/list, tasks/cancel results', () => {
    expect(tags(validateMessage(res(2, task), ctx('2025-11-25', 'server', { method: 'tasks/get', params: { taskId: 't-1' } })))).toEqual([]);
    expect(tags(validateMessage(res(2, { tasks: [task] }), ctx('2025-11-25', 'server', { method: 'tasks/list' })))).toEqual([]);
    expect(blocking(validateMessage(res(2, { taskId: 't-1' }), ctx('2025-11-25', 'server', { method: 'tasks/get', params: { taskId: 't-1' } })))).toEqual(['BASE-RES-03']);
  });

  it('results of unknown methods, or without a known request, are not typed', () => {
    expect(tags(validateMessage(res(2, { whatever: 1 }), ctx('2025-11-25', 'server', { method: 'com.example/custom' })))).toEqual([]);
    expect(tags(validateMessage(res(2, { whatever: 1 }), ctx('2025-11-25', 'server')))).toEqual([]);
  });

  it('COMP-RES-01: at most 100 completion values (the schema has no maxItems)', () => {
    const request = { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } } };
    const values = (n: number) => res(2, { completion: { values: Array.from({ length: n }, (_, i) => `v${i}`) } });
    expect(tags(validateMessage(values(100), ctx('2025-11-25', 'server', request)))).toEqual([]);
    expect(tags(validateMessage(values(101), ctx('2025-11-25', 'server', request)))).toEqual(['COMP-RES-01:fail']);
  });

  it('ROOTS-LIST-01: root URIs are file:// URIs', () => {
    const ok = res(2, { roots: [{ uri: 'file:///home/a' }, { uri: 'file://host/share', name: 'share' }] });
    expect(tags(validateMessage(ok, ctx('2025-11-25', 'client', { method: 'roots/list' })))).toEqual([]);
    const bad = res(2, { roots: [{ uri: 'https://example.com/repo' }] });
    expect(tags(validateMessage(bad, ctx('2025-11-25', 'client', { method: 'roots/list' })))).toEqual(['ROOTS-LIST-01:fail']);
  });

  it('ELIC-URL-03 and ELIC-RESP-02 depend on the mode of the request', () => {
    const url = { method: 'elicitation/create', params: { mode: 'url', message: 'm', elicitationId: 'e', url: 'https://example.com' } };
    expect(tags(validateMessage(res(2, { action: 'accept' }), ctx('2025-11-25', 'client', url)))).toEqual([]);
    expect(tags(validateMessage(res(2, { action: 'accept', content: {} }), ctx('2025-11-25', 'client', url)))).toEqual(['ELIC-URL-03:fail']);
    const form = { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] } } };
    expect(tags(validateMessage(res(2, { action: 'accept', content: { n: 3 } }), ctx('2025-11-25', 'client', form)))).toEqual([]);
    expect(tags(validateMessage(res(2, { action: 'accept', content: { n: 0 } }), ctx('2025-11-25', 'client', form)))).toEqual(['ELIC-RESP-02:warn']);
    expect(tags(validateMessage(res(2, { action: 'decline' }), ctx('2025-11-25', 'client', form)))).toEqual([]);
  });

  it('requestedSchema: `pattern` (shown by the page, absent from schema.ts) and legacy enumNames are accepted (§15.13); enumNames gets a deprecation note', () => {
    const props = { zip: { type: 'string', pattern: '^[0-9]{5}$' }, c: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] } };
    expect(tags(validateMessage(req(3, 'elicitation/create', { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: props } }), ctx('2025-11-25', 'server')))).toEqual(['ELIC-FORM-04:info']);
  });

  // ELIC-RESP-01 / §15.14: schema.json narrows ElicitResult.content numbers to integers, schema.ts allows any number.
  it('a non-integer answer to a `number` property is a valid ElicitResult', () => {
    const form = { method: 'elicitation/create', params: { message: 'Price?', requestedSchema: { type: 'object', properties: { price: { type: 'number', minimum: 0 } } } } };
    for (const rev of ['2025-06-18', '2025-11-25'] as const) {
      expect(tags(validateMessage(res(2, { action: 'accept', content: { price: 9.5 } }), ctx(rev, 'client', form))), rev).toEqual([]);
    }
  });
});

// ---- tools and content -------------------------------------------------------------------------------

describe('tools and content blocks', () => {
  it('checkToolList: names, root types and schema validity', () => {
    expect(checkToolList({ tools: [{ name: 'a.b-c_d', inputSchema: { type: 'object' } }] })).toEqual([]);
    expect(tags(checkToolList({ tools: [{ name: 'has space', inputSchema: { type: 'object' } }] }))).toEqual(['TOOL-NAME-01:warn']);
    expect(tags(checkToolList({ tools: [{ name: 'x'.repeat(129), inputSchema: { type: 'object' } }] }))).toEqual(['TOOL-NAME-01:warn']);
    expect(tags(checkToolList({ tools: [{ name: 'a', inputSchema: { type: 'object' } }, { name: 'a', inputSchema: { type: 'object' } }] }))).toEqual(['TOOL-NAME-03:warn']);
    expect(tags(checkToolList({ tools: [{ name: 'a', inputSchema: null }] }))).toEqual(['TOOL-SCHEMA-01:fail']);
    expect(tags(checkToolList({ tools: [{ name: 'a', inputSchema: { type: 'object' }, outputSchema: { type: 'string' } }] }))).toEqual(['TOOL-SCHEMA-01:fail']);
    expect(tags(checkToolList({ tools: [{ name: 'a', inputSchema: { type: 'object', properties: { x: { minimum: 'one' } } } }] }))).toEqual(['JSCH-VAL-03:fail']);
  });

  it('checkCallToolResult: structuredContent against outputSchema, text mirror, isError exemption', () => {
    const tool = { name: 'w', outputSchema: { type: 'object', properties: { t: { type: 'number' } }, required: ['t'] } };
    const mirror = (v: unknown) => [{ type: 'text', text: JSON.stringify(v) }];
    expect(checkCallToolResult({ content: mirror({ t: 1 }), structuredContent: { t: 1 } }, tool)).toEqual([]);
    expect(tags(checkCallToolResult({ content: mirror({ t: 'x' }), structuredContent: { t: 'x' } }, tool))).toEqual(['TOOL-OUT-01:fail']);
    expect(tags(checkCallToolResult({ content: [{ type: 'text', text: 'one' }] }, tool))).toEqual(['TOOL-OUT-01:fail']);
    expect(checkCallToolResult({ content: [{ type: 'text', text: 'failed' }], isError: true }, tool)).toEqual([]);
    expect(tags(checkCallToolResult({ content: [{ type: 'text', text: 'one' }], structuredContent: { t: 1 } }, tool))).toEqual(['TOOL-OUT-03:warn']);
    // Key order and whitespace of the mirror do not matter.
    expect(checkCallToolResult({ content: [{ type: 'text', text: '{ "b": 2, "t": 1 }' }], structuredContent: { t: 1, b: 2 } }, undefined)).toEqual([]);
  });

  it('checkContentBlock: base64, MIME families, embedded resources', () => {
    expect(checkContentBlock({ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }, '', 'TOOL-CONT-01')).toEqual([]);
    expect(tags(checkContentBlock({ type: 'image', data: 'iVBORw0KGgo', mimeType: 'image/png' }, '', 'TOOL-CONT-01'))).toEqual(['TOOL-CONT-01:fail']);
    expect(tags(checkContentBlock({ type: 'audio', data: 'AAAA', mimeType: 'image/png' }, '', 'TOOL-CONT-01'))).toEqual(['TOOL-CONT-01:fail']);
    expect(tags(checkContentBlock({ type: 'resource', resource: { uri: 'file:///a', blob: '***' } }, '', 'TOOL-CONT-01'))).toEqual(['TOOL-CONT-01:fail']);
    expect(tags(checkContentBlock({ type: 'resource', resource: { uri: 'file:///a', text: 'x' } }, '', 'PROMPT-CONT-01', true))).toEqual(['PROMPT-CONT-01:fail']);
    expect(checkContentBlock({ type: 'resource', resource: { uri: 'file:///a', text: 'x', mimeType: 'text/plain' } }, '', 'PROMPT-CONT-01', true)).toEqual([]);
  });

  it('checkResourceUri (RES-URI-02)', () => {
    for (const ok of ['file:///a', 'db://x/y?z=1', 'urn:isbn:0451450523', 'git+ssh://h/r', 'x-custom.scheme:abc']) expect(checkResourceUri(ok, ''), ok).toEqual([]);
    for (const bad of ['not a uri', '/relative/path', 'file:///a b', '1abc:x', 'http://x/<y>']) expect(tags(checkResourceUri(bad, '')), bad).toEqual(['RES-URI-02:fail']);
  });
});

// ---- session: lifecycle and versions --------------------------------------------------------------------

describe('SessionValidator: lifecycle', () => {
  it('a correct opening has no findings and sets the revision', () => {
    const h = new Harness();
    expect(tags(h.open('2025-06-18'))).toEqual([]);
    expect(h.s.revision).toBe('2025-06-18');
    expect(h.s.end()).toEqual([]);
  });

  it('LIFE-INIT-01: the first client message must be initialize (ping too is not allowed first)', () => {
    const h = new Harness();
    expect(blocking(h.client(req(1, 'tools/list')))).toContain('LIFE-INIT-01');
    const h2 = new Harness();
    expect(blocking(h2.client(req(1, 'ping')))).toEqual(['LIFE-INIT-01']);
  });

  it('LIFE-INIT-04 (SHOULD): requests before the initialize response; ping is allowed', () => {
    const h = new Harness();
    h.client(req(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO }));
    expect(tags(h.client(req(2, 'ping')))).toEqual([]);
    expect(tags(h.client(req(3, 'tools/list')))).toEqual(['LIFE-INIT-04:warn']);
  });

  it('LIFE-INIT-03: requests after the initialize response but before initialized; ping is allowed', () => {
    const h = new Harness();
    h.client(req(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO }));
    h.server(res(1, { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: SERVER_INFO }));
    expect(tags(h.client(req(2, 'ping')))).toEqual([]);
    expect(tags(h.client(req(3, 'tools/list')))).toEqual(['LIFE-INIT-03:fail']);
    expect(tags(h.s.end()).some((t) => t.startsWith('LIFE-INIT-03'))).toBe(true);
  });

  it('LIFE-INIT-03: initialized before the initialize response', () => {
    const h = new Harness();
    h.client(req(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO }));
    expect(tags(h.client(notif('notifications/initialized')))).toEqual(['LIFE-INIT-03:fail']);
  });

  it('LIFE-INIT-05 (SHOULD): server requests before initialized; ping and log notifications are fine', () => {
    const h = new Harness();
    h.client(req(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: CLIENT_INFO }));
    h.server(res(1, { protocolVersion: '2025-11-25', capabilities: { logging: {} }, serverInfo: SERVER_INFO }));
    expect(tags(h.server(req(1, 'ping')))).toEqual([]);
    expect(tags(h.server(notif('notifications/message', { level: 'info', data: 'x' })))).toEqual([]);
    expect(tags(h.server(req(2, 'roots/list')))).toEqual(['LIFE-INIT-05:warn']);
  });

  it('negotiating down switches the schema used for everything after the initialize result', () => {
    const h = new Harness();
    expect(tags(h.open('2025-11-25', { elicitation: { form: {} } }, {}, '2025-06-18'))).toEqual([]);
    expect(h.s.revision).toBe('2025-06-18');
    // A URL-mode elicitation is not a 2025-06-18 message.
    expect(blocking(h.server(req(1, 'elicitation/create', { mode: 'url', message: 'm', elicitationId: 'e', url: 'https://example.com' })))).toContain('BASE-SCHEMA-01');
    // 2025-11-25-only methods break LIFE-OP-01.
    expect(blocking(h.client(req(2, 'tasks/list')))).toContain('LIFE-OP-01');
  });
});

describe('SessionValidator: LIFE-VER-04 and ruling unsupported-version-error', () => {
  const initWith = (version: string) => {
    const h = new Harness();
    h.client(req(1, 'initialize', { protocolVersion: version, capabilities: {}, clientInfo: CLIENT_INFO }));
    return h;
  };

  it('an error answering an unsupported version fails LIFE-VER-04 and cites the ruling', () => {
    const h = initWith('1999-01-01');
    const findings = h.server(rpc({ id: 1, error: { code: -32602, message: 'Unsupported protocol version', data: { supported: ['2025-11-25'], requested: '1999-01-01' } } }));
    expect(tags(findings)).toEqual(['LIFE-VER-04:fail']);
    expect(findings[0]?.message).toMatch(/15\.1/);
  });

  it('an error answering a string that is no version warns (SHOULD) under the same ruling', () => {
    const h = initWith('mcpcheck-unsupported');
    const findings = h.server(err(1, -32602, 'Invalid params: protocolVersion'));
    expect(tags(findings)).toEqual(['LIFE-VER-04:warn']);
    expect(findings[0]?.level).toBe('SHOULD');
    expect(findings[0]?.message).toContain('ruling unsupported-version-error');
  });

  it('a result naming a date that is no MCP revision fails LIFE-VER-04 (1999-01-01 for 2025-11-25)', () => {
    const h = initWith('2025-11-25');
    const findings = h.server(res(1, { protocolVersion: '1999-01-01', capabilities: {}, serverInfo: SERVER_INFO }));
    expect(blocking(findings)).toEqual(['LIFE-VER-04']);
    expect(findings.find((f) => f.severity === 'fail')?.message).toContain('no MCP revision');
  });

  it('echoing a requested string that is no version fails LIFE-VER-04 too', () => {
    const h = initWith('mcpcheck-unsupported');
    expect(blocking(h.server(res(1, { protocolVersion: 'mcpcheck-unsupported', capabilities: {}, serverInfo: SERVER_INFO })))).toEqual(['LIFE-VER-04']);
  });

  it('a supported version echoed does not count as exercising LIFE-VER-04', () => {
    const h = new Harness();
    h.open('2025-11-25');
    expect(h.s.appliedBy.server.has('LIFE-VER-04')).toBe(false);
  });

  it('a result naming another version the server supports is the correct answer', () => {
    const h = initWith('1999-01-01');
    expect(tags(h.server(res(1, { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: SERVER_INFO })))).toEqual([]);
    expect(h.s.revision).toBe('2025-06-18');
  });

  it('a result naming something that is not a protocol version fails LIFE-VER-04', () => {
    const h = initWith('mcpcheck');
    expect(blocking(h.server(res(1, { protocolVersion: 'latest', capabilities: {}, serverInfo: SERVER_INFO })))).toEqual(['LIFE-VER-04']);
  });

  it('an unknown but date-shaped version is noted, not failed', () => {
    const h = initWith('2025-11-25');
    const findings = h.server(res(1, { protocolVersion: '2030-01-01', capabilities: {}, serverInfo: SERVER_INFO }));
    expect(blocking(findings)).toEqual([]);
    expect(tags(findings)).toEqual(['LIFE-OP-01:info']);
  });

  it('other errors to an initialize with a known version are not LIFE-VER-04', () => {
    const h = initWith('2025-11-25');
    expect(tags(h.server(err(1, -32603, 'Internal error')))).toEqual([]);
  });

  // Reported (doubtful verdict): the server refuses a real revision it does not support with the
  // error from the spec's example, naming the versions it does support; LIFE-VER-04 requires a result
  // with one of them, but the validator only judges errors when the requested version is unknown to mcpcheck.
  it('an "Unsupported protocol version" error for a real revision also fails LIFE-VER-04', () => {
    const h = initWith('2025-11-25');
    const findings = h.server(rpc({ id: 1, error: { code: -32602, message: 'Unsupported protocol version', data: { supported: ['2025-06-18'], requested: '2025-11-25' } } }));
    expect(blocking(findings)).toEqual(['LIFE-VER-04']);
  });
});

// ---- session: capability ledger --------------------------------------------------------------------------

describe('SessionValidator: capabilities honoured both ways (LIFE-OP-02)', () => {
  it.each([
    ['sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }, { sampling: {} }],
    ['roots/list', undefined, { roots: {} }],
    ['elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties: {} } }, { elicitation: {} }],
  ])('server → client %s needs the client capability', (method, params, caps) => {
    const without = new Harness();
    without.open('2025-11-25', {}, {});
    expect(tags(without.server(req(1, method, params)))).toEqual(['LIFE-OP-02:fail']);
    const withCap = new Harness();
    withCap.open('2025-11-25', caps, {});
    expect(tags(withCap.server(req(1, method, params)))).toEqual([]);
  });

  it.each([
    ['tools/list', {}, { tools: {} }],
    ['tools/call', { name: 'x' }, { tools: {} }],
    ['resources/list', {}, { resources: {} }],
    ['resources/templates/list', {}, { resources: {} }],
    ['resources/read', { uri: 'file:///a' }, { resources: {} }],
    ['resources/subscribe', { uri: 'file:///a' }, { resources: { subscribe: true } }],
    ['prompts/list', {}, { prompts: {} }],
    ['prompts/get', { name: 'p' }, { prompts: {} }],
    ['logging/setLevel', { level: 'info' }, { logging: {} }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }, { completions: {} }],
  ])('client → server %s needs the server capability', (method, params, caps) => {
    const without = new Harness();
    without.open('2025-11-25', {}, {});
    expect(tags(without.client(req(2, method, params)))).toEqual(['LIFE-OP-02:fail']);
    const withCap = new Harness();
    withCap.open('2025-11-25', {}, caps);
    expect(tags(withCap.client(req(2, method, params)))).toEqual([]);
  });

  it('resources/subscribe needs resources.subscribe, not just resources', () => {
    const h = new Harness();
    h.open('2025-11-25', {}, { resources: { subscribe: false } });
    expect(tags(h.client(req(2, 'resources/subscribe', { uri: 'file:///a' })))).toEqual(['LIFE-OP-02:fail']);
  });

  it('list-changed and update notifications need their sub-capability, in both directions', () => {
    const h = new Harness();
    h.open('2025-11-25', { roots: {} }, { tools: {}, prompts: { listChanged: true }, resources: {} });
    expect(tags(h.server(notif('notifications/tools/list_changed')))).toEqual(['LIFE-OP-02:fail']);
    expect(tags(h.server(notif('notifications/prompts/list_changed')))).toEqual([]);
    expect(tags(h.server(notif('notifications/resources/list_changed')))).toEqual(['LIFE-OP-02:fail']);
    expect(tags(h.server(notif('notifications/resources/updated', { uri: 'file:///a' })))).toEqual(['LIFE-OP-02:fail']);
    expect(tags(h.client(notif('notifications/roots/list_changed')))).toEqual(['LIFE-OP-02:fail']);
  });

  it('tasks/* need the peer to have declared tasks (and tasks.list / tasks.cancel), either direction', () => {
    const h = new Harness();
    h.open('2025-11-25', { tasks: { requests: { sampling: { createMessage: {} } } } }, { tasks: { list: {}, requests: { tools: { call: {} } } } });
    expect(tags(h.client(req(2, 'tasks/get', { taskId: 't' })))).toEqual([]);
    expect(tags(h.client(req(3, 'tasks/list')))).toEqual([]);
    expect(tags(h.client(req(4, 'tasks/cancel', { taskId: 't' })))).toEqual(['LIFE-OP-02:fail']);
    expect(tags(h.server(req(1, 'tasks/get', { taskId: 't' })))).toEqual([]);
    expect(tags(h.server(req(2, 'tasks/list')))).toEqual(['LIFE-OP-02:fail']);
  });

  it('LOG-CAP-01: log notifications need the logging capability', () => {
    const h = new Harness();
    h.open('2025-11-25', {}, { tools: {} });
    expect(tags(h.server(notif('notifications/message', { level: 'error', data: 'x' })))).toEqual(['LOG-CAP-01:fail']);
  });

  it('SAMP-TOOLS-01 and ELIC-CAP-02 look at sub-capabilities', () => {
    const sampling = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5, tools: [{ name: 't', inputSchema: { type: 'object' } }] };
    const plain = new Harness();
    plain.open('2025-11-25', { sampling: {}, elicitation: {} }, {});
    expect(tags(plain.server(req(1, 'sampling/createMessage', sampling)))).toEqual(['SAMP-TOOLS-01:fail']);
    expect(tags(plain.server(req(2, 'elicitation/create', { mode: 'url', message: 'm', elicitationId: 'e', url: 'https://example.com' })))).toEqual(['ELIC-CAP-02:fail']);
    expect(tags(plain.server(req(3, 'elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties: {} } })))).toEqual([]);
    const rich = new Harness();
    rich.open('2025-11-25', { sampling: { tools: {} }, elicitation: { url: {} } }, {});
    expect(tags(rich.server(req(1, 'sampling/createMessage', sampling)))).toEqual([]);
    expect(tags(rich.server(req(2, 'elicitation/create', { mode: 'url', message: 'm', elicitationId: 'e', url: 'https://example.com' })))).toEqual([]);
    expect(tags(rich.server(req(3, 'elicitation/create', { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } })))).toEqual(['ELIC-CAP-02:fail']);
  });

  // Reported bug: 2024-11-05 defines completion/complete but no `completions` capability (added in 2025-03-26).
  it('2024-11-05: completion/complete needs no capability (the revision has none for it)', () => {
    const h = new Harness();
    h.open('2024-11-05', {}, { prompts: {} });
    expect(tags(h.client(req(2, 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } })))).toEqual([]);
  });
});

// ---- session: ids per direction ---------------------------------------------------------------------------

describe('SessionValidator: ids are tracked per direction', () => {
  it('client and server may use the same id numbers at the same time', () => {
    const h = new Harness();
    h.open('2025-11-25', { roots: {} }, { tools: {} });
    const all = [
      ...h.client(req(2, 'tools/list')),
      ...h.server(req(2, 'roots/list')),
      ...h.server(req(1, 'ping')),
      ...h.client(res(2, { roots: [] })),
      ...h.server(res(2, { tools: [] })),
      ...h.client(res(1, {})),
      ...h.client(req('1', 'ping')),
      ...h.server(res('1', {})),
    ];
    expect(tags(all)).toEqual([]);
    expect(h.s.end()).toEqual([]);
  });

  it('BASE-ID-03: a side reusing its own id, answered or not', () => {
    const h = new Harness();
    h.open('2025-11-25', { roots: {} }, { tools: {} });
    h.client(req(2, 'tools/list'));
    h.server(res(2, { tools: [] }));
    expect(tags(h.client(req(2, 'ping')))).toEqual(['BASE-ID-03:fail']);
    h.server(req(7, 'ping'));
    expect(tags(h.server(req(7, 'ping')))).toEqual(['BASE-ID-03:fail']);
    // initialize's id counts too.
    expect(tags(h.client(req(1, 'ping')))).toEqual(['BASE-ID-03:fail']);
  });

  it('the integer 1 and the string "1" are different ids', () => {
    const h = new Harness();
    h.open();
    expect(tags(h.client(req('1', 'ping')))).toEqual([]);
  });

  it('BASE-RES-01 / BASE-ID-04: a response must match an outstanding request of the other side', () => {
    const h = new Harness();
    h.open('2025-11-25', {}, { tools: {} });
    h.client(req(2, 'tools/list'));
    // The client "answering" its own request id.
    expect(tags(h.client(res(2, {})))).toEqual(['BASE-RES-01:fail']);
    expect(tags(h.server(res(2, { tools: [] })))).toEqual([]);
    expect(tags(h.server(res(2, { tools: [] })))).toEqual(['BASE-ID-04:fail']);
    expect(tags(h.server(err(9, -32603)))).toEqual(['BASE-ERR-01:fail']);
  });

  it('an error without id answers an unreadable request; with none pending it is BASE-ERR-01', () => {
    const h = new Harness();
    h.open('2025-11-25', {}, { tools: {} });
    expect(tags(h.server(err(undefined, -32600, 'Invalid Request')))).toEqual(['BASE-ERR-01:fail']);
    h.client(rpc({ id: null, method: 'tools/list' }));
    expect(tags(h.server(err(undefined, -32600, 'Invalid Request')))).toEqual([]);
    h.s.raw('client', '{"jsonrpc": "2.0", "method": "ping", "id": ', 99);
    expect(tags(h.server(err(null, -32700, 'Parse error')))).toEqual(['ROBUST-08:info']);
  });

  // Reported on mcp-time (Go): its parser caps nesting, and it answered the 10,000-deep probe with
  // {"id":null,"error":{"code":-32700}}, which was taken for an error that lost a readable id.
  it('BASE-ERR-01: an error without id may answer a request a parser may refuse (ruling parser-limits)', () => {
    const deep = (n: number): unknown => JSON.parse('['.repeat(n) + ']'.repeat(n));
    const h = new Harness();
    h.open('2025-11-25', {}, { tools: {} });
    h.client(req(5, 'ping', { _meta: { 'dev.mcpcheck/deep': deep(10_000) } }));
    const answer = h.server(err(null, -32700, 'Parse error'));
    expect(tags(answer)).toEqual(['ROBUST-08:info', 'BASE-ERR-01:info']);
    expect(answer[1]!.message).toMatch(/request 5 .*nested deeper than 64 levels.*ruling parser-limits/);
    // The request counts as answered: nothing is left open at the end.
    expect(tags(h.s.end())).toEqual([]);
    // A request within the limits still needs its id on the error.
    h.client(req(6, 'ping', { _meta: { 'dev.mcpcheck/deep': deep(10) } }));
    expect(tags(h.server(err(undefined, -32700, 'Parse error')))).toEqual(['BASE-ERR-01:fail']);
    // So does one over the limits once it was answered with its id.
    h.client(req(7, 'ping', { _meta: { 'dev.mcpcheck/padding': 'x'.repeat(2 * 1024 * 1024) } }));
    expect(tags(h.server(res(7, {})))).toEqual([]);
    expect(tags(h.server(err(undefined, -32603, 'Internal error')))).toEqual(['BASE-ERR-01:fail']);
  });

  it('BASE-MSG-05: an array answering the batch the client sent is its reaction, any other array a batch of its own (ruling batch-reaction)', () => {
    const h = new Harness();
    h.open('2025-11-25', {}, { tools: {} });
    h.client([req(5, 'ping'), req(6, 'ping')]);
    const answer = h.server([res(6, {}), res(5, {})]);
    expect(tags(answer)).toEqual(['BASE-MSG-05:info']);
    expect(answer[0]!.message).toMatch(/ruling batch-reaction/);
    // That batch is answered: the same array again is a batch of the server's own.
    expect(tags(h.server([res(6, {}), res(5, {})]))).toEqual(['BASE-MSG-05:fail']);
    // An array that answers only part of a batch, or carries more than its answers, is one too.
    h.client([req(8, 'ping'), req(9, 'ping')]);
    expect(tags(h.server([res(8, {})]))).toEqual(['BASE-MSG-05:fail']);
    expect(tags(h.server([res(8, {}), res(9, {}), rpc({ method: 'notifications/message', params: { level: 'info', data: 'x' } })]))).toEqual(['BASE-MSG-05:fail']);
  });

  it('BASE-ERR-01: on a revision with batches, one error without id may refuse a batch none of whose requests was answered (JSON-RPC 2.0 §6)', () => {
    const h = new Harness();
    h.open('2025-03-26', {}, { tools: {} });
    h.client([req(5, 'ping'), req(6, 'ping')]);
    const refusal = h.server(err(null, -32700, 'Failed to parse message'));
    expect(tags(refusal)).toEqual(['BASE-ERR-01:info']);
    expect(refusal[0]!.message).toMatch(/refusing the batch of 2 request\(s\).*ruling batch-reaction/);
    // The batch is settled: nothing is left open, and a second id-less error has nothing to refuse.
    expect(tags(h.s.end())).toEqual([]);
    expect(tags(h.server(err(null, -32700, 'Parse error')))).toEqual(['BASE-ERR-01:fail']);
    // A batch that was processed leaves no refusal to excuse.
    h.client([req(7, 'ping'), req(8, 'ping')]);
    expect(tags(h.server([res(7, {}), res(8, {})]))).toEqual([]);
    expect(tags(h.server(err(null, -32603, 'Internal error')))).toEqual(['BASE-ERR-01:fail']);
  });

  it('an unanswered request is an info note at the end, a cancelled one is not', () => {
    const h = new Harness();
    h.open('2025-11-25', {}, { tools: {} });
    h.client(req(2, 'tools/list'));
    h.client(req(3, 'tools/call', { name: 'slow' }));
    h.client(notif('notifications/cancelled', { requestId: 3 }));
    const end = h.s.end();
    expect(tags(end)).toEqual(['BASE-ID-04:info']);
    expect(end[0]?.message).toMatch(/tools\/list/);
  });

  it('BASE-ID-04: a request left unanswered while a ping sent after it was answered fails at the end, once per session, unless cancelled or answered late', () => {
    const h = new Harness();
    h.open('2025-11-25', {}, { tools: {} });
    h.client(req(2, 'tools/list'));
    h.client(req(3, 'tools/call', { name: 'slow' }));
    h.client(req(4, 'prompts/list'));
    h.client({ jsonrpc: '2.0', id: 5, method: 42 });
    h.client(req(6, 'ping'));
    const pong = h.n;
    h.server(res(6, {}));
    for (const id of [2, 3, 4, 5]) h.s.leftUnanswered('client', id, pong);
    // Answered late, or cancelled after mcpcheck gave up: no violation.
    h.server(res(4, { prompts: [] }));
    h.client(notif('notifications/cancelled', { requestId: 3 }));
    const end = h.s.end();
    expect(tags(end)).toEqual(['BASE-ID-04:fail']);
    expect(end[0]!.frame).toBe(pong);
    expect(end[0]!.message).toMatch(/never answered 2 client request\(s\).*tools\/list \(frame 3\), \(malformed request\) \(frame 6\).*ruling invalid-request-answered/);
    expect(h.s.appliedBy.server.has('BASE-ID-04')).toBe(true);
  });

  it('BASE-ID-04: the harness as server, a client that answers ping but never roots/list fails', () => {
    const h = new Harness();
    h.open('2025-11-25', { roots: {} }, {});
    h.server(req('r1', 'roots/list'));
    h.server(req('p1', 'ping'));
    const pong = h.n;
    h.client(res('p1', {}));
    h.s.leftUnanswered('server', 'r1', pong);
    expect(tags(h.s.end())).toEqual(['BASE-ID-04:fail']);
  });

  it('BASE-ID-04: a malformed message with a readable id and no evidence stays unjudged at the end', () => {
    const h = new Harness();
    h.open('2025-11-25', {}, {});
    h.client({ jsonrpc: '2.0', id: 5, method: 42 });
    expect(tags(h.s.end())).toEqual([]);
  });
});

// ---- session: cancellation, progress, logging, tools ---------------------------------------------------------

describe('SessionValidator: cancellation, progress, logging', () => {
  const opened = (scaps: object = { tools: {}, logging: {} }, ccaps: object = { sampling: {} }) => {
    const h = new Harness();
    h.open('2025-11-25', ccaps, scaps);
    return h;
  };

  it("CANCEL-01: only one's own earlier requests; an answered one is a race (info)", () => {
    const h = opened();
    expect(tags(h.client(notif('notifications/cancelled', { requestId: 5 })))).toEqual(['CANCEL-01:fail']);
    h.server(req(5, 'ping'));
    // The server's id 5 is not the client's.
    expect(tags(h.client(notif('notifications/cancelled', { requestId: 5 })))).toEqual(['CANCEL-01:fail']);
    h.client(req(2, 'tools/list'));
    h.server(res(2, { tools: [] }));
    expect(tags(h.client(notif('notifications/cancelled', { requestId: 2 })))).toEqual(['CANCEL-01:info']);
    expect(tags(h.server(notif('notifications/cancelled', { requestId: 5, reason: 'no longer needed' })))).toEqual([]);
  });

  it('CANCEL-02: initialize is never cancelled; CANCEL-04: requestId is required', () => {
    const h = opened();
    expect(tags(h.client(notif('notifications/cancelled', { requestId: 1 })))).toContain('CANCEL-02:fail');
    expect(tags(h.client(notif('notifications/cancelled', { reason: 'x' })))).toEqual(['CANCEL-04:fail']);
  });

  it('PROG-02 / PROG-04: increasing progress for active requests, either direction', () => {
    const h = opened();
    h.client(req(2, 'tools/call', { name: 'x', _meta: { progressToken: 'p' } }));
    expect(tags(h.server(notif('notifications/progress', { progressToken: 'p', progress: 0.5 })))).toEqual([]);
    expect(tags(h.server(notif('notifications/progress', { progressToken: 'p', progress: 0.75, total: 1 })))).toEqual([]);
    expect(tags(h.server(notif('notifications/progress', { progressToken: 'p', progress: 0.75 })))).toEqual(['PROG-02:fail']);
    // The client's token is not the server's to use back.
    expect(tags(h.client(notif('notifications/progress', { progressToken: 'p', progress: 1 })))).toEqual(['PROG-04:fail']);
    h.server(res(2, { content: [] }));
    expect(tags(h.server(notif('notifications/progress', { progressToken: 'p', progress: 2 })))).toEqual(['PROG-04:fail']);
    // Server → client request with a token.
    h.server(req(1, 'sampling/createMessage', { messages: [], maxTokens: 1, _meta: { progressToken: 9 } }));
    expect(tags(h.client(notif('notifications/progress', { progressToken: 9, progress: 1 })))).toEqual([]);
    expect(tags(h.client(notif('notifications/progress', { progressToken: '9', progress: 2 })))).toEqual(['PROG-04:fail']);
  });

  it('PROG-01: a token may not be reused while its request is active, but may be after', () => {
    const h = opened();
    h.client(req(2, 'tools/call', { name: 'x', _meta: { progressToken: 'p' } }));
    expect(tags(h.client(req(3, 'tools/call', { name: 'y', _meta: { progressToken: 'p' } })))).toEqual(['PROG-01:fail']);
    const h2 = opened();
    h2.client(req(2, 'tools/call', { name: 'x', _meta: { progressToken: 'p' } }));
    h2.server(res(2, { content: [] }));
    expect(tags(h2.client(req(3, 'tools/call', { name: 'y', _meta: { progressToken: 'p' } })))).toEqual([]);
  });

  // Reported bug: PROG-05 — the token of a task-augmented request stays valid after CreateTaskResult.
  it('PROG-05: progress after a CreateTaskResult, while the task runs, is legal', () => {
    const h = opened({ tools: {}, tasks: { requests: { tools: { call: {} } } } });
    h.client(req(2, 'tools/call', { name: 'x', task: {}, _meta: { progressToken: 'p' } }));
    h.server(res(2, { task: { taskId: 't', status: 'working', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttl: null } }));
    expect(tags(h.server(notif('notifications/progress', { progressToken: 'p', progress: 1 })))).toEqual([]);
  });

  it('LOG-SET-02 (SHOULD): after setLevel only that level or more severe; a failed setLevel changes nothing', () => {
    const h = opened();
    h.client(req(2, 'logging/setLevel', { level: 'warning' }));
    expect(tags(h.server(notif('notifications/message', { level: 'debug', data: 'before the answer' })))).toEqual([]);
    h.server(res(2, {}));
    expect(tags(h.server(notif('notifications/message', { level: 'warning', data: 'x' })))).toEqual([]);
    expect(tags(h.server(notif('notifications/message', { level: 'emergency', data: 'x' })))).toEqual([]);
    expect(tags(h.server(notif('notifications/message', { level: 'notice', data: 'x' })))).toEqual(['LOG-SET-02:warn']);
    const h2 = opened();
    h2.client(req(2, 'logging/setLevel', { level: 'error' }));
    h2.server(err(2, -32603, 'cannot configure logging'));
    expect(tags(h2.server(notif('notifications/message', { level: 'debug', data: 'x' })))).toEqual([]);
  });

  it('LOG-LVL-01: the level is one of the eight RFC 5424 names', () => {
    const h = opened();
    expect(tags(h.server(notif('notifications/message', { level: 'verbose', data: 'x' })))).toEqual(['BASE-SCHEMA-01+LOG-LVL-01:fail']);
    expect(tags(h.server(notif('notifications/message', { level: 'info' })))).toEqual(['BASE-SCHEMA-01+LOG-LVL-01:fail']);
  });

  it('TOOL-OUT-01 uses the outputSchema of the tool as listed earlier in the session', () => {
    const h = opened();
    h.client(req(2, 'tools/list'));
    h.server(res(2, { tools: [{ name: 'w', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { t: { type: 'number' } }, required: ['t'] } }] }));
    h.client(req(3, 'tools/call', { name: 'w', arguments: {} }));
    expect(tags(h.server(res(3, { content: [{ type: 'text', text: '{"t":"x"}' }], structuredContent: { t: 'x' } })))).toEqual(['TOOL-OUT-01:fail']);
    h.client(req(4, 'tools/call', { name: 'unlisted', arguments: {} }));
    expect(tags(h.server(res(4, { content: [] })))).toEqual([]);
  });

  it('TOOL-NAME-03: duplicates across pages; a fresh listing starts over', () => {
    const h = opened();
    const tool = { name: 'a', inputSchema: { type: 'object' } };
    h.client(req(2, 'tools/list'));
    h.server(res(2, { tools: [tool], nextCursor: 'c' }));
    h.client(req(3, 'tools/list', { cursor: 'c' }));
    expect(tags(h.server(res(3, { tools: [{ ...tool, name: 'b' }] })))).toEqual([]);
    h.client(req(4, 'tools/list', {}));
    expect(tags(h.server(res(4, { tools: [tool] })))).toEqual([]);
    h.client(req(5, 'tools/list', { cursor: 'c2' }));
    expect(tags(h.server(res(5, { tools: [{ ...tool, name: 'c' }, tool] })))).toEqual(['TOOL-NAME-03:warn']);
    // A page identical to an earlier one is a pagination loop (PAGE-05), not a duplicate name.
    h.client(req(6, 'tools/list', { cursor: 'c3' }));
    expect(tags(h.server(res(6, { tools: [tool] })))).toEqual([]);
  });
});

// ---- frames: raw text, stdio ----------------------------------------------------------------------------

describe('SessionValidator: frame-level rules', () => {
  it('STDIO-FRAME-01 only on stdio; a trailing \\r is tolerated', () => {
    const pretty = '{\n  "jsonrpc": "2.0",\n  "method": "notifications/initialized"\n}';
    const stdio = new Harness('stdio');
    expect(tags(stdio.client(JSON.parse(pretty), pretty))).toContain('STDIO-FRAME-01:fail');
    const http = new Harness('http');
    expect(tags(http.client(JSON.parse(pretty), pretty))).not.toContain('STDIO-FRAME-01:fail');
    const crlf = new Harness('stdio');
    const line = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}\r';
    expect(tags(crlf.client(JSON.parse(line), line))).toEqual([]);
  });

  it('non-JSON frames: STDIO-OUT-01 from a stdio server, STDIO-IN-01 from a stdio client, BASE-MSG-01 otherwise', () => {
    expect(tags(new SessionValidator({ transport: 'stdio' }).raw('server', 'Server listening...', 0))).toEqual(['STDIO-OUT-01:fail']);
    expect(tags(new SessionValidator({ transport: 'stdio' }).raw('client', 'hello', 0))).toEqual(['STDIO-IN-01:fail']);
    expect(tags(new SessionValidator({ transport: 'http' }).raw('server', '<html>', 0))).toEqual(['BASE-MSG-01:fail']);
    expect(tags(new SessionValidator().raw('server', '', 0))).toEqual(['BASE-MSG-01:fail']);
  });

  it('BASE-MSG-02: a lone surrogate cannot have come from UTF-8', () => {
    const h = new Harness('stdio');
    const text = '{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"\uD800"}}';
    expect(tags(h.client(JSON.parse(text), text))).toContain('BASE-MSG-02:fail');
    const ok = '{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"\uD83D\uDE00 ü"}}';
    expect(tags(new Harness('stdio').client(JSON.parse(ok), ok)).filter((t) => t.startsWith('BASE-MSG-02'))).toEqual([]);
  });

  it('findings carry the frame index', () => {
    const h = new Harness();
    h.open();
    const [f] = h.client(rpc({ id: null, method: 'ping' }));
    expect(f?.frame).toBe(3);
  });
});

// ---- walk: icons and _meta wherever they appear -----------------------------------------------------------

describe('validateMessage: icons and _meta anywhere in a message', () => {
  it('checks icons on Implementation, tools, prompts, resources and resource links', () => {
    const bad = [{ src: 'ftp://example.com/i.png' }];
    const msg = res(1, { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { ...SERVER_INFO, icons: bad } });
    expect(tags(validateMessage(msg, ctx('2025-11-25', 'server', { method: 'initialize' })))).toEqual(['ICON-FMT-03:warn']);
    const list = res(2, { resources: [{ uri: 'file:///a', name: 'a', icons: bad }] });
    expect(tags(validateMessage(list, ctx('2025-11-25', 'server', { method: 'resources/list' })))).toEqual(['ICON-FMT-03:warn']);
  });

  // Reported bug: `icons` and `_meta` members inside application data (tool arguments, structuredContent,
  // elicitation content) are not MCP Icon arrays or _meta objects, yet the walker judges them.
  it('does not judge application data that happens to have an `icons` member', () => {
    const call = req(3, 'tools/call', { name: 'forecast', arguments: { icons: ['sun', 'rain'] } });
    expect(tags(validateMessage(call, ctx('2025-11-25', 'client')))).toEqual([]);
  });

  it('does not judge application data that happens to have a `_meta` member', () => {
    const result = res(3, { content: [{ type: 'text', text: '{"_meta":"v2"}' }], structuredContent: { _meta: 'v2' } });
    expect(tags(validateMessage(result, ctx('2025-11-25', 'server', { method: 'tools/call', params: { name: 'x' } })))).toEqual([]);
  });
});

describe('SessionValidator: tasks (2025-11-25)', () => {
  const SERVER_TASKS = { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } };
  const at = (ms: number) => new Date(Date.UTC(2025, 10, 25, 12, 0, 0, ms)).toISOString();
  const taskOf = (taskId: string, status: string, more: object = {}) => ({ taskId, status, createdAt: at(0), lastUpdatedAt: at(10), ttl: 60_000, ...more });
  /** A session with a server declaring tools.call tasks and listing one tool of each taskSupport. */
  const withTools = (serverCaps: object = SERVER_TASKS) => {
    const h = new Harness();
    h.open('2025-11-25', {}, serverCaps);
    h.client(req(2, 'tools/list'));
    const tool = (name: string, taskSupport?: string) => ({ name, inputSchema: { type: 'object' }, ...(taskSupport ? { execution: { taskSupport } } : {}) });
    h.server(res(2, { tools: [tool('plain'), tool('opt', 'optional'), tool('req', 'required')] }));
    return h;
  };
  const call = (id: number, name: string, task?: object) => req(id, 'tools/call', { name, arguments: {}, ...(task ? { task } : {}) });

  it('TASK-ST-01 / TASK-ID-01: a new task starts working, under an id no live task has', () => {
    const h = withTools();
    h.client(call(3, 'opt', {}));
    // A status notification may name the task before its CreateTaskResult (the SDK's order).
    expect(tags(h.server(notif('notifications/tasks/status', taskOf('a', 'working'))))).toEqual([]);
    expect(tags(h.server(res(3, { task: taskOf('a', 'working') })))).toEqual([]);
    h.client(call(4, 'opt', {}));
    expect(tags(h.server(res(4, { task: taskOf('a', 'working') })))).toEqual(['TASK-ID-01:fail']);
    h.client(call(5, 'opt', {}));
    expect(tags(h.server(res(5, { task: taskOf('b', 'completed') })))).toEqual(['TASK-ST-01:fail']);
    // b is finished: a later task may have its id (the receiver no longer holds it).
    h.client(call(6, 'opt', {}));
    expect(tags(h.server(res(6, { task: taskOf('b', 'working') })))).toEqual([]);
  });

  it('TASK-ST-02 / TASK-CANCEL-03: a terminal status never changes, a cancelled task stays cancelled', () => {
    const h = withTools();
    h.client(call(3, 'opt', {}));
    h.server(res(3, { task: taskOf('a', 'working') }));
    h.client(req(4, 'tasks/get', { taskId: 'a' }));
    expect(tags(h.server(res(4, taskOf('a', 'input_required'))))).toEqual([]);
    h.client(req(5, 'tasks/get', { taskId: 'a' }));
    expect(tags(h.server(res(5, taskOf('a', 'completed'))))).toEqual([]);
    expect(tags(h.server(notif('notifications/tasks/status', taskOf('a', 'working'))))).toEqual(['TASK-ST-02:fail']);
    h.client(call(6, 'opt', {}));
    h.server(res(6, { task: taskOf('c', 'working') }));
    h.client(req(7, 'tasks/cancel', { taskId: 'c' }));
    expect(tags(h.server(res(7, taskOf('c', 'cancelled'))))).toEqual([]);
    h.client(req(8, 'tasks/get', { taskId: 'c' }));
    expect(tags(h.server(res(8, taskOf('c', 'completed'))))).toEqual(['TASK-CANCEL-03:fail']);
  });

  it('TASK-CANCEL-02 / TASK-CANCEL-01: a valid cancel answers cancelled; a terminal task is not cancelled with a result', () => {
    const h = withTools();
    h.client(call(3, 'opt', {}));
    h.server(res(3, { task: taskOf('a', 'working') }));
    h.client(req(4, 'tasks/cancel', { taskId: 'a' }));
    expect(tags(h.server(res(4, taskOf('a', 'working'))))).toEqual(['TASK-CANCEL-02:fail']);
    // A status notification between a valid cancel and its reply does not make the cancel one of a terminal task.
    h.client(call(9, 'opt', {}));
    h.server(res(9, { task: taskOf('d', 'working') }));
    h.client(req(10, 'tasks/cancel', { taskId: 'd' }));
    expect(tags(h.server(notif('notifications/tasks/status', taskOf('d', 'cancelled'))))).toEqual([]);
    expect(tags(h.server(res(10, taskOf('d', 'cancelled'))))).toEqual([]);
    h.client(call(5, 'opt', {}));
    h.server(res(5, { task: taskOf('b', 'working') }));
    h.client(req(6, 'tasks/get', { taskId: 'b' }));
    h.server(res(6, taskOf('b', 'completed')));
    h.client(req(7, 'tasks/cancel', { taskId: 'b' }));
    expect(tags(h.server(res(7, taskOf('b', 'completed'))))).toEqual(['TASK-CANCEL-01:fail']);
    h.client(req(8, 'tasks/cancel', { taskId: 'b' }));
    expect(tags(h.server(err(8, -32602, 'task b is already completed')))).toEqual([]);
  });

  it('TASK-TTL-01: RFC 3339 timestamps, lastUpdatedAt not before createdAt', () => {
    const h = withTools();
    h.client(call(3, 'opt', {}));
    expect(tags(h.server(res(3, { task: taskOf('a', 'working', { createdAt: 'Tue Nov 25 2025 12:00:00 GMT+0000' }) })))).toEqual(['TASK-TTL-01:fail']);
    h.client(req(4, 'tasks/get', { taskId: 'a' }));
    expect(tags(h.server(res(4, taskOf('a', 'working', { createdAt: at(20), lastUpdatedAt: at(10) }))))).toEqual(['TASK-TTL-01:fail']);
    h.client(req(5, 'tasks/get', { taskId: 'a' }));
    expect(tags(h.server(res(5, taskOf('a', 'working', { createdAt: '2025-11-25T12:00:00+01:00', lastUpdatedAt: '2025-11-25T11:00:00.5Z' }))))).toEqual([]);
  });

  it('TASK-TTL-02: a tasks/get result states the ttl it keeps the task for, in milliseconds or null', () => {
    const h = withTools();
    h.client(call(3, 'opt', {}));
    h.server(res(3, { task: taskOf('a', 'working') }));
    const { ttl: _ttl, ...noTtl } = taskOf('a', 'working');
    h.client(req(4, 'tasks/get', { taskId: 'a' }));
    // The schema requires it too, as a number or null.
    expect(tags(h.server(res(4, noTtl)))).toEqual(['BASE-RES-03:fail', 'TASK-TTL-02:fail']);
    h.client(req(5, 'tasks/get', { taskId: 'a' }));
    expect(tags(h.server(res(5, taskOf('a', 'working', { ttl: '60000' }))))).toEqual(['BASE-RES-03:fail', 'TASK-TTL-02:fail']);
    // The receiver may keep it for other than the ttl asked for, or without limit; a number as schema.ts has it (ruling schema-ts-over-json).
    for (const [id, ttl] of [[6, 1000], [7, null], [8, 1500.5]] as const) {
      h.client(req(id, 'tasks/get', { taskId: 'a' }));
      expect(tags(h.server(res(id, taskOf('a', 'working', { ttl }))))).toEqual([]);
    }
  });

  it('TASK-RES-03 / TASK-META-02: tasks/result names its task in _meta; tasks/get, tasks/list, tasks/cancel and status notifications do not', () => {
    const h = withTools();
    h.client(call(3, 'opt', {}));
    h.server(res(3, { task: taskOf('a', 'working') }));
    const related = (taskId: string) => ({ 'io.modelcontextprotocol/related-task': { taskId } });
    h.client(req(4, 'tasks/result', { taskId: 'a' }));
    expect(tags(h.server(res(4, { content: [] })))).toEqual(['TASK-RES-03:fail']);
    h.client(req(5, 'tasks/result', { taskId: 'a' }));
    expect(tags(h.server(res(5, { content: [], _meta: related('a') })))).toEqual([]);
    h.client(req(6, 'tasks/get', { taskId: 'a' }));
    expect(tags(h.server(res(6, { ...taskOf('a', 'completed'), _meta: related('a') })))).toEqual(['TASK-META-02:warn']);
    expect(tags(h.client(req(7, 'tasks/get', { taskId: 'a', _meta: related('a') })))).toEqual(['TASK-META-02:warn']);
  });

  it('TASK-SUP-01 / TASK-CREATE-01 / TASK-CAP-01: a CreateTaskResult where the receiver declared tasks for the request, and only there', () => {
    const undeclared = withTools({ tools: {} });
    undeclared.client(call(3, 'opt', {}));
    expect(tags(undeclared.server(res(3, { content: [] })))).toEqual([]);
    undeclared.client(call(4, 'opt', {}));
    expect(tags(undeclared.server(res(4, { task: taskOf('a', 'working') })))).toEqual(['TASK-SUP-01+TASK-CAP-01:fail']);
    const h = withTools();
    h.client(call(3, 'opt', {}));
    expect(tags(h.server(res(3, { content: [] })))).toEqual(['TASK-CREATE-01:fail']);
    // A tool that forbids tasks owes no CreateTaskResult (its error is TASK-TOOL-02's, a scenario's).
    h.client(call(4, 'plain', {}));
    expect(tags(h.server(res(4, { content: [] })))).toEqual([]);
  });

  it('TASK-CAP-02 / TASK-TOOL-01 / TASK-TOOL-03: the requestor asks for tasks where the receiver and the tool allow them, and always where the tool requires them', () => {
    const h = withTools();
    expect(tags(h.client(call(3, 'opt', {})))).toEqual([]);
    expect(tags(h.client(call(4, 'plain', {})))).toEqual(['TASK-TOOL-01:fail']);
    expect(tags(h.client(call(5, 'req')))).toEqual(['TASK-TOOL-03:fail']);
    expect(tags(h.client(call(6, 'opt')))).toEqual([]);
    const undeclared = withTools({ tools: {} });
    expect(tags(undeclared.client(call(3, 'opt', {})))).toEqual(['TASK-CAP-02:warn']);
    // Without the capability, a "required" tool cannot be called as the server asks: no finding for the plain call.
    expect(tags(undeclared.client(call(4, 'req')))).toEqual([]);
  });
});

describe('judgeClientExchange: a client\'s Streamable HTTP requests', () => {
  const accept = { accept: 'application/json, text/event-stream' };
  const post = (headers: Record<string, string>, extra: { initialize?: true } = {}) => ({ exchange: 3, method: 'POST', headers: { ...accept, ...headers }, toEndpoint: true, messages: 1, ...extra });

  it('owes the session id only while held: notifications/initialized too, before initialization is over', () => {
    const verdict = judgeClientExchange(post({}), { afterInitialize: false, sessionHeld: true });
    expect(tags(verdict.findings)).toEqual(['HTTP-SESS-04:fail']);
    expect(verdict.findings[0]!.message).toContain('POST #3');
    expect(judgeClientExchange(post({}), { afterInitialize: false, sessionHeld: false }).applied).not.toContain('HTTP-SESS-04');
    expect(judgeClientExchange(post({}), { afterInitialize: true, sessionHeld: true }).applied).toContain('HTTP-SESS-04');
  });

  it('judges neither header on an initialize, and the version header only after initialization', () => {
    expect(judgeClientExchange(post({}, { initialize: true }), { afterInitialize: true, sessionHeld: true }).applied).toEqual(['HTTP-POST-02', 'HTTP-POST-01']);
    const early = judgeClientExchange(post({ 'mcp-session-id': 's' }), { afterInitialize: false, negotiated: '2025-11-25', sessionHeld: true });
    expect(early.applied).not.toContain('HTTP-VER-01');
    const late = judgeClientExchange(post({ 'mcp-session-id': 's', 'mcp-protocol-version': '2025-06-18' }), { afterInitialize: true, negotiated: '2025-11-25', sessionHeld: true });
    expect(tags(late.findings)).toEqual(['HTTP-VER-02:warn']);
  });
});
