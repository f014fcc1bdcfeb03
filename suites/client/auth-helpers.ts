import { WAIT_MS } from './helpers.js';
import { clientScenario, loopbackCertificate, resourceMatch, serveGuard, show, type ClientScenario, type ClientScenarioContext, type SharedJudgeContext, type Level, LoopbackOAuthHost, type OAuthEvent, type OAuthHostVariant, type RequirementId, type RevisionSpan, type ServerSession } from '../kit.js';

// What the client authorization scenarios share (basic/authorization.mdx): mcpcheck's endpoint
// protected by its own loopback authorization server, a wait for the client's flow, and the
// requests of that flow.

/** How long the scenario declares it may hold a client over its flow (waitsMs); a flow still going on is watched to the scenario's timeout. */
export const FLOW_MS = 15_000;
/**
 * A client that has sent nothing for this long on an idle machine (it stopped at the 401, or waits
 * for a person) is done; one in the middle of its flow may pause longer (a browser starting, a lock
 * polled), so from its first request past the endpoint it has twice that. Both scale with the
 * client's measured pace (ClientScenarioContext.paceMs).
 */
const IDLE_MS = WAIT_MS;

/** What a client that started no OAuth against the plain protected endpoint is known by (ClientScenarioContext.learn). */
const NO_OAUTH = 'client.auth: no OAuth';

/**
 * Whether the client's authorization server is served on an https: origin of its own: learnt once
 * a client that read the Protected Resource Metadata, then went no further with an authorization
 * server on plain http, went on with one on https (a client may take https: ones only); from then
 * on every scenario serves it so. Learnt as settled (either way) after the first such trial.
 */
const HTTPS_AUTHORIZATION = 'client.auth: https authorization server';
const PLAIN_AUTHORIZATION = 'client.auth: plain-http authorization server settled';

/**
 * Why a scenario whose authorization server must be the endpoint's own plain-http origin (a
 * 2025-03-26 server's) shows nothing of a client that takes https: authorization servers only (a skipIf).
 */
export const unlessPlainAuthorization = (learnt: ReadonlyMap<string, string>): string | undefined =>
  learnt.has(HTTPS_AUTHORIZATION) ? 'not started: the client takes authorization servers on https: only, and this one is the MCP endpoint\'s own plain-http origin (its revision asks for https endpoints too)' : undefined;

/**
 * Whether the client opens the authorization URL in the browser mcpcheck gives it (its BROWSER),
 * 'yes' or 'no': learnt from the first flow that reached the authorization endpoint. A client that
 * loads the URL itself (as the official contract has it) shows nothing of which URLs it would open.
 */
export const OPENS_BROWSER = 'client.auth: opens the authorization URL in its browser';

/** The host of each scenario's session: a scenario's serve() makes it, its run() judges what it recorded. */
const hosts = new WeakMap<ServerSession, LoopbackOAuthHost>();
/** What reached a scenario's authorization server served at another address (authorizationServerAt), by session: the paths asked. */
const elsewhere = new WeakMap<ServerSession, string[]>();
/** Sessions of a plain scenario's first client that may try the https: authorization server next. */
const mayTryHttps = new WeakSet<ServerSession>();

/** Whether the client handed its browser a URL of mcpcheck's authorization server. */
export const opensInBrowser = (flow: Flow): boolean => flow.opened().some((url) => url.startsWith(`${flow.host.authorizationOrigin}/`));

/** Whether the client asked the authorization server anything: its metadata, a registration, an authorization. */
export const askedAuthorizationServer = (flow: Flow): boolean => flow.of('authorization-server-metadata').length > 0 || flow.of('register').length > 0 || flow.of('authorize').length > 0;

/** A client that read the metadata naming a plain-http authorization server and asked that server nothing. */
const stoppedAtPlainHttp = (flow: Flow): boolean => flow.host.authorizationOrigin.startsWith('http:') && flow.of('resource-metadata').length > 0 && !askedAuthorizationServer(flow);

/** What the client did: the recorded requests, found by kind. */
export interface Flow {
  host: LoopbackOAuthHost;
  /** The session mcpcheck served the client in (what it negotiated, what it sent past the flow). */
  session: ServerSession;
  events: readonly OAuthEvent[];
  of<K extends OAuthEvent['kind']>(kind: K): Array<Extract<OAuthEvent, { kind: K }>>;
  /** What the client process wrote to its stdout and stderr (their ends, as kept): what it showed its user. */
  output(): string;
  /** The URLs the client handed the browser mcpcheck gave it (its BROWSER). */
  opened(): string[];
  /** The paths the client asked of an authorization server served at another address (authorizationServerAt). */
  reachedElsewhere(): string[];
}

