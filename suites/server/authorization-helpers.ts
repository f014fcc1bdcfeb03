import { randomUUID } from 'node:crypto';
import { bearerChallenge, type Challenge, parseChallenges, wellKnownMetadataUrls, type ClientSession, type HttpChannel, isLoopbackHost, isObject, LATEST_REVISION, parseObject, modernRequestHeaders, probeTokenFlag, type ProbeResponse, type ProbeTokens, type ScenarioContext, show, type Target } from '../kit.js';
import { describeProbe, HEADERS_MS, is2xx, probe, responseIn, rpc } from './http.js';

// What the authorization scenarios share (basic/authorization.mdx): the request that opens the
// run's era sent without credentials, how a server shows it is protected, and where its Protected
// Resource Metadata (RFC 9728) is found.

/** The era's opening request (initialize, or server/discover with its _meta) as a probe: its id, body and headers. */
export function openingProbe(session: ClientSession): { id: string; body: string; headers: Record<string, string> } {
  const id = `mcpcheck-auth-${randomUUID()}`;
  const message =
    session.era === 'stateless'
      ? session.compose(id, 'server/discover', {})
      : session.compose(id, 'initialize', { protocolVersion: LATEST_REVISION, capabilities: {}, clientInfo: { name: 'mcpcheck', version: '0.1.0' } });
  return { id, body: JSON.stringify(message), headers: session.era === 'stateless' ? modernHeaders(session, message) : {} };
}

/** The headers of a modern request: Mcp-Method (and Mcp-Name) from its body, and the revision it speaks. */
function modernHeaders(session: ClientSession, message: unknown): Record<string, string> {
  return { ...modernRequestHeaders(message), 'MCP-Protocol-Version': session.speaks };
}

/** What one request of a probe conversation got: the HTTP response, and the JSON-RPC response to it in there, if any. */
export interface ConversationReply {
  res: ProbeResponse;
  answer: Record<string, unknown> | undefined;
}

/** A conversation carried by raw probes under another credential than the run's: what its opening got, and how to send more when it began. */
export interface ProbeConversation {
  opened: ProbeResponse;
  /** Absent when the opening got no 2xx. */
  send?: (method: string, params?: Record<string, unknown>) => Promise<ConversationReply>;
}

/** One request of the stateless era as a raw probe with `authorization` (null: none) in place of the run's token. */
export async function modernProbe(channel: HttpChannel, session: ClientSession, authorization: string | null, method: string, params: Record<string, unknown>): Promise<ConversationReply> {
  const id = `mcpcheck-auth-${randomUUID()}`;
  const message = session.compose(id, method, params);
  const res = await probe(channel, { method: 'POST', body: JSON.stringify(message), headers: { ...modernHeaders(session, message), Authorization: authorization }, omitSessionId: true, omitProtocolVersion: true });
  return { res, answer: responseIn(res, id) };
}

/**
 * Opens a conversation as raw probes with `authorization` in place of the run's token: the era's
 * opening request (and, in the stateful era, notifications/initialized in the session it opened),
 * after which each request goes as a probe of its own with the same credential.
 */
export async function conversationWith(channel: HttpChannel, session: ClientSession, authorization: string): Promise<ProbeConversation> {
  const opening = openingProbe(session);
  const opened = await probe(channel, { method: 'POST', body: opening.body, headers: { ...opening.headers, Authorization: authorization }, omitSessionId: true, omitProtocolVersion: true });
  if (!is2xx(opened.status)) return { opened };
  if (session.era === 'stateless') return { opened, send: (method, params = {}) => modernProbe(channel, session, authorization, method, params) };
  const negotiated = responseIn(opened, opening.id)?.result;
  const version = isObject(negotiated) && typeof negotiated.protocolVersion === 'string' ? negotiated.protocolVersion : LATEST_REVISION;
  const sessionId = opened.headers['mcp-session-id'];
  const inSession = { headers: { 'MCP-Protocol-Version': version, Authorization: authorization }, ...(sessionId !== undefined ? { sessionIdOverride: sessionId } : { omitSessionId: true }), omitProtocolVersion: true };
  await probe(channel, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), ...inSession });
  return {
    opened,
    send: async (method, params = {}) => {
      const { id, body } = rpc(method, params);
      const res = await probe(channel, { method: 'POST', body, ...inSession });
      return { res, answer: responseIn(res, id) };
    },
  };
}

