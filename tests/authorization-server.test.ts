import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model.js';
import { AS_BREAKS } from './fixtures/reference-as/breaks.js';
import { freePort, mcpcheckAsync, requireBuild, ROOT } from './server-helpers.js';
import { inLanes } from '../src/runner/guard.js';

beforeAll(requireBuild);

const REFERENCE_AS = join(ROOT, 'dist/tests/fixtures/reference-as/server.js');
const SDK_AS = join(ROOT, 'dist/tests/fixtures/sdk/auth-server.js');
const OIDC = join(ROOT, 'dist/tests/fixtures/oidc/server.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-as-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** `mcpcheck authorization` against a server it starts (`start` gets the port); its report, output and exit code. */
async function authorization(start: (port: number) => string, extra: string[] = [], env: NodeJS.ProcessEnv = {}, path = '') {
  const port = await freePort();
  const json = join(dir, `run-${++runs}.json`);
  const run = await mcpcheckAsync(['authorization', '--url', `http://127.0.0.1:${port}${path}`, '--start', start(port), '--json', json, '--quiet', ...extra], env);
  let text = '';
  try {
    text = readFileSync(json, 'utf8');
  } catch {
    throw new Error(`no report (exit ${run.code}): ${run.stderr}`);
  }
  return { ...run, text, report: JSON.parse(text) as RunReport };
}

const verdicts = (report: RunReport) => Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
const findings = (report: RunReport) => report.checks.filter((c) => c.status !== 'pass' && c.status !== 'skip').map((c) => `${c.status} ${c.id}: ${c.message}`);

/** The reference server's verdicts: all pass, but what a public client on loopback cannot show. */
const REFERENCE_VERDICTS = {
  'as.metadata.published': 'pass',
  'as.metadata.issuer': 'pass',
  'as.metadata.required-fields': 'pass',
  'as.metadata.pkce': 'pass',
  'as.metadata.https': 'skip',
  'as.metadata.client-credentials': 'pass',
  'as.registration.dynamic': 'pass',
  'as.registration.redirect-scheme': 'pass',
  'as.cimd.supported': 'pass',
  'as.cimd.validated/client-id': 'pass',
  'as.cimd.validated/redirect-uris': 'pass',
  'as.cimd.validated/redirect-unlisted': 'pass',
  'as.cimd.cached': 'pass',
  'as.token.code-grant/state': 'pass',
  'as.token.code-grant/token': 'pass',
  'as.token.no-store': 'pass',
  'as.token.invalid-grant': 'pass',
  'as.token.unknown-client': 'pass',
  'as.token.wrong-secret': 'skip',
  'as.token.code-reuse': 'pass',
  'as.pkce.verifier-required': 'pass',
  'as.pkce.verifier-checked': 'pass',
  'as.authorize.implicit-refused': 'pass',
  'as.authorize.redirect-exact/extra-path': 'pass',
  'as.authorize.redirect-exact/added-query': 'pass',
  'as.authorize.iss/present': 'pass',
  'as.authorize.iss/matches': 'pass',
  'as.authorize.iss/advertised': 'pass',
  'as.refresh.rotation/rotated': 'pass',
  'as.refresh.rotation/reuse-refused': 'pass',
  // It answers a new client's authorization itself: no MCP proxy, whose rules these are.
  'as.proxy.consent': 'skip',
  'as.proxy.cookies': 'skip',
  'as.proxy.state': 'skip',
};

/** The proxy's checks, each passing, for the reference server started as an MCP proxy (--proxy). */
const PROXY_VERDICTS = {
  'as.proxy.consent/new-client': 'pass',
  'as.proxy.consent/other-client': 'pass',
  'as.proxy.consent/csrf': 'pass',
  'as.proxy.consent/framing': 'pass',
  'as.proxy.consent/shows-client': 'pass',
  'as.proxy.cookies': 'pass',
  'as.proxy.state/own-state': 'pass',
  // Random states: what varies carries enough bits, and whether they are cryptographic cannot be seen.
  'as.proxy.state/unguessable': 'skip',
  'as.proxy.state/checked': 'pass',
  'as.proxy.state/single-use': 'pass',
};

describe.concurrent('mcpcheck authorization: the reference authorization server', () => {
  it('RFC 8414 metadata, a public client registered dynamically: every check passes but those it cannot show', async () => {
    const run = await authorization((port) => `node ${REFERENCE_AS} --port ${port}`);
    expect(run.code, findings(run.report).join('\n')).toBe(0);
    expect(verdicts(run.report)).toEqual(REFERENCE_VERDICTS);
    expect(run.report.target.role).toBe('AS');
    // Loopback over plain http is exempt, and the skip says so by the ruling's name.
    expect(run.report.checks.find((c) => c.id === 'as.metadata.https')?.message).toMatch(/ruling loopback-authorization-server/);
    // The tokens it issued appear nowhere.
    expect(run.text).not.toMatch(/"access_token\\":\\"[^[]/);
  });

  it('OpenID Connect metadata of an issuer with a path (served path-appended): found in the order clients try, every check passes', async () => {
    const run = await authorization((port) => `node ${REFERENCE_AS} --port ${port} --oidc --issuer-path /tenant`, [], {}, '/tenant');
    expect(run.code, findings(run.report).join('\n')).toBe(0);
    expect(verdicts(run.report)).toEqual(REFERENCE_VERDICTS);
    expect(run.report.notes.join('\n')).toMatch(/metadata: http:\/\/127\.0\.0\.1:\d+\/tenant\/\.well-known\/openid-configuration \(OpenID Connect Discovery\)/);
  });

  it('a confidential pre-registered client (--client-id, --client-secret-env): the wrong-secret check runs, and the secret shows nowhere', async () => {
    const secret = 'reference-as-client-secret-7f3a';
    const run = await authorization((port) => `node ${REFERENCE_AS} --port ${port}`, ['--client-id', 'pre-registered', '--client-secret-env', 'AS_SECRET', '--verbose'], { AS_SECRET: secret, MCPCHECK_AS_CLIENT_SECRET: secret });
    expect(run.code, findings(run.report).join('\n')).toBe(0);
    expect(verdicts(run.report)).toMatchObject({ 'as.token.wrong-secret': 'pass', 'as.token.code-grant/token': 'pass', 'as.refresh.rotation': 'skip' });
    for (const out of [run.stdout, run.stderr, run.text]) expect(out).not.toContain(secret);
  });

  it('as an MCP proxy in front of a third-party authorization server (--proxy): consent per client, its page, its cookie and the proxy\'s own state all pass; the checks that need a code without a user skip', async () => {
    const run = await authorization((port) => `node ${REFERENCE_AS} --port ${port} --proxy`);
    expect(run.code, findings(run.report).join('\n')).toBe(0);
    const proxy = Object.fromEntries(Object.entries(verdicts(run.report)).filter(([id]) => id.startsWith('as.proxy.')));
    expect(proxy).toEqual(PROXY_VERDICTS);
    // A consent page is a user's step: the code grant's checks say so instead of judging.
    expect(run.report.checks.find((c) => c.id === 'as.token.code-grant')?.message).toMatch(/asks for a user \(a login or consent page\)/);
    // Each proxy verdict is one of SEC-PROXY-01/02, graded for the authorization server role.
    expect(new Set(run.report.checks.filter((c) => c.id.startsWith('as.proxy.')).flatMap((c) => c.requirements))).toEqual(new Set(['SEC-PROXY-01', 'SEC-PROXY-02']));
    expect(run.report.requirements.filter((r) => r.id.startsWith('SEC-PROXY-')).map((r) => `${r.id} ${r.status}`)).toEqual(['SEC-PROXY-01 pass', 'SEC-PROXY-02 pass']);
  });

  it('--spec-version 2025-11-25: the RFC 9207 iss checks are not part of that revision', async () => {
    const run = await authorization((port) => `node ${REFERENCE_AS} --port ${port}`, ['--spec-version', '2025-11-25', '--only', 'as.authorize']);
    expect(run.code).toBe(0);
    expect(verdicts(run.report)['as.authorize.iss']).toBe('skip');
    expect(run.report.checks.find((c) => c.id === 'as.authorize.iss')?.message).toMatch(/applies from revision 2026-07-28 on/);
    expect(run.report.checks.filter((c) => c.revision !== undefined).every((c) => c.revision === '2025-11-25')).toBe(true);
  });

  // Each break a whole run of the suite, four at a time: 45-58 s in full test runs, past 60 s once.
  it('every break fails exactly its check, with its rule', { timeout: 180_000 }, async () => {
    const problems: string[] = [];
    await inLanes(AS_BREAKS, 4, async (b) => {
      const confidential = b.confidential ? { env: { S: 'break-secret', MCPCHECK_AS_CLIENT_SECRET: 'break-secret' }, flags: ['--client-id', 'pre-registered', '--client-secret-env', 'S'] } : { env: {}, flags: [] };
      const run = await authorization((port) => `node ${REFERENCE_AS} --port ${port} --break ${b.name}`, confidential.flags, confidential.env);
      const bad = run.report.checks.filter((c) => c.status !== 'pass' && c.status !== 'skip');
      const expected = b.verdict ?? 'fail';
      const wrong = bad.filter((c) => !c.id.startsWith(b.check) || c.status !== expected || !c.requirements.includes(b.requirement));
      if (bad.length === 0 || wrong.length > 0) problems.push(`${b.name}: expected ${expected} ${b.check} [${b.requirement}], got ${bad.map((c) => `${c.status} ${c.id} [${c.requirements}]`).join(', ') || 'nothing'}`);
      if (run.code !== (expected === 'fail' ? 1 : 0)) problems.push(`${b.name}: exit ${run.code}`);
      // A failure says how to reproduce it, as pasted.
      for (const c of bad) if (!c.reproduce?.includes(`--only ${c.scenario}`)) problems.push(`${b.name}: ${c.id} has no reproduce line`);
    });
    expect(problems).toEqual([]);
  });
});

describe.concurrent('mcpcheck authorization: real authorization servers', () => {
  it('the SDK v1 auth router with its demo provider: an unknown code is a server error, no iss, a plain-http redirect URI registered', async () => {
    // Its issuer is the URL with a trailing slash (new URL(...).href): named as the SDK names it.
    const run = await authorization((port) => `node ${SDK_AS} --port ${port}`, [], {}, '/');
    const { 'as.authorize.iss/matches': _matches, 'as.refresh.rotation/rotated': _rotated, 'as.refresh.rotation/reuse-refused': _reused, ...rest } = REFERENCE_VERDICTS;
    expect(verdicts(run.report)).toEqual({
      ...rest,
      // The demo provider throws a plain Error for a code it does not know: the router answers 500 server_error.
      'as.token.invalid-grant': 'fail',
      // The router registers any redirect URI that parses.
      'as.registration.redirect-scheme': 'warn',
      // No RFC 9207 iss in its redirects (a SHOULD of 2026-07-28), so nothing to compare or for the metadata to advertise.
      'as.authorize.iss/present': 'warn',
      'as.authorize.iss/advertised': 'skip',
      // Its metadata offers the authorization code grant alone (no client credentials extension).
      'as.metadata.client-credentials': 'skip',
      // The demo provider issues no refresh tokens.
      'as.refresh.rotation': 'skip',
      // Nor does it take Client ID Metadata Documents (a SHOULD).
      'as.cimd.supported': 'warn',
      'as.cimd.validated/client-id': 'skip',
      'as.cimd.validated/redirect-uris': 'skip',
      'as.cimd.validated/redirect-unlisted': 'skip',
      'as.cimd.cached': 'skip',
    });
    // It issues the code itself: no MCP proxy.
    expect(run.report.checks.find((c) => c.id === 'as.proxy.consent')?.message).toMatch(/answered a new client's authorization itself/);
    expect(run.code).toBe(1);
  });

  it('the SDK v1 ProxyOAuthServerProvider in front of the reference server: no proxy of a static client id (each client\'s own client_id goes on), and a code it does not know is a server error', async () => {
    const run = await authorization((port) => `node ${SDK_AS} --port ${port} --proxy`, [], {}, '/');
    const v = verdicts(run.report);
    expect(Object.fromEntries(Object.entries(v).filter(([id]) => id.startsWith('as.proxy.')))).toEqual({ 'as.proxy.consent': 'skip', 'as.proxy.cookies': 'skip', 'as.proxy.state': 'skip' });
    expect(run.report.checks.find((c) => c.id === 'as.proxy.consent')?.message).toMatch(/sends the client's own client_id on/);
    // The upstream answers 400 invalid_grant; the provider turns it into 500 server_error.
    expect(run.report.checks.find((c) => c.id === 'as.token.invalid-grant')?.message).toMatch(/got HTTP 500 .*Token exchange failed: 400/);
    // It sends the authorization on, so the checks that need a code say where to.
    expect(run.report.checks.find((c) => c.id === 'as.token.code-grant')?.message).toMatch(/sent on to another server \("http:\/\/127\.0\.0\.1:\d+\/authorize"\)/);
    expect(findings(run.report).map((f) => f.split(':')[0])).toEqual(['warn as.cimd.supported', 'fail as.token.invalid-grant']);
    expect(run.code).toBe(1);
  });

  it('oidc-provider 9.13.3 with an interaction route that approves at once: the code grant runs through its login and consent redirects; only the plain-http redirect registration and no Client ID Metadata Documents are reported', async () => {
    // It refuses an authorization that asks for no scope (access_denied): OpenID Connect's openid it grants.
    const run = await authorization((port) => `node ${OIDC} --port ${port}`, ['--scope', 'openid']);
    expect(findings(run.report)).toEqual([expect.stringMatching(/^warn as\.registration\.redirect-scheme: /), expect.stringMatching(/^warn as\.cimd\.supported: .*client_id_metadata_document_supported absent/)]);
    expect(verdicts(run.report)).toMatchObject({ 'as.token.code-grant/token': 'pass', 'as.refresh.rotation/rotated': 'pass', 'as.refresh.rotation/reuse-refused': 'pass', 'as.authorize.iss/advertised': 'pass' });
    expect(run.code).toBe(0);
  });
});

/** A loopback server of the test's own, for what no fixture should do: endpoints that never answer. */
function hostileServer(handler: (path: string, port: number, res: import('node:http').ServerResponse) => void): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer((req, res) => handler(new URL(req.url ?? '/', 'http://x').pathname, (server.address() as { port: number }).port, res));
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

describe.concurrent('mcpcheck authorization: bad input and hostile servers', () => {
  it('a remote issuer without --allow-remote-metadata, a URL that is none, an issuer nothing answers for, a secret variable unset: one line, exit 2', async () => {
    const port = await freePort();
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['--url', 'https://as.example.com'], {}, /is not on loopback.*--allow-remote-metadata/],
      [['--url', 'not a url'], {}, /is not a URL/],
      [['--url', `http://127.0.0.1:${port}`], {}, /no authorization server mcpcheck can reach/],
      [['--url', `http://127.0.0.1:${port}`, '--client-id', 'x', '--client-secret-env', 'MCPCHECK_UNSET_SECRET'], {}, /MCPCHECK_UNSET_SECRET is not set/],
      [['--url', `http://127.0.0.1:${port}`, '--start', 'node -e "process.exit(3)"'], {}, /exited/],
    ];
    for (const [args, env, message] of cases) {
      const run = await mcpcheckAsync(['authorization', ...args, '--quiet'], env);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
    }
  });

  it('a token endpoint that never answers and metadata bigger than mcpcheck reads: could-not-judge and a finding, within the request timeout', async () => {
    const { server, port } = await hostileServer((path, p, res) => {
      const issuer = `http://127.0.0.1:${p}`;
      if (path === '/.well-known/oauth-authorization-server') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, registration_endpoint: `${issuer}/register`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256'] }));
      } else if (path === '/register') {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ client_id: 'c', redirect_uris: ['http://127.0.0.1/mcpcheck/callback'] }));
      } else if (path === '/authorize') {
        res.writeHead(302, { Location: 'http://127.0.0.1/mcpcheck/callback?code=abc&state=x' });
        res.end();
      }
      // /token: never answered.
    });
    const big = await hostileServer((_path, _p, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(`{"issuer":"${'x'.repeat(400_000)}"}`);
    });
    try {
      const json = join(dir, 'hostile.json');
      // The request timeout is the user's ceiling for every request, the metadata's too: at 500 ms a
      // loaded machine once answered the metadata later than that, and the run rightly found no
      // authorization server it could reach (exit 2, no report). Two seconds leave the answers room.
      const run = await mcpcheckAsync(['authorization', '--url', `http://127.0.0.1:${port}`, '--request-timeout', '2000', '--json', json, '--quiet']);
      expect(existsSync(json), run.stderr).toBe(true);
      const report = JSON.parse(readFileSync(json, 'utf8')) as RunReport;
      expect(verdicts(report)['as.token.code-grant/could-not-run'] ?? verdicts(report)['as.token.code-grant']).toBe('error');
      expect(report.checks.find((c) => c.id === 'as.token.invalid-grant')?.message).toMatch(/could not judge: the token endpoint gave no answer: no answer within 2000 ms/);
      expect(run.code).toBe(3);
      const huge = await mcpcheckAsync(['authorization', '--url', `http://127.0.0.1:${big.port}`, '--quiet', '--only', 'as.metadata']);
      expect(huge.code).toBe(1);
      expect(huge.stdout + huge.stderr).toMatch(/as\.metadata\.published/);
    } finally {
      server.closeAllConnections();
      server.close();
      big.server.close();
    }
  });
});