/**
 * The client's flow once it has exited (or gone quiet, or the scenario's time is nearly up), or a skip recorded when it never began
 * one: authorization is optional in MCP, so a client that stops at the 401 is not judged on it.
 */
async function flowOf(ctx: ClientScenarioContext, judged = true): Promise<Flow | undefined> {
  const host = hosts.get(ctx.session)!;
  // Until the client exits, or has sent nothing for IDLE_MS at its pace (it stopped at the 401, or
  // waits for a person), or the scenario's timeout nears: a slow flow on a busy machine (a browser
  // that takes seconds to start) is not cut at an idle one's length.
  const until = performance.now() + Math.max(0, ctx.timeLeft() - 1_000);
  const idleMs = ctx.paceMs(IDLE_MS);
  let seen = -1;
  let quietSince = performance.now();
  while (performance.now() < until) {
    if ((await ctx.exited(100)) !== undefined) break;
    const count = host.events.length + ctx.exchanges.length;
    if (count !== seen) [seen, quietSince] = [count, performance.now()];
    else if (performance.now() - quietSince > (startedOAuth(host) ? 2 * idleMs : idleMs)) break;
  }
  const events = [...host.events];
  const of = <K extends OAuthEvent['kind']>(kind: K) => eventsOf(events, kind);
  if (judged && !startedOAuth({ events })) {
    const refused = of('endpoint').length;
    ctx.check.skip(`not exercised: the client ${refused > 0 ? `got the 401 challenge (${refused} request(s) refused) and` : 'sent the endpoint nothing and'} did not start OAuth (authorization is optional in MCP)`);
    return undefined;
  }
  return { host, session: ctx.session, events, of, output: () => `${ctx.client.stdoutTail.text()}\n${ctx.client.stderr.text()}`, opened: () => ctx.opened(), reachedElsewhere: () => [...(elsewhere.get(ctx.session) ?? [])] };
}

export interface AuthScenarioSpec {
  id: string;
  title: string;
  requirements: RequirementId[];
  level?: Level;
  /** What the server and its authorization server do differently in this scenario (to its first client; a control client meets `controlVariant`). */
  variant?: OAuthHostVariant;
  /** What a control client meets (default: the plain server). */
  controlVariant?: OAuthHostVariant;
  /** The revisions whose catalog has the rule (default: all). */
  revisions?: RevisionSpan;
  /** The official suite's client auth scenario this one is the twin of. */
  alias?: string;
  /**
   * A client that starts no OAuth here is judged too (`judge` gets a flow of endpoint requests
   * alone): what this scenario changes may be what stopped it, which a control run tells.
   */
  judgesSilence?: true;
  /** What the official contract hands the client (MCP_CONFORMANCE_CONTEXT) beside the scenario's name. */
  context?: Readonly<Record<string, string>>;
  /** Why the scenario would show nothing of this client, from what earlier ones learnt (ClientScenario.skipIf). */
  skipIf?(learnt: ReadonlyMap<string, string>): string | undefined;
}

/** The events of one kind among `events` (a whole flow's, or a part of it). */
export function eventsOf<K extends OAuthEvent['kind']>(events: readonly OAuthEvent[], kind: K): Array<Extract<OAuthEvent, { kind: K }>> {
  return events.filter((e): e is Extract<OAuthEvent, { kind: K }> => e.kind === kind);
}

/** Whether a flow went beyond the endpoint: the client started OAuth. */
export const startedOAuth = (flow: Pick<Flow, 'events'>): boolean => flow.events.some((e) => e.kind !== 'endpoint');

/** Judges the flow; `control` starts the client again against the plain server and gives its flow (undefined: it made no contact). */
export type AuthJudge = (ctx: SharedJudgeContext, flow: Flow, control: () => Promise<Flow | undefined>) => void | Promise<void>;

/**
 * A scenario whose endpoint admits only tokens of mcpcheck's authorization server: the client is
 * asked to list tools, and `judge` reads the flow it ran (HTTP only; both eras).
 */
