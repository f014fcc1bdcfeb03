import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeaderList, httpExchange } from '../src/transport/http-client.js';
import { HttpChannel } from '../src/transport/http.js';
import { readBody } from '../src/transport/http-util.js';

// mcpcheck's HTTP client on node:http (src/transport/http-client.ts), against a plain node:http server.
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let other: Server;
let base: string;
let otherBase: string;
const seen: Seen[] = [];

function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
  seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
  switch (req.url) {
    case '/gzip':
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(gzipSync('{"ok":true}'));
      break;
    case '/bomb':
      // 64 MiB of zeros, compressed to about 64 KiB.
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(gzipSync(Buffer.alloc(64 * 1024 * 1024)));
      break;
    case '/moved':
      res.writeHead(307, { Location: '/mcp/' }).end();
      break;
    case '/see-other':
      res.writeHead(303, { Location: '/mcp/' }).end();
      break;
    case '/elsewhere':
      res.writeHead(307, { Location: `${otherBase}/mcp/` }).end();
      break;
    case '/loop':
      res.writeHead(308, { Location: '/loop' }).end();
      break;
    case '/open':
      res.writeHead(200, { 'Content-Type': 'text/event-stream' }).write('data: {}\n\n');
      break; // left open
    case '/late':
      setTimeout(() => res.writeHead(200).end(), 2000);
      break;
    default:
      res.setHeader('X-Twice', ['a', 'b']);
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`${req.method} ${body}`);
  }
}

function listen(s: Server): Promise<string> {
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));
}

function serve(): Server {
  return createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handle(req, res, body));
  });
}

beforeAll(async () => {
  server = serve();
  other = serve();
  base = await listen(server);
  otherBase = await listen(other);
});

afterAll(async () => {
  await Promise.all([server, other].map((s) => new Promise((r) => s.close(r))));
});

const post = (path: string, body = '{"x":1}') =>
  httpExchange(new URL(path, base), { method: 'POST', headers: new HeaderList({ 'Content-Type': 'application/json' }), body, signal: new AbortController().signal });

