import { randomUUID } from 'node:crypto';
import { bearerChallenge, describeReply, hasCapability, MODERN, probeTokenFlag, type ProbeResponse, type ProbeTokens, type RequirementId, resourceMatch, ruling, scenario, type Scenario, type ScenarioContext, show } from '../kit.js';
import { conversationWith, describeAttempts, type MetadataLookup, modernProbe, openingProbe, openWith, probeToken, protectedResource, resourceMetadataOf } from './authorization-helpers.js';
import { declaring, getTask, taskTools, withTasks } from './modern-task-helpers.js';
import { callablePlans } from './helpers.js';
import { describeProbe, is2xx, probe, rpc } from './http.js';

// Authorization (basic/authorization.mdx): the server as an OAuth 2.1 protected resource. Each
// scenario first reads how the server answered the era's opening request sent without credentials
// (once per run); a server that served it, or refused it with no 401 and no Bearer challenge, is
// not protected (authorization is optional) and every scenario here is a skip. The probes are raw
// exchanges outside any session.

const needs = { transport: 'http' } as const;

/** Tokens no authorization server issued: an opaque one, and an unsigned JWT (alg none) that a server decoding without verifying would take. */
const FOREIGN_TOKENS = [
  { key: 'unknown', token: () => `mcpcheck-unknown-${randomUUID()}`, what: 'an opaque token no authorization server issued' },
  { key: 'unsigned-jwt', token: () => 'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJtY3BjaGVjayIsImF1ZCI6Im1jcGNoZWNrIn0.', what: 'an unsigned JWT (alg "none") for another audience' },
] as const;

const WITHOUT_TOKEN = 'needs the token the run was given (--token-env NAME, or --header "Authorization: Bearer …"); without one it is not judged';

type ProtectedResource = NonNullable<Awaited<ReturnType<typeof protectedResource>>>;

/**
 * A scenario that judges a protected resource: `judge` runs once the answer to the unauthenticated
 * opening request showed one (else protectedResource recorded why there is nothing to judge).
 */
function onProtected(
  o: Pick<Scenario, 'id' | 'title' | 'requirements' | 'revisions' | 'carriedOver'> & { needsDiscovery?: true },
  judge: (ctx: ScenarioContext, found: ProtectedResource) => Promise<void>,
): Scenario {
  return scenario({
    ...o,
    isolation: 'session',
    needs: o.needsDiscovery ? { ...needs, discovery: true } : needs,
    async run(ctx) {
      const found = await protectedResource(ctx);
      if (found) await judge(ctx, found);
    },
  });
}

export const noToken = onProtected(
  {
    id: 'server.auth.no-token',
    title: 'A request without a token is refused with 401 Unauthorized',
    requirements: ['AUTH-ERR-01'],
    revisions: { introduced: '2025-03-26' },
    carriedOver: true,
  },
  async (ctx, found) => {
    ctx.check.expect(found.res.status === 401, { expected: 'the opening request without an Authorization header → HTTP 401 (403 is for a token with too little scope)', actual: describeProbe(found.res) });
  },
);

export const malformedAuthorization = onProtected(
  {
    id: 'server.auth.malformed-authorization',
    title: 'An Authorization header that is no bearer token (Basic credentials, Bearer without a token) is refused with 400 or 401',
    requirements: ['AUTH-ERR-01'],
    revisions: { introduced: '2025-03-26' },
    carriedOver: true,
  },
  async (ctx, found) => {
    for (const [key, value, what] of [
      ['basic', 'Basic bWNwY2hlY2s6bm90LWEtdG9rZW4=', 'Basic credentials'],
      ['empty-bearer', 'Bearer', 'the Bearer scheme with no token'],
    ] as const) {
      const res = await openWith(found.channel, ctx.session, value);
      ctx.check.expect(res.status === 400 || res.status === 401, { key, expected: `the opening request with Authorization: ${what} → HTTP 400 (a malformed request) or 401`, actual: describeProbe(res) });
    }
  },
);