export function protectedScenario(spec: AuthScenarioSpec, judge: AuthJudge): ClientScenario {
  // Scenarios that serve the plain protected endpoint and differ only in what they judge share one
  // client run (as long as the client is told the same: the contract's scenario and context).
  const plain = !spec.variant && !spec.controlVariant && !spec.judgesSilence;
  const sharesClient = plain
    ? {
        key: `plain protected endpoint, contract ${spec.alias ?? PROTECTED_CONTRACT} ${JSON.stringify(spec.context ?? {})}`,
        judge: (outcome: unknown, ctx: SharedJudgeContext) => (isPlainFlow(outcome) ? judge(ctx, outcome, () => Promise.resolve(outcome)) : undefined),
      }
    : undefined;
  return clientScenario({
    ...spec,
    steps: [{ do: 'list-tools' }],
    // A client written for the official contract runs its OAuth flow for any auth/ scenario: without a twin, its basic one.
    contract: PROTECTED_CONTRACT,
    ...(sharesClient ? { sharesClient } : {}),
    needs: { transport: 'http' },
    carriedOver: true,
    waitsMs: FLOW_MS,
    // An OAuth client keeps what it registered and the tokens it got on disk, one store for all its processes.
    oneAtATime: true,
    async serve(session, attempt, learnt) {
      const variant = attempt === 0 ? spec.variant : (spec.controlVariant ?? {});
      const settled = learnt.has(HTTPS_AUTHORIZATION) || learnt.has(PLAIN_AUTHORIZATION);
      // A plain scenario's second client is its https: trial (a plain scenario starts no control client).
      const https = learnt.has(HTTPS_AUTHORIZATION) || (!spec.variant && attempt === 1 && !settled);
      let host: LoopbackOAuthHost | undefined;
      const at = variant?.authorizationServerAt;
      const hop = variant?.metadataRedirectAt;
      const away = at ?? hop;
      const reached: string[] = [];
      // Served at an address elsewhere (the authorization server, or where its metadata redirects), the
      // guard records what reached it there: the evidence of a request the client should not have made.
      const awayOrigin = away
        ? await serveGuard(
            (r) => {
              if (reached.length < 100) reached.push(r.path);
              return host!.guard(r);
            },
            away.tls ? loopbackCertificate() : undefined,
            away.address,
          )
        : undefined;
      const httpsOrigin = !at && https ? await serveGuard((r) => host!.guard(r), loopbackCertificate()) : undefined;
      if (away) elsewhere.set(session, reached);
      for (const extra of [awayOrigin, httpsOrigin]) if (extra) session.channel.onClose(() => extra.close());
      host = new LoopbackOAuthHost(session.channel.address, variant, at ? awayOrigin?.origin : httpsOrigin?.origin, hop ? awayOrigin?.origin : undefined);
      const served = variant?.serves;
      if (served) session.chooseVersion = () => served;
      session.channel.guardWith?.(host.guard);
      hosts.set(session, host);
      if (!spec.variant && attempt === 0 && !settled) mayTryHttps.add(session);
    },
    // A client that met the plain server and started no OAuth starts none with a variant of it either: not started again.
    skipIf: (learnt) => learnt.get(NO_OAUTH) ?? spec.skipIf?.(learnt),
    async run(first) {
      let ctx = first;
      let flow = await flowOf(ctx, !spec.judgesSilence);
      if (flow && mayTryHttps.has(ctx.session)) {
        if (!stoppedAtPlainHttp(flow)) ctx.learn(PLAIN_AUTHORIZATION, 'the client went on with an authorization server on plain http');
        else {
          // It may take https: authorization servers only: once more, with the authorization server on an https: origin.
          const next = await ctx.relaunch();
          const secured = next ? await flowOf(next, false) : undefined;
          if (next && secured && askedAuthorizationServer(secured)) {
            ctx.learn(HTTPS_AUTHORIZATION, 'the client went on only with an authorization server on https');
            ctx.note(`the client read the Protected Resource Metadata and asked an authorization server on plain http nothing, but went on with one on https (${secured.host.authorizationOrigin}): from ${spec.id} on, the authorization server is served on https (the run's loopback certificate)`);
            [ctx, flow] = [next, secured];
          } else ctx.learn(PLAIN_AUTHORIZATION, 'the client went no further with an authorization server on https either');
        }
      }
      if (!spec.variant && (!flow || !startedOAuth(flow))) ctx.learn(NO_OAUTH, `not exercised: the client did not start OAuth (authorization is optional in MCP) in ${spec.id}, which served the plain protected endpoint; not started again`);
      if (!flow) return;
      if (flow.of('authorize').length > 0) ctx.learn(OPENS_BROWSER, opensInBrowser(flow) ? 'yes' : 'no');
      const control = async () => {
        const next = await ctx.relaunch();
        return next ? flowOf(next, false) : undefined;
      };
      await judge(ctx, flow, control);
      // Only a flow that started OAuth is worth sharing: after one that did not, the others are skipped (NO_OAUTH).
      if (plain && startedOAuth(flow)) {
        plainFlows.add(flow);
        return flow;
      }
      return undefined;
    },
  });
}

