import { COMPLEX_PRM_PATH, FOREIGN_ISSUER, FOREIGN_RESOURCE, ruling, show, type ClientScenario, type SharedJudgeContext } from '../kit.js';
import { expectRefusal, type Flow, plainActs, protectedScenario, startedOAuth } from './auth-helpers.js';

// How a client finds its authorization server (basic/authorization.mdx, Protected Resource
// Metadata and authorization server metadata discovery): from a challenge it has to parse, through
// the well-known URIs in their order, under either metadata specification, and only from metadata
// whose issuer is the one it looked up.

/** The well-known metadata URLs the client asked for, each once, in the order it first did. */
function probes(flow: Flow): string[] {
  return [...new Set(flow.of('authorization-server-metadata').map((m) => m.path))];
}

/** The first paths of requests the client sent beside the endpoint: what it did instead. */
const elsewhere = (flow: Flow) =>
  show(
    flow.events
      .filter((e) => e.kind !== 'endpoint')
      .slice(0, 6)
      .map((e) => ('path' in e ? `${e.method} ${e.path}` : e.kind)),
  );

export const complexChallenge = protectedScenario(
  {
    id: 'client.auth.complex-challenge',
    title: 'The client parses a WWW-Authenticate with several challenges and quoted commas, and fetches the metadata it names',
    requirements: ['AUTH-WWW-02'],
    variant: { challenge: 'complex' },
    // Its metadata at a path only the challenge names, as the official metadata-var3 has it.
    alias: 'auth/metadata-var3',
    judgesSilence: true,
  },
  async (ctx, flow, control) => {
    if (!startedOAuth(flow)) {
      // No OAuth after this challenge shows it unread only if the client starts OAuth after a plain one.
      if (await plainActs(ctx, control, startedOAuth, 'the client did not start OAuth (authorization is optional in MCP)', 'whether it read this challenge cannot be told')) {
        ctx.check.expect(false, { expected: `a GET of ${COMPLEX_PRM_PATH}, the resource_metadata of the challenge's Bearer`, actual: 'no OAuth at all after this challenge (after a plain one it starts its flow)' });
      }
      return;
    }
    const fetched = flow.of('resource-metadata').length > 0;
    ctx.check.expect(fetched, {
      expected: `a GET of ${COMPLEX_PRM_PATH}, the resource_metadata of the challenge's Bearer (no well-known URI serves it here)`,
      actual: `no request for it; the client sent ${elsewhere(flow)}`,
    });
  },
);

/** AUTH-ASMD-03: the candidates the client probed are the issuer's, all of them up to the one that answers, in their order. */
function judgeOrder(ctx: SharedJudgeContext, flow: Flow): void {
  const { paths, served } = flow.host.metadataCandidates;
  const probed = probes(flow);
  const wanted = paths.slice(0, paths.indexOf(served) + 1);
  if (probed.length === 0) {
    if (flow.of('authorize').length === 0) return ctx.check.skip('not exercised: the client looked up no authorization server metadata');
    return void ctx.check.expect(false, { expected: `GETs of ${wanted.join(', ')} in that order`, actual: 'an authorization request without any metadata lookup' });
  }
  // Other URLs it tried (a 2025-03-26 client's root lookup, say) are no candidates of this issuer: shown, not judged.
  ctx.check.expect(show(probed.filter((p) => paths.includes(p))) === show(wanted), {
    expected: `GETs of ${wanted.join(', ')} in that order (only the last serves the metadata of issuer ${flow.host.issuer})`,
    actual: `it asked for ${show(probed)}`,
  });
}

export const metadataOrder = protectedScenario(
  {
    id: 'client.auth.metadata-order',
    title: 'For an issuer with a path, the client probes the three well-known metadata URIs in the order the spec gives',
    requirements: ['AUTH-ASMD-03'],
    variant: { discovery: 'issuer-path' },
    // The official metadata-var2's issuer with a path (its metadata at the first candidate, here at the last).
    alias: 'auth/metadata-var2',
  },
  judgeOrder,
);

