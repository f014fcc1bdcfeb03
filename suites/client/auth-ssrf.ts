import { inNetworkSandbox, ruling, SANDBOX_ADDRESSES, show, type ClientScenario, type RequirementId } from '../kit.js';
import { askedAuthorizationServer, protectedScenario } from './auth-helpers.js';

// Server-side request forgery through OAuth discovery (security best practices, 2026-07-28): the
// Protected Resource Metadata names an authorization server at an address a client's discovery
// should not contact, and mcpcheck serves it there to see whether the client asks. Only inside the
// network sandbox (--network-sandbox), where those addresses are the namespace's own loopback and
// nothing can leave the machine; elsewhere the scenarios are not started.

const NOT_IN_SANDBOX = 'not started: needs --network-sandbox (an isolated network namespace, where mcpcheck can serve an authorization server at a private or non-loopback address without anything leaving the machine)';

/** An authorization server at `address` (`tls`: https), which the client must not ask anything (`rule`, at SHOULD). */
function notContacted(key: string, address: string, tls: boolean, requirements: RequirementId[], what: string): ClientScenario {
  return protectedScenario(
    {
      id: `client.auth.ssrf-${key}`,
      title: `The client does not send OAuth discovery to ${what}`,
      requirements,
      level: 'SHOULD',
      variant: { authorizationServerAt: { address, tls } },
      revisions: { introduced: '2026-07-28' },
      skipIf: () => (inNetworkSandbox() ? undefined : NOT_IN_SANDBOX),
    },
    async (ctx, flow, control) => {
      const origin = flow.host.authorizationOrigin;
      const expected = `no request to ${origin}, the authorization server the Protected Resource Metadata names at ${what} (${ruling('ssrf-sandbox').cite})`;
      const reached = flow.reachedElsewhere();
      if (reached.length > 0) return void ctx.check.expect(false, { expected, actual: `the client asked ${show(`${origin}${reached[0]}`, 200)}${reached.length > 1 ? ` and ${reached.length - 1} more` : ''}` });
      if (flow.of('resource-metadata').length === 0) return ctx.check.skip('not exercised: the client did not read the Protected Resource Metadata that names it');
      // Asking nothing looks like a client that stops at any authorization server: a control client shows it goes on with one on loopback.
      const plain = await control();
      if (!plain || !askedAuthorizationServer(plain)) return ctx.check.skip('not exercised: a control client, served an authorization server on loopback, asked it nothing either, so a refusal cannot be told from a client that stops there');
      ctx.check.expect(true, { expected: `${expected}; a control client asked the authorization server on loopback`, actual: '' });
    },
  );
}

/**
 * The authorization server on loopback answers its metadata with a redirect to a private address:
 * "apply the same checks to every redirect hop" (SEC-SSRF-03). A client that does not follow the
 * redirect at all is as safe as one that checks the hop: either passes, once it was shown the hop.
 */
const redirectHop = protectedScenario(
  {
    id: 'client.auth.ssrf-redirect',
    title: 'The client does not follow a redirect of its OAuth discovery to a private address',
    requirements: ['SEC-SSRF-03'],
    level: 'SHOULD',
    variant: { metadataRedirectAt: { address: SANDBOX_ADDRESSES.private, tls: true } },
    revisions: { introduced: '2026-07-28' },
    skipIf: () => (inNetworkSandbox() ? undefined : NOT_IN_SANDBOX),
  },
  (ctx, flow) => {
    const redirected = flow.of('authorization-server-metadata').find((e) => e.status === 302);
    if (!redirected) return ctx.check.skip('not exercised: the client did not ask for the authorization server metadata that redirects');
    const target = `https://${SANDBOX_ADDRESSES.private}`;
    const expected = `no request to ${target}, a private address (10/8) the authorization server metadata at ${flow.host.authorizationOrigin}${redirected.path} redirected to (${ruling('ssrf-sandbox').cite})`;
    const reached = flow.reachedElsewhere();
    ctx.check.expect(reached.length === 0, { expected, actual: reached.length === 0 ? '' : `the client followed it: ${show(`${target}${reached[0]}`, 200)}${reached.length > 1 ? ` and ${reached.length - 1} more` : ''}` });
  },
);

export const clientAuthorizationSsrf: ClientScenario[] = [
  notContacted('private-address', SANDBOX_ADDRESSES.private, true, ['SEC-SSRF-03', 'SEC-SSRF-01'], `a private address (https://${SANDBOX_ADDRESSES.private}, in 10/8)`),
  notContacted('plain-http', SANDBOX_ADDRESSES.remote, false, ['SEC-SSRF-02'], `an http: URL off loopback (http://${SANDBOX_ADDRESSES.remote})`),
  redirectHop,
];
