import { isMetadataDocumentId, PRE_REGISTERED, ruling, show, type ClientScenario, type OAuthEvent, type TokenAuthMethod } from '../kit.js';
import { type AuthJudge, type Flow, NO_AUTHORIZE, protectedScenario } from './auth-helpers.js';

// How a client comes by its client_id and authenticates with it (basic/authorization.mdx, client
// registration): pre-registered, a Client ID Metadata Document where the authorization server
// supports them, else dynamic registration; and at the token endpoint, the method it was given.

/** The client_id of the flow's first authorization request (undefined: it sent none). */
const authorizedAs = (flow: Flow): string | undefined => {
  const authorize = flow.of('authorize')[0];
  return authorize ? (authorize.params.client_id ?? '') : undefined;
};

/** A client_id in the form of a URL: the client took it for a metadata document's (AUTH-CIMD-02 judges the form). */
const urlShaped = (clientId: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(clientId);

// "Clients supporting all options SHOULD follow the priority order" (AUTH-REG-01) binds only a
// client that supports them all: one that registers where documents are supported shows it does
// not support documents, which clients SHOULD (AUTH-CIMD-01), not that it broke the order.
export const cimd = protectedScenario(
  {
    id: 'client.auth.cimd',
    title: 'The client supports Client ID Metadata Documents: where the authorization server does, it uses one rather than registering',
    requirements: ['AUTH-CIMD-01'],
    variant: { registration: 'cimd' },
    alias: 'auth/basic-cimd',
  },
  (ctx, flow) => {
    const clientId = authorizedAs(flow);
    if (clientId === undefined) return ctx.check.skip(NO_AUTHORIZE);
    const registrations = flow.of('register').length;
    // Pre-registered credentials come before a document (AUTH-REG-01): such a client needed none.
    if (!urlShaped(clientId) && !flow.host.registered.has(clientId)) return ctx.check.skip(`not exercised: the client used client_id ${show(clientId)}, which it did not register here (pre-registered, say): it needed no metadata document`);
    ctx.check.expect(urlShaped(clientId) && registrations === 0, {
      expected: 'the URL of its metadata document as client_id, and no dynamic registration (the metadata says client_id_metadata_document_supported beside a registration_endpoint)',
      actual: registrations > 0 ? `${registrations} dynamic registration(s), then client_id ${show(clientId)}: it does not use metadata documents` : `client_id ${show(clientId)}`,
    });
  },
);

export const cimdUrl = protectedScenario(
  {
    id: 'client.auth.cimd-url',
    title: 'A client_id naming a Client ID Metadata Document is an https URL with a path',
    requirements: ['AUTH-CIMD-02'],
    variant: { registration: 'cimd' },
  },
  (ctx, flow) => {
    const clientId = authorizedAs(flow);
    if (clientId === undefined) return ctx.check.skip(NO_AUTHORIZE);
    if (!urlShaped(clientId)) return ctx.check.skip(`not exercised: the client used no metadata document (client_id ${show(clientId)}; client.auth.cimd judges that choice)`);
    ctx.check.expect(isMetadataDocumentId(clientId), { expected: 'client_id an https URL with a path other than / and no fragment', actual: `client_id ${show(clientId)}` });
  },
);

export const dcrFallback = protectedScenario(
  {
    id: 'client.auth.dcr-fallback',
    title: 'Where the authorization server does not advertise Client ID Metadata Documents, the client registers dynamically',
    requirements: ['AUTH-CIMD-05'],
  },
  (ctx, flow) => {
    const clientId = authorizedAs(flow);
    if (clientId === undefined) return ctx.check.skip(NO_AUTHORIZE);
    const expected = 'a client_id from the registration endpoint (the metadata has a registration_endpoint and no client_id_metadata_document_supported)';
    if (urlShaped(clientId)) return void ctx.check.expect(false, { expected, actual: `client_id ${show(clientId)}, a metadata document's URL` });
    if (!flow.host.registered.has(clientId)) return ctx.check.skip(`not exercised: the client used client_id ${show(clientId)}, which mcpcheck neither issued nor can tell from a pre-registered one`);
    ctx.check.expect(true, { expected, actual: `client_id ${show(clientId)}` });
  },
);

export const clientIdOrigin = protectedScenario(
  {
    id: 'client.auth.client-id',
    title: 'The client authorizes with a client_id it got by registration, a metadata document or pre-registration',
    requirements: ['AUTH-REG-02'],
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow) => {
    const clientId = authorizedAs(flow);
    if (clientId === undefined) return ctx.check.skip(NO_AUTHORIZE);
    const expected = 'a client_id in the authorization request: one the registration endpoint issued, a metadata document\'s URL, or one it was configured with';
    if (clientId === '') return void ctx.check.expect(false, { expected, actual: 'no client_id' });
    // A client_id mcpcheck did not issue may be one the client was configured with (for this server, in its user's view): not told apart from an invented one.
    if (!flow.host.registered.has(clientId) && !urlShaped(clientId)) return ctx.check.skip(`not exercised: the client authorized as ${show(clientId)}, which mcpcheck did not issue: a configured client and an invented one cannot be told apart`);
    ctx.check.expect(true, { expected, actual: `client_id ${show(clientId)}` });
  },
);

/** The registrations a client refused one may make before its attempts are a storm (AUTH-DCR-03: "at most a few"). */
export const MAX_REGISTRATIONS = 3;

export const registrationRefused = protectedScenario(
  {
    id: 'client.auth.registration-refused',
    title: 'A client whose dynamic registration is refused (400 invalid_redirect_uri) stops, or retries a few times at most',
    requirements: ['AUTH-DCR-03'],
    variant: { registration: 'refused' },
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow) => {
    const registrations = flow.of('register');
    if (registrations.length === 0) return ctx.check.skip('not exercised: the client sent mcpcheck\'s authorization server no registration');
    ctx.check.expect(registrations.length <= MAX_REGISTRATIONS, {
      expected: `at most ${MAX_REGISTRATIONS} registration attempts, each refused with 400 invalid_redirect_uri`,
      actual: `${registrations.length} attempts`,
    });
  },
);

/** The client's token request for its code. */
const codeRedemption = (flow: Flow): Extract<OAuthEvent, { kind: 'token' }> | undefined => flow.of('token').find((t) => t.params.grant_type === 'authorization_code');

/** Judges how the token request for the code authenticated the client: by `method`, with the credentials it was given. */
function clientAuthJudge(method: TokenAuthMethod, given: string): AuthJudge {
  return (ctx, flow) => {
    const token = codeRedemption(flow);
    if (!token) return ctx.check.skip('not exercised: the client sent no token request for a code');
    // The token endpoint refuses (401 invalid_client) the right method with credentials it did not issue.
    const refused = token.status === 401;
    ctx.check.expect(token.clientAuth === method && !refused, {
      expected: `the token request authenticated by ${method}, ${given}, with the credentials issued (${ruling('token-endpoint-client-auth').cite})`,
      actual: token.clientAuth !== method ? `it authenticated by ${token.clientAuth}` : 'credentials the authorization server did not issue (401 invalid_client)',
    });
  };
}

const OFFICIAL_TOKEN_AUTH = { client_secret_basic: 'basic', client_secret_post: 'post', none: 'none' } as const;

/** Where registration assigns `method` and the metadata lists it alone, the client authenticates by it. */
function tokenAuth(method: TokenAuthMethod): ClientScenario {
  const name = OFFICIAL_TOKEN_AUTH[method];
  return protectedScenario(
    {
      id: `client.auth.token-auth-${name}`,
      title: `Registered for ${method}, the client authenticates at the token endpoint by it`,
      requirements: ['AUTH-GEN-01'],
      variant: { tokenAuth: method },
      alias: `auth/token-endpoint-auth-${name}`,
    },
    clientAuthJudge(method, `the method its registration assigned and the only one token_endpoint_auth_methods_supported lists`),
  );
}

const NOT_CONTRACT_CLIENT = 'not exercised: the client did not authorize as the pre-registered client given in MCP_CONFORMANCE_CONTEXT (the official suite\'s contract; a client configured another way is not judged here)';

/** What a client that authorized with the pre-registered client of MCP_CONFORMANCE_CONTEXT is known by (ClientScenarioContext.learn). */
const TAKES_CONTRACT_CLIENT = 'client.auth: takes the contract\'s pre-registered client';

export const preRegistration = protectedScenario(
  {
    id: 'client.auth.pre-registration',
    title: 'Given pre-registered credentials, the client authenticates with them by the method the metadata lists',
    requirements: ['AUTH-GEN-01'],
    variant: { registration: 'pre-registered' },
    alias: 'auth/pre-registration',
    context: PRE_REGISTERED,
  },
  (ctx, flow, control) => {
    // A client configured otherwise than by the official contract's MCP_CONFORMANCE_CONTEXT cannot take these credentials.
    if (authorizedAs(flow) !== PRE_REGISTERED.client_id) return ctx.check.skip(NOT_CONTRACT_CLIENT);
    ctx.learn(TAKES_CONTRACT_CLIENT, 'yes');
    return clientAuthJudge('client_secret_basic', 'the only method token_endpoint_auth_methods_supported lists')(ctx, flow, control);
  },
);

/** Why a scenario about the contract's pre-registered client is not run: the client was not seen to take it (a skipIf). */
export const unlessContractClient = (learnt: ReadonlyMap<string, string>): string | undefined =>
  learnt.has(TAKES_CONTRACT_CLIENT) ? undefined : `${NOT_CONTRACT_CLIENT.replace('the client did not authorize', 'the client was not seen to authorize')} in client.auth.pre-registration; not started`;

export const registrationOrder = protectedScenario(
  {
    id: 'client.auth.registration-order',
    title: 'Given pre-registered credentials, the client uses them though the authorization server also supports metadata documents and registration',
    requirements: ['AUTH-REG-01'],
    variant: { registration: 'any' },
    context: PRE_REGISTERED,
    // Only a client shown to take the contract's credentials supports pre-registration as far as mcpcheck can tell.
    skipIf: unlessContractClient,
  },
  (ctx, flow) => {
    const clientId = authorizedAs(flow);
    if (clientId === undefined) return ctx.check.skip(NO_AUTHORIZE);
    const registrations = flow.of('register').length;
    ctx.check.expect(clientId === PRE_REGISTERED.client_id && registrations === 0, {
      expected: `the pre-registered client_id ${PRE_REGISTERED.client_id} (given in MCP_CONFORMANCE_CONTEXT, which it took in client.auth.pre-registration) before a metadata document or a registration`,
      actual: registrations > 0 ? `${registrations} dynamic registration(s), then client_id ${show(clientId)}` : `client_id ${show(clientId)}`,
    });
  },
);

export const clientAuthorizationRegistration: ClientScenario[] = [cimd, cimdUrl, dcrFallback, clientIdOrigin, tokenAuth('client_secret_basic'), tokenAuth('client_secret_post'), tokenAuth('none'), preRegistration, registrationOrder, registrationRefused];
