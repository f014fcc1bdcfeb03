import { createParser } from 'eventsource-parser';
import { sseEventFindings } from '../validate/sse.js';
import { ChannelEvents } from './channel-base.js';
import type { Channel, IncomingFrame, SendResult } from './channel.js';
import { note, violation } from '../validate/finding.js';
import { clockFrom, decodeUtf8, MiB, parseJson, quote } from './common.js';
import { HeaderList, httpExchange, type HttpResponse } from './http-client.js';
import { describeNetworkError, mediaType, readBody, readSseBody, redactHeaders, redactUrl, type SseEvent } from './http-util.js';
import type { RequirementId } from '../spec/requirement-id.js';
import { eraOf, isRevision } from '../spec/revisions.js';
import { modernRequestHeaders } from './modern-request-headers.js';

export { describeNetworkError, redactHeaders, redactUrl, type SseEvent };

export interface HttpChannelOptions {
  /** The MCP endpoint. Credentials belong in `headers`, not in the URL. */
  url: string;
  /** Sent on every request (e.g. Authorization). Their values never appear in descriptions or errors. */
  headers?: Record<string, string>;
  /** Until response headers arrive, and for reading a JSON or other non-stream body. Default 30 s. */
  timeoutMs?: number;
  /** The longest an SSE stream is read. Default 5 min. */
  streamTimeoutMs?: number;
  /** Largest JSON body or single SSE event read. Default 16 MiB. */
  maxMessageBytes?: number;
  /** close() sends DELETE for an open session first (HTTP-SESS-08). Default true. */
  deleteOnClose?: boolean;
  /** How long close() waits for that DELETE. Default 1000 ms. */
  closeTimeoutMs?: number;
  /**
   * Told when the session's own traffic (not a probe) carried an Authorization header and got
   * 401: the credential stopped working (an expired or revoked token).
   */
  onCredentialRefused?: () => void;
  /** Told of every session id the server issues this channel with an InitializeResult (not one an initialize carried). */
  onSessionId?: (id: string) => void;
}

/** The first request found nobody there: connection refused, DNS failure or no answer in time. */
export class TargetUnreachable extends Error {
  override readonly name = 'TargetUnreachable';
  constructor(
    message: string,
    /** The URL with credentials and query values redacted. */
    readonly url: string,
  ) {
    super(message);
  }
}

export interface SseEventInfo {
  id?: string;
  event?: string;
  dataBytes: number;
  at: number;
}

/** How the body of one exchange ended. */
export interface BodyEnd {
  reason: 'end' | 'closed' | 'timeout' | 'limit' | 'error';
  detail?: string;
  bytes: number;
  /** SSE only: every event in order, priming events (empty data) included. */
  events: SseEventInfo[];
  /** SSE only: the last `retry` value the server sent, in ms. */
  retry?: number;
  lastEventId?: string;
}

export interface HttpSendResult extends SendResult {
  exchange: number;
  /** Resolves when the body has been read to its end; for SSE, when the stream ends. */
  done: Promise<BodyEnd>;
}

export interface ProbeRequest {
  method: string;
  /**
   * Another document than the endpoint (say, authorization metadata): fetched with none of the
   * session's headers nor the user's (`headers` only). Whose it may be is the caller's to decide.
   */
  url?: URL;
  /**
   * Merged over the defaults (Accept, Content-Type for POST, User-Agent, user headers); null
   * removes one. Accept-Encoding (gzip, deflate, br) is added unless given.
   */
  headers?: Record<string, string | null>;
  body?: string | Uint8Array;
  omitSessionId?: boolean;
  omitProtocolVersion?: boolean;
  sessionIdOverride?: string;
  /** Until response headers arrive. Default: the channel's timeoutMs. */
  timeoutMs?: number;
  /** How long to keep reading the body after the headers (an SSE stream may stay open). Default: timeoutMs. */
  readMs?: number;
  /** Body bytes kept. Default 1 MiB. */
  maxBytes?: number;
  /**
   * SSE bodies only: stop reading, and drop the connection, right after the first event this
   * accepts (e.g. a priming event), as a client whose connection broke there would.
   */
  stopWhen?: (e: SseEvent) => boolean;
  /** SSE bodies only: the most events read before the connection is dropped. Default 1000. */
  maxEvents?: number;
  /**
   * SSE bodies only: after the first event `when` accepts (say, the response), keep reading at
   * most `ms` more, so that whether the stream ends after it is watched that long and no longer.
   */
  endsWithin?: { when: (e: SseEvent) => boolean; ms: number };
  /** SSE bodies only: told of each event as it is read (e.g. to start work once a stream is acknowledged). */
  onEvent?: (e: SseEvent) => void;
  /** Stop reading, and drop the connection, once this settles (the prober has seen enough); read as reaching readMs. */
  until?: Promise<unknown>;
}

