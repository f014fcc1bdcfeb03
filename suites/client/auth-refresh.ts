import { EXPIRING_USES, show, type ClientScenario, type OAuthEvent } from '../kit.js';
import { eventsOf, type Flow, NO_AUTHORIZE, plainActs, protectedScenario, scopeSet } from './auth-helpers.js';

// A token that stops working (basic/authorization.mdx, token handling and refresh tokens): the
// token of the code grant serves EXPIRING_USES requests, then the endpoint refuses it as expired
// (401 invalid_token). The client gets another (a refresh, or a new authorization) and goes on.

/** The flow from the first refusal of a token it had been admitted with (undefined: it never met one). */
function sinceExpiry(flow: Flow): Flow['events'] | undefined {
  const admittedOnce = flow.events.findIndex((e) => e.kind === 'endpoint' && e.admitted);
  if (admittedOnce < 0) return undefined;
  const at = flow.events.findIndex((e, i) => i > admittedOnce && e.kind === 'endpoint' && e.status === 401 && e.authorization !== undefined);
  return at < 0 ? undefined : flow.events.slice(at + 1);
}

/** Whether, after the first token issued that `which` accepts (default: any), a request to the server was admitted: the client went on with it. */
function wentOn(after: Flow['events'], which: (e: Extract<OAuthEvent, { kind: 'token' }>) => boolean = () => true): boolean {
  const at = after.findIndex((e) => e.kind === 'token' && e.issued !== undefined && which(e));
  return at >= 0 && eventsOf(after.slice(at), 'endpoint').some((e) => e.admitted);
}

/** The token requests among `events`, as a finding says them. */
const grantsOf = (events: Flow['events']): string[] => eventsOf(events, 'token').map((t) => `${t.params.grant_type} (HTTP ${t.status})`);

const noExpiry = `not exercised: the client sent fewer than ${EXPIRING_USES + 1} requests with its token, so it never met the token's expiry`;

export const expiredToken = protectedScenario(
  {
    id: 'client.auth.expired-token',
    title: 'When a later request gets 401 invalid_token, the client gets a new token (refresh or authorization) and goes on with it',
    requirements: ['AUTH-WWW-02'],
    variant: { expiring: true },
  },
  (ctx, flow) => {
    const after = sinceExpiry(flow);
    if (!after) return ctx.check.skip(noExpiry);
    const grants = grantsOf(after);
    ctx.check.expect(wentOn(after), {
      expected: 'after the 401 invalid_token, a new token (a refresh_token grant, or a new authorization) and a request to the server admitted with it',
      actual: grants.length === 0 ? 'no token request after the 401' : `token request(s) ${show(grants)} and no admitted request after`,
    });
  },
);

export const withoutRefreshToken = protectedScenario(
  {
    id: 'client.auth.no-refresh-token',
    title: 'Issued no refresh token, the client authorizes again when its token expires, and goes on',
    requirements: ['AUTH-REFRESH-01'],
    variant: { expiring: true, noRefreshToken: true },
    // The same expiry with a refresh token: a client that does not go on there either does not recover from expiry at all (client.auth.expired-token's rule).
    controlVariant: { expiring: true },
    revisions: { introduced: '2026-07-28' },
  },
  async (ctx, flow, control) => {
    const after = sinceExpiry(flow);
    if (!after) return ctx.check.skip(noExpiry);
    const expected = 'after the 401 invalid_token (the token response held no refresh_token), a new authorization, its code redeemed, and a request to the server admitted with the new token';
    if (wentOn(after, (t) => t.params.grant_type === 'authorization_code')) return void ctx.check.expect(true, { expected, actual: 'as expected' });
    const grants = grantsOf(after);
    const recovers = (plain: Flow) => {
      const since = sinceExpiry(plain);
      return since !== undefined && wentOn(since);
    };
    if (!(await plainActs(ctx, control, recovers, 'the client did not go on after its token expired', 'it does not recover from an expired token with a refresh token either (client.auth.expired-token judges that), so no assumption about refresh tokens is shown'))) return;
    ctx.check.expect(false, {
      expected,
      actual: `${grants.length === 0 ? `${eventsOf(after, 'authorize').length} authorization request(s) and no token request after the 401` : `token request(s) ${show(grants)} and no admitted request after`}, though with a refresh token it goes on`,
    });
  },
);

export const refreshGrantTypes = protectedScenario(
  {
    id: 'client.auth.refresh-grant-types',
    title: 'A client that refreshes registered refresh_token among its grant_types, and asks for offline_access only where the authorization server lists it',
    requirements: ['AUTH-REFRESH-02'],
    variant: { expiring: true },
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow) => {
    const authorize = flow.of('authorize');
    if (authorize.length === 0) return ctx.check.skip(NO_AUTHORIZE);
    // mcpcheck's authorization server never lists offline_access in its scopes_supported.
    const offline = authorize.filter((a) => scopeSet(a.params.scope).includes('offline_access'));
    const refreshed = flow.of('token').some((t) => t.params.grant_type === 'refresh_token');
    const registration = flow.of('register').find((r) => r.status === 201);
    const grantTypes = (registration?.body as { grant_types?: unknown } | undefined)?.grant_types;
    const unregistered = refreshed && registration !== undefined && !(Array.isArray(grantTypes) && grantTypes.includes('refresh_token'));
    ctx.check.expect(offline.length === 0 && !unregistered, {
      expected: `no offline_access in its scope (the authorization server's scopes_supported lists none), and refresh_token in the grant_types it registered${refreshed ? ' (it refreshed)' : ''}`,
      actual: [...(offline.length > 0 ? [`scope ${show(offline[0]!.params.scope)}`] : []), ...(unregistered ? [`it refreshed having registered grant_types ${show(grantTypes)}`] : [])].join('; '),
    });
  },
);

export const clientAuthorizationRefresh: ClientScenario[] = [expiredToken, withoutRefreshToken, refreshGrantTypes];