describe('httpExchange', () => {
  it('asks for compressed bodies and decodes them', async () => {
    const res = await post('/gzip');
    expect(seen.at(-1)!.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect((await readBody(res, 1024)).bytes.toString()).toBe('{"ok":true}');
  });

  it('bounds what a compressed body decodes to', async () => {
    const res = await post('/bomb');
    const read = await readBody(res, 1024 * 1024);
    expect(read.truncated).toBe(true);
    expect(read.bytes.length).toBe(1024 * 1024);
  });

  it('follows a 307 within the origin with the same method and body', async () => {
    const res = await post('/moved', '{"kept":true}');
    expect(res.status).toBe(200);
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/mcp/', body: '{"kept":true}' });
  });

  it('continues a 303 as a GET without the body, as fetch does', async () => {
    const res = await post('/see-other');
    expect(res.status).toBe(200);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/mcp/', body: '' });
  });

  it('does not follow a redirect to another origin, nor one without end', async () => {
    const before = seen.length;
    expect((await post('/elsewhere')).status).toBe(307);
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/elsewhere']);
    expect((await post('/loop')).status).toBe(308);
  });

  it('joins a repeated response field with ", ", as fetch does', async () => {
    expect((await post('/plain')).headers['x-twice']).toBe('a, b');
  });

  it('rejects, without sending, a header value that is not allowed', async () => {
    await expect(
      httpExchange(new URL(base), { method: 'GET', headers: new HeaderList({ 'X-Bad': 'a\nb' }), signal: new AbortController().signal }),
    ).rejects.toThrow();
  });

  it('an abort rejects a request still waiting with the reason, and ends the read of a body under way with an error', async () => {
    const reason = new Error('mcpcheck aborts');
    const waiting = new AbortController();
    const late = httpExchange(new URL('/late', base), { method: 'GET', headers: new HeaderList(), signal: waiting.signal });
    setTimeout(() => waiting.abort(reason), 50);
    await expect(late).rejects.toBe(reason);

    const reading = new AbortController();
    const res = await httpExchange(new URL('/open', base), { method: 'GET', headers: new HeaderList(), signal: reading.signal });
    setTimeout(() => reading.abort(reason), 50);
    const read = await readBody(res, 1024);
    expect(read.bytes.toString()).toBe('data: {}\n\n');
    expect(read.error).toBeDefined();
  });

  it('treats header names without regard to case, the one set last winning', () => {
    const h = new HeaderList({ 'User-Agent': 'mcpcheck', accept: 'a' });
    h.set('user-agent', 'theirs');
    h.set('Accept', 'b');
    expect(h.toRecord()).toEqual({ 'user-agent': 'theirs', Accept: 'b' });
  });
});

describe('HttpChannel over httpExchange', () => {
  it('names itself, and lets the user name it otherwise', async () => {
    await new HttpChannel({ url: `${base}/probe` }).request({ method: 'GET' });
    expect(seen.at(-1)!.headers['user-agent']).toBe('mcpcheck');
    await new HttpChannel({ url: `${base}/probe`, headers: { 'user-agent': 'theirs/1' } }).request({ method: 'GET' });
    expect(seen.at(-1)!.headers['user-agent']).toBe('theirs/1');
  });
});

/**
 * A server that drops the connection of some requests without a byte of answer; `drop` sees how
 * many requests came before on the same connection. Every request it sees is counted.
 */
async function dropping(drop: (earlierOnSocket: number) => 'reset' | 'close' | 'half-answer' | undefined): Promise<{ url: URL; seen: () => number; close: () => Promise<void> }> {
  const earlier = new WeakMap<object, number>();
  let count = 0;
  const s = createServer((req, res) => {
    count++;
    const n = earlier.get(req.socket) ?? 0;
    earlier.set(req.socket, n + 1);
    req.resume();
    req.on('end', () => {
      const how = drop(n);
      if (how === 'reset') req.socket.resetAndDestroy();
      else if (how === 'close') req.socket.destroy();
      else if (how === 'half-answer') req.socket.end('HTTP/1.1 200 OK\r\nContent-Ty');
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
  });
  const at = await listen(s);
  return {
    url: new URL('/mcp', at),
    seen: () => count,
    close: () => new Promise((r) => { s.closeAllConnections(); s.close(() => r()); }),
  };
}

/** POSTs a ping and reads its answer to the end, so that its connection goes back to the pool. */
async function ping(url: URL): Promise<number> {
  const res = await httpExchange(url, { method: 'POST', headers: new HeaderList({ 'Content-Type': 'application/json' }), body: '{"jsonrpc":"2.0","id":1,"method":"ping"}', signal: new AbortController().signal });
  await readBody(res, 1024);
  // The agent takes the socket back on the tick after the body's end.
  await new Promise((r) => setImmediate(r));
  return res.status;
}

describe('httpExchange on a kept-alive connection the server has dropped', () => {
  it.each(['reset', 'close'] as const)('resends a POST once, on a fresh connection, when a reused connection is dropped (%s) before any answer', async (how) => {
    const server = await dropping((earlier) => (earlier > 0 ? how : undefined));
    try {
      expect(await ping(server.url)).toBe(200);
      // The second POST goes out on the first one's connection, which the server drops.
      expect(await ping(server.url)).toBe(200);
      expect(server.seen()).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('HttpChannel: the ping whose reused connection was dropped is answered on the resend', async () => {
    const server = await dropping((earlier) => (earlier > 0 ? 'reset' : undefined));
    const channel = new HttpChannel({ url: server.url.href, deleteOnClose: false });
    const answers: unknown[] = [];
    channel.onFrame((f) => answers.push(f.message));
    try {
      for (let i = 0; i < 2; i++) {
        const sent = await channel.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
        expect(sent.error).toBeUndefined();
        await sent.done;
        await new Promise((r) => setImmediate(r));
      }
      expect(answers).toHaveLength(2);
    } finally {
      await channel.close();
      await server.close();
    }
  });

  it('does not resend a POST whose connection was fresh', async () => {
    const server = await dropping(() => 'reset');
    try {
      await expect(ping(server.url)).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect(server.seen()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('does not resend a POST whose answer had begun', async () => {
    const server = await dropping((earlier) => (earlier > 0 ? 'half-answer' : undefined));
    try {
      await ping(server.url);
      await expect(ping(server.url)).rejects.toThrow();
      expect(server.seen()).toBe(2);
    } finally {
      await server.close();
    }
  });
});
