import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingFrame } from '../src/transport/channel.js';
import { HttpChannel, redactHeaders, redactUrl, TargetUnreachable, type HttpChannelOptions } from '../src/transport/index.js';
import type { Finding } from '../src/validate/finding.js';

const SECRET = 'Bearer mcpcheck-secret-token-123';
const SESSION = 'sess-!#$%&*+.^_`|~-42'; // visible ASCII punctuation, must come back byte for byte

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A scripted Streamable HTTP server; the JSON-RPC method picks the behaviour under test. */
class TestServer {
  readonly seen: Seen[] = [];
  getMode: '405' | 'sse' = '405';
  /** Called with the response of each 'sse' call, e.g. to watch for the client dropping it. */
  onSse: ((res: ServerResponse) => void) | undefined;
  deleteStatus = 200;
  private server!: Server;
  private readonly waiting = new Map<string, () => void>();
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    this.seen.push({ method: req.method!, headers: req.headers, body });
    if (req.method === 'DELETE') return void res.writeHead(this.deleteStatus).end();
    if (req.method === 'GET') {
      if (this.getMode === '405') return void res.writeHead(405, { Allow: 'POST, DELETE' }).end();
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`id: g1\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`);
      return; // left open, like a real listening stream
    }
    let msg: { id?: string | number; method?: string; params?: { mode?: string } };
    try {
      msg = JSON.parse(body) as typeof msg;
    } catch {
      return void res.writeHead(400).end();
    }
    if (msg.method === undefined || msg.id === undefined) {
      // A notification, or a response to one of our requests.
      if (msg.id !== undefined) this.waiting.get(String(msg.id))?.();
      return void res.writeHead(202).end();
    }
    const reply = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
    const json = (text: string | Buffer, headers: Record<string, string> = {}) =>
      res.writeHead(200, { 'Content-Type': 'application/json', ...headers }).end(text);
    switch (msg.method === 'tools/call' ? msg.params?.mode : msg.method) {
      case 'initialize':
        return void json(reply({ protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 't', version: '1' } }), {
          'MCP-Session-Id': SESSION,
        });
      case 'sse': {
        // Priming event, then a server→client request (in the same chunk); the response only after the client answered it.
        res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8' });
        this.onSse?.(res);
        res.write(`id: e1\nretry: 1500\ndata:\n\nid: e2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 's1', method: 'roots/list' })}\n\n`);
        this.waiting.set('s1', () => {
          res.write(`id: e3\ndata: ${reply({ content: [] })}\n\n`);
          res.end();
        });
        return;
      }
      case 'sse-garbage':
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write('data: this is not json\n\n');
        res.write(Buffer.concat([Buffer.from('data: {"jsonrpc":"2.0","method":"x","params":{"p":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}\n\n')]));
        return void res.end(`data: ${reply({})}\n\n`);
      case 'sse-unprimed':
        // No priming event: the first event already carries the response, under the same id each time.
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        return void res.end(`id: u1\ndata: ${reply({ content: [] })}\n\n`);
      case 'not-json':
        return void json('<html>oops</html>');
      case 'bad-utf8':
        return void json(Buffer.concat([Buffer.from(reply({ s: 'x' }).slice(0, -3)), Buffer.from([0xff]), Buffer.from('"}}')]));
      case 'text':
        return void res.writeHead(500, { 'Content-Type': 'text/plain' }).end('internal trouble');
      case 'big':
        return void json(reply({ s: 'a'.repeat(2 * 1024 * 1024) }));
      case 'silent':
        return; // never answers
      default:
        return void json(reply({}));
    }
  }
}