export const foreignToken = onProtected(
  {
    id: 'server.auth.invalid-token',
    title: 'A bearer token the server cannot validate is refused with 401 before the request is processed',
    requirements: ['AUTH-TOKEN-03'],
    revisions: { introduced: '2025-06-18' },
    carriedOver: true,
  },
  async (ctx, found) => {
    for (const t of FOREIGN_TOKENS) {
      const res = await openWith(found.channel, ctx.session, `Bearer ${t.token()}`);
      ctx.check.expect(res.status === 401, { key: t.key, expected: `the opening request bearing ${t.what} → HTTP 401 (invalid_token)`, actual: describeProbe(res) });
    }
  },
);

export const queryToken = onProtected(
  {
    id: 'server.auth.token-in-query',
    title: 'A token in the URI query string, with no Authorization header, is refused with 401',
    requirements: ['AUTH-ERR-01'],
    revisions: { introduced: '2025-03-26' },
    carriedOver: true,
  },
  async (ctx, found) => {
    const token = found.channel.bearerToken;
    if (token === undefined) return ctx.check.skip(`not judged: ${WITHOUT_TOKEN}`);
    const url = new URL(found.channel.url);
    url.searchParams.set('access_token', token);
    const { body, headers } = openingProbe(ctx.session);
    const res = await probe(found.channel, { method: 'POST', url, body, headers });
    // Refused is what this judges; with which status, server.auth.no-token does (the request carries no token).
    ctx.check.expect(!is2xx(res.status) && res.status !== 0, {
      expected: `the opening request with the run's token as ?access_token= and no Authorization header → refused as one without a token (401) (${ruling('query-token').cite})`,
      actual: describeProbe(res),
    });
  },
);

/** A token the user gave (the flag of its `kind`), which the server must refuse with 401 at the opening request. */
function refusedProbeToken(o: { id: string; title: string; requirement: RequirementId; kind: keyof ProbeTokens; what: string }): Scenario {
  return onProtected({ id: o.id, title: o.title, requirements: [o.requirement], revisions: { introduced: '2025-06-18' }, carriedOver: true }, async (ctx, found) => {
    const token = probeToken(ctx, o.kind);
    if (token === undefined) return;
    const res = await openWith(found.channel, ctx.session, `Bearer ${token}`);
    ctx.check.expect(res.status === 401, { expected: `the opening request bearing ${o.what} (${probeTokenFlag(o.kind)}) → HTTP 401 (invalid_token)`, actual: describeProbe(res) });
  });
}

export const expiredToken = refusedProbeToken({ id: 'server.auth.expired-token', title: 'An expired token is refused with 401', requirement: 'AUTH-TOKEN-03', kind: 'expired', what: 'an expired token' });

export const otherAudienceToken = refusedProbeToken({
  id: 'server.auth.other-audience-token',
  title: 'A token issued for another resource is refused with 401: a server accepts only tokens issued for it',
  requirement: 'AUTH-TOKEN-05',
  kind: 'otherAudience',
  what: 'a token issued for another resource',
});

/**
 * The narrow token (--narrow-token-env) presented for the opening request, then the lists the
 * server declared and a tool call --call-tools allows, until one is refused: a refusal for want of
 * scope is 403 (AUTH-ERR-01) whose challenge names insufficient_scope, the scope needed and the
 * metadata (`challenge`, the era's rule).
 */
/**
 * The opening request with `token`, then the lists the server declared and a tool call
 * --call-tools allows, until one is refused (401 or 403): what was tried, and that refusal.
 */
