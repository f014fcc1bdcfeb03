import { type CheckOptions, type ClientScenario, type SharedJudgeContext, LEGACY_PREFIX, type OAuthHostVariant, type RequirementId, show } from '../kit.js';
import { type Flow, protectedScenario, unlessPlainAuthorization } from './auth-helpers.js';
import { methodOf, requestsSince } from './helpers.js';

// A server of 2025-03-26's authorization (basic/authorization.mdx of that revision, §2.3): no
// Protected Resource Metadata (2025-06-18 brought it), the MCP server's origin is the
// authorization server, found by its RFC 8414 metadata or, without one, at the default paths
// /authorize, /token and /register. Those rules bind a client only where the server speaks
// 2025-03-26: mcpcheck answers initialize with it, and judges a client that gets no token only if,
// started against the same server without authorization, it goes on in 2025-03-26 (a client that
// does not support that revision may leave: LIFE-VER-06).

const LEGACY_REVISION = '2025-03-26';
/** The control: the same server, its endpoint open, answering initialize with 2025-03-26. */
const OPEN_LEGACY: OAuthHostVariant = { open: true, serves: LEGACY_REVISION };

/** The client's initialize, if it sent one. */
const initializeOf = (flow: Flow) => flow.session.frames.find((f) => f.from === 'client' && methodOf(f) === 'initialize');

/** Whether the client, answered with 2025-03-26 at initialize, went on with a request: it takes servers of that revision. */
function wentOn(flow: Flow): boolean {
  const init = initializeOf(flow);
  return flow.session.negotiated === LEGACY_REVISION && init !== undefined && requestsSince(flow.session, init.index + 1).length > 0;
}

/** Why a flow shows nothing of 2025-03-26 support: what the client did instead of going on in that revision. */
const notOn = (flow: Flow): string =>
  initializeOf(flow) ? `did not go on once mcpcheck answered its initialize with ${LEGACY_REVISION}` : `sent no initialize for mcpcheck to answer with ${LEGACY_REVISION} (it spoke another era)`;

/** Whether the client got a token from the legacy authorization server and was admitted with it. */
const authorized = (flow: Flow): boolean => flow.of('token').some((t) => t.issued !== undefined) && flow.of('endpoint').some((e) => e.admitted);

/** What the client did of the flow, for a failure's message. */
function describeFlow(flow: Flow): string {
  const asked = flow.events.filter((e) => e.kind !== 'endpoint').map((e) => ('path' in e ? `${e.kind === 'other' ? '' : `${e.kind} `}${e.method} ${e.path}` : e.kind === 'token' ? `token request (${e.status})` : `${e.kind} (${e.status})`));
  return asked.length > 0 ? `it asked ${show(asked.slice(0, 8).join(', '), 400)}, and got no token it was admitted with` : 'it asked the origin for nothing after the 401';
}

/**
 * Whether the client takes servers of 2025-03-26, whose rules these are: it went on once mcpcheck
 * answered its initialize with that revision, here or (when it got no token here) in the control
 * run against the same server without authorization. Else why that cannot be told.
 */
async function takesLegacy(flow: Flow, control: () => Promise<Flow | undefined>): Promise<true | string> {
  if (authorized(flow)) return wentOn(flow) || `the client authorized, but ${notOn(flow)}: it may not support that revision, whose rules these are`;
  const plain = await control();
  if (plain && wentOn(plain)) return true;
  return `the client got no token of the ${LEGACY_REVISION} server, and ${plain ? `started against the same server without authorization, ${notOn(plain)}` : 'started again, made no contact'}: it may not support ${LEGACY_REVISION}, whose rules these are`;
}

/** The flow went through the endpoints the metadata named (under LEGACY_PREFIX) after a GET of the metadata at the origin. */
const metadataUsed = (flow: Flow): boolean =>
  flow.of('authorization-server-metadata').some((m) => m.path === '/.well-known/oauth-authorization-server' && m.status === 200) && authorized(flow);

/**
 * A scenario of a 2025-03-26 server (`legacy` its kind): `judge` runs only for a client shown to take
 * such servers; for any other each of `checks` (none: the scenario's one check) is a skip saying why.
 */
