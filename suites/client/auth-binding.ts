import { PRE_REGISTERED, show, type ClientScenario, type OAuthEvent } from '../kit.js';
import { eventsOf, type Flow, protectedScenario } from './auth-helpers.js';
import { unlessContractClient } from './auth-registration.js';

// What a client keeps for each authorization server (basic/authorization.mdx, token handling;
// 2026-07-28 authorization server binding): the resource moves to a second authorization server
// when the first one's token runs out, and the Protected Resource Metadata names the second from
// then on. The client's registration, codes and tokens of the first stay with the first.

/** The flow from the client's first fetch of metadata naming the second authorization server (undefined: it never fetched one). */
function sinceMove(flow: Flow): Flow['events'] | undefined {
  const second = flow.host.second?.issuer;
  const at = flow.events.findIndex((e) => e.kind === 'resource-metadata' && e.names === second);
  return at < 0 ? undefined : flow.events.slice(at + 1);
}

const NOT_MOVED = 'not exercised: the client did not fetch the Protected Resource Metadata again once its token ran out, so it never learnt that the resource moved';

type ClientRequest = Extract<OAuthEvent, { kind: 'authorize' | 'token' }>;

/** The client_id an authorization or token request named (in its query, its body or its Basic credentials). */
const clientIdOf = (e: ClientRequest): string | undefined => (e.kind === 'authorize' ? e.params.client_id : e.clientId);

/** The credentials of the first authorization server a request to an authorization server carried: a client_id it registered, a refresh token of it. */
function firstsCredentials(flow: Flow, e: ClientRequest): string[] {
  const first = flow.host.issuer;
  const clientId = clientIdOf(e);
  const request = e.kind === 'authorize' ? 'an authorization request' : 'a token request';
  return [
    ...(clientId !== undefined && flow.host.registered.get(clientId) === first ? [`client_id ${show(clientId)} (registered at the first) in ${request}`] : []),
    ...(e.kind === 'token' && e.params.refresh_token !== undefined && flow.host.issuerOf(e.params.refresh_token) === first ? ['a refresh token of the first in a token request'] : []),
  ];
}

export const asMigration = protectedScenario(
  {
    id: 'client.auth.as-migration',
    title: 'When the resource moves to another authorization server, the client registers there and presents it nothing of the first',
    requirements: ['AUTH-BIND-01'],
    variant: { migration: true },
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow) => {
    const after = sinceMove(flow);
    if (!after) return ctx.check.skip(NOT_MOVED);
    const second = flow.host.second!.issuer;
    const there = after.filter((e): e is Extract<OAuthEvent, { kind: 'register' | 'authorize' | 'token' }> => (e.kind === 'register' || e.kind === 'authorize' || e.kind === 'token') && e.issuer === second);
    const carried = there.flatMap((e) => (e.kind === 'register' ? [] : firstsCredentials(flow, e)));
    const expected = `at ${second} (the metadata's authorization server once the first one's token ran out) a registration of its own and nothing the first issued`;
    if (carried.length > 0) return void ctx.check.expect(false, { expected, actual: [...new Set(carried)].join('; ') });
    if (!there.some((e) => e.kind === 'register' && e.status === 201)) return ctx.check.skip(`not exercised: the client did not register with the second authorization server (${there.length} request(s) to it)`);
    ctx.check.expect(true, { expected, actual: 'as expected' });
  },
);

export const tokenPerServer = protectedScenario(
  {
    id: 'client.auth.token-per-server',
    title: 'Once the resource names another authorization server, the client sends it only that server\'s tokens',
    requirements: ['AUTH-TOKEN-04'],
    variant: { migration: true },
  },
  (ctx, flow) => {
    const after = sinceMove(flow);
    if (!after) return ctx.check.skip(NOT_MOVED);
    const second = flow.host.second!.issuer;
    // From the token the second issued on: the client then holds a token for this resource, and requests already in flight are behind it.
    const issued = after.findIndex((e) => e.kind === 'token' && e.issuer === second && e.issued !== undefined);
    if (issued < 0) return ctx.check.skip('not exercised: the second authorization server issued the client no token');
    const sent = eventsOf(after.slice(issued + 1), 'endpoint').filter((e) => e.authorization !== undefined);
    if (sent.length === 0) return ctx.check.skip('not exercised: the client sent the server nothing with a token after the second authorization server issued it one');
    const foreign = sent.filter((e) => {
      const bearer = /^Bearer +(\S+)$/i.exec(e.authorization ?? '')?.[1];
      const issuer = bearer !== undefined ? flow.host.issuerOf(bearer) : undefined;
      return issuer !== undefined && issuer !== second;
    });
    ctx.check.expect(foreign.length === 0, {
      expected: `each of its ${sent.length} request(s) to the server after ${second} issued it a token carrying a token of ${second}, the authorization server the metadata names`,
      actual: `${foreign.length} carried a token of the first authorization server (${flow.host.issuer})`,
    });
  },
);

export const preRegisteredElsewhere = protectedScenario(
  {
    id: 'client.auth.pre-registered-elsewhere',
    title: 'When the resource moves to another authorization server, the client does not present it the pre-registered client of the first',
    requirements: ['AUTH-BIND-02'],
    variant: { registration: 'pre-registered', migration: true },
    context: PRE_REGISTERED,
    revisions: { introduced: '2026-07-28' },
    // Only a client seen to take the contract's credentials has them to carry.
    skipIf: unlessContractClient,
  },
  (ctx, flow) => {
    const after = sinceMove(flow);
    if (!after) return ctx.check.skip(NOT_MOVED);
    const second = flow.host.second!.issuer;
    const presented = after.filter((e): e is ClientRequest => (e.kind === 'authorize' || e.kind === 'token') && e.issuer === second && clientIdOf(e) === PRE_REGISTERED.client_id);
    ctx.check.expect(presented.length === 0, {
      expected: `no authorization or token request at ${second} with the pre-registered client_id ${PRE_REGISTERED.client_id}, which belongs to ${flow.host.issuer} (an error for its user instead)`,
      actual: `${presented.length} request(s) presenting it`,
    });
  },
);

export const clientAuthorizationBinding: ClientScenario[] = [asMigration, tokenPerServer, preRegisteredElsewhere];
