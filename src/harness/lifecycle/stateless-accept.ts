import { isObject } from '../../json.js';
import { META, MODERN_ERRORS } from '../../spec/modern.js';
import { toolInfo } from '../../version.js';
import type { Outcome, ServerSession } from '../server-session.js';
import type { AcceptedConversation } from './conversation.js';

/** The methods whose complete results are cacheable (caching.mdx#cacheable-results, §19 item 14: server/discover too). */
const CACHEABLE = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

/** Methods of the stateless era alone: an initialize-era server knows nothing of them (−32601). */
export const STATELESS_ONLY: ReadonlySet<string> = new Set(['server/discover', 'subscriptions/listen']);

/** Methods of the stateful era alone: a modern request for one is an unknown method (ROBUST-10). */
const STATEFUL_ONLY = new Set(['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

/** The caching hints mcpcheck gives: stale at once and private, so a client that caches asks again (CACHE-TTL-02). */
const CACHE_HINTS = { ttlMs: 0, cacheScope: 'private' } as const;

/** Whether a request speaks the stateless era: its `_meta` carries a per-request protocol field. */
export function carriesModernMeta(params: unknown): boolean {
  const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
  return meta !== undefined && (META.protocolVersion in meta || META.clientCapabilities in meta);
}

/**
 * What a modern request declared in its `_meta`, or the error that refuses it: a missing field is
 * −32602 (META-REQ-03, §19 item 4), a version mcpcheck does not serve −32022 with the versions it
 * does (VER-NEG-01).
 */
export function conversationOf(params: Record<string, unknown>, supported: readonly string[]): AcceptedConversation | Extract<Outcome, { error: unknown }> {
  const meta = isObject(params._meta) ? params._meta : {};
  const version = meta[META.protocolVersion];
  const capabilities = meta[META.clientCapabilities];
  const missing = [...(typeof version === 'string' ? [] : [META.protocolVersion]), ...(isObject(capabilities) ? [] : [META.clientCapabilities])];
  if (missing.length > 0) return { error: { code: -32602, message: `the request's params._meta lacks ${missing.join(' and ')} (every request of 2026-07-28 carries them)` } };
  if (!supported.includes(version as string)) {
    return { error: { code: MODERN_ERRORS.unsupportedProtocolVersion, message: `protocol version ${JSON.stringify(version)} is not supported`, data: { supported: [...supported], requested: version } } };
  }
  const clientInfo = meta[META.clientInfo];
  return { revision: version as string, capabilities: capabilities as Record<string, unknown>, ...(isObject(clientInfo) ? { clientInfo } : {}) };
}

/**
 * A result as the stateless era sends it: `resultType` (BASE-RES-04; `complete` unless the handler
 * chose one — a handler that means to omit it, as an older server would, sets it to undefined),
 * mcpcheck's serverInfo in `_meta` (META-RES-01) and, on a complete cacheable result, the caching
 * fields (CACHE-RES-01).
 */
export function modernResult(method: string, result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = 'resultType' in result ? { ...result } : { resultType: 'complete', ...result };
  out._meta = { [META.serverInfo]: toolInfo(), ...(isObject(result._meta) ? result._meta : {}) };
  if (out.resultType === 'complete' && CACHEABLE.has(method)) for (const [k, v] of Object.entries(CACHE_HINTS)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * mcpcheck as a server of the stateless era (2026-07-28): each modern request is its own
 * conversation, taken from its `_meta` alone (BASE-STATE-01); `server/discover` tells the versions
 * and capabilities mcpcheck serves. An initialize on the same stdio process or endpoint still
 * opens a stateful conversation (VER-BC-02), unless a scenario serves the stateless era only.
 */
export function acceptStateless(session: ServerSession): void {
  session.handle('server/discover', () => ({ result: { supportedVersions: [...session.modernVersions], capabilities: session.capabilities } }));
  // A subscription is acknowledged with what mcpcheck's capabilities let it honour, then held open
  // until the client ends it (SUBS-IMPL-01, SUBS-ACK-01/02, SUBS-ID-01): mcpcheck changes nothing, so nothing more comes.
  session.handle('subscriptions/listen', (params, request) => {
    const notifications = honoured(isObject(params.notifications) ? params.notifications : {}, session.capabilities);
    void session.notify('notifications/subscriptions/acknowledged', { _meta: { [META.subscriptionId]: request.id }, notifications });
    return { hold: true };
  });
  session.serveModern = async (request, serve) => {
    const params = isObject(request.params) ? request.params : {};
    const conversation = conversationOf(params, session.modernVersions);
    if ('error' in conversation) return conversation;
    const method = String(request.method);
    if (STATEFUL_ONLY.has(method)) return { error: { code: -32601, message: `${method} does not exist in revision ${conversation.revision}` } };
    session.conversation = conversation;
    const outcome = await serve();
    return 'result' in outcome ? { result: modernResult(method, outcome.result) } : outcome;
  };
}

/** The part of a requested subscription filter that the declared capabilities cover (SUBS-ACK-02, SUBS-CAP-01). */
function honoured(asked: Record<string, unknown>, capabilities: Record<string, unknown>): Record<string, unknown> {
  const declares = (feature: string, flag: string) => isObject(capabilities[feature]) && (capabilities[feature] as Record<string, unknown>)[flag] === true;
  const out: Record<string, unknown> = {};
  for (const [member, feature] of [['toolsListChanged', 'tools'], ['promptsListChanged', 'prompts'], ['resourcesListChanged', 'resources']] as const) if (asked[member] === true && declares(feature, 'listChanged')) out[member] = true;
  if (Array.isArray(asked.resourceSubscriptions) && declares('resources', 'subscribe')) out.resourceSubscriptions = asked.resourceSubscriptions.filter((u) => typeof u === 'string');
  return out;
}
