import { approvalOf, type AsScenarioContext, describeResponse, formsOf, type Grant, isLoopbackHost, type OAuthClient, pkceChallenge, ruling, show, submission, type UserAgent, type Visited } from '../kit.js';

// An MCP proxy server's consent (security best practices, "Confused deputy problem"): a server that
// registers MCP clients dynamically and sends their authorization on to a third-party authorization
// server under one static client id of its own. What the proxy scenarios share is found once per
// run: whether the server is such a proxy (it sends a new client's authorization to another origin
// with a client_id that is not the client's, at once or once its consent page is approved), and the
// steps that showed it.

/** A client mcpcheck registered, with the name it gave (a consent page should show it). */
export type NamedClient = OAuthClient & { name: string };

/** Where the server sent an authorization: back to the client, on to another origin, or a page. */
export type Outcome =
  | { kind: 'client'; visited: Visited; location: URL }
  | { kind: 'forward'; visited: Visited; location: URL; clientId: string | null }
  | { kind: 'page' | 'other'; visited: Visited };

export interface ProxyFlow {
  agent: UserAgent;
  client: NamedClient;
  /** The consent page the new client's authorization met (undefined: it was sent on at once). */
  page?: Visited;
  /** What the consent form got when posted from another site, without what only the page knew. */
  forged?: Outcome;
  /** The approval's answer (its response keeps the consent). */
  approval?: Visited;
  /** The server's first forward to the third party, and whether it came without consent. */
  forward: URL;
  atOnce: boolean;
  /** The states mcpcheck sent as the client. */
  clientStates: string[];
}

/** Where a response sent the user agent, judged against the client it was for. */
export function outcomeOf(visited: Visited, client: OAuthClient): Outcome {
  const { res, at } = visited;
  const location = res.headers.location;
  if (res.status >= 300 && res.status < 400 && location !== undefined && URL.canParse(location, at.href)) {
    const to = new URL(location, at);
    if (to.href.startsWith(client.redirectUri)) return { kind: 'client', visited, location: to };
    if (to.origin !== at.origin) return { kind: 'forward', visited, location: to, clientId: to.searchParams.get('client_id') };
  }
  if (res.status === 200 && /html/i.test(res.headers['content-type'] ?? '')) return { kind: 'page', visited };
  return { kind: 'other', visited };
}

/** What an outcome was, for messages. */
export function describeOutcome(o: Outcome): string {
  if (o.kind === 'client') return `a redirect back to the client (${show(o.location.origin + o.location.pathname, 160)}${o.location.searchParams.has('code') ? ', with a code' : ''})`;
  if (o.kind === 'forward') return `a redirect on to ${show(o.location.origin + o.location.pathname, 160)} with client_id ${show(o.clientId)}`;
  return describeResponse(o.visited.res);
}

/** A forward under a client id that is not the client's own: the proxy's static one. */
export const staticForward = (o: Outcome, client: OAuthClient): o is Extract<Outcome, { kind: 'forward' }> => o.kind === 'forward' && o.clientId !== client.clientId;

/** Registers a client named for this run and `which` one it is. */
export async function namedClient(ctx: AsScenarioContext, which: string): Promise<NamedClient | string> {
  const name = `mcpcheck proxy test client ${which} ${Math.random().toString(36).slice(2, 10)}`;
  const client = await ctx.as.registerClient(name, 'not exercised: the proxy rules are judged for clients mcpcheck registers, and ');
  return 'clientId' in client ? { ...client, name } : client.why;
}

/** The authorization request of `client` in `agent`, and where it went. */
export async function authorizeIn(ctx: AsScenarioContext, client: OAuthClient, agent: UserAgent): Promise<{ grant: Grant; outcome: Outcome } | string> {
  const grant = await ctx.as.authorize(client, {}, agent);
  if (typeof grant === 'string') return grant;
  if (grant.authorization.res.status === 0) return `the authorization endpoint gave ${describeResponse(grant.authorization.res)}`;
  return { grant, outcome: outcomeOf({ res: grant.authorization.res, at: grant.authorization.at }, client) };
}

/** The site a forged consent is posted from (never contacted: only its name goes in the Origin header). */
const OTHER_SITE = 'https://mcpcheck-other-site.invalid';

/**
 * The consent form, submitted by the user who was shown it (`forged` false), or posted from a
 * page of another site (`forged` true): without the values only the page knew (every field whose
 * value the authorization request did not carry), with only cookies a browser sends cross-site, and
 * that site's Origin.
 */
