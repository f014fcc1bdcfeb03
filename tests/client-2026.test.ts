import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clientScenarios } from '../suites/client/index.js';
import { testClient } from '../src/commands/client.js';
import type { RunReport } from '../src/model.js';
import { CLIENT_2026_BREAKS, type Client2026BreakName } from './fixtures/client-2026/breaks.js';
import { accept } from '../src/harness/lifecycle/index.js';
import { ServerSession } from '../src/harness/server-session.js';
import { openHttpEndpoint, type HttpEndpoint } from '../src/transport/http-endpoint.js';
import type { EndpointPolicy } from '../src/transport/server-channel.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' };

const sessions: ServerSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

/** mcpcheck serving a client over HTTP, as `mcpcheck client` does. */
async function served(policy: Partial<EndpointPolicy> = {}): Promise<{ endpoint: HttpEndpoint; session: ServerSession }> {
  const endpoint = await openHttpEndpoint({ policy: { answerWith: 'sse', priming: true, ...policy } });
  const session = new ServerSession({ channel: endpoint, transport: 'http', requestTimeoutMs: 2000 });
  sessions.push(session);
  accept(session);
  return { endpoint, session };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> | undefined; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined, headers: res.headers };
}

describe('mcpcheck serving 2026-07-28 (stateless accept)', () => {
  it('answers server/discover with the versions, capabilities, serverInfo, resultType and caching fields, and no session id', async () => {
    const { endpoint } = await served();
    const r = await post(endpoint.address, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } }, { 'mcp-method': 'server/discover' });
    expect(r.status).toBe(200);
    expect(r.headers.get('mcp-session-id')).toBeNull();
    const result = r.json?.result as Record<string, unknown>;
    expect(result).toMatchObject({ resultType: 'complete', supportedVersions: ['2026-07-28'], ttlMs: 0, cacheScope: 'private', capabilities: { tools: { listChanged: true } } });
    expect((result._meta as Record<string, unknown>)['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcpcheck' });
  });

  it('serves every modern request by its own _meta: resultType on results, −32022 (400) for an unsupported version, −32602 (400) for missing fields, 404 with −32601 for an unknown method', async () => {
    const { endpoint, session } = await served();
    const list = await post(endpoint.address, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } }, { 'mcp-method': 'tools/list' });
    expect(list.status).toBe(200);
    expect(list.json?.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(session.conversation).toMatchObject({ revision: '2026-07-28', clientInfo: { name: 't' } });
    expect(session.judgedIn).toBe('2026-07-28');
    const call = await post(endpoint.address, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { _meta: META, name: 'echo', arguments: { text: 'hi' } } });
    expect(call.json?.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'hi' }] });
    expect(call.json?.result).not.toHaveProperty('ttlMs');
    const old = await post(endpoint.address, { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' } } }, { 'mcp-protocol-version': '1999-01-01' });
    expect(old.status).toBe(400);
    expect(old.json?.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '1999-01-01' } });
    const bare = await post(endpoint.address, { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } });
    expect(bare.status).toBe(400);
    expect(bare.json?.error).toMatchObject({ code: -32602 });
    const nope = await post(endpoint.address, { jsonrpc: '2.0', id: 6, method: 'mcpcheck/nope', params: { _meta: META } });
    expect(nope.status).toBe(404);
    expect(nope.json?.error).toMatchObject({ code: -32601 });
    const ping = await post(endpoint.address, { jsonrpc: '2.0', id: 7, method: 'ping', params: { _meta: META } });
    expect(ping.json?.error).toMatchObject({ code: -32601 });
    const note = await fetch(endpoint.address, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: META, requestId: 99 } }) });
    expect(note.status).toBe(202);
  });

  it('still opens a stateful session with initialize on the same endpoint (dual-era, VER-BC-02)', async () => {
    const { endpoint, session } = await served();
    const init = await fetch(endpoint.address, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
    await init.text();
    expect(session.conversation?.revision).toBe('2025-11-25');
    const modern = await post(endpoint.address, { jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: META } });
    expect(modern.json?.result).toMatchObject({ resultType: 'complete' });
  });

  it('as a modern-only server answers GET and DELETE 405, and refuses initialize naming its versions', async () => {
    const { endpoint, session } = await served({ eras: 'stateless' });
    session.serves = 'stateless';
    expect((await fetch(endpoint.address, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    expect((await fetch(endpoint.address, { method: 'DELETE' })).status).toBe(405);
    const init = await post(endpoint.address, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } }, { 'mcp-protocol-version': '' });
    expect(init.json?.error).toMatchObject({ data: { supported: ['2026-07-28'] } });
  });

  it('acknowledges a subscription on its SSE stream with what its capabilities honour, the listen id as subscriptionId (SUBS-ACK-01/02, SUBS-ID-01)', async () => {
    const { endpoint } = await served();
    const abort = new AbortController();
    const res = await fetch(endpoint.address, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true, promptsListChanged: true } } }),
      signal: abort.signal,
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('acknowledged')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    const data = text.split('\n').filter((l) => l.startsWith('data:') && l.includes('acknowledged'))[0]!.slice(5);
    expect(JSON.parse(data)).toEqual({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' }, notifications: { toolsListChanged: true } } });
  });

  it('as an initialize-era server refuses a modern request without a session with 400 and an empty body (HTTP-BC-03)', async () => {
    const { endpoint, session } = await served({ eras: 'stateful' });
    session.serves = 'stateful';
    const r = await post(endpoint.address, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
    expect(r.status).toBe(400);
    expect(r.json).toBeUndefined();
  });
});

