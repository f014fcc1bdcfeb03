import { asScenario, describeResponse, forbidsStoring, oauthErrorCode, parseObject, show } from '../kit.js';
import { clientOf, describeTokenResponse, firstExchange, FOREIGN_VERIFIER, freshCode, issuedToken, NEVER_ISSUED, refusedAtTokenEndpoint, sent } from './helpers.js';

// The token endpoint (OAuth 2.1 §3.2 and §4.1.3, RFC 6749 §5): the code grant with PKCE, and its
// error responses (basic/authorization.mdx#overview: authorization servers implement OAuth 2.1).

export const codeGrant = asScenario({
  id: 'as.token.code-grant',
  title: 'The authorization-code grant with PKCE (S256) issues a Bearer access token',
  requirements: ['AUTH-AS-01'],
  active: true,
  async run(ctx) {
    const first = await firstExchange(ctx);
    if (!first) return;
    const { grant, token } = first;
    const state = grant.authorization.kind === 'redirect' ? grant.authorization.params.get('state') : null;
    ctx.check.expect(state === grant.state, {
      key: 'state',
      expected: `the redirect back carrying the request's state ${grant.state} unchanged (RFC 6749 §4.1.2)`,
      actual: `state ${show(state)}`,
    });
    const body = parseObject(token.body);
    ctx.check.expect(token.status === 200 && typeof body?.access_token === 'string' && typeof body.token_type === 'string' && body.token_type.toLowerCase() === 'bearer', {
      key: 'token',
      expected: 'HTTP 200 with a JSON body holding access_token and token_type "Bearer" (any case) for the code and its verifier',
      actual: describeTokenResponse(token),
    });
  },
});

export const noStore = asScenario({
  id: 'as.token.no-store',
  title: 'A token response carries Cache-Control: no-store',
  requirements: ['AUTH-AS-01'],
  active: true,
  async run(ctx) {
    const first = await firstExchange(ctx, true);
    if (!first) return;
    ctx.check.expect(forbidsStoring(first.token.headers['cache-control']), {
      expected: 'Cache-Control: no-store on the response that carries tokens (OAuth 2.1 §3.2.3)',
      actual: `Cache-Control: ${show(first.token.headers['cache-control'])}`,
    });
  },
});

export const invalidGrant = asScenario({
  id: 'as.token.invalid-grant',
  title: 'A code the server never issued gets the error invalid_grant',
  requirements: ['AUTH-AS-01'],
  active: true,
  async run(ctx) {
    const client = await clientOf(ctx);
    if (!client) return;
    const res = sent(ctx, await ctx.as.redeem(client, NEVER_ISSUED, FOREIGN_VERIFIER));
    if (!res) return;
    ctx.check.expect(res.status === 400 && oauthErrorCode(res.body) === 'invalid_grant' && !issuedToken(res), {
      expected: 'HTTP 400 with a JSON body whose error is "invalid_grant" (OAuth 2.1 §3.2.4)',
      actual: describeTokenResponse(res),
    });
  },
});

export const unknownClient = asScenario({
  id: 'as.token.unknown-client',
  title: 'A token request from a client the server does not know is refused',
  requirements: ['AUTH-AS-01'],
  active: true,
  async run(ctx) {
    const client = await clientOf(ctx);
    if (!client) return;
    const stranger = { ...client, clientId: `mcpcheck-unknown-${Date.now()}`, method: 'none' as const };
    const res = sent(ctx, await ctx.as.redeem(stranger, NEVER_ISSUED, FOREIGN_VERIFIER));
    if (!res) return;
    // The code is no grant either: RFC 6749 §5.2 names both errors, and does not order the checks.
    const error = oauthErrorCode(res.body);
    ctx.check.expect((res.status === 400 || res.status === 401) && (error === 'invalid_client' || error === 'invalid_grant') && !issuedToken(res), {
      expected: 'HTTP 400 or 401 with the error "invalid_client" (an unknown client; "invalid_grant" too, as the code is none of the server\'s) (RFC 6749 §5.2)',
      actual: describeTokenResponse(res),
    });
  },
});

export const codeReuse = asScenario({
  id: 'as.token.code-reuse',
  title: 'An authorization code is refused the second time it is presented',
  requirements: ['AUTH-AS-01'],
  active: true,
  async run(ctx) {
    // A code of its own: a server may revoke what a replayed code issued (OAuth 2.1 §4.1.3), which must not reach the other scenarios' tokens.
    const fresh = await freshCode(ctx);
    if (!fresh) return;
    const redeem = () => ctx.as.redeem(fresh.client, fresh.grant.code, fresh.grant.verifier);
    const once = sent(ctx, await redeem());
    if (!once) return;
    if (once.status !== 200) return ctx.check.skip(`not exercised: the code was not redeemed the first time (${describeResponse(once)}; see as.token.code-grant)`);
    const again = sent(ctx, await redeem());
    if (!again) return;
    ctx.check.expect(refusedAtTokenEndpoint(again), {
      expected: 'the redeemed code refused, an error status and no token: OAuth 2.1 §4.1.3 lets a code be used once',
      actual: describeTokenResponse(again),
    });
  },
});

export const wrongSecret = asScenario({
  id: 'as.token.wrong-secret',
  title: 'A confidential client presenting a wrong secret gets the error invalid_client',
  requirements: ['AUTH-AS-01'],
  active: true,
  async run(ctx) {
    const client = await clientOf(ctx);
    if (!client) return;
    if (client.method === 'none') return ctx.check.skip('not exercised: the run\'s client is public (give a confidential one with --client-id and --client-secret-env)');
    const res = sent(ctx, await ctx.as.redeem({ ...client, secret: `${client.secret ?? ''}-mcpcheck-wrong` }, NEVER_ISSUED, FOREIGN_VERIFIER));
    if (!res) return;
    // RFC 6749 §5.2: 401 when the client authenticated with the Authorization header.
    const statuses = client.method === 'client_secret_basic' ? [401] : [400, 401];
    ctx.check.expect(statuses.includes(res.status) && oauthErrorCode(res.body) === 'invalid_client' && !issuedToken(res), {
      expected: `HTTP ${statuses.join(' or ')} with the error "invalid_client" (RFC 6749 §5.2, the secret sent by ${client.method})`,
      actual: describeTokenResponse(res),
    });
  },
});
