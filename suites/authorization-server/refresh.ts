import { asScenario, parseObject } from '../kit.js';
import { clientOf, describeTokenResponse, firstExchange, refusedAtTokenEndpoint, sent } from './helpers.js';

// Refresh tokens of public clients (basic/authorization.mdx#token-theft; OAuth 2.1 §4.3.1): rotated,
// the used one refused afterwards.

export const rotation = asScenario({
  id: 'as.refresh.rotation',
  title: 'A public client\'s refresh gives a new refresh token, and the used one is refused afterwards',
  requirements: ['AUTH-SEC-02'],
  active: true,
  async run(ctx) {
    const first = await firstExchange(ctx, true);
    if (!first) return;
    const client = await clientOf(ctx);
    if (!client) return;
    if (client.method !== 'none') return ctx.check.skip('not exercised: the run\'s client is confidential, and the rule is about public clients');
    const refreshToken = parseObject(first.token.body)?.refresh_token;
    if (typeof refreshToken !== 'string') return ctx.check.skip('not exercised: the code grant issued no refresh token');
    const refreshed = sent(ctx, await ctx.as.token(client, { grant_type: 'refresh_token', refresh_token: refreshToken }));
    if (!refreshed) return;
    const rotated = parseObject(refreshed.body)?.refresh_token;
    const ok = ctx.check.expect(refreshed.status === 200 && typeof rotated === 'string' && rotated !== refreshToken, {
      key: 'rotated',
      expected: 'HTTP 200 with a new access token and a new refresh token, other than the one used',
      actual: typeof rotated === 'string' && rotated === refreshToken ? 'the same refresh token again' : describeTokenResponse(refreshed),
    });
    if (!ok) return ctx.check.skip('not exercised: the refresh did not rotate the token', { key: 'reuse-refused' });
    const reused = sent(ctx, await ctx.as.token(client, { grant_type: 'refresh_token', refresh_token: refreshToken }));
    if (!reused) return;
    ctx.check.expect(refusedAtTokenEndpoint(reused), {
      key: 'reuse-refused',
      expected: 'the refresh token already used refused: an error status and no token (OAuth 2.1 §4.3.1)',
      actual: describeTokenResponse(reused),
    });
  },
});
