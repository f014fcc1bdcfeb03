import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingFrame } from '../src/transport/channel.js';
import { openHttpEndpoint, type HttpEndpoint, type HttpEndpointOptions } from '../src/transport/http-endpoint.js';
import type { ClientExchange } from '../src/transport/server-channel.js';
import type { Finding } from '../src/validate/finding.js';

interface Rpc {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
}

/** An endpoint with everything it reports collected, answered by a tiny MCP server loop. */
interface Harness {
  endpoint: HttpEndpoint;
  frames: IncomingFrame[];
  exchanges: ClientExchange[];
  findings: Finding[];
  /** Called instead of the default answer for a request; return true when it handled it. */
  intercept?: (m: Rpc, frame: IncomingFrame) => boolean;
}

const open: Array<{ endpoint: HttpEndpoint; clients: Client[] }> = [];

afterEach(async () => {
  for (const o of open.splice(0)) {
    for (const c of o.clients) await c.close().catch(() => undefined);
    await o.endpoint.close();
  }
});

async function harness(options: HttpEndpointOptions = {}): Promise<Harness> {
  const endpoint = await openHttpEndpoint(options);
  const h: Harness = { endpoint, frames: [], exchanges: [], findings: [] };
  open.push({ endpoint, clients: [] });
  endpoint.onExchange((e) => h.exchanges.push(e));
  endpoint.onFinding((f) => h.findings.push(f));
  endpoint.onFrame((frame) => {
    h.frames.push(frame);
    const m = frame.message as Rpc | undefined;
    if (!m || typeof m.method !== 'string' || m.id === undefined) return;
    if (h.intercept?.(m, frame)) return;
    void endpoint.send({ jsonrpc: '2.0', id: m.id, result: answerFor(m) });
  });
  return h;
}

function answerFor(m: Rpc): unknown {
  switch (m.method) {
    case 'initialize':
      return { protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'endpoint-test', version: '0' } };
    case 'tools/list':
      return { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    case 'tools/call':
      return { content: [{ type: 'text', text: 'done' }] };
    default:
      return {};
  }
}

async function connect(h: Harness, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(h.endpoint.address), { requestInit: { headers } });
  const client = new Client({ name: 'endpoint-test-client', version: '0' }, { capabilities: {} });
  open.at(-1)!.clients.push(client);
  await client.connect(transport);
  return { client, transport };
}