async function triedWith(ctx: ScenarioContext, found: ProtectedResource, token: string): Promise<{ tried: string[]; refused: ProbeResponse | undefined }> {
  const conversation = await conversationWith(found.channel, ctx.session, `Bearer ${token}`);
  const tried: string[] = [ctx.session.era === 'stateless' ? 'server/discover' : 'initialize'];
  let refused = conversation.send === undefined ? conversation.opened : undefined;
  const attempts: Array<[string, Record<string, unknown>]> = [
    ...(['tools', 'resources', 'prompts'] as const).filter((c) => hasCapability(ctx.discovery.capabilities, c)).map((c): [string, Record<string, unknown>] => [`${c}/list`, {}]),
    ...callablePlans(ctx.discovery, ctx.options.callTools).slice(0, 1).map((p): [string, Record<string, unknown>] => ['tools/call', { name: p.name, arguments: p.args }]),
  ];
  for (const [method, params] of attempts) {
    if (refused !== undefined || conversation.send === undefined) break;
    tried.push(method === 'tools/call' ? `tools/call ${String(params.name)}` : method);
    const { res } = await conversation.send(method, params);
    if (res.status === 401 || res.status === 403) refused = res;
  }
  return { tried, refused };
}

async function judgeNarrowToken(ctx: ScenarioContext, found: ProtectedResource, challengeRule: 'AUTH-ERR-02' | 'AUTH-ERR-03'): Promise<void> {
  const token = probeToken(ctx, 'narrow');
  if (token === undefined) return;
  const { tried, refused } = await triedWith(ctx, found, token);
  if (refused === undefined) return ctx.check.skip(`not judged: the narrow token was served for everything mcpcheck tried (${tried.join(', ')}; --call-tools decides which tools it may call), so no request showed a scope it lacks`);
  const what = `${tried.at(-1)} with a valid token lacking a scope it needs (--narrow-token-env)`;
  const forbidden = ctx.check.expect(refused.status === 403, { key: 'status', requirements: ['AUTH-ERR-01'], expected: `${what} → HTTP 403 (insufficient scope; 401 is for a missing or invalid token)`, actual: describeProbe(refused) });
  if (!forbidden) return;
  const header = refused.headers['www-authenticate'];
  const challenge = bearerChallenge(header);
  const ok = challenge?.params.error === 'insufficient_scope' && (challenge.params.scope ?? '').trim() !== '' && challenge.params.resource_metadata !== undefined;
  ctx.check.expect(ok, {
    key: 'challenge',
    requirements: [challengeRule],
    expected: `the 403 to ${tried.at(-1)} with WWW-Authenticate: Bearer error="insufficient_scope", scope="<the scopes it needs>", resource_metadata="<metadata URL>"`,
    actual: header === undefined ? 'no WWW-Authenticate header' : `WWW-Authenticate: ${show(header, 200)}`,
  });
}

export const insufficientScope = onProtected(
  {
    id: 'server.auth.insufficient-scope',
    title: 'A token lacking a scope the request needs is refused with 403 insufficient_scope, naming the scope',
    requirements: ['AUTH-ERR-01', 'AUTH-ERR-02'],
    revisions: { introduced: '2025-11-25', removed: '2026-07-28' },
    needsDiscovery: true,
  },
  (ctx, found) => judgeNarrowToken(ctx, found, 'AUTH-ERR-02'),
);

export const insufficientScopeModern = onProtected(
  {
    id: 'server.modern.auth.insufficient-scope',
    title: 'A token lacking a scope the request needs is refused with 403 insufficient_scope, naming every scope the operation needs',
    requirements: ['AUTH-ERR-01', 'AUTH-ERR-03'],
    revisions: MODERN,
    needsDiscovery: true,
  },
  (ctx, found) => judgeNarrowToken(ctx, found, 'AUTH-ERR-03'),
);

