import { asScenario, type AsScenarioContext, describeResponse, type Grant, noCodeBecause, show } from '../kit.js';
import { authorizationAnswer, clientOf, differsBySlashAlone, firstCode, metadataOf } from './helpers.js';

// The authorization endpoint (OAuth 2.1 §4.1.1–4.1.2, RFC 9207): what it redirects to, with what.

/**
 * The run's first authorization request, when it came back with a code without a user: only then
 * is an answer that is no redirect to the client a refusal, not a login page.
 */
async function approvesAtOnce(ctx: AsScenarioContext): Promise<Grant | undefined> {
  const first = await ctx.as.firstGrant();
  if (!('why' in first) && first.grant.authorization.res.status !== 0 && first.grant.code === undefined) {
    ctx.check.skip(`not exercised: ${noCodeBecause(first.grant)}; so an answer without a redirect would show nothing`);
    return undefined;
  }
  return firstCode(ctx);
}

export const implicitRefused = asScenario({
  id: 'as.authorize.implicit-refused',
  title: 'An authorization request for the implicit grant (response_type=token) issues no token',
  requirements: ['AUTH-AS-01'],
  active: true,
  async run(ctx) {
    if (!(await approvesAtOnce(ctx))) return;
    const client = await clientOf(ctx);
    if (!client) return;
    const a = authorizationAnswer(ctx, await ctx.as.authorize(client, { response_type: 'token' }));
    if (!a) return;
    const token = a.kind === 'redirect' ? (a.fragment.get('access_token') ?? a.params.get('access_token')) : null;
    ctx.check.expect(token === null, {
      expected: 'no access token in the answer: OAuth 2.1 removed the implicit grant (an error redirect with unsupported_response_type, or an error page)',
      actual: a.kind === 'redirect' ? `a redirect to ${show(a.location.origin + a.location.pathname, 160)} carrying access_token` : describeResponse(a.res),
    });
  },
});

/** Redirect URIs that differ from the registered one: a path below it, and a query added. */
function unregisteredVariants(registered: string): Array<{ key: string; uri: string }> {
  const url = new URL(registered);
  const below = new URL(url.href);
  below.pathname = `${url.pathname.replace(/\/$/, '')}/mcpcheck-extra`;
  const query = new URL(url.href);
  query.searchParams.set('mcpcheck', 'added');
  return [
    { key: 'extra-path', uri: below.href },
    { key: 'added-query', uri: query.href },
  ];
}

export const redirectExact = asScenario({
  id: 'as.authorize.redirect-exact',
  title: 'An authorization request whose redirect_uri is not exactly a registered one is not redirected to it',
  requirements: ['AUTH-REDIR-02'],
  active: true,
  async run(ctx) {
    if (!(await approvesAtOnce(ctx))) return;
    const client = await clientOf(ctx);
    if (!client) return;
    for (const { key, uri } of unregisteredVariants(client.redirectUri)) {
      const a = authorizationAnswer(ctx, await ctx.as.authorize(client, { redirect_uri: uri }), key);
      if (!a) continue;
      const followed = a.kind === 'redirect' && a.location.href.startsWith(uri);
      ctx.check.expect(!followed, {
        key,
        expected: `no redirect to ${uri}, which differs from the registered ${client.redirectUri} (redirect URIs are compared exactly; RFC 6749 §4.1.2.1: an error shown to the user, never a redirect)`,
        actual: a.kind === 'redirect' ? `a redirect to ${show(a.location.href, 200)}` : describeResponse(a.res),
      });
    }
  },
});

export const issuerParameter = asScenario({
  id: 'as.authorize.iss',
  title: 'The authorization response carries the RFC 9207 iss parameter, and the metadata advertises it',
  requirements: ['AUTH-ISS-01'],
  revisions: { introduced: '2026-07-28' },
  active: true,
  async run(ctx) {
    const grant = await approvesAtOnce(ctx);
    if (!grant || grant.authorization.kind !== 'redirect') return;
    const found = await metadataOf(ctx);
    if (!found) return;
    const iss = grant.authorization.params.get('iss');
    ctx.check.expect(iss !== null, {
      key: 'present',
      level: 'SHOULD',
      expected: 'an iss parameter in the authorization response (RFC 9207 §2)',
      actual: `a redirect without iss (${show(grant.authorization.location.origin + grant.authorization.location.pathname, 160)})`,
    });
    if (iss === null) return ctx.check.skip('not exercised: the response carried no iss, so the metadata need not advertise it', { key: 'advertised' });
    // The issuer a client recorded is the identifier it built the metadata URL from (AUTH-ISS-02);
    // for an issuer with no path, the metadata's own spelling of the trailing slash counts too.
    const given = ctx.as.issuerText;
    ctx.check.expect(iss === given || (iss === found.document.issuer && differsBySlashAlone(iss, ctx)), {
      key: 'matches',
      expected: `iss identical to the issuer identifier ${show(given)} (RFC 9207 §2)`,
      actual: `iss ${show(iss)}`,
    });
    ctx.check.expect(found.document.authorization_response_iss_parameter_supported === true, {
      key: 'advertised',
      expected: 'authorization_response_iss_parameter_supported: true in the metadata, as the server sends iss',
      actual: `authorization_response_iss_parameter_supported ${show(found.document.authorization_response_iss_parameter_supported)}`,
    });
  },
});
