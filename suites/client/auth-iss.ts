import { ERROR_MARKER, FOREIGN_ISSUER, show, type ClientScenario, type SharedJudgeContext } from '../kit.js';
import { expectRefusal, type Flow, plainActs, protectedScenario } from './auth-helpers.js';

// The authorization response's issuer (RFC 9207; basic/authorization/index.mdx, authorization
// response validation, 2026-07-28): mcpcheck's authorization server says in its metadata that it
// sends `iss`, then sends a response the client must not redeem.

function judgeIss(ctx: SharedJudgeContext, flow: Flow, control: () => Promise<Flow | undefined>, what: string): Promise<void> | void {
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

export const issOnError = protectedScenario(
  {
    id: 'client.auth.iss-on-error',
    title: 'The client does not show the error_description of an error response whose iss is not the issuer',
    requirements: ['AUTH-ISS-04'],
    variant: { authorizationError: 'wrong' },
    controlVariant: { authorizationError: 'right' },
    revisions: { introduced: '2026-07-28' },
  },
  async (ctx, flow, control) => {
    if (!flow.of('authorize').some((a) => a.status === 302)) return ctx.check.skip('not exercised: the client sent no authorization request that was answered');
    const expected = `the error response (error_description ${show(ERROR_MARKER)}, iss ${show(FOREIGN_ISSUER)} where the issuer is ${flow.host.issuer}) neither shown nor acted on: the description in none of the client's output`;
    if (flow.output().includes(ERROR_MARKER)) return void ctx.check.expect(false, { expected, actual: 'the client wrote the error_description out' });
    // Whether it would show one with the right iss tells a withheld description from one it never shows.
    const shows = await plainActs(ctx, control, (plain) => plain.output().includes(ERROR_MARKER), 'the client showed no error_description here', 'it does not show one when the iss is right either, so its withholding it here cannot be told');
    if (shows) ctx.check.expect(true, { expected, actual: 'none (with the right iss it shows the description)' });
  },
);

export const clientAuthorizationIss: ClientScenario[] = [issMissing, issExact, issOnError];
