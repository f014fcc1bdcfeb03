import { asScenario } from '../kit.js';
import { describeTokenResponse, FOREIGN_VERIFIER, freshCode, refusedAtTokenEndpoint, sent } from './helpers.js';

// PKCE at the token endpoint (OAuth 2.1 §4.1.3, RFC 7636 §4.6): a code bound to a challenge is
// redeemed only with its verifier (basic/authorization.mdx#authorization-code-protection).

export const verifierRequired = asScenario({
  id: 'as.pkce.verifier-required',
  title: 'A code issued for a PKCE challenge is refused when the token request carries no code_verifier',
  requirements: ['AUTH-AS-01'],
  active: true,
  async run(ctx) {
    const fresh = await freshCode(ctx);
    if (!fresh) return;
    const res = sent(ctx, await ctx.as.redeem(fresh.client, fresh.grant.code, undefined));
    if (!res) return;
    ctx.check.expect(refusedAtTokenEndpoint(res), {
      expected: 'an error status and no token (the code was issued for a code_challenge)',
      actual: describeTokenResponse(res),
    });
  },
});

export const verifierChecked = asScenario({
  id: 'as.pkce.verifier-checked',
  title: 'A code issued for a PKCE challenge is refused with a code_verifier that does not match it',
  requirements: ['AUTH-AS-01'],
  active: true,
  async run(ctx) {
    const fresh = await freshCode(ctx);
    if (!fresh) return;
    const res = sent(ctx, await ctx.as.redeem(fresh.client, fresh.grant.code, FOREIGN_VERIFIER));
    if (!res) return;
    ctx.check.expect(refusedAtTokenEndpoint(res), {
      expected: 'an error status (invalid_grant) and no token',
      actual: describeTokenResponse(res),
    });
  },
});
