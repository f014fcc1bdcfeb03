import { type ClientSession, type HttpChannel, type ProbeResponse, scenario, type Scenario } from '../kit.js';
import { openingProbe } from './authorization-helpers.js';
import { describeProbe, is2xx, probe, responseIn } from './http.js';

// The security best practices' "Local MCP Server Compromise": a server meant to run on its
// user's machine uses stdio, which only the client that started it can talk to, or restricts
// HTTP access (an authorization token, IPC with restricted access), for any other process of the
// machine (or a web page it loads) can reach a loopback port. Whether a server is meant to run
// locally is its vendor's intent, which mcpcheck cannot see: the user says so with --local.

/**
 * The era's opening request as any process on the machine could send it: with none of the
 * headers the user gave the run (--header, --token-env), so none of its credentials. A session
 * it opened is ended again.
 */
async function openedByAnyone(channel: HttpChannel, session: ClientSession): Promise<{ res: ProbeResponse; served: boolean }> {
  const { id, body, headers } = openingProbe(session);
  // Another URL than the endpoint's carries none of the session's or the user's headers: the endpoint named afresh.
  const res = await probe(channel, { method: 'POST', url: channel.url, body, headers });
  const answer = is2xx(res.status) ? responseIn(res, id) : undefined;
  const opened = res.headers['mcp-session-id'];
  if (opened !== undefined && is2xx(res.status)) await probe(channel, { method: 'DELETE', url: channel.url, headers: { 'Mcp-Session-Id': opened } });
  return { res, served: answer !== undefined && 'result' in answer };
}

export const localAccessRestricted = scenario({
  id: 'server.security.local-access-restricted',
  title: 'A server meant to run locally (--local) is served over stdio, or refuses HTTP requests that carry no credentials',
  requirements: ['SEC-LOCAL-02'],
  revisions: { introduced: '2025-11-25' },
  carriedOver: true,
  isolation: 'shared',
  async run({ check, session, options }) {
    if (!options.local) return check.skip('not judged: whether the server is meant to run on its user\'s machine is its vendor\'s intent, which the user states with --local');
    const expected = 'a local server served over stdio, or over HTTP refusing a request that carries none of the run\'s credentials (401 or 403: an authorization token, say)';
    const channel = session.channel;
    if (channel.kind !== 'http') return void check.expect(true, { expected, actual: 'served over stdio: only the client that started it talks to it' });
    const { res, served } = await openedByAnyone(channel, session);
    if (served) return void check.expect(false, { expected, actual: `the opening request, sent with none of the run's headers, was served (${describeProbe(res)}): any process on the machine can use the server` });
    const refused = res.status === 401 || res.status === 403 || (res.status >= 400 && res.headers['www-authenticate'] !== undefined);
    if (!refused) return check.skip(`not exercised: the opening request sent with none of the run's headers was neither served nor refused for want of credentials (${describeProbe(res)})`);
    check.expect(true, { expected, actual: `refused without credentials: ${describeProbe(res)}` });
  },
});

export const security: Scenario[] = [localAccessRestricted];
