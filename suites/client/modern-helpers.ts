import { type ClientScenarioContext, DEFAULT_TOOLS, isObject, META, type RecordedFrame, type ServerSession } from '../kit.js';
import { callOf, WAIT_MS } from './helpers.js';

/** The methods an InputRequiredResult may answer (MRTR-SRV-02), and the member that names what they ask for. */
const NAMED_BY = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' } as const;

/** The tool whose calls mcpcheck answers with InputRequiredResults before it answers them for good. */
export const INPUT_TOOL = { name: 'mcpcheck_needs_input', description: 'Asks the client for input (an InputRequiredResult) before it answers.', inputSchema: { type: 'object', properties: { topic: { type: 'string' } } } };

/** One InputRequiredResult mcpcheck answers with: input requests, a requestState, or both. */
export interface Round {
  inputRequests?: Record<string, unknown>;
  requestState?: string;
}

/** A form elicitation asking for one string (MRTR-CLI-01). */
export const FORM_REQUEST = {
  method: 'elicitation/create',
  params: { message: 'mcpcheck asks for a name', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
};

/**
 * A requestState a client must send back byte-identical (MRTR-CLI-02): `+/=`, spaces (and one at
 * each end), non-ASCII, JSON-looking text and percent signs, 8 KiB long.
 */
export const TRICKY_STATE = (() => {
  const head = ' mcpcheck+state/=={"step":1, "ü":"日本"} %20 ';
  return head + 'x'.repeat(8 * 1024 - Buffer.byteLength(head)) + ' ';
})();

/** The client capabilities a modern request declared in its `_meta` (none when absent). */
export function declared(request: unknown): Record<string, unknown> {
  const params = isObject(request) && isObject(request.params) ? request.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  const capabilities = meta[META.clientCapabilities];
  return isObject(capabilities) ? capabilities : {};
}

/** Whether a request declared form-mode elicitation in its own `_meta` (an empty object means form only, ELIC-CAP-01). */
export function declaresForm(request: unknown): boolean {
  const e = declared(request).elicitation;
  return isObject(e) && (Object.keys(e).length === 0 || 'form' in e);
}

/**
 * Serves INPUT_TOOL first (a client on the official contract calls the first tool): the n-th call
 * of it (from 0) is answered with `round(n, call)` as an InputRequiredResult, or, when that gives
 * none, with a complete result.
 */
export function serveInputRequired(session: ServerSession, round: (n: number, request: Record<string, unknown>) => Round | undefined): void {
  session.tools = [INPUT_TOOL, ...DEFAULT_TOOLS];
  const call = session.handler('tools/call');
  askFirst(session, 'tools/call', (params) => params.name === INPUT_TOOL.name, round, () => ({ content: [{ type: 'text', text: 'mcpcheck got its input' }] }), call);
}

/**
 * Answers the requests for `method` that `asks` picks with InputRequiredResults: the n-th of them
 * (from 0) with `round(n, request)`, or, when that gives none, with `complete()`; the others as
 * `otherwise` does.
 */
export function askFirst(session: ServerSession, method: string, asks: (params: Record<string, unknown>) => boolean, round: (n: number, request: Record<string, unknown>) => Round | undefined, complete: () => Record<string, unknown>, otherwise = session.handler(method)): void {
  let calls = 0;
  session.handle(method, (params, request) => {
    if (!asks(params)) return otherwise(params, request);
    const asked = round(calls++, request);
    return { result: asked ? { resultType: 'input_required', ...asked } : complete() };
  });
}

/** The client's calls of INPUT_TOOL from frame `since` on, the first one and its retries in order. */
export function inputToolCalls(session: ServerSession, since = 0): RecordedFrame[] {
  return session.requestsFor('tools/call', since).filter(callOf(INPUT_TOOL.name));
}

/** Waits for the n-th (from 0) call of INPUT_TOOL. */
export async function nthInputCall(ctx: ClientScenarioContext, n: number): Promise<RecordedFrame | undefined> {
  const seen = await ctx.session.waitForFrame(() => inputToolCalls(ctx.session).length > n, WAIT_MS);
  return seen ? inputToolCalls(ctx.session)[n] : undefined;
}

/** Waits for the client's first request, whichever it is (a modern client's first contact). */
export function firstRequest(session: ServerSession): Promise<RecordedFrame | undefined> {
  return session.waitForFrame((f) => isObject(f.message) && typeof f.message.method === 'string' && 'id' in f.message, WAIT_MS);
}

/** A request's params as the retry comparison sees them: without `_meta`, `inputResponses` and `requestState` (MRTR-CLI-05). */
export function coreParams(frame: RecordedFrame): Record<string, unknown> {
  const params = isObject(frame.message) && isObject(frame.message.params) ? frame.message.params : {};
  const { _meta: _m, inputResponses: _i, requestState: _s, ...core } = params;
  return core;
}

/** The member of the params of an MRTR-capable request that names what it asks for (tool, prompt or resource). */
export function namedBy(frame: RecordedFrame): string | undefined {
  if (!isObject(frame.message)) return undefined;
  const member = NAMED_BY[frame.message.method as keyof typeof NAMED_BY];
  const params = isObject(frame.message.params) ? frame.message.params : {};
  return member === undefined ? undefined : `${String(frame.message.method)} ${JSON.stringify(params[member])}`;
}

/** Deep equality of JSON values (key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
}

/** The client's initialize from frame `since` on, or undefined once it exited or WAIT_MS passed without one (a modern-only client has none to send). */
export async function initializeOrExit(ctx: ClientScenarioContext, since = 0): Promise<RecordedFrame | undefined> {
  await Promise.race([ctx.session.waitForMethod('initialize', WAIT_MS, since), ctx.exited(WAIT_MS)]);
  return ctx.session.requestsFor('initialize', since)[0];
}