export const scopeHierarchy = onProtected(
  {
    id: 'server.modern.auth.scope-hierarchy',
    title: 'A token whose scope is the parent of the scopes the requests need is served: scope hierarchies count',
    requirements: ['AUTH-ERR-04'],
    revisions: MODERN,
    needsDiscovery: true,
  },
  async (ctx, found) => {
    const token = probeToken(ctx, 'broad');
    if (token === undefined) return;
    // A hierarchy matters only to a server that checks scopes at all: a token lacking one must be refused something for it.
    const narrow = probeToken(ctx, 'narrow');
    if (narrow === undefined) return;
    const lacking = await triedWith(ctx, found, narrow);
    if (lacking.refused?.status !== 403) {
      return ctx.check.skip(`not exercised: the token of ${probeTokenFlag('narrow')} was refused nothing for want of scope (${lacking.tried.join(', ')}${lacking.refused ? `: ${describeProbe(lacking.refused)}` : ''}), so no request showed the server checking a scope a hierarchy could matter to`);
    }
    const { tried, refused } = await triedWith(ctx, found, token);
    const what = `${tried.join(', ')} with a token holding only a scope that covers the ones they need by the server's scope hierarchy (${probeTokenFlag('broad')}), where the token of ${probeTokenFlag('narrow')} was refused ${lacking.tried.at(-1)} for want of scope`;
    if (refused?.status === 401) return ctx.check.skip(`not exercised: ${tried.at(-1)} with the token of ${probeTokenFlag('broad')} got 401, which refuses the token itself, not its scope (${describeProbe(refused)})`);
    ctx.check.expect(refused === undefined, { expected: `${what}: each served`, actual: refused ? `${tried.at(-1)} refused: ${describeProbe(refused)}` : 'each served' });
  },
);

export const challengeScope = onProtected(
  {
    id: 'server.auth.challenge-scope',
    title: "The 401 challenge names the scopes the request needs in its scope parameter",
    requirements: ['AUTH-WWW-01'],
    revisions: { introduced: '2025-11-25' },
    carriedOver: true,
  },
  async (ctx, found) => {
    const header = found.res.headers['www-authenticate'];
    const scope = found.challenge?.params.scope;
    ctx.check.expect(scope !== undefined && scope.trim() !== '', {
      expected: 'WWW-Authenticate: Bearer … scope="<the scopes needed>" on the 401',
      actual: header === undefined ? 'no WWW-Authenticate header' : `WWW-Authenticate: ${show(header, 200)}`,
    });
  },
);

export const metadataFound = onProtected(
  {
    id: 'server.auth.resource-metadata',
    title: "The Protected Resource Metadata is served at the 401 challenge's resource_metadata URL, or else at a well-known URI",
    requirements: ['AUTH-PRM-02'],
    revisions: { introduced: '2025-06-18' },
    carriedOver: true,
  },
  async (ctx, found) => {
    const lookup = await resourceMetadataOf(ctx.target, found.channel, found.challenge);
    if (lookup.notContacted !== undefined) return ctx.check.skip(`not judged: ${lookup.notContacted}`);
    if (lookup.tooLong) return ctx.check.error(`could not judge: ${lookup.tooLong.via} ${lookup.tooLong.url} answered HTTP 200 with a body longer than mcpcheck reads (${lookup.tooLong.res.body.length.toLocaleString('en')} characters read), so whether it is the metadata document cannot be told`);
    ctx.check.expect(lookup.found !== undefined, {
      expected: 'a JSON metadata document (HTTP 200) at the challenge\'s resource_metadata URL when it names one, else at /.well-known/oauth-protected-resource<endpoint path> or /.well-known/oauth-protected-resource',
      actual: describeAttempts(lookup.attempts),
    });
  },
);

/** The metadata document, for the rules about what it holds; none is a skip (server.auth.resource-metadata judges where it should be). */
async function metadataDocument(ctx: ScenarioContext, found: ProtectedResource): Promise<MetadataLookup['found']> {
  const lookup = await resourceMetadataOf(ctx.target, found.channel, found.challenge);
  if (!lookup.found) ctx.check.skip(`not judged: no metadata document was ${lookup.tooLong ? 'read whole' : 'found'} (${describeAttempts(lookup.attempts)}); server.auth.resource-metadata says why`);
  return lookup.found;
}