/** The contract's scenario a client is told for a protected endpoint without an official twin. */
const PROTECTED_CONTRACT = 'auth/metadata-default';

/** The plain flows protected scenarios shared (ClientScenario.sharesClient): what the others of their key judge. */
const plainFlows = new WeakSet<object>();
const isPlainFlow = (outcome: unknown): outcome is Flow => typeof outcome === 'object' && outcome !== null && plainFlows.has(outcome);

/**
 * Whether a request's `resource` names the MCP server (AUTH-RES-01): the endpoint's canonical URI,
 * or a path enclosing it (the most specific one is AUTH-RES-02's SHOULD).
 */
export const namesServer = (resource: string | undefined, flow: Flow): boolean => resource !== undefined && resourceMatch(resource, new URL(flow.host.resource)) !== 'other';

/** The skip of a rule about the authorization request, when the client sent none. */
export const NO_AUTHORIZE = 'not exercised: the client sent no authorization request';

/** A scope parameter as a sorted set, for comparisons that ignore order. */
export const scopeSet = (scope: string | undefined): string[] => [...new Set((scope ?? '').split(' ').filter(Boolean))].sort();

/**
 * The scopes a client asks of the resource, as a space-separated sorted set: offline_access asks
 * the authorization server for a refresh token, not the resource for access (AUTH-REFRESH-02
 * judges it), so the scope selection rules pass over it.
 */
export const resourceScopes = (scope: string | undefined): string => scopeSet(scope).filter((s) => s !== 'offline_access').join(' ');

export interface Refusal {
  expected: string;
  /** What the client did here that it should have refused to (undefined: nothing). */
  acted: string | undefined;
  /** Whether the client does that step with the plain server. */
  actsOn: (plain: Flow) => boolean;
  /** The step, for a skip's reason ("authorization request"). */
  step: string;
}

/**
 * Judges a refusal. A client that took the step fails; one that did not shows a refusal only if it
 * takes that step with the same server without the fault (the control run), else nothing is
 * shown (it gets no further without a person, say) and the check is skipped.
 */
export async function expectRefusal(ctx: SharedJudgeContext, control: () => Promise<Flow | undefined>, r: Refusal): Promise<void> {
  if (r.acted !== undefined) return void ctx.check.expect(false, { expected: r.expected, actual: r.acted });
  if (await plainActs(ctx, control, r.actsOn, `the client sent no ${r.step} here`, 'its refusal cannot be told')) ctx.check.expect(true, { expected: r.expected, actual: 'none' });
}

/**
 * Whether the client, started again against the plain server (the control run), takes the step
 * `actsOn` looks for; if it does not, a skip is recorded (`here`: what it did not do in the
 * scenario; `so`: what that leaves untold), for then nothing tells the scenario's fault apart.
 */
export async function plainActs(ctx: SharedJudgeContext, control: () => Promise<Flow | undefined>, actsOn: (plain: Flow) => boolean, here: string, so: string): Promise<boolean> {
  const plain = await control();
  if (plain && actsOn(plain)) return true;
  const other = plain ? 'nor with the same server without the fault' : 'and started again, it made no contact';
  ctx.check.skip(`not exercised: ${here}, ${other} (it gets no further without a user or a browser, say): ${so}`);
  return false;
}

/** Judges the scope of the client's first authorization request against `wanted` (offline_access aside), said as `expected`. */
export function scopeJudge(wanted: string, expected: string): AuthJudge {
  return (ctx, flow) => {
    const authorize = flow.of('authorize')[0];
    if (!authorize) return ctx.check.skip(NO_AUTHORIZE);
    ctx.check.expect(resourceScopes(authorize.params.scope) === resourceScopes(wanted), { expected, actual: `scope ${show(authorize.params.scope)}` });
  };
}
