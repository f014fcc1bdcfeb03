import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkEnvelope, type Envelope } from '../validate/envelope.js';
import { show, violation } from '../validate/finding.js';
import { isStatefulRevision as isRevision, STATELESS_REVISIONS } from '../spec/revisions.js';
import { META, MODERN_ERRORS, MODERN_HEADERS } from '../spec/modern.js';
import { isObject } from '../json.js';
import { ChannelEvents } from './channel-base.js';
import type { SendResult } from './channel.js';
import { clockFrom, decodeUtf8, Listeners, MiB, parseJson, quote } from './common.js';
import { EndpointStream, eventIdPrefix, parseEventId, type StreamOpening } from './http-endpoint-stream.js';
import { accepts, type BodyRead, boundedHeaders, header, readRequestBody, recordHeaders, recordPath } from './http-endpoint-util.js';
import type { ClientExchange, EndpointPolicy, GuardAnswer, RequestGuard, ServerChannel } from './server-channel.js';

export interface HttpEndpointOptions {
  /** Merged over DEFAULT_POLICY; the endpoint's `policy` object may be changed at any time afterwards. */
  policy?: Partial<EndpointPolicy>;
  /** Largest POST body read; a larger one is answered 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /** A socket with no traffic for this long is destroyed. Default 60 s. */
  idleMs?: number;
}

export const DEFAULT_POLICY: Readonly<EndpointPolicy> = {
  answerWith: 'json',
  sessions: true,
  priming: true,
  getStream: true,
  requireVersionHeader: false,
  eras: 'both',
};

const PATH = '/mcp';
/** Bounds: a client under test must not be able to make mcpcheck grow without limit. */
const MAX_CONNECTIONS = 64;
const MAX_STREAMS = 64;
const MAX_QUEUED = 256;
const MAX_HISTORY = 256;
/** The largest body a guard is handed (a registration, a token request). */
const GUARDED_BODY_BYTES = 64 * 1024;

/** A POST answered with a JSON body: it waits for the response to every request it carried. */
interface JsonAnswer {
  res: ServerResponse;
  record: ExchangeStart;
  batch: boolean;
  ids: string[];
  responses: Map<string, string | Uint8Array>;
  headers: Record<string, string>;
  done: boolean;
  /** It answers a request of the stateless era: an error goes with its HTTP status (400, or 404 for an unknown method). */
  modern: boolean;
}

type Carrier = { kind: 'json'; answer: JsonAnswer } | { kind: 'sse'; stream: EndpointStream };

interface Pending {
  carrier: Carrier;
  initialize: boolean;
}

type ExchangeStart = Omit<ClientExchange, 'status' | 'answer' | 'at'>;

/** Request ids as map keys: 1 and "1" are different ids. */
function idKey(id: string | number): string {
  return JSON.stringify(id);
}

function isResponse(env: Envelope): env is Envelope & { id: string | number } {
  return (env.kind === 'result' || env.kind === 'error') && env.id !== undefined;
}

/**
 * Whether a POST speaks the stateless era: a request whose `_meta` carries a per-request protocol
 * field, or a modern MCP-Protocol-Version header (header names compare case-insensitively, Node
 * lower-cases them: HDR-CASE-01).
 */
function isModernPost(req: IncomingMessage, envelopes: Envelope[]): boolean {
  if ((STATELESS_REVISIONS as readonly string[]).includes(header(req, MODERN_HEADERS.protocolVersion.toLowerCase()))) return true;
  return envelopes.some((e) => {
    const meta = isObject(e.msg?.params) && isObject(e.msg.params._meta) ? e.msg.params._meta : undefined;
    return meta !== undefined && (META.protocolVersion in meta || META.clientCapabilities in meta);
  });
}

/** The HTTP status of a modern answer: 400 with the errors of a malformed or refused request, 404 with −32601 (HTTP-METHOD-01). */
const MODERN_ERROR_STATUS = new Map<number, number>([
  [-32601, 404],
  [-32602, 400],
  [MODERN_ERRORS.headerMismatch, 400],
  [MODERN_ERRORS.missingClientCapability, 400],
  [MODERN_ERRORS.unsupportedProtocolVersion, 400],
]);

