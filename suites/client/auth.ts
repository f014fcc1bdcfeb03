import { createHash } from 'node:crypto';
import { CHALLENGE_SCOPE, DISJOINT_CHALLENGE_SCOPE, DISJOINT_METADATA_SCOPES, isLoopbackHost, METADATA_SCOPES, PRM_PATH, resourceMatch, ruling, show, type ClientScenario } from '../kit.js';
import { eventsOf, expectRefusal, type Flow, namesServer, NO_AUTHORIZE, protectedScenario, scopeJudge } from './auth-helpers.js';

// A client meets a protected MCP server (basic/authorization.mdx): a 401 challenge naming the
// Protected Resource Metadata, an authorization server on the same origin offering dynamic
// registration, and a token to present on every request afterwards. Each scenario runs the flow
// and judges one rule of it.

/** The flow's first authorization request, or a skip said by the caller's check when there is none. */
const firstAuthorize = (flow: Flow) => flow.of('authorize')[0];

/** What the client sent once its first token was issued (undefined: none was); a token can travel only from then on. */
function sinceToken(flow: Flow): Flow['events'] | undefined {
  const issuedAt = flow.events.findIndex((e) => e.kind === 'token' && e.issued !== undefined);
  return issuedAt < 0 ? undefined : flow.events.slice(issuedAt + 1);
}

export const resourceMetadata = protectedScenario(
  { id: 'client.auth.resource-metadata', title: 'After a 401 the client finds the authorization server through the Protected Resource Metadata', requirements: ['AUTH-PRM-04'], alias: 'auth/metadata-default' },
  (ctx, flow) => {
    const fetched = flow.of('resource-metadata');
    const asked = flow.events.some((e) => e.kind === 'authorization-server-metadata' || e.kind === 'register' || e.kind === 'authorize' || e.kind === 'token');
    // A client that fetched neither went to no authorization server: the rule was not exercised.
    if (fetched.length === 0 && !asked) return ctx.check.skip('not exercised: the client went to no authorization server (nor fetched the metadata)');
    ctx.check.expect(fetched.length > 0, {
      expected: `a GET of the metadata the challenge's resource_metadata names (${PRM_PATH}) before it goes to the authorization server`,
      actual: 'it went to the authorization server without fetching the metadata',
    });
  },
);

export const pkce = protectedScenario(
  { id: 'client.auth.pkce', title: 'The client uses PKCE with S256, and redeems the code with the verifier of its challenge', requirements: ['AUTH-PKCE-01'] },
  (ctx, flow) => {
    const authorize = firstAuthorize(flow);
    if (!authorize) return ctx.check.skip(NO_AUTHORIZE);
    const { code_challenge: challenge, code_challenge_method: method } = authorize.params;
    const token = flow.of('token').find((t) => t.params.grant_type === 'authorization_code');
    if (method === 'S256' && !token) return ctx.check.skip('not exercised: the client sent no token request for a code (the authorization request used S256)');
    const verifier = token?.params.code_verifier;
    const matches = challenge !== undefined && verifier !== undefined && createHash('sha256').update(verifier).digest('base64url') === challenge;
    ctx.check.expect(method === 'S256' && matches, {
      expected: 'code_challenge_method=S256 and a code_challenge in the authorization request, and in the token request the code_verifier it was made from',
      actual: method !== 'S256' ? `code_challenge_method ${show(method)}` : verifier === undefined ? 'no code_verifier in the token request' : 'a code_verifier whose S256 hash is not the challenge',
    });
  },
);

/** The resource of the flow's first authorization request and of its code's token request (undefined: the client sent no authorization request). */
function resourcesSent(flow: Flow): { authorize: string | undefined; token?: string | undefined } | undefined {
  const authorize = firstAuthorize(flow);
  if (!authorize) return undefined;
  const token = flow.of('token').find((t) => t.params.grant_type === 'authorization_code');
  return { authorize: authorize.params.resource, ...(token ? { token: token.params.resource } : {}) };
}

export const resourceParameter = protectedScenario(
  { id: 'client.auth.resource', title: 'The client names the MCP server as resource (RFC 8707) in the authorization and the token request', requirements: ['AUTH-RES-01'] },
  (ctx, flow) => {
    const sent = resourcesSent(flow);
    if (!sent) return ctx.check.skip(NO_AUTHORIZE);
    const problems = [
      ...(!namesServer(sent.authorize, flow) ? [`the authorization request's resource is ${show(sent.authorize)}`] : []),
      ...('token' in sent && !namesServer(sent.token, flow) ? [`the token request's resource is ${show(sent.token)}`] : []),
    ];
    if (problems.length === 0 && !('token' in sent)) return ctx.check.skip('not exercised: the client sent no token request for a code (the authorization request named the resource)');
    ctx.check.expect(problems.length === 0, { expected: `in both requests a resource naming ${flow.host.resource} (${ruling('resource-identifies-server').cite})`, actual: problems.join('; ') });
  },
);

