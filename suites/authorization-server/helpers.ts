import { type AsScenarioContext, describeResponse, type Grant, noCodeBecause, type OAuthClient, parseObject, type PlainResponse } from '../kit.js';

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

/** An authorization request of its own that came back with a code, or a skip recorded. */
export async function freshCode(ctx: AsScenarioContext): Promise<{ client: OAuthClient; grant: Grant & { code: string } } | undefined> {
  const client = await clientOf(ctx);
  if (!client) return undefined;
  const grant = await ctx.as.authorize(client);
  if (typeof grant === 'string') {
    ctx.check.skip(`not run: ${grant}`);
    return undefined;
  }
  if (grant.code === undefined) {
    ctx.check.skip(`not run: no authorization code to test with: ${noCodeBecause(grant)}`);
    return undefined;
  }
  return { client, grant: grant as Grant & { code: string } };
}

/** The token endpoint's answer, or a skip recorded when the request could not be sent. */
export function sent(ctx: AsScenarioContext, res: PlainResponse | string): PlainResponse | undefined {
  if (typeof res !== 'string') return res;
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