export async function submitConsent(agent: UserAgent, page: Visited, grant: Grant, client: OAuthClient, forged: boolean): Promise<Outcome | string> {
  const approval = approvalOf(formsOf(page.res.body));
  if (!approval) return 'its page has no form that approves (a login page, or one mcpcheck cannot read)';
  const action = new URL(approval.form.action || page.at.href, page.at);
  if (!isLoopbackHost(action.hostname)) return `its consent form posts to ${action.host}, and mcpcheck sends requests to loopback only`;
  const body = submission(approval.form, approval.button);
  if (forged) {
    const known = new Set([client.clientId, client.redirectUri, grant.state, pkceChallenge(grant.verifier), 'code', 'S256', ...(approval.button ? [approval.button.value] : [])]);
    for (const [name, value] of [...body]) if (!known.has(value) && value !== '') body.delete(name, value);
  }
  const from = forged ? { origin: OTHER_SITE, crossSite: true as const } : { origin: page.at.origin };
  const stop = (next: URL) => next.href.startsWith(client.redirectUri);
  const visited =
    approval.form.method === 'post'
      ? await agent.visit(action, stop, { method: 'POST', ...from, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: body.toString() })
      : await agent.visit(new URL(`${action.origin}${action.pathname}?${body}`), stop, { method: 'GET', ...from });
  if (visited.res.status === 0) return `the consent form's submission gave ${describeResponse(visited.res)}`;
  return outcomeOf(visited, client);
}

const flows = new WeakMap<object, Promise<ProxyFlow | string>>();

/** The run's proxy flow (found once), or why the server is not judged as a proxy. */
export function proxyFlow(ctx: AsScenarioContext): Promise<ProxyFlow | string> {
  let flow = flows.get(ctx.as);
  if (!flow) flows.set(ctx.as, (flow = findProxyFlow(ctx)));
  return flow;
}

const NOT_A_PROXY = `the proxy rules bind an MCP server that sends its clients' authorization on to a third-party authorization server under a client id of its own (${ruling('proxy-consent').cite})`;

async function findProxyFlow(ctx: AsScenarioContext): Promise<ProxyFlow | string> {
  const client = await namedClient(ctx, 'A');
  if (typeof client === 'string') return client;
  const agent = ctx.as.userAgent();
  const first = await authorizeIn(ctx, client, agent);
  if (typeof first === 'string') return `not exercised: ${first}`;
  const clientStates = [first.grant.state];
  const { outcome } = first;
  if (outcome.kind === 'client') return `not exercised: the server answered a new client's authorization itself (${describeOutcome(outcome)}); ${NOT_A_PROXY}`;
  if (outcome.kind === 'forward') {
    if (!staticForward(outcome, client)) return `not exercised: the server sends the client's own client_id on (${describeOutcome(outcome)}): the third party sees each client; ${NOT_A_PROXY}`;
    return { agent, client, forward: outcome.location, atOnce: true, clientStates };
  }
  if (outcome.kind !== 'page') return `not exercised: a new client's authorization got ${describeOutcome(outcome)}, neither a page nor a redirect; ${NOT_A_PROXY}`;
  // Posted from elsewhere first, so that a server which takes it cannot have been approved by the user beforehand.
  const forged = await submitConsent(agent, outcome.visited, first.grant, client, true);
  const again = await authorizeIn(ctx, client, agent);
  if (typeof again === 'string') return `not exercised: ${again}`;
  clientStates.push(again.grant.state);
  const page = again.outcome.kind === 'page' ? again.outcome.visited : outcome.visited;
  const pageGrant = again.outcome.kind === 'page' ? again.grant : first.grant;
  if (typeof forged !== 'string' && staticForward(forged, client) && again.outcome.kind === 'forward') {
    // The forged approval went through and is remembered: it is the one approval there was.
    return { agent, client, page: outcome.visited, forged, approval: forged.visited, forward: forged.location, atOnce: false, clientStates };
  }
  const approved = await submitConsent(agent, page, pageGrant, client, false);
  if (typeof approved === 'string') return `not exercised: ${approved}; ${NOT_A_PROXY}`;
  if (!staticForward(approved, client)) return `not exercised: approving its page led to ${describeOutcome(approved)}, not on to another authorization server; ${NOT_A_PROXY}`;
  return { agent, client, page, ...(typeof forged !== 'string' ? { forged } : {}), approval: approved.visited, forward: approved.location, atOnce: false, clientStates };
}