/**
 * The opening request with the user's Authorization header replaced by `authorization` (null: none),
 * outside any session.
 */
export function openWith(channel: HttpChannel, session: ClientSession, authorization: string | null): Promise<ProbeResponse> {
  const { body, headers } = openingProbe(session);
  return probe(channel, { method: 'POST', body, headers: { ...headers, Authorization: authorization }, omitSessionId: true, omitProtocolVersion: true });
}

/** How the server answered a request without credentials. */
export interface Protection {
  res: ProbeResponse;
  /** Its Bearer challenge, when `WWW-Authenticate` has one. */
  challenge?: Challenge;
}

/**
 * The opening request without credentials, sent once per target (a run of one era) however many
 * scenarios read its answer: an open server serves it, and the session it opened for it is ended again.
 */
const unauthenticated = new WeakMap<Target, Promise<ProbeResponse>>();

function withoutCredentials(target: Target, channel: HttpChannel, session: ClientSession): Promise<ProbeResponse> {
  let pending = unauthenticated.get(target);
  if (pending === undefined) {
    pending = openWith(channel, session, null).then(async (res) => {
      const opened = res.headers['mcp-session-id'];
      if (is2xx(res.status) && opened !== undefined) await probe(channel, { method: 'DELETE', sessionIdOverride: opened, headers: { Authorization: null }, omitProtocolVersion: true });
      return res;
    });
    unauthenticated.set(target, pending);
  }
  return pending;
}

/**
 * The server's answer to the opening request sent without credentials, when that shows an
 * OAuth-protected resource: a 401, or any refusal with a Bearer challenge. Otherwise a skip is
 * recorded (the server is not protected, or not by MCP authorization, which is optional) and
 * undefined returned.
 */
export async function protectedResource(ctx: ScenarioContext): Promise<(Protection & { channel: HttpChannel }) | undefined> {
  const channel = ctx.session.channel;
  if (channel.kind !== 'http') {
    ctx.check.error('needs the http transport');
    return undefined;
  }
  const res = await withoutCredentials(ctx.target, channel, ctx.session);
  const header = res.headers['www-authenticate'];
  const challenge = bearerChallenge(header);
  // Sender-constrained tokens (RFC 9449) are a scheme of their own, which mcpcheck does not present.
  if (challenge === undefined && header !== undefined && parseChallenges(header).some((c) => c.scheme === 'dpop')) {
    ctx.check.skip(`not graded: the server asks for DPoP-bound tokens (RFC 9449; WWW-Authenticate: ${show(header, 160)}), which mcpcheck does not present`);
    return undefined;
  }
  if (res.status === 401 || (res.status >= 400 && challenge !== undefined)) return { res, channel, ...(challenge ? { challenge } : {}) };
  const why = is2xx(res.status) ? 'it served a request that carried no credentials' : res.status === 0 ? 'it did not answer a request without credentials' : 'its refusal of a request without credentials was no 401 and carried no Bearer challenge';
  ctx.check.skip(`not judged: the server is not a protected resource (authorization is optional in MCP): ${why} (${describeProbe(res)})`);
  return undefined;
}

/** A token the user gave for a probe, or a skip saying which flag gives it. */
export function probeToken(ctx: ScenarioContext, kind: keyof ProbeTokens): string | undefined {
  const token = ctx.options.probeTokens?.[kind];
  if (token === undefined) ctx.check.skip(`not judged: needs ${probeTokenFlag(kind)} NAME (NAME an environment variable holding such a token)`);
  return token;
}

/** Where a Protected Resource Metadata document was looked for, and what came back. */
export interface MetadataAttempt {
  /** The URL as named (the challenge's value when it was no URL). */
  url: string;
  via: 'WWW-Authenticate resource_metadata' | 'path-inserted well-known URI' | 'root well-known URI';
  res?: ProbeResponse;
  /** Why the URL was not fetched. */
  notFetched?: string;
}