const ROOT = resolve(import.meta.dirname, '..');
const FIXTURE = `${process.execPath} ${join(ROOT, 'dist/tests/fixtures/client-2026/client.js')}`;
/** The scenarios a 2026-07-28 client is judged by: the modern ones, and those both eras share (no revision removed them). */
const MODERN_SCENARIOS = clientScenarios.filter((s) => s.revisions?.removed === undefined).map((s) => s.id);

/** `mcpcheck client` against the 2026 fixture: the modern scenarios (and the handshake, which a modern client skips), graded. */
async function judge(args: string, address: '{url}' | '{stdio}', only: readonly string[] = ['client.lifecycle.handshake', ...MODERN_SCENARIOS]): Promise<RunReport> {
  const command = `${FIXTURE} ${args} ${address}`.replace(/\s+/g, ' ');
  return testClient({ command, targetFlags: `--command ${JSON.stringify(command)}`, concurrency: 3, only: [...only] });
}

/**
 * The scenarios a break run needs: those citing its rule, and those of the checks it is expected to
 * fail. A rule no scenario cites (live validation alone judges it) takes every modern scenario. A
 * whole suite per break spent most of this file's time; the correct client's runs are whole.
 */
function breakScope(rule: string, checks: readonly string[], shownBy: readonly string[] = []): readonly string[] {
  const citing = clientScenarios.filter((s) => MODERN_SCENARIOS.includes(s.id) && (s.requirements as readonly string[]).includes(rule)).map((s) => s.id);
  if (citing.length === 0 && shownBy.length === 0) return MODERN_SCENARIOS;
  return [...new Set([...citing, ...shownBy, ...checks.filter((c) => !c.startsWith('live.')).map((c) => c.split('/')[0]!)])];
}

/** Breaks of rules only live checks judge, and the scenario whose traffic shows each (run alone instead of every modern one). */
const SHOWN_BY: Partial<Record<Client2026BreakName, readonly string[]>> = {
  'no-task-mcp-name': ['client.modern.tasks.handle'],
  // Every HTTP request carries the header; every tools/call POST the name; the probe comes first; an MRTR retry follows input requests.
  'header-version-mismatch': ['client.modern.request-meta'],
  'no-mcp-name': ['client.tools.call'],
  'discover-with-params': ['client.modern.request-meta'],
  'answers-input-as-response': ['client.mrtr.form-elicitation'],
};

function unmet(report: RunReport): string[] {
  return report.checks.filter((c) => c.status === 'fail' || c.status === 'warn' || c.status === 'error').map((c) => c.id);
}

