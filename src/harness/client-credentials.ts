import { SetupError } from '../errors.js';
import { parseObject } from '../json.js';
import { LATEST_STATEFUL_REVISION } from '../spec/revisions.js';
import { plainRequest, type PlainResponse } from '../transport/http-request.js';
import { show } from '../validate/finding.js';
import { isLoopbackHost } from '../validate/loopback.js';
import { wellKnownMetadataUrls } from '../validate/resource-uri.js';
import { bearerChallenge } from '../validate/www-authenticate.js';
import { AuthorizationServerDriver, basicCredentials, DEFAULT_REDIRECT_URI, describeResponse } from './authorization-server.js';

/**
 * An access token for a protected MCP server from the client credentials grant (OAuth 2.1 §4.2),
 * found the way an MCP client finds its authorization server (basic/authorization.mdx): the 401
 * challenge's `resource_metadata`, else the well-known URIs; the first server the metadata lists;
 * its metadata; then a token request for the endpoint as `resource`. The secret is sent only over
 * https, or to loopback.
 */

export interface ClientCredentials {
  clientId: string;
  secret: string;
  /** The scope to ask for; default: the challenge's, else the metadata's scopes_supported (AUTH-SCOPE-01), else none. */
  scope?: string;
}

const MAX_BYTES = 256 * 1024;

/** Whether a secret may travel to this URL: https, or plain http on loopback. */
function safeFor(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

function fail(why: string): never {
  throw new SetupError(`--client-id: no token from the client credentials grant: ${why}`);
}

function jsonOf(res: PlainResponse): Record<string, unknown> | undefined {
  return res.status === 200 ? parseObject(res.body) : undefined;
}

export async function clientCredentialsToken(endpoint: URL, credentials: ClientCredentials, timeoutMs: number): Promise<string> {
  const send = (url: URL, method: 'GET' | 'POST', headers: Record<string, string>, body?: string) => plainRequest(url, { method, headers, ...(body !== undefined ? { body } : {}), timeoutMs, maxBytes: MAX_BYTES });
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 'mcpcheck-credentials', method: 'initialize', params: { protocolVersion: LATEST_STATEFUL_REVISION, capabilities: {}, clientInfo: { name: 'mcpcheck', version: '0.1.0' } } });
  const opened = await send(endpoint, 'POST', { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, initialize);
  if (opened.status === 0) fail(`${endpoint.href} ${describeResponse(opened)}`);
  if (opened.status !== 401) fail(`${endpoint.href} answered a request without a token with HTTP ${opened.status}, not 401: it is no protected resource to get a token for`);
  const challenge = bearerChallenge(opened.headers['www-authenticate']);

  const named = challenge?.params.resource_metadata;
  const candidates = named !== undefined && URL.canParse(named, endpoint.href) ? [new URL(named, endpoint)] : wellKnownMetadataUrls(endpoint);
  let resourceMetadata: Record<string, unknown> | undefined;
  const tried: string[] = [];
  for (const url of candidates) {
    if (url.origin !== endpoint.origin && !safeFor(url)) {
      tried.push(`${url.href}: not fetched, plain http off loopback`);
      continue;
    }
    const res = await send(url, 'GET', { Accept: 'application/json' });
    tried.push(`${url.href}: ${describeResponse(res)}`);
    if ((resourceMetadata = jsonOf(res))) break;
  }
  if (!resourceMetadata) fail(`no Protected Resource Metadata (${tried.join('; ')})`);
  const servers = resourceMetadata.authorization_servers;
  const issuerText = Array.isArray(servers) && typeof servers[0] === 'string' ? servers[0] : undefined;
  if (issuerText === undefined || !URL.canParse(issuerText)) fail(`the Protected Resource Metadata lists no authorization server (authorization_servers ${show(servers)})`);
  const issuer = new URL(issuerText);
  if (!safeFor(issuer)) fail(`its authorization server ${issuer.href} is plain http off loopback: mcpcheck sends a client secret only over https or to loopback`);

  const as = new AuthorizationServerDriver({ issuerText, issuer, requestTimeoutMs: timeoutMs, allowRemoteMetadata: true, redirectUri: DEFAULT_REDIRECT_URI });
  const { found, attempts } = await as.metadata();
  if (!found) fail(`the authorization server ${issuerText} publishes no metadata (${attempts.map((a) => `${a.url}: ${describeResponse(a.res)}`).join('; ')})`);
  const tokenEndpoint = found.document.token_endpoint;
  if (typeof tokenEndpoint !== 'string' || !URL.canParse(tokenEndpoint)) fail(`the metadata of ${issuerText} names no token_endpoint`);
  const tokenUrl = new URL(tokenEndpoint);
  if (!safeFor(tokenUrl)) fail(`its token endpoint ${tokenUrl.href} is plain http off loopback: mcpcheck sends a client secret only over https or to loopback`);

  const supported = found.document.scopes_supported;
  const scope = credentials.scope ?? challenge?.params.scope ?? (Array.isArray(supported) && supported.every((s) => typeof s === 'string') ? supported.join(' ') : undefined);
  const methods = found.document.token_endpoint_auth_methods_supported;
  // RFC 8414 §2: when the list is absent, client_secret_basic is the default.
  const basic = !Array.isArray(methods) || methods.includes('client_secret_basic') || !methods.includes('client_secret_post');
  const form = new URLSearchParams({ grant_type: 'client_credentials', resource: typeof resourceMetadata.resource === 'string' ? resourceMetadata.resource : endpoint.href });
  if (scope !== undefined && scope !== '') form.set('scope', scope);
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
  if (basic) headers.Authorization = basicCredentials(credentials.clientId, credentials.secret);
  else {
    form.set('client_id', credentials.clientId);
    form.set('client_secret', credentials.secret);
  }
  const res = await send(tokenUrl, 'POST', headers, form.toString());
  const token = jsonOf(res)?.access_token;
  if (typeof token !== 'string' || token === '') fail(`the token endpoint ${tokenUrl.href} refused (${describeResponse({ ...res, body: typeof token === 'string' ? '' : res.body })})`);
  return token;
}
