import { asScenario, type AsScenarioContext, describeResponse, list, oauthErrorCode, parseObject, ruling, show } from '../kit.js';
import { metadataOf } from './helpers.js';

// Dynamic Client Registration (RFC 7591), where the server offers it
// (basic/authorization.mdx#dynamic-client-registration, #communication-security).

/** The registration endpoint the metadata names, when mcpcheck may use it; else a skip recorded. */
async function registrationEndpoint(ctx: AsScenarioContext): Promise<URL | undefined> {
  const found = await metadataOf(ctx);
  if (!found) return undefined;
  if (found.document.registration_endpoint === undefined) {
    ctx.check.skip('not judged: the metadata names no registration_endpoint (dynamic registration is optional)');
    return undefined;
  }
  const endpoint = await ctx.as.endpoint('registration_endpoint');
  if (typeof endpoint === 'string') {
    ctx.check.skip(`not run: ${endpoint}`);
    return undefined;
  }
  return endpoint;
}

export const dynamic = asScenario({
  id: 'as.registration.dynamic',
  title: 'A dynamic registration (RFC 7591) of a public client with a loopback redirect URI is answered 201 with its client_id and metadata',
  requirements: ['AUTH-DCR-01'],
  active: true,
  async run(ctx) {
    const endpoint = await registrationEndpoint(ctx);
    if (!endpoint) return;
    const client = await ctx.as.client();
    const redirectUri = ctx.as.options.redirectUri;
    const res = 'registration' in client && client.registration ? client.registration : await ctx.as.register(endpoint, { redirect_uris: [redirectUri] });
    if (res.status === 0) return ctx.check.error(`could not judge: the registration endpoint gave ${describeResponse(res)} (see --request-timeout)`);
    const body = parseObject(res.body);
    const problems: string[] = [];
    if (res.status !== 201) problems.push(`HTTP ${res.status} (RFC 7591 §3.2.1: 201 Created)`);
    if (typeof body?.client_id !== 'string') problems.push('no client_id string');
    const uris = body?.redirect_uris;
    if (!Array.isArray(uris) || !uris.includes(redirectUri)) problems.push(`redirect_uris ${show(uris)} does not hold the registered ${redirectUri}`);
    ctx.check.expect(problems.length === 0, {
      expected: `HTTP 201 with a JSON body holding client_id and the registered redirect_uris (${redirectUri})`,
      actual: `${list(problems)}: ${describeResponse({ ...res, body: body ? JSON.stringify({ ...body, ...(typeof body.client_secret === 'string' ? { client_secret: '[hidden]' } : {}), ...(typeof body.registration_access_token === 'string' ? { registration_access_token: '[hidden]' } : {}) }) : res.body })}`,
    });
  },
});

/** Neither localhost nor HTTPS: what AUTH-SEC-04 forbids as a redirect URI. */
const PLAIN_HTTP_REDIRECT = 'http://mcpcheck.invalid/callback';

export const redirectScheme = asScenario({
  id: 'as.registration.redirect-scheme',
  title: 'A registration whose redirect URI is neither localhost nor HTTPS is refused',
  level: 'SHOULD',
  requirements: ['AUTH-SEC-04'],
  active: true,
  async run(ctx) {
    const endpoint = await registrationEndpoint(ctx);
    if (!endpoint) return;
    const res = await ctx.as.register(endpoint, { redirect_uris: [PLAIN_HTTP_REDIRECT] });
    const expected = `the registration of redirect URI ${PLAIN_HTTP_REDIRECT} refused with an RFC 7591 §3.2.2 error (HTTP 400, invalid_redirect_uri)`;
    if (res.status === 0) return ctx.check.error(`could not judge: expected ${expected}; got ${describeResponse(res)}`, { level: 'SHOULD' });
    // A server error or a redirect neither registers the URI nor refuses it as invalid: the rule was not exercised.
    if (res.status >= 500 || (res.status >= 300 && res.status < 400)) return ctx.check.skip(`not exercised: expected ${expected}; got ${describeResponse(res)}`, { level: 'SHOULD' });
    const refused = res.status >= 400;
    ctx.check.expect(refused, {
      level: 'SHOULD',
      expected: `${expected} (${ruling('as-unsafe-redirect-registration').cite})`,
      actual: refused ? `HTTP ${res.status} error ${show(oauthErrorCode(res.body))}` : `it was registered: HTTP ${res.status}, client_id ${show(parseObject(res.body)?.client_id, 80)}`,
    });
  },
});
