import { type AsScenarioContext, describeResponse, type Grant, noCodeBecause, type OAuthClient, parseObject, type PlainResponse } from '../kit.js';

/** A code_verifier of the right form (43 characters of the unreserved set) that no challenge of mcpcheck's was made from. */
export const FOREIGN_VERIFIER = 'A'.repeat(43);
/** A code no server issued. */
export const NEVER_ISSUED = 'mcpcheck-never-issued';

// What the authorization-server scenarios share: the metadata, client and grants they start from
// (each a skip saying why when it cannot be had), and how a refusal at the token endpoint looks.

/** The server's metadata document and where it was found, or a skip recorded. */
export async function metadataOf(ctx: AsScenarioContext): Promise<{ document: Record<string, unknown>; url: string; kind: 'oauth' | 'oidc' } | undefined> {
  const m = await ctx.as.metadata();
  if (m.found) return m.found;
  ctx.check.skip(m.notContacted !== undefined ? `not run: ${m.notContacted}` : 'not judged: the server publishes no metadata mcpcheck could read (as.metadata.published says what each well-known URL gave)');
  return undefined;
}

/** The run's client (the user's, or one mcpcheck registered), or a skip recorded. */
export async function clientOf(ctx: AsScenarioContext): Promise<OAuthClient | undefined> {
  const client = await ctx.as.client();
  if ('clientId' in client) return client;
  ctx.check.skip(`not run: ${client.why}`);
  return undefined;
}

/** Records that a request got no answer within mcpcheck's request timeout: mcpcheck's limit, not a verdict. */
function noAnswer(ctx: AsScenarioContext, what: string, res: PlainResponse, key?: string): undefined {
  ctx.check.error(`could not judge: ${what} gave ${describeResponse(res)} (see --request-timeout)`, key !== undefined ? { key } : {});
  return undefined;
}

/** What a further authorization request got, or a skip (a could-not-judge for no answer) recorded under `key`. */
export function authorizationAnswer(ctx: AsScenarioContext, grant: Grant | string, key?: string): Grant['authorization'] | undefined {
  if (typeof grant === 'string') {
    ctx.check.skip(`not run: ${grant}`, key !== undefined ? { key } : {});
    return undefined;
  }
  if (grant.authorization.res.status === 0) return noAnswer(ctx, 'the authorization endpoint', grant.authorization.res, key);
  return grant.authorization;
}

/**
 * Whether an issuer identifier differs from the one given only by a trailing slash, on an issuer
 * without a path: there the well-known URL is the same either way, and which one is meant only
 * the user knows.
 */
export function differsBySlashAlone(value: unknown, ctx: AsScenarioContext): boolean {
  const given = ctx.as.issuerText;
  return typeof value === 'string' && value !== given && value.replace(/\/$/, '') === given.replace(/\/$/, '') && ctx.as.issuer.pathname.replace(/\/$/, '') === '';
}

/** A grant whose authorization request came back with a code, or a skip (a could-not-judge for no answer) recorded. */
function withCode(ctx: AsScenarioContext, grant: Grant): (Grant & { code: string }) | undefined {
  if (grant.authorization.res.status === 0) return noAnswer(ctx, 'the authorization endpoint', grant.authorization.res);
  if (grant.code === undefined) {
    ctx.check.skip(`not run: no authorization code to test with: ${noCodeBecause(grant)}`);
    return undefined;
  }
  return grant as Grant & { code: string };
}

/** An authorization request of its own that came back with a code, or a skip recorded. */
export async function freshCode(ctx: AsScenarioContext): Promise<{ client: OAuthClient; grant: Grant & { code: string } } | undefined> {
  const client = await clientOf(ctx);
  if (!client) return undefined;
  const grant = await ctx.as.authorize(client);
  if (typeof grant === 'string') {
    ctx.check.skip(`not run: ${grant}`);
    return undefined;
  }
  const coded = withCode(ctx, grant);
  return coded ? { client, grant: coded } : undefined;
}

/** The run's first grant with its code (every scenario that reads it sees the same), or a skip recorded. */
export async function firstCode(ctx: AsScenarioContext): Promise<Grant & { code: string } | undefined> {
  const first = await ctx.as.firstGrant();
  if ('why' in first) {
    ctx.check.skip(`not run: ${first.why}`);
    return undefined;
  }
  return withCode(ctx, first.grant);
}

/** The token endpoint's answer to the run's first code, or a skip recorded; `issued`: only an answer that issued a token. */
export async function firstExchange(ctx: AsScenarioContext, issued = false): Promise<{ grant: Grant & { code: string }; token: PlainResponse } | undefined> {
  const grant = await firstCode(ctx);
  if (!grant) return undefined;
  const first = await ctx.as.firstGrant();
  const token = 'token' in first ? first.token : undefined;
  if (token === undefined) return undefined;
  if (token.status === 0) return noAnswer(ctx, 'the token endpoint', token);
  if (issued && token.status !== 200) {
    ctx.check.skip(`not exercised: the code grant issued no token (${describeResponse(token)}; see as.token.code-grant)`);
    return undefined;
  }
  return { grant, token };
}

/** The token endpoint's answer, or a skip recorded when the request could not be sent (a could-not-judge when it got none). */
export function sent(ctx: AsScenarioContext, res: PlainResponse | string): PlainResponse | undefined {
  if (typeof res !== 'string') return res.status === 0 ? noAnswer(ctx, 'the token endpoint', res) : res;
  ctx.check.skip(`not run: ${res}`);
  return undefined;
}

/** Whether a token response issued an access token. */
export function issuedToken(res: PlainResponse): boolean {
  return typeof parseObject(res.body)?.access_token === 'string';
}

/**
 * A token request denied: an error status, and no token. Which error it is, is judged once, by
 * as.token.invalid-grant: a server that denies with the wrong one is not told again here.
 */
export function refusedAtTokenEndpoint(res: PlainResponse): boolean {
  return res.status >= 400 && !issuedToken(res);
}

/** What a token response was, for messages; a token in it is never shown. */
export function describeTokenResponse(res: PlainResponse): string {
  const body = parseObject(res.body);
  if (body && typeof body.access_token === 'string') {
    const shown = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, /token/.test(k) && typeof v === 'string' ? `[${v.length} characters]` : v]));
    return describeResponse({ ...res, body: JSON.stringify(shown) });
  }
  return describeResponse(res);
}