const servers: TestServer[] = [];
const channels: HttpChannel[] = [];
afterEach(async () => {
  await Promise.all(channels.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function setup(options: Partial<HttpChannelOptions> = {}) {
  const server = new TestServer();
  await server.start();
  servers.push(server);
  const channel = new HttpChannel({ url: server.url, headers: { Authorization: SECRET }, timeoutMs: 5000, ...options });
  channels.push(channel);
  const frames: IncomingFrame[] = [];
  const findings: Finding[] = [];
  channel.onFrame((f) => frames.push(f));
  channel.onFinding((f) => findings.push(f));
  return { server, channel, frames, findings };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcpcheck-test', version: '0' } },
};
const call = (id: number, mode: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x', mode } });
const ids = (f: Finding[]) => f.map((x) => `${x.requirements[0]}:${x.severity}`);

async function until(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('HttpChannel POST', () => {
  it('posts with the required headers, captures the session id and sends it and the version afterwards', async () => {
    const { server, channel, frames, findings } = await setup();
    const res = await channel.send(initialize);
    expect(res).toMatchObject({ status: 200, bodyKind: 'json', exchange: 1, contentType: 'application/json' });
    expect(res.headers!['mcp-session-id']).toBe(SESSION);
    expect(frames).toEqual([expect.objectContaining({ via: 'post-json', exchange: 1, message: expect.objectContaining({ id: 1 }) })]);
    expect(channel.sessionId).toBe(SESSION);

    const first = server.seen[0]!.headers;
    expect(first['accept']).toBe('application/json, text/event-stream');
    expect(first['content-type']).toBe('application/json');
    expect(first['authorization']).toBe(SECRET);
    expect(first['mcp-protocol-version']).toBeUndefined();
    expect(first['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(server.seen[0]!.body)).toEqual(initialize);

    channel.setProtocolVersion('2025-11-25');
    const ack = await channel.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(ack).toMatchObject({ status: 202, bodyKind: 'empty' });
    await channel.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    for (const seen of server.seen.slice(1)) {
      expect(seen.headers['mcp-session-id']).toBe(SESSION);
      expect(seen.headers['mcp-protocol-version']).toBe('2025-11-25');
      expect(seen.headers['authorization']).toBe(SECRET);
    }
    expect(frames).toHaveLength(2);
    expect(findings).toEqual([]);
  });

  it('resolves an SSE reply at the headers, so a server→client request can be answered while the stream is open', async () => {
    const { channel, frames, findings } = await setup();
    channel.onFrame((f) => {
      const m = f.message as { id?: string; method?: string };
      if (m.method === 'roots/list') void channel.send({ jsonrpc: '2.0', id: m.id, result: { roots: [] } });
    });
    const res = await channel.send(call(5, 'sse'));
    expect(res).toMatchObject({ status: 200, bodyKind: 'sse', exchange: 1 });
    const end = await res.done;
    expect(end).toMatchObject({ reason: 'end', retry: 1500, lastEventId: 'e3' });
    expect(end.events.map((e) => [e.id, e.dataBytes > 0])).toEqual([
      ['e1', false],
      ['e2', true],
      ['e3', true],
    ]);
    expect(frames.map((f) => [f.via, f.exchange, (f.message as { id: unknown }).id])).toEqual([
      ['post-sse', 1, 's1'],
      ['post-sse', 1, 5],
    ]);
    expect(findings).toEqual([]);
  });

  it('reports SSE data that is not JSON or not UTF-8', async () => {
    const { channel, frames, findings } = await setup();
    const res = await channel.send(call(1, 'sse-garbage'));
    await res.done;
    // The UTF-8 check runs per chunk, the JSON check per event: their order depends on chunking.
    expect(ids(findings).sort()).toEqual(['BASE-MSG-01:fail', 'BASE-MSG-02:fail']);
    expect(frames).toHaveLength(3);
    expect(frames[0]!.parseError).toBeTruthy();
    expect(frames[1]!.raw).toContain('\uFFFD');
    expect(frames[2]!.message).toMatchObject({ id: 1 });
  });

  it('judges SSE streams by the rules of the negotiated revision (HTTP-SSE-01 from 2025-11-25, HTTP-RESUME-01 from 2025-03-26)', async () => {
    const seen: Record<string, string[]> = {};
    for (const revision of ['2024-11-05', '2025-06-18', '2025-11-25']) {
      const { channel, findings } = await setup();
      await channel.send(initialize);
      channel.setProtocolVersion(revision);
      for (const id of [2, 3]) await (await channel.send(call(id, 'sse-unprimed'))).done;
      seen[revision] = ids(findings);
    }
    expect(seen).toEqual({
      '2024-11-05': [],
      '2025-06-18': ['HTTP-RESUME-01:fail'],
      '2025-11-25': ['HTTP-SSE-01:warn', 'HTTP-SSE-01:warn', 'HTTP-RESUME-01:fail'],
    });
  });

  it('reports a JSON response whose body is not JSON (HTTP-POST-05) or not UTF-8 (BASE-MSG-02)', async () => {
    const { channel, frames, findings } = await setup();
    expect(await channel.send(call(1, 'not-json'))).toMatchObject({ bodyKind: 'json' });
    expect(ids(findings)).toEqual(['HTTP-POST-05:fail']);
    expect(findings[0]!.message).toContain('"<html>oops</html>"');
    expect(frames[0]).toMatchObject({ raw: '<html>oops</html>', via: 'post-json' });
    expect(frames[0]!.parseError).toBeTruthy();

    await channel.send(call(2, 'bad-utf8'));
    expect(ids(findings)).toEqual(['HTTP-POST-05:fail', 'BASE-MSG-02:fail']);
    expect(frames[1]!.message).toMatchObject({ id: 2 });
  });

  it('keeps a body of another type as text and bounds a JSON body', async () => {
    const { channel, frames, findings } = await setup({ maxMessageBytes: 1024 * 1024 });
    expect(await channel.send(call(1, 'text'))).toMatchObject({ status: 500, bodyKind: 'other', body: 'internal trouble' });
    const big = await channel.send(call(2, 'big'));
    expect(big.bodyKind).toBe('json');
    expect(await big.done).toMatchObject({ reason: 'limit' });
    expect(frames).toEqual([]);
    expect(ids(findings)).toEqual(['HTTP-POST-05:info']);
  });

  it('turns a later timeout into an error result instead of a throw', async () => {
    const { channel } = await setup({ timeoutMs: 300 });
    await channel.send(initialize);
    const t0 = Date.now();
    const res = await channel.send(call(2, 'silent'));
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(res.error).toMatch(/no response within 300 ms/);
    expect(await res.done).toMatchObject({ reason: 'timeout' });
  });
});

describe('HttpChannel GET, DELETE and close', () => {
  it('treats 405 on GET as an answer and streams SSE frames from an open GET', async () => {
    const { server, channel, frames } = await setup();
    await channel.send(initialize);
    channel.setProtocolVersion('2025-11-25');
    expect(await channel.openGetStream()).toMatchObject({ status: 405, bodyKind: 'empty' });

    server.getMode = 'sse';
    const res = await channel.openGetStream({ lastEventId: 'e9' });
    expect(res).toMatchObject({ status: 200, bodyKind: 'sse' });
    await until('the GET frame', () => frames.some((f) => f.via === 'get-sse'));
    const get = server.seen.at(-1)!.headers;
    expect(get['accept']).toBe('text/event-stream');
    expect(get['last-event-id']).toBe('e9');
    expect(get['mcp-session-id']).toBe(SESSION);
    expect(get['mcp-protocol-version']).toBe('2025-11-25');
    expect(frames.at(-1)).toMatchObject({ via: 'get-sse', exchange: res.exchange });

    await channel.close();
    expect(await res.done).toMatchObject({ reason: 'closed', events: [expect.objectContaining({ id: 'g1' })] });
  });

  it('sends DELETE with the session id; close() does not repeat a successful one', async () => {
    const { server, channel } = await setup();
    await channel.send(initialize);
    expect(await channel.deleteSession()).toMatchObject({ status: 200 });
    const del = server.seen.at(-1)!;
    expect(del.method).toBe('DELETE');
    expect(del.headers['mcp-session-id']).toBe(SESSION);
    await channel.close();
    expect(server.seen.filter((s) => s.method === 'DELETE')).toHaveLength(1);
  });

  it('close() ends a live session with DELETE and refuses later sends', async () => {
    const { server, channel } = await setup();
    const closes: unknown[] = [];
    channel.onClose((c) => closes.push(c));
    await channel.send(initialize);
    await channel.close();
    expect(server.seen.at(-1)).toMatchObject({ method: 'DELETE', headers: expect.objectContaining({ 'mcp-session-id': SESSION }) });
    expect(closes).toEqual([{ reason: 'closed' }]);
    expect((await channel.send({ jsonrpc: '2.0', id: 9, method: 'ping' })).error).toMatch(/closed/);
  });

  it('close() aborts a request still waiting for its answer', async () => {
    const { channel } = await setup();
    await channel.send(initialize);
    const pending = channel.send(call(2, 'silent'));
    await new Promise((r) => setTimeout(r, 100));
    await channel.close();
    expect((await pending).error).toMatch(/closed/);
  });
  it('close() the moment the last event of an SSE answer is delivered neither throws nor leaves an error behind (a stateless server: no DELETE first)', async () => {
    // As a scenario does once its answer is in: the body has been read to its last byte but its end
    // not yet reported, and node's own abort handling pooled the socket, then emitted the AbortError
    // on it with nobody listening.
    const { channel } = await setup();
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      let closing: Promise<void> | undefined;
      channel.onFrame(() => queueMicrotask(() => (closing ??= channel.close())));
      const res = await channel.send(call(2, 'sse-unprimed'));
      await until('the answer', () => closing !== undefined);
      await closing;
      await res.done;
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});

describe('HttpChannel raw probes', () => {
  it('sends exactly what the probe asks, delivers nothing and leaves the session alone', async () => {
    const { server, channel, frames } = await setup();
    await channel.send(initialize);
    channel.setProtocolVersion('2025-11-25');

    const p1 = await channel.request({
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
      omitSessionId: true,
      headers: { Accept: null, 'Content-Type': 'text/plain', Origin: 'http://mcpcheck-evil.example' },
    });
    expect(p1).toMatchObject({ status: 200, contentType: 'application/json', truncated: false, incomplete: false });
    expect(JSON.parse(p1.body)).toMatchObject({ id: 3 });
    const h1 = server.seen.at(-1)!.headers;
    expect(h1['mcp-session-id']).toBeUndefined();
    expect(h1['accept']).toBeUndefined(); // removed means not sent
    expect(h1['user-agent']).toBe('mcpcheck');
    expect(h1['content-type']).toBe('text/plain');
    expect(h1['origin']).toBe('http://mcpcheck-evil.example');
    expect(h1['mcp-protocol-version']).toBe('2025-11-25');

    await channel.request({ method: 'POST', body: '{}', sessionIdOverride: 'mcpcheck-unknown', omitProtocolVersion: true });
    const h2 = server.seen.at(-1)!.headers;
    expect(h2['mcp-session-id']).toBe('mcpcheck-unknown');
    expect(h2['mcp-protocol-version']).toBeUndefined();

    const p3 = await channel.request({ method: 'POST', body: JSON.stringify(call(4, 'sse')), readMs: 300 });
    expect(p3.sseEvents?.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(p3).toMatchObject({ incomplete: true, retry: 1500 });

    expect(frames).toHaveLength(1); // only the initialize result
    expect(channel.sessionId).toBe(SESSION);
  });

  it('drops an SSE stream right after the event stopWhen accepts, and the server sees the connection close', async () => {
    const { server, channel } = await setup();
    await channel.send(initialize);
    let closed = false;
    server.onSse = (res) => res.on('close', () => (closed = true));
    const res = await channel.request({ method: 'POST', body: JSON.stringify(call(5, 'sse')), stopWhen: (e) => e.id !== undefined && e.data === '', readMs: 2000 });
    // The roots/list request came in the same chunk, after the priming event: never received.
    expect(res.sseEvents).toEqual([{ id: 'e1', data: '' }]);
    expect(res).toMatchObject({ dropped: true, incomplete: false, retry: 1500 });
    expect(res.error).toBeUndefined();
    await until('the server to see the connection close', () => closed, 2000);
  });

  it('stops an SSE read at maxEvents', async () => {
    const { channel } = await setup();
    await channel.send(initialize);
    const res = await channel.request({ method: 'POST', body: JSON.stringify(call(6, 'sse')), maxEvents: 2, readMs: 2000 });
    expect(res.sseEvents?.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(res.dropped).toBe(true);
  });

  it('reports a probe that found nobody as status 0 with an error', async () => {
    const { server, channel } = await setup();
    await server.stop();
    servers.length = 0;
    const res = await channel.request({ method: 'GET' });
    expect(res.status).toBe(0);
    expect(res.error).toMatch(/ECONNREFUSED/);
  });
});

describe('unreachable targets and secrets', () => {
  async function closedPort(): Promise<string> {
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const port = (s.address() as AddressInfo).port;
    await new Promise((resolve) => s.close(resolve));
    return `http://127.0.0.1:${port}/mcp`;
  }

  it('throws TargetUnreachable quickly for a closed port, naming the URL but no header value', async () => {
    const url = await closedPort();
    const channel = new HttpChannel({ url, headers: { Authorization: SECRET } });
    channels.push(channel);
    const t0 = Date.now();
    const err = await channel.send(initialize).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(err).toBeInstanceOf(TargetUnreachable);
    expect((err as Error).message).toBe(`cannot reach ${url}: connection refused (ECONNREFUSED)`);
    expect((err as Error).message).not.toContain('secret');
  });

  it('throws TargetUnreachable when the first request gets no answer in time', async () => {
    const { server } = await setup();
    const channel = new HttpChannel({ url: server.url, timeoutMs: 300 });
    channels.push(channel);
    const err = await channel.send(call(1, 'silent')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetUnreachable);
    expect((err as Error).message).toContain('no response within 300 ms');
  });

  it('never shows the values of user headers or URL secrets', () => {
    const channel = new HttpChannel({ url: 'https://example.test/mcp?api_key=abc123', headers: { Authorization: SECRET, 'X-Api-Key': 'k-999' } });
    const text = `${channel.describe()} ${inspect(channel, { depth: 5 })} ${JSON.stringify(channel)}`;
    expect(text).not.toContain('secret-token');
    expect(text).not.toContain('k-999');
    expect(channel.describe()).toBe(
      'Streamable HTTP https://example.test/mcp?api_key=[redacted] (headers: Authorization: [redacted], X-Api-Key: [redacted])',
    );
    expect(channel.describe()).not.toContain('abc123');
    expect(redactHeaders({ Authorization: SECRET })).toEqual({ Authorization: '[redacted]' });
    expect(redactUrl('http://u:p@h.test/x')).toBe('http://h.test/x');
    expect(() => new HttpChannel({ url: 'http://u:p@h.test/x' })).toThrow(/credentials in the URL/);
  });
});
