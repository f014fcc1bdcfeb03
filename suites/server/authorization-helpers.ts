import { randomUUID } from 'node:crypto';
import { bearerChallenge, type Challenge, type ClientSession, type HttpChannel, isLoopbackHost, isObject, LATEST_REVISION, modernRequestHeaders, type ProbeResponse, type ScenarioContext } from '../kit.js';
import { describeProbe, HEADERS_MS, is2xx, probe } from './http.js';

// What the authorization scenarios share (basic/authorization.mdx): the request that opens the
// run's era sent without credentials, how a server shows it is protected, and where its Protected
// Resource Metadata (RFC 9728) is found.

/** The era's opening request (initialize, or server/discover with its _meta) as a probe: body and headers. */
export function openingProbe(session: ClientSession): { body: string; headers: Record<string, string> } {
  const id = `mcpcheck-auth-${randomUUID()}`;
  const message =
    session.era === 'stateless'
      ? session.compose(id, 'server/discover', {})
      : session.compose(id, 'initialize', { protocolVersion: LATEST_REVISION, capabilities: {}, clientInfo: { name: 'mcpcheck', version: '0.1.0' } });
  return { body: JSON.stringify(message), headers: session.era === 'stateless' ? modernRequestHeaders(message) : {} };
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
  const res = await openWith(channel, ctx.session, null);
  const challenge = bearerChallenge(res.headers['www-authenticate']);
  if (res.status === 401 || (res.status >= 400 && challenge !== undefined)) return { res, channel, ...(challenge ? { challenge } : {}) };
  const why = is2xx(res.status) ? 'it served a request that carried no credentials' : res.status === 0 ? 'it did not answer a request without credentials' : 'its refusal of a request without credentials was no 401 and carried no Bearer challenge';
  ctx.check.skip(`not judged: the server is not a protected resource (authorization is optional in MCP): ${why} (${describeProbe(res)})`);
  return undefined;
}

/** Where a Protected Resource Metadata document was looked for, and what came back. */
export interface MetadataAttempt {
  url: URL;
  via: 'WWW-Authenticate resource_metadata' | 'path-inserted well-known URI' | 'root well-known URI';
  res?: ProbeResponse;
  /** Why the URL was not fetched. */
  notFetched?: string;
}

export interface MetadataLookup {
  attempts: MetadataAttempt[];
  /** The first attempt that gave a 200 with a JSON object. */
  found?: MetadataAttempt & { res: ProbeResponse; document: Record<string, unknown> };
}

/**
 * The well-known URIs of RFC 9728 §3.1 for the endpoint: the path-inserted one
 * (`/.well-known/oauth-protected-resource/<endpoint path>`) first, then the root one.
 */
export function wellKnownMetadataUrls(endpoint: URL): URL[] {
  const path = endpoint.pathname.replace(/\/$/, '');
  const root = new URL('/.well-known/oauth-protected-resource', endpoint);
  return path === '' ? [root] : [new URL(`/.well-known/oauth-protected-resource${path}`, endpoint), root];
}

/**
 * A metadata URL mcpcheck may fetch unasked: on the endpoint's own origin, or on loopback. Any
 * other host is contacted only by the server's own endpoint, which the user named.
 */
function fetchable(url: URL, endpoint: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `not an http(s) URL`;
  if (url.origin === endpoint.origin || isLoopbackHost(url.hostname)) return undefined;
  return `on another host (${url.host}) than the endpoint's: mcpcheck contacts no host but the one it was pointed at`;
}

/**
 * Finds the Protected Resource Metadata as a client must (AUTH-PRM-04): the URL of the challenge's
 * `resource_metadata` when there is one, else the well-known URIs in order. Stops at the first JSON
 * object served with 200.
 */
export async function findResourceMetadata(channel: HttpChannel, challenge: Challenge | undefined): Promise<MetadataLookup> {
  const attempts: MetadataAttempt[] = [];
  const named = challenge?.params.resource_metadata;
  const candidates: Array<Pick<MetadataAttempt, 'url' | 'via'> & { notFetched?: string }> = [];
  if (named !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(named, channel.url);
    } catch {
      url = undefined;
    }
    if (url) candidates.push({ url, via: 'WWW-Authenticate resource_metadata' });
    else attempts.push({ url: new URL('about:blank'), via: 'WWW-Authenticate resource_metadata', notFetched: `resource_metadata ${JSON.stringify(named.slice(0, 200))} is no URL` });
  } else {
    const [first, second] = wellKnownMetadataUrls(channel.url);
    candidates.push({ url: first!, via: second ? 'path-inserted well-known URI' : 'root well-known URI' });
    if (second) candidates.push({ url: second, via: 'root well-known URI' });
  }
  for (const c of candidates) {
    const notFetched = fetchable(c.url, channel.url);
    if (notFetched !== undefined) {
      attempts.push({ ...c, notFetched });
      continue;
    }
    const res = await probe(channel, { method: 'GET', url: c.url, headers: { Accept: 'application/json' }, timeoutMs: HEADERS_MS });
    const attempt: MetadataAttempt = { ...c, res };
    attempts.push(attempt);
    if (res.status !== 200) continue;
    let document: unknown;
    try {
      document = JSON.parse(res.body);
    } catch {
      continue;
    }
    if (isObject(document)) return { attempts, found: { ...attempt, res, document } };
  }
  return { attempts };
}

/** One line per attempt, for messages: "GET <url> (<via>) → HTTP 404 …". */
export function describeAttempts(attempts: readonly MetadataAttempt[]): string {
  return attempts.map((a) => `${a.via} ${a.url.href}: ${a.notFetched ? `not fetched, ${a.notFetched}` : describeProbe(a.res!)}`).join('; ');
}