export interface ProbeResponse {
  /** 0 when no response came (see `error`). */
  status: number;
  headers: Record<string, string>;
  contentType?: string;
  /** The body as (lossily decoded) text, up to maxBytes. */
  body: string;
  truncated: boolean;
  /** Reading stopped at readMs before the body ended. */
  incomplete: boolean;
  sseEvents?: SseEvent[];
  retry?: number;
  /** mcpcheck dropped the connection on purpose (`stopWhen` or `maxEvents`), before the body ended. */
  dropped?: boolean;
  error?: string;
}

const ACCEPT_BOTH = 'application/json, text/event-stream';
/** Sent unless the user's headers name another. */
const USER_AGENT = 'mcpcheck';
const OTHER_BODY_LIMIT = 64 * 1024;

/** Why we aborted an exchange; a plain abort reason would not tell the cases apart. */
class Abort extends Error {
  constructor(
    readonly kind: 'timeout' | 'closed' | 'limit',
    message: string,
  ) {
    super(message);
  }
}

/** mcpcheck as a Streamable HTTP client. */
export class HttpChannel extends ChannelEvents implements Channel {
  readonly kind = 'http' as const;
  readonly url: URL;
  /** Private fields: kept out of util.inspect and JSON so header values cannot leak into logs. */
  readonly #userHeaders: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly streamTimeoutMs: number;
  private readonly maxMessageBytes: number;
  private readonly deleteOnClose: boolean;
  private readonly closeTimeoutMs: number;
  private readonly clock = clockFrom();
  private readonly inflight = new Set<AbortController>();
  /** Every SSE event id seen on this session's streams (HTTP-RESUME-01). */
  private readonly eventIds = new Set<string>();
  private session: string | undefined;
  private sessionEnded = false;
  private exchanges = 0;
  /** The request each POST carried, by exchange, while its response is read: frames on it say so (IncomingFrame.inResponseTo). */
  private readonly carried = new Map<number, string | number>();
  /** Set by the first response of any kind: after that a network failure is the target's doing. */
  private reached = false;
  private readonly onCredentialRefused: (() => void) | undefined;
  private readonly onSessionId: ((id: string) => void) | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(options: HttpChannelOptions) {
    super();
    this.url = new URL(options.url);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new TypeError(`not an http(s) URL: ${redactUrl(this.url)}`);
    }
    if (this.url.username || this.url.password) {
      throw new TypeError(`credentials in the URL are not supported; pass them as a header: ${redactUrl(this.url)}`);
    }
    this.#userHeaders = { ...options.headers };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.streamTimeoutMs = options.streamTimeoutMs ?? 300_000;
    this.maxMessageBytes = options.maxMessageBytes ?? 16 * MiB;
    this.deleteOnClose = options.deleteOnClose ?? true;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 1000;
    this.onCredentialRefused = options.onCredentialRefused;
    this.onSessionId = options.onSessionId;
  }

  /** The session id the server assigned with its InitializeResult, if any. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** Replaces or forgets the session id, e.g. to start a new session after a 404 (HTTP-SESS-07). */
  setSessionId(id: string | undefined): void {
    this.session = id;
    this.sessionEnded = false;
  }

  get negotiatedVersion(): string | undefined {
    return this.protocolVersion;
  }

  /**
   * The bearer token the user's Authorization header carries, for the authorization probes that
   * present it otherwise (in the query string) or withhold it; never for a report.
   */
  get bearerToken(): string | undefined {
    const entry = Object.entries(this.#userHeaders).find(([name]) => name.toLowerCase() === 'authorization');
    return entry ? /^Bearer +(\S+)\s*$/i.exec(entry[1])?.[1] : undefined;
  }

  /** For reports: the URL without credentials, header names without their values. */
  describe(): string {
    const names = Object.keys(this.#userHeaders);
    const extra = names.length ? ` (headers: ${Object.entries(redactHeaders(this.#userHeaders)).map(([k, v]) => `${k}: ${v}`).join(', ')})` : '';
    return `Streamable HTTP ${redactUrl(this.url)}${extra}`;
  }


  /**
   * POSTs one message. Resolves once the response headers are in (a JSON body is read and its frame
   * delivered first); an SSE body keeps streaming in the background, see `done`.
   * Throws TargetUnreachable only when no request of this channel has ever got a response.
   */
  send(message: unknown): Promise<HttpSendResult> {
    const request = isRequest(message);
    const id = request ? (message as { id?: unknown }).id : undefined;
    return this.post(JSON.stringify(message), isInitialize(message), request, this.bodyHeaders(message), {}, typeof id === 'string' || typeof id === 'number' ? id : undefined);
  }

  /** `headers`: set (or, null, removed) over the ones the body calls for, to probe a server's header validation. */
  sendRaw(bytes: string | Uint8Array, headers?: Record<string, string | null>): Promise<HttpSendResult> {
    let init = false;
    let request = false;
    let derived: Record<string, string> = {};
    if (typeof bytes === 'string' && bytes.length < 64 * 1024) {
      const parsed = parseJson(bytes);
      init = parsed.ok && isInitialize(parsed.value);
      request = parsed.ok && isRequest(parsed.value);
      if (parsed.ok) derived = this.bodyHeaders(parsed.value);
    }
    return this.post(bytes, init, request, derived, headers);
  }

  /** Whether the channel speaks the stateless era: no session, and every request's headers mirror its body. */
  private get modern(): boolean {
    return isRevision(this.protocolVersion) && eraOf(this.protocolVersion) === 'stateless';
  }

  /** The headers a message's body calls for: in the stateless era Mcp-Method and Mcp-Name (HDR-STD-01), else none. */
  private bodyHeaders(message: unknown): Record<string, string> {
    return this.modern ? modernRequestHeaders(message) : {};
  }

  private async post(body: string | Uint8Array, initialize: boolean, request = false, derived: Record<string, string> = {}, overrides: Record<string, string | null> = {}, carries?: string | number): Promise<HttpSendResult> {
    const exchange = ++this.exchanges;
    if (carries !== undefined) this.carried.set(exchange, carries);
    const headers = this.headers({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', ...derived });
    for (const [name, value] of Object.entries(overrides)) {
      if (value === null) headers.delete(name);
      else headers.set(name, value);
    }
    const opened = await this.open(exchange, 'POST', headers, body);
    if ('error' in opened) {
      this.carried.delete(exchange);
      return opened.error;
    }
    const { res } = opened;
    // The response to initialize is the one that carries the InitializeResult (HTTP-SESS-01).
    if (initialize && res.ok) {
      const id = res.headers['mcp-session-id'];
      if (id !== undefined) {
        this.setSessionId(id);
        // An initialize that carried the id it got back (a repeated one, in its session) was issued none.
        if (headers.get('mcp-session-id') !== id) this.onSessionId?.(id);
      }
    }
    return this.consume(opened, exchange, 'post', request);
  }

  /** Opens the listening stream (GET); 405 is a legitimate answer (HTTP-GET-02). */
  async openGetStream(options: { lastEventId?: string } = {}): Promise<HttpSendResult> {
    const exchange = ++this.exchanges;
    const extra: Record<string, string> = { Accept: 'text/event-stream' };
    if (options.lastEventId !== undefined) extra['Last-Event-ID'] = options.lastEventId;
    const opened = await this.open(exchange, 'GET', this.headers(extra));
    if ('error' in opened) return opened.error;
    return this.consume(opened, exchange, 'get', false, options.lastEventId !== undefined);
  }

  /** The listening stream; a 405 means the server sends nothing unsolicited, which is its right. */
  async listen(): Promise<void> {
    await this.openGetStream();
  }

  /** DELETE for the current session (HTTP-SESS-08); a 2xx marks the session ended. */
  async deleteSession(timeoutMs = this.timeoutMs): Promise<HttpSendResult> {
    const exchange = ++this.exchanges;
    const opened = await this.open(exchange, 'DELETE', this.headers({}), undefined, timeoutMs);
    if ('error' in opened) return opened.error;
    if (opened.res.ok) this.sessionEnded = true;
    return this.consume(opened, exchange, 'delete');
  }

  /**
   * A raw exchange for transport-level probes: nothing is delivered as a frame and the channel's
   * state (session, version, reachability) is left as it was. Never throws.
   */
  async request(probe: ProbeRequest): Promise<ProbeResponse> {
    const method = probe.method.toUpperCase();
    const defaults: Record<string, string> =
      method === 'POST'
        ? { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' }
        : method === 'GET'
          ? { Accept: 'text/event-stream' }
          : {};
    const headers = probe.url ? new HeaderList({ 'User-Agent': USER_AGENT, ...defaults }) : this.headers(defaults, probe);
    for (const [name, value] of Object.entries(probe.headers ?? {})) {
      if (value === null) headers.delete(name);
      else headers.set(name, value);
    }
    const ctl = new AbortController();
    this.inflight.add(ctl);
    const timeoutMs = probe.timeoutMs ?? this.timeoutMs;
    let timer = deadline(ctl, timeoutMs, `no response within ${timeoutMs} ms`);
    try {
      let res: HttpResponse;
      try {
        res = await httpExchange(probe.url ?? this.url, { method, headers, body: probe.body, signal: ctl.signal });
      } catch (err) {
        return { status: 0, headers: {}, body: '', truncated: false, incomplete: false, error: this.explain(err, ctl) };
      }
      clearTimeout(timer);
      const readMs = probe.readMs ?? timeoutMs;
      timer = deadline(ctl, readMs, `body not complete within ${readMs} ms`);
      const readEnd = performance.now() + readMs;
      const contentType = res.headers['content-type'];
      const sse = mediaType(contentType) === 'text/event-stream';
      const ends = probe.endsWithin;
      let watching = false;
      const told = probe.onEvent;
      if (probe.until) {
        const stop = () => {
          clearTimeout(timer);
          timer = deadline(ctl, 0, 'the prober stopped reading');
        };
        probe.until.then(stop, stop);
      }
      const onEvent = ends || told
        ? (e: SseEvent) => {
            told?.(e);
            if (!ends || watching || !ends.when(e)) return;
            watching = true;
            const ms = Math.min(ends.ms, readEnd - performance.now());
            clearTimeout(timer);
            timer = deadline(ctl, ms, `the stream was still open ${ends.ms} ms after its last awaited event`);
          }
        : undefined;
      const sseRead = sse ? await readSseBody(res, probe.maxBytes ?? MiB, { stopWhen: probe.stopWhen, maxEvents: probe.maxEvents, onEvent }) : undefined;
      const read = sseRead ?? (await readBody(res, probe.maxBytes ?? MiB));
      const out: ProbeResponse = {
        status: res.status,
        headers: { ...res.headers },
        contentType,
        body: decodeUtf8(read.bytes).text,
        truncated: read.truncated,
        incomplete: read.error !== undefined && abortKind(ctl) === 'timeout',
      };
      if (read.error !== undefined && !out.incomplete) out.error = this.explain(read.error, ctl);
      if (sseRead) {
        out.sseEvents = sseRead.events;
        if (sseRead.retry !== undefined) out.retry = sseRead.retry;
        if (sseRead.stopped) out.dropped = true;
      }
      return out;
    } finally {
      clearTimeout(timer);
      this.inflight.delete(ctl);
      // A body left unread (dropped on purpose, cut at readMs, or too large) must not keep its connection.
      ctl.abort(new Abort('closed', 'the probe is over'));
    }
  }

  /** Sends DELETE for a live session (best effort), then aborts every request and stream. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.deleteOnClose && this.session !== undefined && !this.sessionEnded && this.reached && !this.closed) {
        await this.deleteSession(this.closeTimeoutMs).catch(() => undefined);
      }
      this.closed = true;
      for (const ctl of this.inflight) ctl.abort(new Abort('closed', 'the channel was closed'));
      this.inflight.clear();
      this.closes.emit({ reason: 'closed' });
    })();
    return this.closing;
  }

  // ---- internals ----

  /** Protocol headers win over user headers: mcpcheck must itself be a conforming client. */
  private headers(
    extra: Record<string, string>,
    o: { omitSessionId?: boolean; omitProtocolVersion?: boolean; sessionIdOverride?: string } = {},
  ): HeaderList {
    const h = new HeaderList({ 'User-Agent': USER_AGENT, ...this.#userHeaders });
    for (const [k, v] of Object.entries(extra)) h.set(k, v);
    const session = o.sessionIdOverride ?? this.session;
    if (session !== undefined && !o.omitSessionId) h.set('MCP-Session-Id', session);
    if (this.protocolVersion !== undefined && !o.omitProtocolVersion) h.set('MCP-Protocol-Version', this.protocolVersion);
    return h;
  }

  /** Fetches until the response headers are in; a failure becomes a ready-made result (or throws, see send). */
  private async open(
    exchange: number,
    method: string,
    headers: HeaderList,
    body?: string | Uint8Array,
    timeoutMs = this.timeoutMs,
  ): Promise<{ res: HttpResponse; ctl: AbortController } | { error: HttpSendResult }> {
    if (this.closed) return { error: failedResult(exchange, 'closed', 'the channel is closed') };
    const ctl = new AbortController();
    this.inflight.add(ctl);
    const timer = deadline(ctl, timeoutMs, `no response within ${timeoutMs} ms`);
    try {
      const res = await httpExchange(this.url, { method, headers, body, signal: ctl.signal });
      this.reached = true;
      if (res.status === 401 && headers.get('authorization') !== undefined) this.onCredentialRefused?.();
      return { res, ctl };
    } catch (err) {
      this.inflight.delete(ctl);
      const detail = this.explain(err, ctl);
      if (!this.reached && abortKind(ctl) !== 'closed') {
        throw new TargetUnreachable(`cannot reach ${redactUrl(this.url)}: ${detail}`, redactUrl(this.url));
      }
      const kind = abortKind(ctl);
      // No abort of ours: the network said no (refused, reset) — the server is not there.
      return { error: { ...failedResult(exchange, kind ?? 'error', `${method} failed: ${detail}`), ...(kind === undefined ? { lost: true as const } : {}) } };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads or starts streaming the body according to its media type. */
  private async consume(
    opened: { res: HttpResponse; ctl: AbortController },
    exchange: number,
    kind: 'post' | 'get' | 'delete',
    request = false,
    resumed = false,
  ): Promise<HttpSendResult> {
    const { res, ctl } = opened;
    const contentType = res.headers['content-type'];
    const base = { status: res.status, headers: { ...res.headers }, contentType, exchange };
    const media = mediaType(contentType);

    if (media === 'text/event-stream' && kind !== 'delete') {
      const done = this.pump(res, ctl, exchange, kind === 'post' ? 'post-sse' : 'get-sse', resumed);
      return { ...base, bodyKind: 'sse', done };
    }

    // The request the POST carried is the frames' context only while this body is read.
    try {
      const json = media === 'application/json' && kind === 'post';
      const timer = deadline(ctl, this.timeoutMs, `body not complete within ${this.timeoutMs} ms`);
      const read = await readBody(res, json ? this.maxMessageBytes : OTHER_BODY_LIMIT);
      clearTimeout(timer);
      this.inflight.delete(ctl);
      const end: BodyEnd = { reason: 'end', bytes: read.bytes.length, events: [] };
      if (read.error !== undefined) {
        end.reason = abortKind(ctl) ?? 'error';
        end.detail = this.explain(read.error, ctl);
      }
      const result: HttpSendResult = { ...base, bodyKind: 'empty', done: Promise.resolve(end) };
      if (end.detail) result.error = `reading the body failed: ${end.detail}`;
      if (read.bytes.length === 0) return result;

      if (!json) {
        result.bodyKind = 'other';
        result.body = decodeUtf8(read.bytes).text;
        // A request answered 2xx with another media type breaks HTTP-POST-05; a body that is JSON all
        // the same is delivered, so one mislabelled header does not stall every later step.
        if (kind === 'post' && request && res.ok) {
          this.findings.emit(
            violation('HTTP-POST-05', `POST #${exchange} (a request) was answered ${res.status} with Content-Type ${contentType ?? '(none)'}; a request must be answered with application/json or text/event-stream`),
          );
          if (parseJson(result.body).ok) this.deliver(read.bytes, 'post-other', exchange, 'HTTP-POST-05', `the body of POST #${exchange} (Content-Type ${contentType})`);
        }
        return result;
      }
      result.bodyKind = 'json';
      if (read.truncated) {
        end.reason = 'limit';
        end.detail = `body larger than ${this.maxMessageBytes} bytes`;
        this.findings.emit(
          note('HTTP-POST-05', `the JSON body of POST #${exchange} is larger than the harness limit of ${this.maxMessageBytes} bytes; it was dropped unread`),
        );
        return result;
      }
      // The JSON body of an error status is the server refusing at the HTTP level (HTTP-POST-04).
      this.deliver(read.bytes, res.ok ? 'post-json' : 'post-error', exchange, 'HTTP-POST-05', `the body of POST #${exchange} (Content-Type ${contentType})`);
      return result;
    } finally {
      this.carried.delete(exchange);
    }
  }

  /** Reads an SSE body in the background, delivering each event's data as a frame. */
  private async pump(res: HttpResponse, ctl: AbortController, exchange: number, via: 'post-sse' | 'get-sse', resumed = false): Promise<BodyEnd> {
    const end: BodyEnd = { reason: 'end', bytes: 0, events: [] };
    const what = `the SSE stream of ${via === 'post-sse' ? 'POST' : 'GET'} #${exchange}`;
    // The answer to initialize comes before any version is agreed; which revisions have priming
    // (2025-11-25 on) is the catalog's to say, applied to every finding in ChannelEvents.onFinding.
    // The stateless era has no resumable streams, so no priming event either.
    const primingExpected = this.protocolVersion !== undefined && !this.modern;
    const timer = deadline(ctl, this.streamTimeoutMs, `stream still open after ${this.streamTimeoutMs} ms`);
    // SSE itself strips one leading BOM, which the default (ignoreBOM: false) decoder does too.
    let decoder = new TextDecoder('utf-8', { fatal: true });
    const parser = createParser({
      maxBufferSize: this.maxMessageBytes,
      onEvent: (e) => {
        for (const f of sseEventFindings(e, { what, first: end.events.length === 0 && via === 'post-sse', primingExpected, resumed, seen: (id) => this.eventIds.has(id) })) this.findings.emit(f);
        end.events.push({ id: e.id, event: e.event, dataBytes: Buffer.byteLength(e.data), at: this.clock() });
        if (e.id !== undefined) {
          end.lastEventId = e.id;
          this.eventIds.add(e.id);
        }
        // An event with empty data carries no message (e.g. the priming event, HTTP-SSE-01).
        if (e.data === '') return;
        this.deliverText(e.data, false, via, exchange, 'BASE-MSG-01', `event data on ${what}`);
      },
      onRetry: (ms) => (end.retry = ms),
      onError: (err) => {
        if (err.type !== 'max-buffer-size-exceeded') return;
        this.findings.emit(
          note(via === 'post-sse' ? 'HTTP-POST-05' : 'HTTP-GET-02', `an event on ${what} is larger than the harness limit of ${this.maxMessageBytes} bytes; the stream was abandoned`),
        );
        ctl.abort(new Abort('limit', `an event exceeded ${this.maxMessageBytes} bytes`));
      },
    });
    try {
      for await (const value of res.body) {
        end.bytes += value.length;
        let text: string;
        try {
          text = decoder.decode(value, { stream: true });
        } catch {
          this.findings.emit(violation('BASE-MSG-02', `${what} contains bytes that are not valid UTF-8`));
          decoder = new TextDecoder('utf-8', { fatal: false });
          text = decoder.decode(value, { stream: true });
        }
        parser.feed(text);
        if (ctl.signal.aborted) break;
      }
    } catch (err) {
      end.reason = abortKind(ctl) ?? 'error';
      end.detail = this.explain(err, ctl);
    } finally {
      clearTimeout(timer);
      this.inflight.delete(ctl);
      this.carried.delete(exchange);
      if (ctl.signal.aborted && end.reason === 'end') {
        end.reason = abortKind(ctl) ?? 'error';
        end.detail = this.explain(ctl.signal.reason, ctl);
      }
      res.cancel();
    }
    return end;
  }

  private deliver(bytes: Uint8Array, via: string, exchange: number, notJson: RequirementId, what: string): void {
    const decoded = decodeUtf8(bytes);
    if (decoded.invalid) {
      this.findings.emit(violation('BASE-MSG-02', `${what} is not valid UTF-8 (shown with U+FFFD replacements): ${quote(decoded.text)}`));
    }
    this.deliverText(decoded.text, true, via, exchange, notJson, what);
  }

  private deliverText(raw: string, bomCheck: boolean, via: string, exchange: number, notJson: RequirementId, what: string): void {
    let text = raw;
    if (bomCheck && text.startsWith('\uFEFF')) {
      this.findings.emit(violation('BASE-MSG-02', `${what} starts with a UTF-8 byte-order mark`, '', 'warn'));
      text = text.slice(1);
    }
    const parsed = parseJson(text);
    const frame: IncomingFrame = { raw, via, exchange, at: this.clock() };
    const carried = this.carried.get(exchange);
    if (carried !== undefined) frame.inResponseTo = carried;
    if (parsed.ok) frame.message = parsed.value;
    else {
      frame.parseError = parsed.error;
      this.findings.emit(violation(notJson, `${what} is not JSON: ${quote(raw)}`));
    }
    this.frames.emit(frame);
  }

  /** A one-line reason for a failed exchange or read, without header values or URL credentials. */
  private explain(err: unknown, ctl: AbortController): string {
    const reason: unknown = ctl.signal.aborted ? ctl.signal.reason : err;
    if (reason instanceof Abort) return reason.message;
    return describeNetworkError(reason);
  }
}

function failedResult(exchange: number, reason: BodyEnd['reason'], detail: string): HttpSendResult {
  return { exchange, error: detail, done: Promise.resolve({ reason, detail, bytes: 0, events: [] }) };
}

function deadline(ctl: AbortController, ms: number, message: string): NodeJS.Timeout {
  return setTimeout(() => ctl.abort(new Abort('timeout', message)), ms);
}

function abortKind(ctl: AbortController): Abort['kind'] | undefined {
  const reason: unknown = ctl.signal.reason;
  return ctl.signal.aborted && reason instanceof Abort ? reason.kind : undefined;
}

function isRequest(message: unknown): boolean {
  return typeof message === 'object' && message !== null && typeof (message as { method?: unknown }).method === 'string' && 'id' in message;
}

function isInitialize(message: unknown): boolean {
  return (
    typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize' && 'id' in message
  );
}