export const metadataServers = onProtected(
  {
    id: 'server.auth.resource-metadata-servers',
    title: 'The Protected Resource Metadata lists at least one authorization server',
    requirements: ['AUTH-PRM-01'],
    revisions: { introduced: '2025-06-18' },
    carriedOver: true,
  },
  async (ctx, found) => {
    const metadata = await metadataDocument(ctx, found);
    if (!metadata) return;
    const servers = metadata.document.authorization_servers;
    const ok = Array.isArray(servers) && servers.length > 0 && servers.every((s) => typeof s === 'string' && URL.canParse(s));
    ctx.check.expect(ok, {
      expected: `authorization_servers in the metadata at ${metadata.url}: a non-empty array of issuer URLs`,
      actual: servers === undefined ? 'no authorization_servers member' : `authorization_servers: ${show(JSON.stringify(servers), 200)}`,
    });
  },
);

export const metadataResource = onProtected(
  {
    id: 'server.auth.resource-metadata-resource',
    title: 'The Protected Resource Metadata resource identifies this MCP endpoint',
    requirements: ['AUTH-PRM-03'],
    revisions: { introduced: '2025-06-18' },
    carriedOver: true,
  },
  async (ctx, found) => {
    const metadata = await metadataDocument(ctx, found);
    if (!metadata) return;
    const resource = metadata.document.resource;
    const endpoint = found.channel.url;
    const match = typeof resource === 'string' ? resourceMatch(resource, endpoint) : 'other';
    const expected = `resource in the metadata at ${metadata.url} to identify ${endpoint.href} (${ruling('resource-identifies-server').cite})`;
    const actual = resource === undefined ? 'no resource member' : `resource: ${show(JSON.stringify(resource), 200)}`;
    if (match === 'trailing-slash') return void ctx.check.expect(false, { expected, actual: `${actual}, which differs from the endpoint by a trailing slash only`, level: 'SHOULD' });
    ctx.check.expect(match !== 'other', { expected, actual });
  },
);

export const noOfflineAccess = onProtected(
  {
    id: 'server.modern.auth.no-offline-access',
    title: 'Neither the 401 challenge nor the Protected Resource Metadata names offline_access',
    requirements: ['AUTH-REFRESH-03'],
    revisions: MODERN,
  },
  async (ctx, found) => {
    const metadata = await metadataDocument(ctx, found);
    if (!metadata) return;
    const challenged = (found.challenge?.params.scope ?? '').split(/\s+/);
    const listed = metadata.document.scopes_supported;
    const where = [
      ...(challenged.includes('offline_access') ? ["the 401 challenge's scope"] : []),
      ...(Array.isArray(listed) && listed.includes('offline_access') ? [`the scopes_supported of ${metadata.url}`] : []),
    ];
    ctx.check.expect(where.length === 0, {
      expected: "no offline_access in the 401 challenge's scope nor in the metadata's scopes_supported (a refresh token is the client's business with its authorization server, not a scope of the resource)",
      actual: `offline_access in ${where.join(' and ')}`,
    });
  },
);

/** What a request carries instead of the run's token: no Authorization header, and a token no authorization server issued (a fresh one each call). */
function withoutValidToken(): Array<{ key: 'no-token' | 'invalid-token'; authorization: string | null; what: string }> {
  return [
    { key: 'no-token', authorization: null, what: 'no Authorization header' },
    { key: 'invalid-token', authorization: `Bearer mcpcheck-unknown-${randomUUID()}`, what: 'a token no authorization server issued' },
  ];
}