describe('mcpcheck client against the 2026-07-28 reference client (needs npm run build)', () => {
  for (const address of ['{url}', '{stdio}'] as const) {
    it(`grades the correct client clean over ${address === '{url}' ? 'HTTP' : 'stdio'}: every modern scenario passes or is skipped with its reason, the initialize-era ones do not apply`, async () => {
      const report = await judge('', address);
      expect(unmet(report)).toEqual([]);
      const passed = new Set(report.checks.filter((c) => c.status === 'pass').map((c) => c.scenario));
      for (const id of ['client.modern.tasks.handle', 'client.modern.tasks.poll-interval', 'client.modern.tasks.input', 'client.modern.tasks.foreign-handle', 'client.modern.request-meta', 'client.modern.unsupported-version', 'client.mrtr.form-elicitation', 'client.mrtr.sampling-and-roots', 'client.pagination.cursors', 'client.pagination.page-size', 'client.pagination.empty-cursor', 'client.tools.call', 'client.robust.server-dies', 'client.mrtr.request-state', 'client.mrtr.new-id', 'client.mrtr.state-only', 'client.mrtr.no-leak', 'client.modern.result-without-type', 'client.modern.listen', 'client.modern.mrtr.prompts-get', 'client.modern.mrtr.resources-read', 'client.modern.era.cached']) expect(passed).toContain(id);
      if (address === '{stdio}') for (const id of ['client.modern.era.probe-first', 'client.modern.era.fallback-any-code/no-request-after-legacy', 'client.modern.subscriptions.ended', 'client.stdio.stderr-not-failure', 'client.robust.unknown-notification/ignored', 'client.robust.unknown-notification/unanswered']) expect(report.checks.find((c) => c.id === id)?.status).toBe('pass');
      // The initialize era's scenarios leave no check on a modern client, only a note.
      expect(report.checks.some((c) => c.scenario === 'client.lifecycle.handshake')).toBe(false);
      expect(report.notes.join('\n')).toMatch(/did not apply \(applies to revisions before 2026-07-28.*the client spoke 2026-07-28\): client.lifecycle.handshake/);
      if (address === '{url}') for (const id of ['live.HDR-VER-01', 'live.HDR-VER-02', 'live.HDR-STD-01', 'live.HDR-PARAM-01', 'live.HDR-PARAM-04', 'client.modern.headers.x-mcp-header/sent', 'client.modern.headers.x-mcp-header/encoded', 'client.modern.headers.invalid-x-mcp-header', 'client.modern.headers.mismatch-relist']) expect(report.checks.find((c) => c.id === id)?.status).toBe('pass');
    }, 120_000);
  }

  for (const [address, rule] of [['{url}', 'HTTP-BC-03'], ['{stdio}', 'STDIO-BC-02']] as const) {
    it(`sees a dual-era client fall back to initialize when an initialize-era server turns its modern request down (${rule})`, async () => {
      const report = await judge('--dual', address);
      expect(report.checks.find((c) => c.id === 'client.modern.legacy-fallback')).toMatchObject({ status: 'pass', requirements: [rule] });
      // Over stdio it falls back on −32602 as on −32601 (STDIO-BC-03).
      if (address === '{stdio}') expect(report.checks.find((c) => c.id === 'client.modern.era.fallback-any-code/fallback')?.status).toBe('pass');
      expect(unmet(report)).toEqual([]);
    }, 120_000);
  }

  // Each break fails its own rule, caught by the scenario (or live check) named in breaks.ts.
  // A fourth member: the other checks of the same rule that catch it too (the break is on every MRTR method, not tools/call's alone).
  const caught: Array<[Client2026BreakName, '{url}' | '{stdio}', string, string[]?]> = [
    ['retry-reuses-id', '{url}', 'client.mrtr.new-id', ['client.modern.mrtr.prompts-get/new-id', 'client.modern.mrtr.resources-read/new-id']],
    ['alters-request-state', '{url}', 'client.mrtr.request-state/echoed', ['client.modern.mrtr.prompts-get/echoed', 'client.modern.mrtr.resources-read/echoed']],
    ['leaks-request-state', '{url}', 'client.mrtr.no-leak'],
    ['no-protocol-version', '{stdio}', 'client.modern.request-meta/required'],
    ['header-version-mismatch', '{url}', 'live.HDR-VER-02'],
    ['no-mcp-name', '{url}', 'live.HDR-STD-01'],
    ['initialize-after-unsupported', '{url}', 'client.modern.unsupported-version/no-fallback'],
    ['read-retry-drops-state', '{stdio}', 'client.modern.mrtr.resources-read/echoed'],
    ['upper-case-sentinel', '{url}', 'client.modern.headers.x-mcp-header/encoded'],
    ['keeps-invalid-header-tool', '{url}', 'client.modern.headers.invalid-x-mcp-header'],
    ['no-probe', '{stdio}', 'client.modern.era.probe-first'],
    ['reprobes', '{url}', 'client.modern.era.cached'],
    ['calls-after-legacy-answer', '{stdio}', 'client.modern.era.fallback-any-code/no-request-after-legacy'],
    ['retries-unknown-result-type', '{url}', 'client.modern.result.unknown-type'],
    ['listen-not-cancelled', '{stdio}', 'client.modern.subscriptions.ended'],
    ['task-without-server', '{url}', 'client.modern.extensions.one-sided'],
    ['no-relist-after-mismatch', '{url}', 'client.modern.headers.mismatch-relist'],
    ['discover-with-params', '{stdio}', 'live.DISC-REQ-01'],
    // The response breaks the base direction rule too, in the same finding, and answers no request of mcpcheck's (BASE-RES-01).
    ['answers-input-as-response', '{stdio}', 'live.STDIO-DIR-01', ['live.BASE-DIR-01', 'live.BASE-RES-01']],
    ['mode-less-as-url', '{url}', 'client.mrtr.form-elicitation/mode-less-as-form'],
    // Its keys then answer fewer than were asked: MRTR-CLI-05 judged live.
    ['sampling-unanswered', '{stdio}', 'client.mrtr.sampling-and-roots/sampling-answered', ['live.MRTR-CLI-05']],
    // Its answer is a JSON-RPC response from a 2026 client (BASE-DIR-01 with STDIO-DIR-01, one finding) and an error without the id of any request (BASE-ERR-01).
    ['stops-at-empty-cursor', '{url}', 'client.pagination.empty-cursor'],
    ['chokes-on-sse-comment', '{url}', 'client.modern.sse-comments'],
    ['answers-unknown-notification', '{stdio}', 'client.robust.unknown-notification/unanswered', ['live.BASE-DIR-01', 'live.STDIO-DIR-01', 'live.BASE-ERR-01']],
    ['handle-as-result', '{stdio}', 'client.modern.tasks.handle'],
    ['ignores-poll-interval', '{url}', 'client.modern.tasks.poll-interval'],
    ['ignores-task-input', '{stdio}', 'client.modern.tasks.input'],
    ['polls-foreign-handle', '{stdio}', 'client.modern.tasks.foreign-handle'],
    ['no-task-mcp-name', '{url}', 'live.TASK-HDR-01'],
  ];
  it('has a test for every break of the fixture', () => {
    expect(caught.map(([b]) => b).sort()).toEqual(Object.keys(CLIENT_2026_BREAKS).sort());
  });
  for (const [brk, address, check, also = []] of caught) {
    it(`catches --break ${brk} (${CLIENT_2026_BREAKS[brk].rule}) as ${check}, and only there`, async () => {
      const rule = CLIENT_2026_BREAKS[brk].rule;
      const report = await judge(`--break ${brk}`, address, breakScope(rule, [check, ...also], SHOWN_BY[brk]));
      // Live validation of the stateless era judges the same rule on the same frames: the only other check allowed.
      expect(unmet(report)).toContain(check);
      for (const id of also) expect(unmet(report)).toContain(id);
      expect(unmet(report).filter((id) => id !== check && id !== `live.${rule}` && !also.includes(id))).toEqual([]);
    }, 120_000);
  }
});
