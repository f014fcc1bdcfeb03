import { show, type ClientScenario, type ClientScenarioContext } from '../kit.js';
import { expectRefusal, type Flow, protectedScenario } from './auth-helpers.js';

// The authorization response's issuer (RFC 9207; basic/authorization/index.mdx, authorization
// response validation, 2026-07-28): mcpcheck's authorization server says in its metadata that it
// sends `iss`, then sends a response the client must not redeem.

function judgeIss(ctx: ClientScenarioContext, flow: Flow, control: () => Promise<Flow | undefined>, what: string): Promise<void> | void {
  if (!flow.of('authorize').some((a) => a.status === 302)) return ctx.check.skip('not exercised: the client sent no authorization request that was answered with a code');
  const redeemed = flow.of('token').filter((t) => t.params.grant_type === 'authorization_code');
  return expectRefusal(ctx, control, {
    expected: `no token request for the code of an authorization response ${what}`,
    acted: redeemed.length > 0 ? `${redeemed.length} token request(s) redeeming it` : undefined,
    actsOn: (plain) => plain.of('token').some((t) => t.params.grant_type === 'authorization_code'),
    step: 'token request for its code',
  });
}

export const issMissing = protectedScenario(
  {
    id: 'client.auth.iss-missing',
    title: 'The client rejects an authorization response without iss from a server whose metadata says it sends one',
    requirements: ['AUTH-ISS-02'],
    variant: { iss: 'missing' },
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow, control) => judgeIss(ctx, flow, control, 'without iss (the metadata has authorization_response_iss_parameter_supported: true)'),
);

export const issExact = protectedScenario(
  {
    id: 'client.auth.iss-exact',
    title: 'The client compares iss with the issuer as a simple string: an upper-cased scheme does not match',
    requirements: ['AUTH-ISS-03'],
    variant: { iss: 'case-folded' },
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow, control) => judgeIss(ctx, flow, control, `whose iss is ${show(flow.host.responseIss)}, the issuer ${flow.host.issuer} with its scheme upper-cased`),
);

export const clientAuthorizationIss: ClientScenario[] = [issMissing, issExact];