export const sessionNotCredential = onProtected(
  {
    id: 'server.auth.session-not-credential',
    title: 'A request in an authorized session that carries no token, or an invalid one, is refused: the session id is no credential',
    requirements: ['SEC-SESS-01'],
    revisions: { introduced: '2025-06-18', removed: '2026-07-28' },
  },
  async (ctx, found) => {
    if (found.channel.bearerToken === undefined) return ctx.check.skip(`not judged: ${WITHOUT_TOKEN}`);
    const outcome = await ctx.connect(ctx.session);
    if (!outcome.ok) return ctx.check.error(`the session with the run's token could not start: ${outcome.why}`);
    if (found.channel.sessionId === undefined) return ctx.check.skip('not judged: the server issued no MCP-Session-Id, so there is no session to present without a token');
    for (const { key, authorization, what } of withoutValidToken()) {
      const res = await probe(found.channel, { method: 'POST', body: rpc('ping').body, headers: { Authorization: authorization } });
      const served = is2xx(res.status);
      // A token served with no session as well was not let in by the session: that is server.auth.invalid-token's defect.
      if (served && authorization !== null && is2xx((await openWith(found.channel, ctx.session, authorization)).status)) {
        ctx.check.skip(`not judged: the server serves ${what} without a session too, so the session made no difference (server.auth.invalid-token judges the token)`, { key });
        continue;
      }
      ctx.check.expect(!served && res.status !== 0, { key, expected: `ping with the session's MCP-Session-Id and ${what} → refused (401)`, actual: describeProbe(res) });
    }
  },
);

export const handleNotCredential = onProtected(
  {
    id: 'server.modern.auth.handle-not-credential',
    title: "A request naming a task the run's token made, with no token or an invalid one, is refused: a state handle is no credential",
    requirements: ['SEC-HANDLE-01'],
    revisions: MODERN,
    needsDiscovery: true,
  },
  async (ctx, found) => {
    if (found.channel.bearerToken === undefined) return ctx.check.skip(`not judged: ${WITHOUT_TOKEN}`);
    const outcome = await ctx.connect(ctx.session);
    if (!outcome.ok) return ctx.check.error(`the conversation with the run's token could not start: ${outcome.why}`);
    // A task id is the state handle a stateless server hands out for later requests to name.
    const tools = await taskTools(ctx);
    if (!tools) return;
    const { taskId } = tools[0]!;
    const own = await getTask(ctx.session, taskId);
    if (own.kind !== 'result') return ctx.check.skipEach(`not exercised: tasks/get of task ${show(taskId)} with the run's own token got no task (${describeReply(own)}), so a refusal without it would show nothing`, withoutValidToken().map(({ key }) => ({ key })));
    for (const w of withoutValidToken()) {
      const { res } = await modernProbe(found.channel, ctx.session, w.authorization, 'tasks/get', { taskId, _meta: declaring(withTasks()) });
      ctx.check.expect(res.status === 401, {
        key: w.key,
        expected: `tasks/get of task ${show(taskId)} (a handle the run's token got) with ${w.what} → 401: possession of the handle authenticates nobody`,
        actual: describeProbe(res),
      });
    }
  },
);

const SESSION_USER_CHECKS = [{ key: 'request' }, { key: 'delete' }];

