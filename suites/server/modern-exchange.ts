import { type ClientSession, describeReply, isObject, META, MODERN_HEADERS, modernRequestHeaders, type ProbeResponse, type Reply, replyFrame, show } from '../kit.js';
import { describeProbe, probe, responseIn } from './http.js';

// A 2026-07-28 request sent exactly as a scenario shapes it: its body's `_meta` and, over
// Streamable HTTP, its headers, each chosen per probe. The same probe reads the same over stdio
// (a frame of the session) and HTTP (a raw exchange, whose status the rules also judge).

/** What came back: the JSON-RPC response (if any), the HTTP status (HTTP only), and how it reads. */
export interface ModernAnswer {
  response?: Record<string, unknown>;
  status?: number;
  /** HTTP only: the response headers (names in lower case). */
  headers?: Record<string, string>;
  shown: string;
  /** Over stdio: the session's reply (its frame is evidence; a timeout is mcpcheck's limit). */
  replies: Reply[];
  frames: Array<number | undefined>;
}

let probeIds = 0;

/**
 * A modern request for `method`: the session's per-request `_meta` with `meta` laid over it (a key
 * set to undefined is left out), under a string id no session request uses. `params` without
 * `_meta` at all: pass `withoutMeta`.
 */
export function modernRequest(session: ClientSession, method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}, withoutMeta = false): Record<string, unknown> {
  const merged = Object.fromEntries(Object.entries({ ...session.requestMeta(), ...meta }).filter(([, v]) => v !== undefined));
  return { jsonrpc: '2.0', id: `mcpcheck-modern-${++probeIds}`, method, params: withoutMeta ? params : { ...params, _meta: merged } };
}

/** The protocol version a request's body carries in its `_meta`, if any. */
function bodyVersion(message: Record<string, unknown>): unknown {
  return isObject(message.params) && isObject(message.params._meta) ? message.params._meta[META.protocolVersion] : undefined;
}

/**
 * Sends `message` and reads its answer. Over HTTP the headers default to what a conforming client
 * sends for this body (MCP-Protocol-Version from the body's version, Mcp-Method, Mcp-Name), with
 * `headers` laid over them (null removes one).
 */
export async function exchange(session: ClientSession, message: Record<string, unknown>, headers: Record<string, string | null> = {}): Promise<ModernAnswer> {
  if (session.channel.kind !== 'http') {
    const reply = await session.requestMessage(message);
    return { ...(reply.kind === 'result' || reply.kind === 'error' ? { response: reply.message } : {}), shown: describeReply(reply), replies: [reply], frames: [replyFrame(reply)] };
  }
  const version = bodyVersion(message);
  const res = await probe(session.channel, {
    method: 'POST',
    body: JSON.stringify(message),
    omitProtocolVersion: true,
    omitSessionId: true,
    headers: { ...(typeof version === 'string' ? { [MODERN_HEADERS.protocolVersion]: version } : {}), ...modernRequestHeaders(message), ...headers },
  });
  // An error status may carry the error without the request's id (HTTP-POST-04).
  const response = responseIn(res, String(message.id)) ?? idlessError(res.body);
  return { ...(response ? { response } : {}), status: res.status, headers: res.headers, shown: describeProbe(res), replies: [], frames: [] };
}

/** The error code of the answer, when it is a JSON-RPC error (over HTTP, also the id-less body of an error status). */
export function errorCode(answer: ModernAnswer): unknown {
  return isObject(answer.response?.error) ? answer.response.error.code : undefined;
}

/**
 * Whether the request was served, not refused: over HTTP a 2xx whose body holds no error (how the
 * body is framed is HTTP-POST-05's business), on stdio a result.
 */
export function served(answer: ModernAnswer): boolean {
  if (answer.status !== undefined) return answer.status < 300 && errorCode(answer) === undefined;
  return answer.response !== undefined && 'result' in answer.response;
}

/** Whether the answer is a JSON-RPC error with one of `codes` and, over HTTP, the status `status`. */
export function refusedWith(answer: ModernAnswer, codes: readonly number[], status: number): boolean {
  return codes.includes(errorCode(answer) as number) && (answer.status === undefined || answer.status === status);
}

