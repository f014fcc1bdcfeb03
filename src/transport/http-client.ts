import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';

/**
 * One HTTP exchange on node:http, the part of fetch that mcpcheck's client needs: fetch (undici)
 * spent about a fifth of a server run's CPU on web streams and its own machinery, and loading it
 * cost every run about 40 ms. Like fetch, it keeps connections alive, asks for and decodes
 * gzip, deflate and br, and follows redirects, but only within the target's origin, so that
 * neither the user's headers nor mcpcheck's probes reach any other host. Like any client that
 * keeps connections alive, it resends a request once when the server had dropped its idle
 * connection (see `staleConnection`).
 */

/** Header names are matched without regard to case; the spelling last set is the one sent. */
export class HeaderList {
  private readonly entries = new Map<string, [string, string]>();

  constructor(init: Record<string, string> = {}) {
    for (const [name, value] of Object.entries(init)) this.set(name, value);
  }

  set(name: string, value: string): void {
    this.entries.set(name.toLowerCase(), [name, value]);
  }

  delete(name: string): void {
    this.entries.delete(name.toLowerCase());
  }

  get(name: string): string | undefined {
    return this.entries.get(name.toLowerCase())?.[1];
  }

  toRecord(): Record<string, string> {
    return Object.fromEntries(this.entries.values());
  }
}

export interface HttpRequestInit {
  method: string;
  headers: HeaderList;
  body?: string | Uint8Array | undefined;
  signal: AbortSignal;
  /** 'manual': a redirect is the response (its Location read by the caller), never followed. Default: followed within the origin. */
  redirect?: 'follow' | 'manual';
}

export interface HttpResponse {
  readonly status: number;
  readonly ok: boolean;
  /** Lower-case names; a repeated field's values joined with ", ", as fetch's Headers.get gives them. */
  readonly headers: Readonly<Record<string, string>>;
  /** Each Set-Cookie field as it came (joined, their dates' commas would make them unreadable). */
  readonly setCookies: readonly string[];
  /** The body as it arrives, content-decoded; iteration throws on an abort, a reset or a bad encoding. */
  readonly body: AsyncIterable<Buffer>;
  /** Drops what is left of the body, and its connection. */
  cancel(): void;
}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
/** How a dropped connection shows: reset (or closed with nothing said: "socket hang up"), or closed while we wrote. */
const DROPPED = new Set(['ECONNRESET', 'EPIPE']);
const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress };

/** Sends one request; resolves once the response headers are in. Rejects as fetch would: network errors, aborts. */
export async function httpExchange(url: URL, init: HttpRequestInit): Promise<HttpResponse> {
  let target = url;
  let { method, body } = init;
  const headers = new HeaderList(init.headers.toRecord());
  if (headers.get('accept-encoding') === undefined) headers.set('Accept-Encoding', 'gzip, deflate, br');
  for (let hops = 0; ; hops++) {
    const res = await once(target, method, headers, body, init.signal);
    const location = res.headers.location;
    if (init.redirect === 'manual' || hops >= MAX_REDIRECTS || location === undefined || !REDIRECTS.has(res.statusCode ?? 0)) return response(res, init.signal);
    let next: URL;
    try {
      next = new URL(location, target);
    } catch {
      return response(res, init.signal);
    }
    if (next.origin !== url.origin) return response(res, init.signal);
    res.destroy();
    // As fetch does: 303, and 301/302 after a POST, continue as a GET without a body.
    if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      headers.delete('content-type');
    }
    target = next;
  }
}

/**
 * The signal is not handed to node:http: aborted after the response is in, node's own handling
 * destroys the request with an error, and when that response had been read up to its last byte
 * but its end not yet reported, node hands the socket back to the keep-alive pool first and then
 * emits the error on it with nobody listening: an uncaught exception (an AbortError) in the middle
 * of a channel's close(). So the signal destroys the request only until the response is in, and
 * from then on drops the response itself, without an error (see `response`).
 */
function once(url: URL, method: string, headers: HeaderList, body: string | Uint8Array | undefined, signal: AbortSignal, pooled = true): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
    const outgoing = headers.toRecord();
    if (payload !== undefined) outgoing['Content-Length'] = String(payload.length);
    let req: ClientRequest;
    try {
      // agent false: a connection of its own, closed after this exchange.
      req = send(url, { method, headers: outgoing, agent: pooled ? agents[url.protocol as 'http:' | 'https:'] : false });
    } catch (e) {
      // An invalid header value or method throws before anything is sent.
      reject(e);
      return;
    }
    // As fetch does, an abort rejects with the signal's reason.
    const onAbort = () => req.destroy(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let socket: Socket | undefined;
    let readBefore = 0;
    req.once('socket', (s) => {
      socket = s;
      readBefore = s.bytesRead;
    });
    req.once('response', (res) => {
      signal.removeEventListener('abort', onAbort);
      resolve(res);
    });
    req.on('error', (e) => {
      signal.removeEventListener('abort', onAbort);
      const answerBegun = socket === undefined || socket.bytesRead > readBefore;
      if (pooled && !signal.aborted && staleConnection(req, e, answerBegun)) resolve(once(url, method, headers, body, signal, false));
      else reject(e);
    });
    req.end(payload);
  });
}

/**
 * A kept-alive connection the server had closed while our request was on its way: the request went
 * out on a reused connection, which was reset or closed (or broke while we wrote) before a single
 * byte of an answer came. A server closes an idle connection between requests (its keep-alive
 * timeout; after refusing a body it did not read), so such a request never reached the server's
 * application, and sending it again on a fresh connection is safe even for a POST, which HTTP
 * does not call idempotent: it is what HTTP clients do (node's documentation of `reusedSocket`;
 * Go's net/http for a connection the server closed while idle). A JSON-RPC message resent is the
 * same message, id and all; a server that died on it refuses the resend, and that is reported. A
 * fresh connection dropped, or one whose answer had begun, is the server's doing and is reported
 * as it happened.
 */
function staleConnection(req: ClientRequest, err: unknown, answerBegun: boolean): boolean {
  return req.reusedSocket && !answerBegun && DROPPED.has(String((err as { code?: unknown } | null)?.code));
}

function response(res: IncomingMessage, signal: AbortSignal): HttpResponse {
  const headers: Record<string, string> = {};
  const setCookies: string[] = [];
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    headers[name] = headers[name] === undefined ? raw[i + 1]! : `${headers[name]}, ${raw[i + 1]!}`;
    if (name === 'set-cookie') setCookies.push(raw[i + 1]!);
  }
  const status = res.statusCode ?? 0;
  const decoder = DECODERS[(headers['content-encoding'] ?? '').trim().toLowerCase()];
  let body: Readable = res;
  if (decoder) {
    const decoding = decoder() as unknown as Readable;
    res.on('error', (e) => decoding.destroy(e));
    res.pipe(decoding as unknown as NodeJS.WritableStream);
    body = decoding;
  }
  const cancel = () => {
    res.destroy();
    if (body !== res) body.destroy();
  };
  // From here an abort drops the body: a read in progress throws (a premature close), none hangs.
  if (signal.aborted) cancel();
  else {
    signal.addEventListener('abort', cancel, { once: true });
    res.once('close', () => signal.removeEventListener('abort', cancel));
  }
  return { status, ok: status >= 200 && status < 300, headers, setCookies, body: body as AsyncIterable<Buffer>, cancel };
}