function legacyScenario(
  o: { id: string; title: string; requirements: RequirementId[]; legacy: NonNullable<OAuthHostVariant['legacy']>; alias: string; checks?: CheckOptions[] },
  judge: (ctx: SharedJudgeContext, flow: Flow) => void,
): ClientScenario {
  return protectedScenario(
    { id: o.id, title: o.title, requirements: o.requirements, variant: { legacy: o.legacy, serves: LEGACY_REVISION }, controlVariant: OPEN_LEGACY, alias: o.alias, skipIf: unlessPlainAuthorization },
    async (ctx, flow, control) => {
      const takes = await takesLegacy(flow, control);
      if (takes === true) return judge(ctx, flow);
      ctx.check.skipEach(`not exercised: ${takes}`, o.checks ?? [{}], { revision: LEGACY_REVISION });
    },
  );
}

const DISCOVERY: CheckOptions = { key: 'discovery', requirements: ['AUTH-LEGACY-01'] };
const VERSION_HEADER: CheckOptions = { key: 'version-header', requirements: ['AUTH-LEGACY-03'] };

export const legacyMetadata = legacyScenario(
  {
    id: 'client.auth.legacy-metadata',
    title: `A ${LEGACY_REVISION} server without Protected Resource Metadata: the client reads the authorization server metadata at the server's origin and uses the endpoints it names`,
    requirements: ['AUTH-LEGACY-01', 'AUTH-LEGACY-03'],
    legacy: 'metadata',
    alias: 'auth/2025-03-26-oauth-metadata-backcompat',
    checks: [DISCOVERY, VERSION_HEADER],
  },
  (ctx, flow) => {
    const revision = LEGACY_REVISION;
    ctx.check.expect(metadataUsed(flow), {
      ...DISCOVERY,
      revision,
      expected: `a GET of /.well-known/oauth-authorization-server at the server's origin (the authorization base URL), then registration, authorization and a token at the endpoints it names (under ${LEGACY_PREFIX}/)`,
      actual: describeFlow(flow),
    });
    const lookups = flow.of('authorization-server-metadata').filter((m) => m.path === '/.well-known/oauth-authorization-server');
    if (lookups.length === 0) return ctx.check.skip('not exercised: the client sent no GET of the authorization server metadata at the origin', { ...VERSION_HEADER, revision });
    const versions = lookups.map((m) => m.protocolVersion);
    ctx.check.expect(versions.every((v) => v !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(v)), {
      ...VERSION_HEADER,
      revision,
      expected: 'MCP-Protocol-Version naming a revision on its GET of the authorization server metadata',
      actual: `MCP-Protocol-Version on its GETs in turn: ${versions.map((v) => (v === undefined ? 'absent' : show(v))).join(', ')}`,
    });
  },
);

/** The flow fell back to the default endpoints at the origin after the metadata's GET (404). */
function fellBack(flow: Flow): boolean {
  const looked = flow.events.findIndex((e) => e.kind === 'authorization-server-metadata' && e.path === '/.well-known/oauth-authorization-server');
  const firstStep = flow.events.findIndex((e) => e.kind === 'register' || e.kind === 'authorize' || e.kind === 'token');
  return looked >= 0 && firstStep > looked && authorized(flow);
}

export const legacyFallback = legacyScenario(
  {
    id: 'client.auth.legacy-fallback',
    title: `A ${LEGACY_REVISION} server without authorization server metadata: the client tries it, then uses the default endpoints /authorize, /token and /register at the server's origin`,
    requirements: ['AUTH-LEGACY-02'],
    legacy: 'fallback',
    alias: 'auth/2025-03-26-oauth-endpoint-fallback',
  },
  (ctx, flow) => {
    ctx.check.expect(fellBack(flow), {
      revision: LEGACY_REVISION,
      expected: 'a GET of /.well-known/oauth-authorization-server at the origin (404), then registration at /register, authorization at /authorize and a token from /token of the origin',
      actual: describeFlow(flow),
    });
  },
);

export const clientAuthorizationLegacy: ClientScenario[] = [legacyMetadata, legacyFallback];