/** The JSON-RPC error an HTTP error body holds without an id, if it is one. */
function idlessError(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return isObject(value) && isObject(value.error) && (!('id' in value) || value.id === null) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** What a `subscriptions/listen` showed before mcpcheck stopped reading. */
export interface ListenOutcome {
  /**
   * Over HTTP every message of the listen stream; over stdio the messages that carry the id as
   * their subscriptionId, any acknowledgment, and a response to the listen request, in order.
   */
  messages: Array<Record<string, unknown>>;
  shown: string;
  frames: Array<number | undefined>;
  /** HTTP only: the response headers (names in lower case). */
  headers?: Record<string, string>;
}

/** Whether a message carries `id` as its subscriptionId, same JSON type and value (SUBS-ID-01). */
export function ofSubscription(message: unknown, id: string | number): boolean {
  return isObject(message) && isObject(message.params) && isObject(message.params._meta) && message.params._meta[META.subscriptionId] === id;
}

/** The JSON objects among `texts` (SSE events' data or a body). */
function jsonObjects(texts: readonly string[]): Array<Record<string, unknown>> {
  return texts.flatMap((t) => {
    try {
      const value: unknown = JSON.parse(t);
      return isObject(value) ? [value] : [];
    } catch {
      return [];
    }
  });
}

/** The JSON objects a response body held: each SSE event's data, or the body itself. */
function bodyMessages(res: ProbeResponse): Array<Record<string, unknown>> {
  return jsonObjects(res.sseEvents ? res.sseEvents.map((e) => e.data) : [res.body]);
}

/**
 * Opens a subscription with `id` and reads until its acknowledgment (or a response to it) has come,
 * within `ms`, keeping whatever came before it; then ends it: over stdio with notifications/cancelled,
 * over HTTP by closing the stream (the listen stream is long-lived and answered only when it ends).
 * Reading past a first message that is no acknowledgment keeps a late acknowledgment from landing
 * in the next subscription's reading.
 */
export async function listenOnce(session: ClientSession, id: string | number, notifications: Record<string, unknown>, ms: number): Promise<ListenOutcome> {
  const message = { ...modernRequest(session, 'subscriptions/listen', { notifications }), id };
  // An acknowledgment with another subscriptionId is still looked at: its id is then the finding.
  const closing = (m: unknown) => isObject(m) && (m.method === 'notifications/subscriptions/acknowledged' || (m.id === id && !('method' in m)));
  const mine = (m: unknown) => ofSubscription(m, id) || closing(m);
  if (session.channel.kind !== 'http') {
    const mark = session.mark;
    await session.send(message);
    const last = await session.waitForFrame((f) => closing(f.message), session.answerMs(ms), mark);
    await session.notify('notifications/cancelled', { requestId: id, reason: 'mcpcheck read the acknowledgment' });
    const frames = session.peerFrames(mark).filter((f) => mine(f.message) && (last === undefined || f.index <= last.index));
    const first = frames[0];
    return { messages: frames.map((f) => f.message as Record<string, unknown>), shown: first ? show(first.message, 300) : `nothing carrying subscriptionId ${show(id)} within ${session.answerMs(ms)} ms`, frames: frames.map((f) => f.index) };
  }
  const res = await probe(session.channel, {
    method: 'POST',
    body: JSON.stringify(message),
    omitProtocolVersion: true,
    omitSessionId: true,
    headers: { [MODERN_HEADERS.protocolVersion]: session.speaks, ...modernRequestHeaders(message) },
    readMs: session.answerMs(ms),
    // The stream is the subscription's: read up to its acknowledgment, what came first included (SUBS-ACK-01).
    stopWhen: (e) => jsonObjects([e.data]).some(closing),
  });
  return { messages: bodyMessages(res), shown: describeProbe(res), frames: [], headers: res.headers };
}

/**
 * Opens a subscription with `id`, runs `during` once it is acknowledged (or its first message or
 * a response came, within `ms`), then ends it as listenOnce does. The outcome holds what the
 * subscription carried meanwhile; `during` is not run when nothing came. `meta` is laid over the
 * request's own _meta (the client capabilities it declares, say).
 */
export async function listenDuring(session: ClientSession, id: string | number, notifications: Record<string, unknown>, ms: number, during: () => Promise<void>, meta: Record<string, unknown> = {}): Promise<ListenOutcome & { ran: boolean }> {
  const message = { ...modernRequest(session, 'subscriptions/listen', { notifications }, meta), id };
  if (session.channel.kind !== 'http') {
    const mark = session.mark;
    await session.send(message);
    const first = await session.waitForFrame((f) => ofSubscription(f.message, id) || (isObject(f.message) && f.message.id === id && !('method' in f.message)), session.answerMs(ms), mark);
    if (first) await during();
    await session.notify('notifications/cancelled', { requestId: id, reason: 'mcpcheck is done with the subscription' });
    const frames = session.peerFrames(mark).filter((f) => ofSubscription(f.message, id));
    return { messages: frames.map((f) => f.message as Record<string, unknown>), shown: first ? `${frames.length} message(s) on the subscription` : `nothing carrying subscriptionId ${show(id)} within ${session.answerMs(ms)} ms`, frames: frames.map((f) => f.index), ran: first !== undefined };
  }
  let opened!: (started: boolean) => void;
  const acknowledged = new Promise<boolean>((resolve) => (opened = resolve));
  let ran = false;
  const work = acknowledged.then(async (started) => {
    if (!started) return;
    ran = true;
    await during();
  });
  const res = await probe(session.channel, {
    method: 'POST',
    body: JSON.stringify(message),
    omitProtocolVersion: true,
    omitSessionId: true,
    headers: { [MODERN_HEADERS.protocolVersion]: session.speaks, ...modernRequestHeaders(message) },
    readMs: session.answerMs(ms) + 30_000,
    onEvent: () => opened(true),
    until: work,
    timeoutMs: session.answerMs(ms),
  });
  // The stream ended or failed before its first event: nothing to run the work against.
  opened(false);
  await work.catch(() => undefined);
  return { messages: bodyMessages(res), shown: describeProbe(res), frames: [], headers: res.headers, ran };
}

/**
 * Sends a legacy client's initialize (protocolVersion 2025-11-25, no _meta and, over HTTP, none of
 * the modern headers) and reads the answer: an InitializeResult shows a dual-era server (VER-BC-01),
 * which the rules for servers "supporting only this revision" exempt.
 */
export async function legacyInitialize(session: ClientSession): Promise<{ answer: ModernAnswer; dualEra: boolean; version?: unknown }> {
  const message = { jsonrpc: '2.0', id: `mcpcheck-legacy-initialize-${++probeIds}`, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcpcheck', version: '0' } } };
  const answer = await exchange(session, message, { [MODERN_HEADERS.protocolVersion]: null, [MODERN_HEADERS.method]: null });
  const result = answer.response?.result;
  const dualEra = isObject(result) && typeof result.protocolVersion === 'string';
  return { answer, dualEra, ...(dualEra ? { version: result.protocolVersion } : {}) };
}