export const resourceCanonical = protectedScenario(
  { id: 'client.auth.resource-canonical', title: 'The resource the client names is the endpoint\'s own URI, without a trailing slash', requirements: ['AUTH-RES-02'] },
  (ctx, flow) => {
    const sent = resourcesSent(flow);
    if (!sent) return ctx.check.skip(NO_AUTHORIZE);
    const given = [...new Set([sent.authorize, ...('token' in sent ? [sent.token] : [])])].filter((r): r is string => r !== undefined);
    if (given.length === 0) return ctx.check.skip('not exercised: the client named no resource (client.auth.resource judges that)');
    const endpoint = new URL(flow.host.resource);
    const loose = given.filter((r) => resourceMatch(r, endpoint) !== 'same');
    ctx.check.expect(loose.length === 0, { expected: `resource=${endpoint.href}, the most specific URI of the server`, actual: loose.map((r) => `resource ${show(r)}`).join('; ') });
  },
);

export const state = protectedScenario(
  { id: 'client.auth.state', title: 'The client sends a state parameter with its authorization request', requirements: ['AUTH-REDIR-03'] },
  (ctx, flow) => {
    const authorize = firstAuthorize(flow);
    if (!authorize) return ctx.check.skip(NO_AUTHORIZE);
    ctx.check.expect(typeof authorize.params.state === 'string' && authorize.params.state !== '', { expected: 'a state parameter', actual: 'none' });
  },
);

export const redirectRegistered = protectedScenario(
  { id: 'client.auth.redirect-registered', title: 'The redirect URI of the authorization request is one the client registered', requirements: ['AUTH-REDIR-01'] },
  (ctx, flow) => {
    const authorize = firstAuthorize(flow);
    if (!authorize) return ctx.check.skip(NO_AUTHORIZE);
    const registrations = flow.of('register');
    if (registrations.length === 0) return ctx.check.skip('not exercised: the client registered nothing with mcpcheck\'s authorization server (no dynamic registration)');
    const registered = registrations.flatMap((r) => {
      const uris = typeof r.body === 'object' && r.body !== null ? (r.body as { redirect_uris?: unknown }).redirect_uris : undefined;
      return Array.isArray(uris) ? uris : [];
    });
    ctx.check.expect(registered.includes(authorize.params.redirect_uri), {
      expected: `redirect_uri among those registered (${show(registered)})`,
      actual: `redirect_uri ${show(authorize.params.redirect_uri)}`,
    });
  },
);

export const redirectSafe = protectedScenario(
  { id: 'client.auth.redirect-safe', title: 'The client\'s redirect URI is on localhost or uses HTTPS', requirements: ['AUTH-SEC-04'] },
  (ctx, flow) => {
    const authorize = firstAuthorize(flow);
    if (!authorize) return ctx.check.skip(NO_AUTHORIZE);
    const uri = authorize.params.redirect_uri ?? '';
    const url = URL.canParse(uri) ? new URL(uri) : undefined;
    ctx.check.expect(url !== undefined && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))), {
      expected: 'a redirect_uri on localhost (127.0.0.1, [::1]) or https',
      actual: `redirect_uri ${show(uri)}`,
    });
  },
);

export const scope = protectedScenario(
  { id: 'client.auth.scope', title: 'The client asks for the scope the 401 challenge names', requirements: ['AUTH-SCOPE-01'], alias: 'auth/scope-from-www-authenticate' },
  scopeJudge(CHALLENGE_SCOPE, `scope=${CHALLENGE_SCOPE}, the challenge's scope`),
);

export const scopeFromMetadata = protectedScenario(
  {
    id: 'client.auth.scope-from-metadata',
    title: 'With no scope in the challenge, the client asks for every scope the Protected Resource Metadata lists',
    requirements: ['AUTH-SCOPE-01'],
    variant: { scopes: 'metadata' },
    alias: 'auth/scope-from-scopes-supported',
  },
  scopeJudge(METADATA_SCOPES.join(' '), `scope=${METADATA_SCOPES.join(' ')}, the metadata's scopes_supported (the challenge named none)`),
);

export const scopeOmitted = protectedScenario(
  {
    id: 'client.auth.scope-omitted',
    title: 'With no scope in the challenge nor in the metadata, the client omits scope',
    requirements: ['AUTH-SCOPE-01'],
    variant: { scopes: 'none' },
    alias: 'auth/scope-omitted-when-undefined',
  },
  scopeJudge('', 'no scope parameter, or offline_access alone (neither the challenge nor scopes_supported names a scope)'),
);