function modernStatus(body: string | Uint8Array): number {
  const parsed = parseJson(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
  const code = parsed.ok && isObject(parsed.value) && isObject(parsed.value.error) ? parsed.value.error.code : undefined;
  return (typeof code === 'number' ? MODERN_ERROR_STATUS.get(code) : undefined) ?? 200;
}

/** Listens on 127.0.0.1 (never another address), on a fresh ephemeral port, at path /mcp. */
export async function openHttpEndpoint(options: HttpEndpointOptions = {}): Promise<HttpEndpoint> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return new HttpEndpoint(server, options);
}

/**
 * mcpcheck's Streamable HTTP endpoint, mcpcheck playing the server. `send` routes a response to
 * the exchange that carried its request; a request or notification goes to the open SSE stream of
 * a pending client request (the latest opened), else to the latest GET stream, else waits in a
 * queue for the next stream to open.
 *
 * `sendRaw` routes the bytes the way `send` would route what they parse to. Bytes that are neither
 * a response with an id nor a request or notification (not JSON, not JSON-RPC, an error without
 * id) go as the data of one SSE event on the request/notification route, or, with no stream
 * open, become the whole JSON body of the oldest POST still waiting for its answer (answered
 * 200 application/json with exactly those bytes), else wait in the queue.
 */
