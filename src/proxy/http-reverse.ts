import { createServer, type IncomingHttpHeaders, request as httpRequest, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** Headers of one hop only (RFC 9110 §7.6.1): never forwarded, in either direction. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** One HTTP exchange as it passes the proxy. */
export interface Exchange {
  /** 1, 2, … in the order requests arrived. */
  number: number;
  /** The client's connection it came over, numbered as they opened (a client's later requests on one connection are its own). */
  connection: number;
  method: string;
  /** The path and query the client asked for (forwarded as they are). */
  path: string;
  /** Request headers, lower-cased names (a repeated header joined as Node joins it). */
  requestHeaders: Readonly<Record<string, string>>;
  status?: number;
  responseHeaders?: Readonly<Record<string, string>>;
}

/** What the forwarder tells of each exchange, once each part of it is on its way. */
export interface ExchangeTap {
  requestBody(x: Exchange, chunk: Buffer): void;
  requestEnd(x: Exchange): void;
  /** The server's status and headers (already sent on to the client). */
  response(x: Exchange): void;
  responseBody(x: Exchange, chunk: Buffer): void;
  /** The response ended: 'end' when whole, 'aborted' when either side broke it off. */
  responseEnd(x: Exchange, how: 'end' | 'aborted'): void;
  /** The server could not be reached for this exchange: the client got 502. */
  unreachable(x: Exchange, why: string): void;
}

export interface ReverseProxy {
  /** `http://127.0.0.1:PORT` the proxy listens on. */
  origin: string;
  /** Stops listening and breaks off the exchanges still open (open streams included). */
  close(): Promise<void>;
}

function lowerCased(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** Raw headers (name, value, name, value …) without the hop-by-hop ones, and without those the `Connection` header names; with `host`, that Host first. */
function endToEnd(raw: readonly string[], host?: string): string[] {
  let named: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 10 && raw[i]!.toLowerCase() === 'connection') for (const n of raw[i + 1]!.split(',')) (named ??= new Set()).add(n.trim().toLowerCase());
  }
  const out: string[] = host !== undefined ? ['Host', host] : [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named?.has(name) || (host !== undefined && name === 'host')) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/**
 * `mcpcheck proxy --url … --listen …`: a reverse proxy on loopback that forwards every request
 * to the server (same method, path, query, headers but those of one hop, with the server's Host)
 * and its answer back (same status, headers, body), body bytes as they arrive both ways — an SSE
 * stream is passed on event by event, never held — with each side's flow control passed through.
 * A client that breaks off an exchange has it broken off at the server too. The tap is told of
 * every part once it is on its way.
 */
export function startReverseProxy(o: { upstream: URL; host: string; port: number; tap: ExchangeTap }): Promise<ReverseProxy> {
  let count = 0;
  const send = o.upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const origin = { protocol: o.upstream.protocol, hostname: o.upstream.hostname.replace(/^\[|\]$/g, ''), port: o.upstream.port || (o.upstream.protocol === 'https:' ? 443 : 80) };
  const sockets = new Set<Socket>();
  const connections = new WeakMap<Socket, number>();
  let opened = 0;
  const server = createServer((req, res) => {
    const x: Exchange = { number: ++count, connection: connections.get(req.socket) ?? 0, method: req.method ?? 'GET', path: req.url ?? '/', requestHeaders: lowerCased(req.headers) };
    // The client's path and query as they came, on the server's origin.
    const path = x.path.startsWith('/') ? x.path : `/${x.path}`;
    let ended = false;
    const end = (how: 'end' | 'aborted'): void => {
      if (ended) return;
      ended = true;
      o.tap.responseEnd(x, how);
    };
    const up = send({ ...origin, path, method: x.method, headers: endToEnd(req.rawHeaders, o.upstream.host) }, (answer) => {
      x.status = answer.statusCode ?? 502;
      x.responseHeaders = lowerCased(answer.headers);
      res.writeHead(x.status, answer.statusMessage, endToEnd(answer.rawHeaders));
      // A stream may stay quiet for long: its client sees the headers at once. Other answers send them with the body.
      if ((x.responseHeaders['content-type'] ?? '').toLowerCase().startsWith('text/event-stream')) res.flushHeaders();
      o.tap.response(x);
      carry(answer, res, (chunk) => o.tap.responseBody(x, chunk));
      answer.on('end', () => {
        res.end();
        end('end');
      });
      answer.on('error', () => {
        res.destroy();
        end('aborted');
      });
    });
    up.on('error', (e: NodeJS.ErrnoException) => {
      const why = e.code ?? e.message;
      if (x.status === undefined) {
        o.tap.unreachable(x, why);
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`mcpcheck proxy: the server at ${o.upstream.origin} could not be reached (${why})\n`);
      } else res.destroy();
      end('aborted');
    });
    carry(req, up, (chunk) => o.tap.requestBody(x, chunk));
    req.on('end', () => {
      up.end();
      o.tap.requestEnd(x);
    });
    // The client went away before the answer was whole: the server's side goes too (closing an SSE
    // stream is how a 2026-07-28 client cancels its request).
    res.on('close', () => {
      if (!res.writableFinished) {
        up.destroy();
        end('aborted');
      }
    });
  });
  server.on('connection', (socket) => {
    connections.set(socket, ++opened);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      const address = server.address() as AddressInfo;
      resolve({
        origin: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
}

/** Copies a body on as it arrives, pausing the source while the sink is full, and hands each chunk to `tap` once written. */
function carry(source: NodeJS.ReadableStream & { pause(): void; resume(): void }, sink: NodeJS.WritableStream | ServerResponse, tap: (chunk: Buffer) => void): void {
  source.on('data', (chunk: Buffer) => {
    if (!sink.write(chunk)) {
      source.pause();
      sink.once('drain', () => source.resume());
    }
    tap(chunk);
  });
}