export const scopeAuthoritative = protectedScenario(
  {
    id: 'client.auth.scope-challenge-authoritative',
    title: 'The client asks for exactly the scope the challenge names, though the Protected Resource Metadata lists others',
    requirements: ['AUTH-WWW-03'],
    variant: { scopes: 'disjoint' },
  },
  scopeJudge(DISJOINT_CHALLENGE_SCOPE, `scope=${DISJOINT_CHALLENGE_SCOPE}, the challenge's scope (the metadata's scopes_supported is ${show(DISJOINT_METADATA_SCOPES)}: neither a subset nor a superset of it)`),
);

export const applicationType = protectedScenario(
  {
    id: 'client.auth.application-type',
    title: 'Registering dynamically, the client sends the application_type its redirect URIs call for (native on loopback)',
    requirements: ['AUTH-DCR-02'],
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow) => {
    const registration = flow.of('register').find((r) => typeof r.body === 'object' && r.body !== null);
    if (!registration) return ctx.check.skip('not exercised: the client registered nothing with mcpcheck\'s authorization server (no dynamic registration)');
    const body = registration.body as { application_type?: unknown; redirect_uris?: unknown };
    const uris = Array.isArray(body.redirect_uris) ? body.redirect_uris.filter((u): u is string => typeof u === 'string' && URL.canParse(u)) : [];
    // Native: loopback (localhost included) or a private-use scheme; a web client's redirect is on a host of its own.
    const local = uris.length > 0 && uris.map((u) => new URL(u)).every((u) => isLoopbackHost(u.hostname) || !/^https?:$/.test(u.protocol));
    const fitting = local ? 'native' : 'web';
    const expected = `application_type in the registration (omitted, OpenID Connect takes it for "web"), "${fitting}" for redirect URIs ${show(uris)}`;
    if (body.application_type === undefined) return void ctx.check.expect(false, { expected, actual: 'no application_type' });
    // Sending one is the MUST; which one fits the redirect URIs is a SHOULD.
    ctx.check.expect(body.application_type === fitting, { expected, actual: `application_type ${show(body.application_type)}`, level: 'SHOULD' });
  },
);

export const bearer = protectedScenario(
  { id: 'client.auth.bearer', title: 'Once it has a token, the client sends it as Authorization: Bearer on every request to the server', requirements: ['AUTH-TOKEN-01'] },
  (ctx, flow) => {
    const since = sinceToken(flow);
    if (!since) return ctx.check.skip('not exercised: no token was issued to the client');
    const after = eventsOf(since, 'endpoint');
    if (after.length === 0) return ctx.check.skip('not exercised: the client sent the server nothing after it got its token');
    const without = after.filter((e) => !e.admitted);
    ctx.check.expect(without.length === 0, {
      expected: `Authorization: Bearer with the issued token on each of its ${after.length} request(s) to the endpoint after the token`,
      actual: `${without.length} without it (${without.map((e) => `${e.method} with ${e.authorization === undefined ? 'no Authorization' : 'another credential'}`).slice(0, 3).join('; ')})`,
    });
  },
);

export const tokenNotInQuery = protectedScenario(
  { id: 'client.auth.token-not-in-query', title: 'The client never puts its access token in a URL', requirements: ['AUTH-TOKEN-02'] },
  (ctx, flow) => {
    const since = sinceToken(flow);
    if (!since) return ctx.check.skip('not exercised: no token was issued to the client');
    const requests = since.filter((e) => 'query' in e);
    if (requests.length === 0) return ctx.check.skip('not exercised: the client sent mcpcheck no request after it got its token');
    const tokens = [...flow.host.issued];
    const inQuery = requests.filter((e) => 'query' in e && (new URLSearchParams(e.query).has('access_token') || tokens.some((t) => e.query.includes(t))));
    ctx.check.expect(inQuery.length === 0, { expected: `no request URL carrying access_token or the token (${requests.length} request(s) after it was issued)`, actual: `${inQuery.length} request(s) did` });
  },
);

export const pkceRequired = protectedScenario(
  {
    id: 'client.auth.pkce-unadvertised',
    title: 'The client refuses an authorization server whose metadata does not list code_challenge_methods_supported',
    requirements: ['AUTH-PKCE-02'],
    variant: { withoutPkce: true },
  },
  (ctx, flow, control) => {
    if (!flow.of('authorization-server-metadata').some((m) => m.status === 200)) return ctx.check.skip('not exercised: the client did not fetch the authorization server\'s metadata');
    const authorize = flow.of('authorize');
    return expectRefusal(ctx, control, {
      expected: 'no authorization request to a server whose metadata lacks code_challenge_methods_supported',
      acted: authorize.length > 0 ? `${authorize.length} authorization request(s)` : undefined,
      actsOn: (plain) => plain.of('authorize').length > 0,
      step: 'authorization request',
    });
  },
);

export const clientAuthorization: ClientScenario[] = [resourceMetadata, pkce, resourceParameter, resourceCanonical, state, redirectRegistered, redirectSafe, scope, scopeFromMetadata, scopeOmitted, scopeAuthoritative, applicationType, bearer, tokenNotInQuery, pkceRequired];