export const metadataOrderRoot = protectedScenario(
  {
    id: 'client.auth.metadata-order-root',
    title: 'For an issuer without a path, the client probes RFC 8414 metadata, then OpenID Connect discovery',
    requirements: ['AUTH-ASMD-03'],
    variant: { discovery: 'oidc' },
  },
  judgeOrder,
);

export const oidcDiscovery = protectedScenario(
  {
    id: 'client.auth.oidc-discovery',
    title: 'The client authorizes with an authorization server that publishes only OpenID Connect discovery metadata',
    requirements: ['AUTH-ASMD-02'],
    variant: { discovery: 'oidc' },
    alias: 'auth/metadata-var1',
  },
  async (ctx, flow, control) => {
    const read = flow.of('authorization-server-metadata').some((m) => m.status === 200);
    const authorized = flow.of('authorize').length > 0;
    if (read && authorized) return void ctx.check.expect(true, { expected: 'its metadata read and an authorization request to the endpoint it names', actual: 'both' });
    // A client that authorizes nowhere may just need a person: only a control run that authorizes shows the failure.
    if (!(await plainActs(ctx, control, (plain) => plain.of('authorize').length > 0, 'the client sent no authorization request here', 'whether it reads OpenID Connect metadata cannot be told'))) return;
    ctx.check.expect(false, {
      expected: `a GET of ${flow.host.metadataCandidates.served} and an authorization request to the authorization_endpoint it names (as it does with RFC 8414 metadata)`,
      actual: read ? 'it fetched the metadata and sent no authorization request' : `it never read the OpenID Connect metadata; it sent ${elsewhere(flow)}`,
    });
  },
);

export const issuerMismatch = protectedScenario(
  {
    id: 'client.auth.issuer-mismatch',
    title: 'The client does not use authorization server metadata whose issuer is not the one it looked up',
    requirements: ['AUTH-ASMD-04'],
    variant: { issuerMismatch: true },
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow, control) => {
    if (!flow.of('authorization-server-metadata').some((m) => m.status === 200)) return ctx.check.skip('not exercised: the client did not fetch the authorization server\'s metadata');
    const used = [...flow.of('authorize'), ...flow.of('token')];
    return expectRefusal(ctx, control, {
      expected: `no authorization or token request once the metadata found for issuer ${flow.host.issuer} said issuer ${FOREIGN_ISSUER}`,
      acted: used.length > 0 ? `${flow.of('authorize').length} authorization and ${flow.of('token').length} token request(s) to the endpoints it names` : undefined,
      actsOn: (plain) => plain.of('authorize').length > 0,
      step: 'authorization request',
    });
  },
);

export const resourceMismatch = protectedScenario(
  {
    id: 'client.auth.resource-mismatch',
    title: 'The client does not authorize with Protected Resource Metadata whose resource is another server',
    requirements: ['AUTH-PRM-04'],
    variant: { resourceMismatch: true },
    alias: 'auth/resource-mismatch',
  },
  (ctx, flow, control) => {
    if (flow.of('resource-metadata').length === 0) return ctx.check.skip('not exercised: the client did not fetch the Protected Resource Metadata');
    const authorize = flow.of('authorize');
    return expectRefusal(ctx, control, {
      expected: `no authorization request once the metadata of ${flow.host.resource} said resource ${FOREIGN_RESOURCE} (${ruling('prm-resource-validated').cite})`,
      acted: authorize.length > 0 ? `${authorize.length} authorization request(s)` : undefined,
      actsOn: (plain) => plain.of('authorize').length > 0,
      step: 'authorization request',
    });
  },
);

export const clientAuthorizationDiscovery: ClientScenario[] = [complexChallenge, metadataOrder, metadataOrderRoot, oidcDiscovery, issuerMismatch, resourceMismatch];
