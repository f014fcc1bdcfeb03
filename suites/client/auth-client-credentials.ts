import { ASSERTION_ALGORITHM, CLIENT_CREDENTIALS, clientCredentialsKey, ruling, show, type ClientScenario, type OAuthEvent } from '../kit.js';
import { type AuthJudge, type Flow, namesServer, protectedScenario } from './auth-helpers.js';

// The client credentials extension of authorization (io.modelcontextprotocol/oauth-client-credentials,
// ext-auth): a machine-to-machine client, given its credentials out of band, asks the authorization
// the server's metadata names for a token by the client_credentials grant, authenticating by a JWT
// assertion or by its secret; no registration, no browser. mcpcheck's authorization server grants
// that alone, to the client MCP_CONFORMANCE_CONTEXT names, as the official contract hands it over.

/** What a client that ran no client credentials flow where one was offered is known by (ClientScenarioContext.learn). */
const NO_CLIENT_CREDENTIALS = 'client.auth: no client credentials flow';

/** The flow's first client credentials token request. */
const grantRequest = (flow: Flow): Extract<OAuthEvent, { kind: 'token' }> | undefined => flow.of('token').find((t) => t.params.grant_type === 'client_credentials');

/** The skip of a flow without a client credentials token request: the extension is optional. */
function notUsed(flow: Flow): string {
  const codeFlow = flow.of('authorize').length > 0 || flow.of('register').length > 0 || flow.of('token').length > 0;
  return `not exercised: the client ${codeFlow ? 'ran another flow than' : 'sent no token request of'} the client credentials grant, which mcpcheck's authorization server offered alone (the extension is optional)`;
}

/** Judges the token request's client authentication (`method`, said as `how`) and its resource (AUTH-RES-01: a token request names the server). */
function grantJudge(how: string): AuthJudge {
  return (ctx, flow) => {
    const token = grantRequest(flow);
    if (!token) {
      ctx.learn(NO_CLIENT_CREDENTIALS, `${notUsed(flow)} in the client credentials scenario that came first; not started again`);
      for (const key of ['authentication', 'resource']) ctx.check.skip(notUsed(flow), { key });
      return;
    }
    ctx.check.expect(token.clientAuthProblem === undefined, {
      key: 'authentication',
      requirements: ['AUTH-CC-01'],
      expected: `the client_credentials token request authenticated ${how}, with the credentials MCP_CONFORMANCE_CONTEXT gave (client_id ${CLIENT_CREDENTIALS.client_id})`,
      actual: token.clientAuthProblem ?? '',
    });
    ctx.check.expect(namesServer(token.params.resource, flow), {
      key: 'resource',
      requirements: ['AUTH-RES-01'],
      expected: `the token request names the MCP server as resource (${flow.host.resource}; ${ruling('resource-identifies-server').cite}): the extension keeps the baseline's rules`,
      actual: `resource ${show(token.params.resource)}`,
    });
  };
}

/** The contract's context of the JWT scenario: the key is made when a client is first started with it. */
const JWT_CONTEXT = {
  client_id: CLIENT_CREDENTIALS.client_id,
  get private_key_pem(): string {
    return clientCredentialsKey().privatePem;
  },
  signing_algorithm: ASSERTION_ALGORITHM,
};

/** How each credential is handed over and presented: the scenario's id, its official twin, the contract's context, and the method said in messages. */
const CREDENTIALS = {
  secret: { title: 'the client secret it was given', alias: 'auth/client-credentials-basic', context: CLIENT_CREDENTIALS, how: `by its client secret (client_secret_basic or client_secret_post, the methods the metadata lists: ${ruling('client-credentials-secret-method').cite})` },
  jwt: {
    title: 'a JWT assertion signed by the key it was given',
    alias: 'auth/client-credentials-jwt',
    context: JWT_CONTEXT,
    how: `by a JWT assertion (private_key_jwt, ${ASSERTION_ALGORITHM}): iss and sub the client_id, aud the authorization server, not expired, signed by the key given`,
  },
} as const;

/** The scenario of one credential: the authorization server lists its method alone. */
function grantScenario(kind: keyof typeof CREDENTIALS): ClientScenario {
  const c = CREDENTIALS[kind];
  return protectedScenario(
    {
      id: `client.auth.client-credentials-${kind}`,
      title: `A client credentials client authenticates at the token endpoint with ${c.title}`,
      requirements: ['AUTH-CC-01', 'AUTH-RES-01'],
      variant: { clientCredentials: kind },
      alias: c.alias,
      context: c.context,
      skipIf: (learnt) => learnt.get(NO_CLIENT_CREDENTIALS),
    },
    grantJudge(c.how),
  );
}

export const clientCredentialsSecret = grantScenario('secret');
export const clientCredentialsJwt = grantScenario('jwt');

export const clientAuthorizationClientCredentials: ClientScenario[] = [clientCredentialsSecret, clientCredentialsJwt];