async function until<T>(what: string, probe: () => T | undefined, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const responseTo = (h: Harness, id: string) => h.frames.find((f) => (f.message as Rpc | undefined)?.id === id && 'result' in (f.message as object));

describe('HttpEndpoint with the SDK client', () => {
  it('listens on 127.0.0.1 at /mcp and completes the handshake answering with JSON bodies', async () => {
    const h = await harness({ policy: { answerWith: 'json' } });
    expect(h.endpoint.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client, transport } = await connect(h, { Authorization: 'Bearer secret-token-1', Cookie: 'sid=secret' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    const init = h.exchanges.find((e) => e.method === 'POST' && e.messages === 1 && e.exchange === 1)!;
    expect(init).toMatchObject({ status: 200, answer: 'json' });
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // The initialized notification: 202 with no body.
    const initialized = h.frames.find((f) => (f.message as Rpc).method === 'notifications/initialized')!;
    expect(h.exchanges.find((e) => e.exchange === initialized.exchange)).toMatchObject({ status: 202, answer: 'empty', messages: 1 });
    // Every later request carried the session id and the version; credentials were never recorded.
    const later = h.exchanges.filter((e) => e.exchange > 1);
    expect(later.every((e) => e.headers['mcp-session-id'] === transport.sessionId && e.headers['mcp-protocol-version'] === '2025-11-25')).toBe(true);
    expect(h.exchanges.every((e) => e.headers.authorization === '[redacted]' && e.headers.cookie === '[redacted]')).toBe(true);
    expect(JSON.stringify(h.exchanges)).not.toContain('secret');
    expect(h.findings).toEqual([]);
  });

  it('answers with SSE streams: priming event, retry, and server requests on the request\'s own stream', async () => {
    const h = await harness({ policy: { answerWith: 'sse', retryMs: 100 } });
    const pingExchange: number[] = [];
    h.intercept = (m) => {
      if (m.method !== 'tools/call') return false;
      void h.endpoint.send({ jsonrpc: '2.0', id: 'p1', method: 'ping' }).then((r) => {
        pingExchange.push(r.exchange!);
        void until('the ping answer', () => responseTo(h, 'p1')).then(() => h.endpoint.send({ jsonrpc: '2.0', id: m.id, result: answerFor(m) }));
      });
      return true;
    };
    const { client } = await connect(h);
    const result = await client.callTool({ name: 'echo', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    const call = h.frames.find((f) => (f.message as Rpc).method === 'tools/call')!;
    expect(pingExchange).toEqual([call.exchange]);
    expect(h.exchanges.find((e) => e.exchange === call.exchange)).toMatchObject({ method: 'POST', status: 200, answer: 'sse' });
    // The client's answer to the ping is a POST of its own, accepted with 202.
    expect(h.exchanges.find((e) => e.exchange === responseTo(h, 'p1')!.exchange)).toMatchObject({ status: 202 });
  });

  it('sends server requests on the GET stream when no request is pending', async () => {
    const h = await harness({ policy: { answerWith: 'json' } });
    await connect(h);
    const get = await until('the GET stream', () => h.exchanges.find((e) => e.method === 'GET' && e.status === 200));
    expect(get.answer).toBe('sse');
    expect(get.headers.accept).toContain('text/event-stream');
    const sent = await h.endpoint.send({ jsonrpc: '2.0', id: 'p2', method: 'ping' });
    expect(sent.exchange).toBe(get.exchange);
    await until('the ping answer', () => responseTo(h, 'p2'));
  });

  it('queues a server message while no stream is open and delivers it on the next one', async () => {
    const h = await harness({ policy: { answerWith: 'json', getStream: false } });
    await connect(h);
    const queued = await h.endpoint.send({ jsonrpc: '2.0', id: 'p3', method: 'ping' });
    expect(queued).toEqual({});
    expect(await until('the GET', () => h.exchanges.find((e) => e.method === 'GET'))).toMatchObject({ status: 405 });
    h.endpoint.policy.getStream = true;
    const fresh = await fetch(h.endpoint.address, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionOf(h) } });
    const reader = fresh.body!.getReader();
    let text = '';
    while (!text.includes('"p3"')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/^id: s\d+-1\ndata: \n\nid: s\d+-2\ndata: \{"jsonrpc":"2.0","id":"p3","method":"ping"\}\n\n/);
    await reader.cancel();
  });

  it('answers 404 once the session expired; the SDK client errors and a new initialize gets a new id', async () => {
    const h = await harness();
    const { client, transport } = await connect(h);
    const first = transport.sessionId;
    h.endpoint.expireSession();
    await expect(client.listTools()).rejects.toMatchObject({ code: 404 });
    expect(h.exchanges.some((e) => e.method === 'POST' && e.status === 404 && e.headers['mcp-session-id'] === first)).toBe(true);
    const again = await connect(h);
    expect(again.transport.sessionId).toBeDefined();
    expect(again.transport.sessionId).not.toBe(first);
    expect((await again.client.listTools()).tools).toHaveLength(1);
  });

  it('ends the session on DELETE and keeps serving new sessions', async () => {
    const h = await harness();
    const { transport } = await connect(h);
    const id = transport.sessionId!;
    await transport.terminateSession();
    expect(h.exchanges.find((e) => e.method === 'DELETE')).toMatchObject({ status: 200, answer: 'empty' });
    expect(h.exchanges.find((e) => e.method === 'DELETE')!.headers['mcp-session-id']).toBe(id);
    const stale = await post(h, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, { 'mcp-session-id': id });
    expect(stale.status).toBe(404);
    const missing = await post(h, { jsonrpc: '2.0', id: 9, method: 'tools/list' });
    expect(missing.status).toBe(400);
    await connect(h);
  });

  it('lets the client resume a dropped request stream with Last-Event-ID and delivers the response there', async () => {
    const h = await harness({ policy: { answerWith: 'sse', retryMs: 50 } });
    h.intercept = (m) => {
      if (m.method !== 'tools/call') return false;
      h.endpoint.dropStreamOf(m.id!);
      void h.endpoint.send({ jsonrpc: '2.0', id: m.id, result: answerFor(m) });
      return true;
    };
    const { client } = await connect(h);
    const result = await client.callTool({ name: 'echo', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    const resumed = h.exchanges.find((e) => e.method === 'GET' && e.headers['last-event-id'] !== undefined)!;
    expect(resumed).toMatchObject({ status: 200, answer: 'sse' });
    const call = h.frames.find((f) => (f.message as Rpc).method === 'tools/call')!;
    // The priming event of the dropped stream is what the client resumed from.
    expect(resumed.headers['last-event-id']).toMatch(/^s\d+-1$/);
    expect(resumed.exchange).toBeGreaterThan(call.exchange!);
    // It did not POST the request again.
    expect(h.frames.filter((f) => (f.message as Rpc).method === 'tools/call')).toHaveLength(1);
  });

  it('closes without leaving a listening server or a socket behind', async () => {
    const before = resources();
    const h = await harness();
    const { client } = await connect(h);
    await until('the GET stream', () => h.exchanges.find((e) => e.method === 'GET' && e.status === 200));
    const closed: unknown[] = [];
    h.endpoint.onClose((c) => closed.push(c));
    await h.endpoint.close();
    expect(closed).toEqual([{ reason: 'closed' }]);
    await client.close();
    await expect(fetch(h.endpoint.address, { method: 'POST', body: '{}' })).rejects.toThrow();
    await until('every socket to close', () => resources().server <= before.server && resources().socket <= before.socket);
    expect((await h.endpoint.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })).error).toMatch(/closed/);
  });
});

describe('HttpEndpoint with raw requests', () => {
  it('reports a batch body (BASE-MSG-05) and answers it with an array', async () => {
    const h = await harness();
    const res = await post(h, [initialize(1), { jsonrpc: '2.0', method: 'notifications/initialized' }]);
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    const body = (await res.json()) as Rpc[];
    expect(body).toHaveLength(1);
    expect(body[0]!.id).toBe(1);
    const frames = h.frames.filter((f) => f.exchange === 1);
    expect(frames.map((f) => f.via)).toEqual(['post', 'post']);
    expect(h.exchanges[0]).toMatchObject({ messages: 2, status: 200, answer: 'json' });
    // HTTP-POST-01 is judged on the exchange record (src/validate/client-http.ts), not here.
    expect(h.findings.map((f) => f.requirements)).toEqual([['BASE-MSG-05']]);
    expect(h.findings[0]!.severity).toBe('fail');
  });

  it('reports a body that is not JSON (BASE-MSG-01), delivers it with its parse error and answers 400', async () => {
    const h = await harness();
    const res = await fetch(h.endpoint.address, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc": nope' });
    expect(res.status).toBe(400);
    expect(h.frames).toHaveLength(1);
    expect(h.frames[0]).toMatchObject({ raw: '{"jsonrpc": nope', via: 'post', exchange: 1 });
    expect(h.frames[0]!.parseError).toBeDefined();
    expect(h.exchanges[0]!.messages).toBeUndefined();
    expect(h.findings.map((f) => f.requirements)).toEqual([['BASE-MSG-01']]);
  });

  it('answers an oversized body 413 without a finding', async () => {
    const h = await harness({ maxBodyBytes: 64 * 1024 });
    const res = await fetch(h.endpoint.address, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(100 * 1024) });
    expect(res.status).toBe(413);
    expect(h.findings).toEqual([]);
    expect(h.frames).toEqual([]);
  });

  it('requires the version header after initialize when the policy says so, and answers GET 405 without SSE in Accept', async () => {
    const h = await harness({ policy: { requireVersionHeader: true } });
    const init = await post(h, initialize(1));
    const session = init.headers.get('mcp-session-id')!;
    expect((await post(h, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': session })).status).toBe(400);
    expect((await post(h, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': session, 'mcp-protocol-version': '1999-01-01' })).status).toBe(400);
    const ok = await post(h, { jsonrpc: '2.0', id: 4, method: 'ping' }, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(await ok.json()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    const get = await fetch(h.endpoint.address, { headers: { accept: 'application/json', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
    expect(get.status).toBe(405);
    expect((await fetch(h.endpoint.address.replace('/mcp', '/other'), { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('marks the requests made while the client held an issued session id: from the first that shows it read the answer issuing it, not after a 404 to it or its DELETE, nor in a session it re-established (HTTP-SESS-04)', async () => {
    const h = await harness();
    const held = () => h.exchanges.map((e) => `${e.method} ${e.status} ${e.sessionHeld === true}`);
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const first = (await post(h, initialize(1))).headers.get('mcp-session-id')!;
    // Until the client shows it has the answer, a request without the id may have left before it.
    expect((await post(h, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(400);
    expect((await post(h, initialized, { 'mcp-session-id': first })).status).toBe(202);
    // Sent before it learns its session ended, a request still owes the id.
    h.endpoint.expireSession();
    expect((await post(h, { jsonrpc: '2.0', id: 3, method: 'ping' })).status).toBe(400);
    expect((await post(h, { jsonrpc: '2.0', id: 4, method: 'ping' }, { 'mcp-session-id': first })).status).toBe(404);
    expect((await post(h, { jsonrpc: '2.0', id: 5, method: 'ping' })).status).toBe(400);
    // Re-established after the 404: what it composed meanwhile may arrive late, so nothing is owed.
    await post(h, initialize(6));
    expect((await post(h, initialized)).status).toBe(400);
    // A session started while one was held is a first one: notifications/initialized follows the
    // answer, so it owes the id even when it lacks it.
    const third = (await post(h, initialize(7))).headers.get('mcp-session-id')!;
    expect((await post(h, initialized)).status).toBe(400);
    expect((await fetch(h.endpoint.address, { method: 'DELETE', headers: { 'mcp-session-id': third } })).status).toBe(200);
    expect((await post(h, { jsonrpc: '2.0', id: 8, method: 'ping' })).status).toBe(400);
    expect(held()).toEqual([
      'POST 200 false', 'POST 400 false', 'POST 202 true',
      'POST 400 true', 'POST 404 true', 'POST 400 false',
      'POST 200 false', 'POST 400 false',
      'POST 200 false', 'POST 400 true', 'DELETE 200 true', 'POST 400 false',
    ]);
  });

  it('records requests to other paths (404) with their path, without the query, bounded', async () => {
    const h = await harness();
    const origin = new URL(h.endpoint.address).origin;
    expect((await fetch(`${origin}/data:image/png;base64,iVBORw0KGgo=?token=hidden`)).status).toBe(404);
    expect((await fetch(`${origin}/${'a'.repeat(3000)}`)).status).toBe(404);
    expect(h.exchanges.map((e) => ({ path: e.path.slice(0, 40), length: e.path.length, toEndpoint: e.toEndpoint, status: e.status }))).toEqual([
      { path: '/data:image/png;base64,iVBORw0KGgo=', length: 35, toEndpoint: false, status: 404 },
      { path: `/${'a'.repeat(39)}`, length: 1024, toEndpoint: false, status: 404 },
    ]);
    expect(JSON.stringify(h.exchanges)).not.toContain('hidden');
  });

  it('replays on resume only the events of the stream the Last-Event-ID names, with ids unique across streams', async () => {
    const h = await harness({ policy: { answerWith: 'sse', sessions: false } });
    h.intercept = (m) => {
      if (m.id !== 'a') return false;
      h.endpoint.dropStreamOf('a');
      void h.endpoint.send({ jsonrpc: '2.0', id: 'a', result: {} });
      return true;
    };
    const a = await (await post(h, { jsonrpc: '2.0', id: 'a', method: 'ping' })).text();
    const b = await (await post(h, { jsonrpc: '2.0', id: 'b', method: 'ping' })).text();
    const idsOf = (text: string) => [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!);
    expect(a).not.toContain('"result"');
    expect(b).toContain('"id":"b"');
    const ids = [...idsOf(a), ...idsOf(b)];
    expect(new Set(ids).size).toBe(ids.length);
    const resumed = await fetch(h.endpoint.address, { headers: { accept: 'text/event-stream', 'last-event-id': idsOf(a)[0]! } });
    const replay = await resumed.text(); // the stream ends after the response it was opened for
    expect(replay).toContain('{"jsonrpc":"2.0","id":"a","result":{}}');
    expect(replay).not.toContain('"id":"b"');
    expect(new Set([...ids, ...idsOf(replay)]).size).toBe(ids.length + idsOf(replay).length);
  });

  it('writes sendRaw bytes as the whole JSON body of a waiting POST when no stream is open', async () => {
    const h = await harness();
    h.intercept = (m) => {
      if (m.method !== 'ping') return false;
      void h.endpoint.sendRaw('{"jsonrpc":"2.0","id":2,"result":');
      return true;
    };
    const init = await post(h, initialize(1));
    const res = await post(h, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': init.headers.get('mcp-session-id')! });
    expect(await res.text()).toBe('{"jsonrpc":"2.0","id":2,"result":');
  });
});

function initialize(id: number): Rpc {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
}

function post(h: Harness, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(h.endpoint.address, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

function sessionOf(h: Harness): string {
  return h.exchanges.find((e) => e.headers['mcp-session-id'] !== undefined)!.headers['mcp-session-id']!;
}

function resources(): { server: number; socket: number } {
  const all = process.getActiveResourcesInfo();
  return { server: all.filter((r) => r === 'TCPServerWrap').length, socket: all.filter((r) => r === 'TCPSocketWrap').length };
}
