import { show, STEP_UP_SCOPE, type ClientScenario } from '../kit.js';
import { eventsOf, type Flow, protectedScenario, scopeSet } from './auth-helpers.js';

// Step-up authorization (basic/authorization.mdx, scope challenge handling): once the client holds
// a token, mcpcheck answers its tools/list with 403 insufficient_scope naming STEP_UP_SCOPE. The
// client should authorize again for it and retry, without looping.

/** The flow from the first 403 on (undefined: the endpoint never refused a token for its scope). */
function sinceForbidden(flow: Flow): { before: Flow['events']; after: Flow['events'] } | undefined {
  const at = flow.events.findIndex((e) => e.kind === 'endpoint' && e.status === 403);
  return at < 0 ? undefined : { before: flow.events.slice(0, at), after: flow.events.slice(at + 1) };
}

const noForbidden = 'not exercised: the client sent no tools/list with its token (so it never met the 403 insufficient_scope)';
const authorizeIn = (events: Flow['events']) => eventsOf(events, 'authorize');

export const stepUp = protectedScenario(
  {
    id: 'client.auth.step-up',
    title: 'On 403 insufficient_scope the client authorizes again for the challenged scope and retries',
    requirements: ['AUTH-STEP-01'],
    variant: { stepUp: 'once' },
    alias: 'auth/scope-step-up',
  },
  (ctx, flow) => {
    const split = sinceForbidden(flow);
    if (!split) return ctx.check.skip(noForbidden);
    const upgraded = authorizeIn(split.after).find((a) => scopeSet(a.params.scope).includes(STEP_UP_SCOPE));
    const sinceUpgrade = upgraded === undefined ? [] : split.after.slice(split.after.indexOf(upgraded));
    const redeemed = sinceUpgrade.some((e) => e.kind === 'token' && e.issued !== undefined);
    const retried = sinceUpgrade.some((e) => e.kind === 'endpoint' && e.rpc === 'tools/list' && e.admitted && e.status === undefined);
    const refreshed = split.after.some((e) => e.kind === 'token' && e.params.grant_type === 'refresh_token');
    const asked = authorizeIn(split.after).map((a) => a.params.scope);
    ctx.check.expect(retried, {
      expected: `an authorization request whose scope includes ${STEP_UP_SCOPE} (the 403's scope), then tools/list again with the token it gets`,
      actual:
        upgraded !== undefined
          ? `it sent an authorization request with scope ${show(upgraded.params.scope)}, ${redeemed ? 'got its token, but sent no tools/list with it' : 'but redeemed no code for it'}`
          : asked.length > 0
            ? `authorization request(s) with scope ${show(asked)}`
            : `no authorization request after the 403${refreshed ? ' (it refreshed its token instead, which cannot add a scope: RFC 6749 §6)' : ''}`,
    });
  },
);

export const stepUpUnion = protectedScenario(
  {
    id: 'client.auth.step-up-union',
    title: 'Authorizing again after a scope challenge, the client asks for the scopes it had and the challenged one',
    requirements: ['AUTH-STEP-03'],
    variant: { stepUp: 'once' },
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow) => {
    const split = sinceForbidden(flow);
    if (!split) return ctx.check.skip(noForbidden);
    const first = authorizeIn(split.before)[0];
    const again = authorizeIn(split.after)[0];
    if (!first || !again) return ctx.check.skip('not exercised: the client did not authorize again after the 403 (client.auth.step-up judges that)');
    const wanted = scopeSet([first.params.scope ?? '', STEP_UP_SCOPE].join(' '));
    const asked = scopeSet(again.params.scope);
    ctx.check.expect(
      wanted.every((s) => asked.includes(s)),
      { expected: `scope with ${wanted.join(' ')}: what it asked for before (${show(first.params.scope)}) and the 403's ${STEP_UP_SCOPE}`, actual: `scope ${show(again.params.scope)}` },
    );
  },
);

/** Retries after the first refusal that a client may make before it is looping (the catalog's "a few"). */
const RETRY_CAP = 3;

export const stepUpBounded = protectedScenario(
  {
    id: 'client.auth.step-up-bounded',
    title: 'When every tools/list keeps getting 403 insufficient_scope, the client gives up after a few attempts',
    requirements: ['AUTH-STEP-02'],
    variant: { stepUp: 'always' },
    alias: 'auth/scope-retry-limit',
  },
  (ctx, flow) => {
    const split = sinceForbidden(flow);
    if (!split) return ctx.check.skip(noForbidden);
    const retries = eventsOf(split.after, 'endpoint').filter((e) => e.status === 403).length;
    const authorizations = authorizeIn(split.after).length;
    ctx.check.expect(retries <= RETRY_CAP, {
      expected: `at most ${RETRY_CAP} more tools/list after the first 403 (every one is refused the same way)`,
      actual: `${retries} more, each refused, with ${authorizations} authorization request(s) between them`,
    });
  },
);

export const clientAuthorizationStepUp: ClientScenario[] = [stepUp, stepUpUnion, stepUpBounded];