export const sessionBoundToUser = onProtected(
  {
    id: 'server.auth.session-bound-to-user',
    title: "Another user's valid token with this user's MCP-Session-Id acts in no session of this user's",
    requirements: ['SEC-SESS-03'],
    revisions: { introduced: '2025-06-18', removed: '2026-07-28' },
  },
  async (ctx, found) => {
    if (found.channel.bearerToken === undefined) return ctx.check.skip(`not judged: ${WITHOUT_TOKEN}`);
    const other = probeToken(ctx, 'otherUser');
    if (other === undefined) return;
    const outcome = await ctx.connect(ctx.session);
    if (!outcome.ok) return ctx.check.error(`the session with the run's token could not start: ${outcome.why}`);
    const sessionId = found.channel.sessionId;
    if (sessionId === undefined) return ctx.check.skipEach('not judged: the server issued no MCP-Session-Id, so there is no session to present', SESSION_USER_CHECKS);
    const asOther = { Authorization: `Bearer ${other}` };
    // A refusal shows the session bound to its user only if the other user's token is itself admitted.
    const own = await conversationWith(found.channel, ctx.session, asOther.Authorization);
    const ownSession = own.opened.headers['mcp-session-id'];
    if (ownSession !== undefined) await probe(found.channel, { method: 'DELETE', sessionIdOverride: ownSession, headers: asOther, omitProtocolVersion: true });
    if (own.send === undefined) return ctx.check.skipEach(`not exercised: the other user's token (${probeTokenFlag('otherUser')}) was refused at an opening request of its own (${describeProbe(own.opened)}), so a refusal in this user's session would show nothing`, SESSION_USER_CHECKS);
    const what = `with the other user's token (${probeTokenFlag('otherUser')}) and the MCP-Session-Id the run's token opened`;

    // Served in the session the id names, unless the server serves ids it never issued as well: then the id named none.
    const inSession = await probe(found.channel, { method: 'POST', body: rpc('ping').body, headers: asOther });
    // A refusal, or a later DELETE, shows the session kept from that user only while it still serves its own user.
    const ownPing = await probe(found.channel, { method: 'POST', body: rpc('ping').body });
    if (!is2xx(ownPing.status)) return ctx.check.skipEach(`not exercised: after the other user's ping (${describeProbe(inSession)}), the run's own ping in its session got ${describeProbe(ownPing)}: the session no longer serves its user, so nothing done to it shows whose it is`, SESSION_USER_CHECKS);
    if (is2xx(inSession.status)) {
      const madeUp = await probe(found.channel, { method: 'POST', body: rpc('ping').body, headers: asOther, sessionIdOverride: randomUUID() });
      if (is2xx(madeUp.status)) ctx.check.skip(`not judged: the server serves the other user's ping under a session id it never issued too (${describeProbe(madeUp)}), so serving it under this session's id shows no session it acted in`, { key: 'request' });
      else ctx.check.expect(false, { key: 'request', expected: `ping ${what} → refused (401, 403 or 404: the session is not this user's)`, actual: `served (${describeProbe(inSession)}), while a session id the server never issued is refused (${describeProbe(madeUp)}): the other user reached this user's session` });
    } else if (inSession.status >= 400 && inSession.status < 500) {
      ctx.check.expect(true, { key: 'request', expected: `ping ${what} → refused (401, 403 or 404: the session is not this user's)`, actual: describeProbe(inSession) });
    } else ctx.check.skip(`not exercised: ping ${what} got neither an answer nor a refusal (${describeProbe(inSession)})`, { key: 'request' });

    // Ending the session is an act in it that its owner sees: the session must outlive the other user's DELETE.
    const ended = await probe(found.channel, { method: 'DELETE', headers: asOther });
    if (ended.status === 405) return ctx.check.skip(`not exercised: DELETE ${what} → 405, so the server lets no client end a session`, { key: 'delete' });
    const after = await probe(found.channel, { method: 'POST', body: rpc('ping').body });
    if (!is2xx(after.status) && after.status !== 404) return ctx.check.skip(`not exercised: after the other user's DELETE (${describeProbe(ended)}), the run's own ping in its session got ${describeProbe(after)}, which says nothing of the session`, { key: 'delete' });
    ctx.check.expect(is2xx(after.status), {
      key: 'delete',
      expected: `DELETE ${what} leaves the session to its user: the run's own ping in it is still served`,
      actual: `the other user's DELETE got ${describeProbe(ended)}, and then the run's own ping in its session got ${describeProbe(after)}: the other user ended this user's session`,
    });
  },
);

export const authorization: Scenario[] = [noToken, malformedAuthorization, foreignToken, expiredToken, otherAudienceToken, queryToken, insufficientScope, insufficientScopeModern, challengeScope, metadataFound, metadataServers, metadataResource, noOfflineAccess, sessionNotCredential, sessionBoundToUser, handleNotCredential, scopeHierarchy];