export class HttpEndpoint extends ChannelEvents implements ServerChannel {
  readonly kind = 'http' as const;
  readonly address: string;
  readonly policy: EndpointPolicy;
  private readonly exchangeRecords = new Listeners<ClientExchange>();
  private readonly clock = clockFrom();
  private readonly maxBodyBytes: number;
  /** Insertion order is opening order: the last matching entry is the latest stream. */
  private readonly streams = new Map<number, EndpointStream>();
  private readonly pending = new Map<string, Pending[]>();
  private readonly jsonAnswers = new Set<JsonAnswer>();
  private readonly queue: Array<string | Uint8Array> = [];
  private exchanges = 0;
  /** Consulted before the endpoint serves each request (guardWith). */
  private guard: RequestGuard | undefined;
  private streamCount = 0;
  private session: string | undefined;
  private sessionIssued = false;
  /**
   * Where the client stands with the id mcpcheck issued last: `issued` until a request shows it
   * read the answer that carried it (one naming the id, or its notifications/initialized: a request
   * arriving before that may have left before the answer arrived); `held` from then until a 404 to
   * it or its DELETE. Requests made while it holds none owe no id (ruling session-id-while-held).
   */
  private sessionState: 'none' | 'issued' | 'held' = 'none';
  /**
   * The current session followed one the client was told had ended (a 404, its DELETE): what it
   * composed while initializing again (a stream reconnecting on its own timer) may reach the server
   * after it showed the new id, so HTTP-SESS-04 is not judged there (ruling session-id-while-held).
   */
  private reestablished = false;
  /** An InitializeResult went out: from now on MCP-Protocol-Version may be required. */
  private initialized = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly server: Server,
    options: HttpEndpointOptions = {},
  ) {
    super();
    this.policy = { ...DEFAULT_POLICY, ...options.policy };
    this.maxBodyBytes = options.maxBodyBytes ?? 4 * MiB;
    this.address = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
    server.maxConnections = MAX_CONNECTIONS;
    server.setTimeout(options.idleMs ?? 60_000, (socket) => socket.destroy());
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handle(req, res));
  }

  onExchange(listener: (exchange: ClientExchange) => void): void {
    this.exchangeRecords.add(listener);
  }

  send(message: unknown): Promise<SendResult> {
    return Promise.resolve(this.route(JSON.stringify(message), checkEnvelope(message)));
  }

  sendRaw(bytes: string | Uint8Array): Promise<SendResult> {
    const decoded = typeof bytes === 'string' ? { text: bytes, invalid: false } : decodeUtf8(bytes);
    const parsed = decoded.invalid ? undefined : parseJson(decoded.text);
    return Promise.resolve(this.route(bytes, parsed?.ok ? checkEnvelope(parsed.value) : undefined));
  }

  expireSession(): void {
    this.endSession();
  }

  dropStreamOf(id: string | number): string[] {
    const dropped: string[] = [];
    for (const p of this.pending.get(idKey(id)) ?? []) {
      if (p.carrier.kind !== 'sse') continue;
      p.carrier.stream.detach();
      dropped.push(eventIdPrefix(p.carrier.stream.no));
    }
    return dropped;
  }

  /** Ends every response and stream, closes the server and every socket, then reports the close. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const stream of this.streams.values()) stream.detach();
      for (const answer of this.jsonAnswers) answer.res.destroy();
      this.server.closeAllConnections();
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeAllConnections();
      this.closes.emit({ reason: 'closed' });
    })();
    return this.closing;
  }

  // ---- requests from the client ----

  guardWith(guard: RequestGuard): void {
    this.guard = guard;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (this.sessionState === 'issued' && header(req, 'mcp-session-id') === this.session) this.sessionState = 'held';
    const record: ExchangeStart = { exchange: ++this.exchanges, method: req.method ?? '', path: recordPath(req.url), headers: recordHeaders(req.headers), started: this.clock(), toEndpoint: false, ...(this.owesId() ? { sessionHeld: true as const } : {}) };
    if (this.closing) return this.answer(res, record, 503);
    if (this.guard) return void this.guarded(this.guard, req, res, record);
    this.serve(req, res, record);
  }

  /** The guard's answer, or the endpoint's own when it gives none. */
  private async guarded(guard: RequestGuard, req: IncomingMessage, res: ServerResponse, record: ExchangeStart): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const own = url.pathname === PATH;
    let body: string | undefined;
    let read: BodyRead | undefined;
    // The endpoint's own POST is read once, here, so the guard can tell its method (and the endpoint still serves it).
    if (own ? req.method === 'POST' : req.method !== 'GET' && req.method !== 'HEAD') {
      read = await readRequestBody(req, own ? this.maxBodyBytes : GUARDED_BODY_BYTES);
      if (read.kind === 'aborted' || this.closing) return;
      if (read.kind === 'too-large') return this.answer(res, record, 413, { connection: 'close' });
      body = decodeUtf8(read.bytes).text;
    }
    let answer: GuardAnswer | undefined;
    try {
      answer = await guard({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: boundedHeaders(req.headers), ...(body !== undefined ? { body } : {}) });
    } catch {
      answer = { status: 500 };
    }
    if (this.closing) return this.answer(res, record, 503);
    if (answer === undefined) return this.serve(req, res, record, own ? read : undefined);
    if (own) record.toEndpoint = true;
    const payload = answer.body !== undefined ? Buffer.from(answer.body) : undefined;
    res.writeHead(answer.status, { ...answer.headers, ...(payload ? { 'content-length': String(payload.length) } : {}) }).end(payload);
    this.report(record, answer.status, payload ? 'json' : 'empty');
  }

  private serve(req: IncomingMessage, res: ServerResponse, record: ExchangeStart, read?: BodyRead): void {
    if (record.path !== PATH) return this.answer(res, record, 404);
    record.toEndpoint = true;
    if (req.method === 'POST') return void this.post(req, res, record, read);
    if (req.method === 'GET') return this.get(req, res, record);
    if (req.method === 'DELETE') return this.delete(req, res, record);
    this.answer(res, record, 405, { allow: 'GET, POST, DELETE' });
  }

  private async post(req: IncomingMessage, res: ServerResponse, record: ExchangeStart, preRead?: BodyRead): Promise<void> {
    const read = preRead ?? (await readRequestBody(req, this.maxBodyBytes));
    // A client that went away mid-body was never answered, so there is no exchange to report.
    if (read.kind === 'aborted' || this.closing) return;
    if (read.kind === 'too-large') return this.answer(res, record, 413, { connection: 'close' });
    const what = `the body of POST #${record.exchange}`;
    const decoded = decodeUtf8(read.bytes);
    if (decoded.invalid) this.findings.emit(violation('BASE-MSG-02', `${what} is not valid UTF-8 (shown with U+FFFD replacements): ${quote(decoded.text)}`));
    const parsed = parseJson(decoded.text.replace(/^\uFEFF/, ''));
    if (decoded.text.startsWith('\uFEFF')) this.findings.emit(violation('BASE-MSG-02', `${what} starts with a UTF-8 byte-order mark`, '', 'warn'));
    if (!parsed.ok) {
      this.findings.emit(violation('BASE-MSG-01', `${what} is not JSON: ${quote(decoded.text)}`));
      this.answer(res, record, 400);
      this.frames.emit({ raw: decoded.text, parseError: parsed.error, via: 'post', exchange: record.exchange, at: this.clock() });
      return;
    }
    const batch = Array.isArray(parsed.value);
    const members: unknown[] = batch ? (parsed.value as unknown[]) : [parsed.value];
    record.messages = members.length;
    if (batch) {
      this.findings.emit(
        violation('BASE-MSG-05', `${what} is a JSON-RPC batch (an array of ${members.length} message(s)); each message must be a single object in its own POST`),
      );
    }
    const envelopes = members.map((m) => checkEnvelope(m));
    const requests = envelopes.filter((e): e is Envelope & { id: string | number } => e.kind === 'request' && e.id !== undefined);
    const initialize = requests.some((e) => e.method === 'initialize');
    if (initialize) record.initialize = true;
    if (envelopes.some((e) => e.kind === 'notification' && e.method === 'notifications/initialized')) {
      record.initialized = true;
      if (this.sessionState === 'issued') {
        this.sessionState = 'held';
        if (this.owesId()) record.sessionHeld = true;
      }
    }
    // A modern-only endpoint takes every POST as modern: an initialize too is refused with a status (VER-BC-06).
    const modern = this.policy.eras === 'stateless' || (!initialize && isModernPost(req, envelopes));
    if (modern) record.modern = true;
    const refused = modern ? this.modernRefusal(req) : this.refusal(req, initialize);
    if (refused !== undefined) return this.answer(res, record, refused);

    if (requests.length === 0) {
      // Nothing to answer; a body of which nothing could be accepted is an HTTP error (HTTP-POST-04).
      const acceptable = members.length > 0 && envelopes.every((e) => e.kind !== 'invalid');
      this.answer(res, record, acceptable ? 202 : 400);
    } else if (!this.openAnswer(res, record, batch, requests, initialize && !modern, modern)) return;
    // A member of a batch has no exact text of its own: its raw is its re-serialisation.
    for (const m of members) this.frames.emit({ raw: batch ? JSON.stringify(m) : decoded.text, message: m, via: 'post', exchange: record.exchange, at: this.clock() });
  }

  /** Sets up the answer to a POST carrying requests, before its frames go out (a listener may answer at once). */
  /** `initialize`: the POST opens a stateful session (a modern-only endpoint opens none). */
  private openAnswer(res: ServerResponse, record: ExchangeStart, batch: boolean, requests: Array<Envelope & { id: string | number }>, initialize: boolean, modern: boolean): boolean {
    if (initialize && this.policy.sessions) {
      this.endSession();
      this.session = randomUUID();
      this.reestablished = this.sessionIssued && this.sessionState === 'none';
      this.sessionIssued = true;
      this.sessionState = 'issued';
    }
    const headers: Record<string, string> = initialize && this.session !== undefined ? { 'mcp-session-id': this.session } : {};
    if (initialize && this.policy.cookie !== undefined) headers['set-cookie'] = this.policy.cookie;
    const ids = requests.map((e) => idKey(e.id));
    let carrier: Carrier;
    // A modern request's error needs its HTTP status, which an SSE stream opened at once could not
    // carry; but a subscription lives on its stream (the acknowledgment comes before any response).
    if (requests.some((e) => e.method === 'subscriptions/listen') || (this.policy.answerWith === 'sse' && !modern)) {
      const stream = this.openStream('post', res, record, headers);
      if (!stream) return false;
      for (const id of ids) stream.awaiting.add(id);
      carrier = { kind: 'sse', stream };
    } else {
      const answer: JsonAnswer = { res, record, batch, ids, responses: new Map(), headers, done: false, modern };
      this.jsonAnswers.add(answer);
      res.on('close', () => {
        this.jsonAnswers.delete(answer);
        if (!answer.done) this.forget((c) => c.kind === 'json' && c.answer === answer);
      });
      carrier = { kind: 'json', answer };
    }
    for (const e of requests) {
      const list = this.pending.get(idKey(e.id)) ?? [];
      list.push({ carrier, initialize: initialize && e.method === 'initialize' });
      this.pending.set(idKey(e.id), list);
    }
    if (carrier.kind === 'sse') this.flushQueue(carrier.stream);
    return true;
  }

  private get(req: IncomingMessage, res: ServerResponse, record: ExchangeStart): void {
    // The stateless era has no GET stream (HTTP-LEGACY-01).
    if (this.policy.eras === 'stateless') return this.answer(res, record, 405, { allow: 'POST' });
    const refused = this.refusal(req, false);
    if (refused !== undefined) return this.answer(res, record, refused);
    // Resumption (HTTP-RESUME-03) works whatever getStream says: it continues a stream, it opens none.
    const last = parseEventId(header(req, 'last-event-id'));
    const resumed = last ? this.streams.get(last.stream) : undefined;
    if (resumed && resumed.session === this.session) {
      resumed.attach(res, record.exchange, this.opening({}), last!.seq);
      this.report(record, 200, 'sse');
      if (resumed.open) this.flushQueue(resumed);
      return;
    }
    if (!this.policy.getStream || !accepts(header(req, 'accept'), 'text/event-stream')) {
      return this.answer(res, record, 405, { allow: 'POST, DELETE' });
    }
    const stream = this.openStream('get', res, record, {});
    if (stream) this.flushQueue(stream);
  }

  private delete(req: IncomingMessage, res: ServerResponse, record: ExchangeStart): void {
    if (this.policy.eras === 'stateless') return this.answer(res, record, 405, { allow: 'POST' });
    if (!this.policy.sessions || !this.sessionIssued) return this.answer(res, record, 405, { allow: 'GET, POST' });
    const refused = this.refusal(req, false);
    if (refused !== undefined) return this.answer(res, record, refused);
    // The session ends, not the channel: the client may initialize a new one.
    this.endSession();
    this.sessionState = 'none';
    this.answer(res, record, 200);
  }

  /** The status a request is refused with: a missing (400) or unknown (404) session id, a missing version header (400). */
  private refusal(req: IncomingMessage, initialize: boolean): number | undefined {
    if (initialize) return undefined;
    if (this.policy.sessions && this.sessionIssued) {
      const id = header(req, 'mcp-session-id');
      if (id === '') return 400;
      if (id !== this.session) {
        this.sessionState = 'none';
        return 404;
      }
    }
    if (this.policy.requireVersionHeader && this.initialized && !isRevision(header(req, 'mcp-protocol-version'))) return 400;
    return undefined;
  }

  /**
   * The status a modern request is refused with before it is read: an initialize-era server knows
   * no `_meta` and, without a session id, answers 400 with an empty body (HTTP-BC-03). A modern
   * server takes it whatever session id it carries (HTTP-LEGACY-01).
   */
  private modernRefusal(req: IncomingMessage): number | undefined {
    if (this.policy.eras !== 'stateful') return undefined;
    return header(req, 'mcp-session-id') === '' ? 400 : this.refusal(req, false);
  }

  // ---- messages to the client ----

  private route(data: string | Uint8Array, env: Envelope | undefined): SendResult {
    if (this.closing) return { error: 'the endpoint is closed' };
    if (env && isResponse(env)) {
      const list = this.pending.get(idKey(env.id));
      const first = list?.shift();
      if (list?.length === 0) this.pending.delete(idKey(env.id));
      if (!first) return { error: `no client request with id ${show(env.id)} is waiting for its response` };
      if (first.initialize) this.initialized = true;
      return this.respond(first.carrier, idKey(env.id), data);
    }
    const stream = this.liveStream();
    if (stream) {
      stream.write(data);
      return { exchange: stream.carriedBy };
    }
    const stray = env === undefined || (env.kind !== 'request' && env.kind !== 'notification');
    const waiting = stray ? [...this.jsonAnswers].find((a) => !a.done) : undefined;
    if (waiting) {
      this.forget((c) => c.kind === 'json' && c.answer === waiting);
      this.writeJson(waiting, data);
      return { exchange: waiting.record.exchange, status: waiting.res.statusCode };
    }
    if (this.queue.length >= MAX_QUEUED) return { error: `no stream is open and ${MAX_QUEUED} messages already wait for one` };
    this.queue.push(data);
    return {};
  }

  private respond(carrier: Carrier, key: string, data: string | Uint8Array): SendResult {
    if (carrier.kind === 'sse') {
      const { stream } = carrier;
      const live = stream.open;
      stream.write(data);
      stream.awaiting.delete(key);
      if (stream.awaiting.size === 0) {
        stream.finished = true;
        stream.detach();
      }
      return live ? { exchange: stream.carriedBy } : {};
    }
    const { answer } = carrier;
    answer.responses.set(key, data);
    // A batch is answered once every request it carried has its response (then as an array).
    if (!answer.ids.every((id) => answer.responses.has(id))) return { exchange: answer.record.exchange };
    const parts = answer.ids.map((id) => Buffer.from(answer.responses.get(id)!));
    this.writeJson(answer, answer.batch ? Buffer.concat([Buffer.from('['), ...parts.flatMap((p, i) => (i ? [Buffer.from(','), p] : [p])), Buffer.from(']')]) : parts[0]!);
    return { exchange: answer.record.exchange, status: answer.res.statusCode };
  }

  private writeJson(answer: JsonAnswer, body: string | Uint8Array): void {
    answer.done = true;
    const status = answer.modern ? modernStatus(body) : 200;
    answer.res.writeHead(status, { 'content-type': 'application/json', ...answer.headers }).end(body);
    this.report(answer.record, status, 'json');
  }

  /** Where a request or notification goes: the latest open stream of a pending request, else the latest open GET stream. */
  private liveStream(): EndpointStream | undefined {
    let post: EndpointStream | undefined;
    let get: EndpointStream | undefined;
    for (const s of this.streams.values()) {
      if (!s.open) continue;
      if (s.pending) post = s;
      else if (s.kind === 'get') get = s;
    }
    return post ?? get;
  }

  private flushQueue(stream: EndpointStream): void {
    while (this.queue.length > 0 && stream.open) stream.write(this.queue.shift()!);
  }

  // ---- streams and sessions ----

  private opening(headers: Record<string, string>): StreamOpening {
    const o: StreamOpening = { priming: this.policy.priming, headers, ...(this.policy.comments ? { comments: true } : {}) };
    if (this.policy.retryMs !== undefined) o.retryMs = this.policy.retryMs;
    return o;
  }

  /** A new stream on this response, or a 503 when MAX_STREAMS are open already. */
  private openStream(kind: 'post' | 'get', res: ServerResponse, record: ExchangeStart, headers: Record<string, string>): EndpointStream | undefined {
    if (this.streams.size >= MAX_STREAMS) this.evictStream();
    if (this.streams.size >= MAX_STREAMS) {
      this.answer(res, record, 503);
      return undefined;
    }
    const stream = new EndpointStream(++this.streamCount, kind, record.exchange, this.session, MAX_HISTORY);
    this.streams.set(stream.no, stream);
    stream.attach(res, record.exchange, this.opening(headers));
    this.report(record, 200, 'sse');
    return stream;
  }

  /** Forgets the oldest stream no connection carries, preferring one with nothing left to deliver. */
  private evictStream(): void {
    const idle = [...this.streams.values()].filter((s) => !s.open);
    const victim = idle.find((s) => !s.pending) ?? idle[0];
    if (!victim) return;
    this.streams.delete(victim.no);
    this.forget((c) => c.kind === 'sse' && c.stream === victim);
  }

  private owesId(): boolean {
    return this.sessionState === 'held' && !this.reestablished;
  }

  /** The current session ends: its streams close and are forgotten, its id is answered 404 from now on. */
  private endSession(): void {
    if (this.session === undefined) return;
    const ended = this.session;
    this.session = undefined;
    for (const s of [...this.streams.values()]) {
      if (s.session !== ended) continue;
      s.detach();
      this.streams.delete(s.no);
    }
    this.forget((c) => c.kind === 'sse' && c.stream.session === ended);
  }

  private forget(match: (c: Carrier) => boolean): void {
    for (const [key, list] of this.pending) {
      const kept = list.filter((p) => !match(p.carrier));
      if (kept.length === 0) this.pending.delete(key);
      else this.pending.set(key, kept);
    }
  }

  private answer(res: ServerResponse, record: ExchangeStart, status: number, headers: Record<string, string> = {}): void {
    res.writeHead(status, headers).end();
    this.report(record, status, 'empty');
  }

  private report(record: ExchangeStart, status: number, answer: ClientExchange['answer']): void {
    this.exchangeRecords.emit({ ...record, status, answer, at: this.clock() });
  }
}
