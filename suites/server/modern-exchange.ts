import { type ClientSession, describeReply, isObject, META, MODERN_HEADERS, modernRequestHeaders, type Reply, replyFrame } from '../kit.js';
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