export interface MetadataLookup {
  attempts: MetadataAttempt[];
  /** The first attempt that gave a 200 with a JSON object. */
  found?: MetadataAttempt & { res: ProbeResponse; document: Record<string, unknown> };
  /** Why the document could not be looked for: the challenge names it on a host mcpcheck does not contact. */
  notContacted?: string;
  /** A 200 whose body was longer than mcpcheck reads: whether it held the document cannot be told (mcpcheck's limit). */
  tooLong?: MetadataAttempt & { res: ProbeResponse };
}

/**
 * Whether mcpcheck may fetch a metadata URL unasked: on the endpoint's own origin, or on loopback.
 * It contacts no other host than the endpoint the user named.
 */
function contactable(url: URL, endpoint: URL): boolean {
  return url.origin === endpoint.origin || isLoopbackHost(url.hostname);
}

/** The metadata lookup of each target (a run of one era), made once for the scenarios that read it. */
const lookups = new WeakMap<Target, Promise<MetadataLookup>>();

/**
 * The issuers the Protected Resource Metadata the run found names (authorization_servers, its
 * strings that are http(s) URLs, in order, at most `max`); undefined when no scenario looked for the
 * metadata or none was found. The server command grades each as an authorization server.
 */
export async function namedAuthorizationServers(target: Target, max: number): Promise<string[] | undefined> {
  const found = (await lookups.get(target))?.found;
  const servers = found?.document.authorization_servers;
  if (!Array.isArray(servers)) return undefined;
  const issuers = servers.filter((s): s is string => typeof s === 'string' && URL.canParse(s) && ['http:', 'https:'].includes(new URL(s).protocol));
  return [...new Set(issuers)].slice(0, max);
}

/** findResourceMetadata, once per target. */
export function resourceMetadataOf(target: Target, channel: HttpChannel, challenge: Challenge | undefined): Promise<MetadataLookup> {
  let pending = lookups.get(target);
  if (pending === undefined) lookups.set(target, (pending = findResourceMetadata(channel, challenge)));
  return pending;
}

/**
 * Finds the Protected Resource Metadata as a client must (AUTH-PRM-04): the URL of the challenge's
 * `resource_metadata` when there is one, else the well-known URIs in order. Stops at the first JSON
 * object served with 200.
 */
async function findResourceMetadata(channel: HttpChannel, challenge: Challenge | undefined): Promise<MetadataLookup> {
  const named = challenge?.params.resource_metadata;
  const candidates: Array<{ url: URL | string; via: MetadataAttempt['via'] }> = [];
  if (named !== undefined) candidates.push({ url: URL.canParse(named, channel.url.href) ? new URL(named, channel.url) : named, via: 'WWW-Authenticate resource_metadata' });
  else {
    const [first, second] = wellKnownMetadataUrls(channel.url);
    candidates.push({ url: first!, via: second ? 'path-inserted well-known URI' : 'root well-known URI' });
    if (second) candidates.push({ url: second, via: 'root well-known URI' });
  }
  const attempts: MetadataAttempt[] = [];
  for (const { url, via } of candidates) {
    const shown = typeof url === 'string' ? show(url, 200) : url.href;
    if (typeof url === 'string' || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      attempts.push({ url: shown, via, notFetched: 'not an http(s) URL' });
      continue;
    }
    if (!contactable(url, channel.url)) {
      const why = `on another host (${url.host}) than the endpoint's, and mcpcheck contacts no host but the one it was pointed at`;
      return { attempts: [...attempts, { url: shown, via, notFetched: why }], notContacted: `the challenge's resource_metadata ${shown} is ${why}` };
    }
    const res = await probe(channel, { method: 'GET', url, headers: { Accept: 'application/json' }, timeoutMs: HEADERS_MS });
    const attempt: MetadataAttempt = { url: shown, via, res };
    attempts.push(attempt);
    if (res.status === 200 && res.truncated) return { attempts, tooLong: { ...attempt, res } };
    const document = res.status === 200 ? parseObject(res.body) : undefined;
    if (document) return { attempts, found: { ...attempt, res, document } };
  }
  return { attempts };
}

/** One line per attempt, for messages: "GET <url> (<via>) → HTTP 404 …". */
export function describeAttempts(attempts: readonly MetadataAttempt[]): string {
  return attempts.map((a) => `${a.via} ${a.url}: ${a.notFetched ? `not fetched, ${a.notFetched}` : describeProbe(a.res!)}`).join('; ');
}
