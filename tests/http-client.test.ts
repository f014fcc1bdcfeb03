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
