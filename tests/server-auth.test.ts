import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model.js';
import { testServer } from '../src/commands/server.js';
import { exitCode } from '../src/grade/grade.js';
import { authorization } from '../suites/server/authorization.js';
import { describeFailures, freePort, harnessErrors, mcpcheckAsync, PROBE_TOKENS, PROTECTED_RUN, PROTECTED_TOKEN, REFERENCE, requireBuild, ROOT, runHttp, runStdio, withProtectedToken } from './server-helpers.js';

beforeAll(requireBuild);

const AUTH_ONLY = { only: authorization.map((s) => s.id) };
const SDK_PROTECTED = join(ROOT, 'dist/tests/fixtures/sdk/protected-server.js');
const REFERENCE_2026 = join(ROOT, 'dist/tests/fixtures/reference-2026/server.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const statuses = (report: RunReport, prefix = 'server.auth.') => Object.fromEntries(report.checks.filter((c) => c.id.startsWith(prefix)).map((c) => [c.id, c.status]));

const ALL_PASS = {
  'server.auth.no-token': 'pass',
  'server.auth.malformed-authorization/basic': 'pass',
  'server.auth.malformed-authorization/empty-bearer': 'pass',
  'server.auth.invalid-token/unknown': 'pass',
  'server.auth.invalid-token/unsigned-jwt': 'pass',
  'server.auth.expired-token': 'pass',
  'server.auth.other-audience-token': 'pass',
  'server.auth.insufficient-scope/status': 'pass',
  'server.auth.insufficient-scope/challenge': 'pass',
  'server.auth.token-in-query': 'pass',
  'server.auth.challenge-scope': 'pass',
  'server.auth.resource-metadata': 'pass',
  'server.auth.resource-metadata-servers': 'pass',
  'server.auth.resource-metadata-resource': 'pass',
  'server.auth.session-not-credential/no-token': 'pass',
  'server.auth.session-not-credential/invalid-token': 'pass',
  'server.auth.session-bound-to-user/request': 'pass',
  'server.auth.session-bound-to-user/delete': 'pass',
};

describe.concurrent('a protected server: the reference server with --auth', () => {
  it('with its token (--token-env): the whole suite passes but for the break of its challenge, and the token shows nowhere', async ({ expect }) => {
    const port = await freePort();
    const json = join(dir, 'with-token.json');
    const url = `http://127.0.0.1:${port}/mcp`;
    // Protected and correct but for a challenge without scope (a warning): a check that has a reproduce line.
    const start = withProtectedToken(`node ${REFERENCE} --http --port ${port} --break auth-challenge-without-scope`);
    const run = await mcpcheckAsync(
      ['server', '--url', url, '--start', start, '--token-env', 'MCPCHECK_TEST_TOKEN', '--expired-token-env', 'OLD_TOKEN', '--other-audience-token-env', 'OTHER_TOKEN', '--narrow-token-env', 'NARROW_TOKEN', '--other-user-token-env', 'SECOND_USER_TOKEN', '--broad-token-env', 'BROAD_TOKEN', '--local', '--json', json, '--verbose'],
      { MCPCHECK_TEST_TOKEN: PROTECTED_TOKEN, OLD_TOKEN: PROBE_TOKENS.expired!, OTHER_TOKEN: PROBE_TOKENS.otherAudience!, NARROW_TOKEN: PROBE_TOKENS.narrow!, SECOND_USER_TOKEN: PROBE_TOKENS.otherUser!, BROAD_TOKEN: PROBE_TOKENS.broad! },
    );
    const text = readFileSync(json, 'utf8');
    const report = JSON.parse(text) as RunReport;
    expect(run.code, `${run.stderr}\n${describeFailures(report)}`).toBe(0);
    expect(describeFailures(report)).toMatch(/^warn server\.auth\.challenge-scope \[AUTH-WWW-01\][^\n]*$/);
    expect(statuses(report)).toEqual({ ...ALL_PASS, 'server.auth.challenge-scope': 'warn' });
    // The protected server gets the rest of the suite as an open one would.
    expect(report.summary.checks.pass).toBeGreaterThan(100);
    for (const out of [run.stdout, run.stderr, text]) for (const token of [PROTECTED_TOKEN, ...Object.values(PROBE_TOKENS)]) expect(out).not.toContain(token);
    // The command line that starts the fixture names the token: it is shown as the variable it came from.
    expect(text).toContain('$MCPCHECK_TEST_TOKEN');
    // A reproduce line runs as pasted: it names the variable, not the token.
    const reproduce = report.checks.find((c) => c.id === 'server.auth.challenge-scope')?.reproduce ?? '';
    expect(reproduce).toContain('--token-env MCPCHECK_TEST_TOKEN --expired-token-env OLD_TOKEN --other-audience-token-env OTHER_TOKEN --narrow-token-env NARROW_TOKEN --other-user-token-env SECOND_USER_TOKEN --broad-token-env BROAD_TOKEN');
    // Meant to run locally (--local), it refuses whoever brings no token.
    expect(statuses(report, 'server.security.')).toEqual({ 'server.security.local-access-restricted': 'pass' });
    expect(reproduce).toMatch(/ --local( |$)/);
    // Another user's token reaches none of the run's tasks (the server's sessions keep them apart).
    expect(statuses(report, 'server.tasks.isolation')).toEqual({ 'server.tasks.isolation/get': 'pass', 'server.tasks.isolation/cancel': 'pass', 'server.tasks.isolation/result': 'pass', 'server.tasks.isolation/list': 'skip' });
    // The authorization server its metadata names (itself, on loopback) is graded apart, on its metadata.
    expect(report.authorizationServers?.map((a) => [a.issuer, a.status, a.report && Object.fromEntries(a.report.checks.map((c) => [c.id, c.status]))])).toEqual([
      [`http://127.0.0.1:${port}`, 'graded', { 'as.metadata.published': 'pass', 'as.metadata.issuer': 'pass', 'as.metadata.required-fields': 'pass', 'as.metadata.pkce': 'pass', 'as.metadata.https': 'skip', 'as.metadata.client-credentials': 'skip' }],
    ]);
    expect(report.authorizationServers?.[0]?.report?.target.role).toBe('AS');
  });

  it('without a token: the authorization scenarios run on what a request without one shows; the era could not run (exit 3)', async ({ expect }) => {
    const report = await runHttp((port) => withProtectedToken(`node ${REFERENCE} --http --port ${port} --auth`));
    const tokenNeeded = 'not judged: needs the token the run was given (--token-env NAME, or --header "Authorization: Bearer …"); without one it is not judged';
    expect(statuses(report)).toEqual({
      ...ALL_PASS,
      'server.auth.expired-token': 'skip',
      'server.auth.other-audience-token': 'skip',
      'server.auth.insufficient-scope/status': undefined,
      'server.auth.insufficient-scope/challenge': undefined,
      'server.auth.insufficient-scope': 'skip',
      'server.auth.token-in-query': 'skip',
      'server.auth.session-not-credential/no-token': undefined,
      'server.auth.session-not-credential/invalid-token': undefined,
      'server.auth.session-not-credential': 'skip',
      'server.auth.session-bound-to-user/request': undefined,
      'server.auth.session-bound-to-user/delete': undefined,
      'server.auth.session-bound-to-user': 'skip',
    });
    expect(report.checks.find((c) => c.id === 'server.auth.token-in-query')?.message).toBe(tokenNeeded);
    const era = report.checks.find((c) => c.id === 'server.era/could-not-run');
    expect(era).toMatchObject({ status: 'error', requirements: ['LIFE-INIT-02'] });
    expect(era?.message).toContain('requires authorization: initialize without a token got HTTP 401; give mcpcheck an access token with --token-env NAME');
    expect(era?.message).toContain('Without one, only the authorization scenarios ran');
    expect(report.checks.filter((c) => !c.id.startsWith('server.auth.') && c.id !== 'server.era/could-not-run')).toEqual([]);
    expect(report.summary.incomplete).toBeGreaterThan(0);
    expect(report.eras).toEqual([expect.objectContaining({ revision: '2025-11-25', status: 'could not run' })]);
  });

  it('a token that stops working mid-run: one could-not-run that says so, never a failure', async ({ expect }) => {
    const report = await runHttp((port) => withProtectedToken(`MCPCHECK_REFERENCE_TOKEN_USES=40 node ${REFERENCE} --http --port ${port} --auth`), PROTECTED_RUN);
    expect(report.checks.filter((c) => c.status === 'fail' || c.status === 'warn')).toEqual([]);
    expect(report.checks.filter((c) => c.status === 'error').map((c) => `${c.id} ${c.requirements.join()}`)).toEqual(['server.auth/token-refused AUTH-GEN-01']);
    expect(report.checks.filter((c) => c.message.includes("the server had begun refusing the run's token")).length).toBeGreaterThan(0);
    expect(report.summary.incomplete).toBe(1);
  });

  it('a server asking for DPoP-bound tokens: its authorization is not graded, said once per scenario', async ({ expect }) => {
    const report = await runHttp((port) => withProtectedToken(`MCPCHECK_REFERENCE_DPOP=1 node ${REFERENCE} --http --port ${port} --auth`));
    const auth = report.checks.filter((c) => c.id.startsWith('server.auth.'));
    expect(auth.length).toBeGreaterThan(5);
    for (const c of auth) expect(`${c.id} ${c.status} ${c.message}`).toMatch(/ skip not graded: the server asks for DPoP-bound tokens \(RFC 9449; WWW-Authenticate: "DPoP algs=/);
    expect(report.checks.find((c) => c.id === 'server.era/could-not-run')?.status).toBe('error');
  });

  it('a token it refuses: one line, exit 2', async ({ expect }) => {
    const port = await freePort();
    const run = await mcpcheckAsync(['server', '--url', `http://127.0.0.1:${port}/mcp`, '--start', withProtectedToken(`node ${REFERENCE} --http --port ${port} --auth`), '--token-env', 'WRONG_TOKEN'], { WRONG_TOKEN: 'not-the-token-at-all' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('refused the token mcpcheck was given: initialize got HTTP 401');
    expect(run.stderr + run.stdout).not.toContain('not-the-token-at-all');
  });

  it('fuzz without a token: one line naming how to give one, exit 2', async ({ expect }) => {
    const port = await freePort();
    const run = await mcpcheckAsync(['fuzz', '--url', `http://127.0.0.1:${port}/mcp`, '--start', withProtectedToken(`node ${REFERENCE} --http --port ${port} --auth`), '--runs', '1', '--out', join(dir, 'fuzz')]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('requires authorization: initialize without a token got HTTP 401; give mcpcheck an access token with --token-env NAME');
  });

  it('a token from the client credentials grant (--client-id, --client-secret-env): found through the metadata, carried by the run, shown nowhere', async ({ expect }) => {
    const port = await freePort();
    const json = join(dir, 'client-credentials.json');
    const secret = 'reference-client-secret-9c1e';
    const start = `MCPCHECK_REFERENCE_CLIENT_ID=svc MCPCHECK_REFERENCE_CLIENT_SECRET=${secret} ${withProtectedToken(`node ${REFERENCE} --http --port ${port} --auth`)}`;
    const run = await mcpcheckAsync(['server', '--url', `http://127.0.0.1:${port}/mcp`, '--start', start, '--client-id', 'svc', '--client-secret-env', 'SVC_SECRET', '--only', 'server.auth,server.tools', '--json', json, '--quiet'], { SVC_SECRET: secret });
    const text = readFileSync(json, 'utf8');
    const report = JSON.parse(text) as RunReport;
    expect(run.code, `${run.stderr}\n${describeFailures(report)}`).toBe(0);
    // Authorized: the tools scenarios ran, and the scenarios that need the token passed with it.
    expect(statuses(report)).toMatchObject({ 'server.auth.token-in-query': 'pass', 'server.auth.session-not-credential/no-token': 'pass' });
    expect(report.checks.filter((c) => c.id.startsWith('server.tools') && c.status === 'pass').length).toBeGreaterThan(3);
    for (const out of [run.stdout, run.stderr, text]) for (const value of [PROTECTED_TOKEN, secret]) expect(out).not.toContain(value);
  });

  it('the client credentials grant refused, or asked of a server that is not protected: one line, exit 2', async ({ expect }) => {
    const [protectedPort, openPort] = [await freePort(), await freePort()];
    const refused = await mcpcheckAsync(
      ['server', '--url', `http://127.0.0.1:${protectedPort}/mcp`, '--start', `MCPCHECK_REFERENCE_CLIENT_ID=svc MCPCHECK_REFERENCE_CLIENT_SECRET=right-secret-1 ${withProtectedToken(`node ${REFERENCE} --http --port ${protectedPort} --auth`)}`, '--client-id', 'svc', '--client-secret-env', 'SVC_SECRET'],
      { SVC_SECRET: 'wrong-secret-1' },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/--client-id: no token from the client credentials grant: the token endpoint http:\/\/127\.0\.0\.1:\d+\/token refused \(HTTP 401 .*invalid_client/);
    expect(refused.stderr).not.toContain('wrong-secret-1');
    const open = await mcpcheckAsync(['server', '--url', `http://127.0.0.1:${openPort}/mcp`, '--start', `node ${REFERENCE} --http --port ${openPort}`, '--client-id', 'svc', '--client-secret-env', 'SVC_SECRET'], { SVC_SECRET: 'any-secret-1' });
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/not 401: it is no protected resource to get a token for/);
  });

  it('--token-env naming a variable that is not set: one line, exit 2', async ({ expect }) => {
    const run = await mcpcheckAsync(['server', '--url', 'http://127.0.0.1:9/mcp', '--token-env', 'MCPCHECK_NO_SUCH_VARIABLE']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('mcpcheck: --token-env MCPCHECK_NO_SUCH_VARIABLE: the environment variable MCPCHECK_NO_SUCH_VARIABLE is not set');
  });
});

describe.concurrent('a server meant to run locally (--local): SEC-LOCAL-02', () => {
  const LOCAL_ONLY = { only: ['server.security.local-access-restricted'], local: true };
  const verdict = (report: RunReport) => report.checks.filter((c) => c.id === 'server.security.local-access-restricted').map((c) => `${c.status} ${c.requirements.join(',')}`);

  it('the reference server over HTTP without --auth serves anyone on the machine: a warning of SEC-LOCAL-02 alone', async ({ expect }) => {
    const report = await runHttp((port) => `node ${REFERENCE} --http --port ${port}`, LOCAL_ONLY);
    expect(verdict(report)).toEqual(['warn SEC-LOCAL-02']);
    expect(describeFailures(report)).toMatch(/^warn server\.security\.local-access-restricted \[SEC-LOCAL-02\][^\n]*served/);
  });

  it('over stdio it passes; without --local the rule is not judged', async ({ expect }) => {
    expect(verdict(await runStdio(`node ${REFERENCE}`, LOCAL_ONLY))).toEqual(['pass SEC-LOCAL-02']);
    expect(verdict(await runStdio(`node ${REFERENCE}`, { only: LOCAL_ONLY.only }))).toEqual(['skip SEC-LOCAL-02']);
  });
});

describe('a protected dual-era server: the 2026-07-28 reference server with --dual-era --auth', () => {
  it('with its token: both eras graded, the authorization scenarios in each', async () => {
    const report = await runHttp((port) => withProtectedToken(`node ${REFERENCE_2026} --http --port ${port} --dual-era --auth`), PROTECTED_RUN);
    expect(describeFailures(report)).toBe('');
    expect(report.eras?.map((e) => `${e.revision} ${e.status}`)).toEqual(['2025-11-25 tested', '2026-07-28 tested']);
    expect(statuses(report)).toEqual(ALL_PASS);
    // The stateless era has no sessions (SEC-SESS-01 and -03 are not among its rules), and the challenge of too little scope is AUTH-ERR-03's there.
    const modern = Object.fromEntries(Object.entries(ALL_PASS).filter(([id]) => !id.includes('.session-')).map(([id, status]) => [id.replace('server.', 'server.modern.'), status]));
    // Its task ids are state handles: naming one without a valid token is refused like any request (SEC-HANDLE-01).
    expect(statuses(report, 'server.modern.auth.')).toEqual({
      ...modern,
      'server.modern.auth.no-offline-access': 'pass',
      'server.modern.auth.handle-not-credential/no-token': 'pass',
      'server.modern.auth.handle-not-credential/invalid-token': 'pass',
      'server.modern.auth.scope-hierarchy': 'pass',
    });
    // Each era's tasks are out of another user's reach: 2025-11-25's by session, the extension's bound to the user.
    expect(statuses(report, 'server.modern.tasks.isolation')).toEqual({ 'server.modern.tasks.isolation/get': 'pass', 'server.modern.tasks.isolation/update': 'pass', 'server.modern.tasks.isolation/cancel': 'pass' });
    expect(statuses(report, 'server.tasks.isolation/get')).toEqual({ 'server.tasks.isolation/get': 'pass' });
  });
});

describe('the SDK v1 server behind its own bearer-token middleware (requireBearerAuth, mcpAuthMetadataRouter)', () => {
  it('gets the authorization verdicts the spec supports', async () => {
    const tokens = `MCPCHECK_SDK_TOKEN=${PROTECTED_TOKEN} MCPCHECK_SDK_EXPIRED_TOKEN=${PROBE_TOKENS.expired} MCPCHECK_SDK_OTHER_TOKEN=${PROBE_TOKENS.otherAudience} MCPCHECK_SDK_NARROW_TOKEN=${PROBE_TOKENS.narrow} MCPCHECK_SDK_SECOND_TOKEN=${PROBE_TOKENS.otherUser}`;
    const report = await runHttp((port) => `${tokens} node ${SDK_PROTECTED} --port ${port}`, { ...AUTH_ONLY, ...PROTECTED_RUN });
    expect(harnessErrors(report)).toEqual([]);
    // Every request needs mcp:tools (requiredScopes), so the narrow token is refused at the opening request, with 403 insufficient_scope.
    // Its sessions are keyed by id alone, as in the SDK's examples: another user's valid token acts
    // in them (SEC-SESS-03, a SHOULD of the security best practices: a warning).
    expect(statuses(report)).toEqual({ ...ALL_PASS, 'server.auth.session-bound-to-user/request': 'warn', 'server.auth.session-bound-to-user/delete': 'warn' });
    expect(report.checks.find((c) => c.id === 'server.auth.insufficient-scope/status')?.message).toContain('initialize with a valid token lacking a scope it needs');
    // The authorization server its metadata router describes (itself): its metadata graded apart, and sound.
    const as = report.authorizationServers?.[0];
    expect(as?.status, JSON.stringify(as)).toBe('graded');
    expect(as?.report && statuses(as.report, 'as.')).toEqual({ 'as.metadata.published': 'pass', 'as.metadata.issuer': 'pass', 'as.metadata.required-fields': 'pass', 'as.metadata.pkce': 'pass', 'as.metadata.https': 'skip', 'as.metadata.client-credentials': 'skip' });
  });
});

/** A challenge naming the resource's metadata at /prm. */
const named = (origin: string) => `Bearer resource_metadata="${origin}/prm", scope="mcp:tools"`;

/**
 * A protected resource of the test's own that answers every POST with 401 and a challenge naming
 * its metadata at /prm, served as `prm` says: what mcpcheck must bound (issue 22, bad input).
 */
async function hostileResource(challenge: (origin: string) => string, prm: (res: import('node:http').ServerResponse) => void, onWellKnown?: () => void): Promise<{ url: string; close: () => void }> {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (req.method === 'GET' && req.url === '/prm') return prm(res);
    if (req.url?.startsWith('/.well-known/')) onWellKnown?.();
    res.writeHead(401, { 'WWW-Authenticate': challenge(origin), 'Content-Type': 'application/json' }).end('{"error":"unauthorized"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
  return {
    url,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('the authorization servers a protected resource names', () => {
  it('one elsewhere is not contacted; one on loopback that serves no metadata is graded so (the run fails for it); one that is no web URL is passed over', async () => {
    let metadataAsked = 0;
    const issuers = (origin: string) => ['https://login.mcpcheck-remote.invalid/tenant', `${origin}/as`, 'urn:not-a-web-issuer'];
    const target = await hostileResource(named, (res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ resource: 'x', authorization_servers: issuers(new URL(target.url).origin) })), () => metadataAsked++);
    try {
      const report = await testServer({ url: target.url, targetFlags: `--url ${target.url}`, only: ['server.auth.resource-metadata-servers'], requestTimeoutMs: 3_000 });
      const origin = new URL(target.url).origin;
      expect(report.authorizationServers?.map((a) => [a.issuer, a.status])).toEqual([
        ['https://login.mcpcheck-remote.invalid/tenant', 'not contacted'],
        [`${origin}/as`, 'graded'],
      ]);
      expect(report.authorizationServers?.[0]?.detail).toMatch(/--allow-remote-metadata/);
      const graded = report.authorizationServers![1]!.report!;
      expect(graded.checks.find((c) => c.id === 'as.metadata.published')).toMatchObject({ status: 'fail', reproduce: expect.stringMatching(/ authorization --url "http:\/\/127\.0\.0\.1:\d+\/as" --spec-version 2025-11-25 --only as\.metadata\.published$/) });
      // Its well-known URLs were asked (the resource answers them 401), and the run fails for its MUST.
      expect(metadataAsked).toBeGreaterThan(0);
      expect(exitCode(report)).toBe(1);
      expect(report.summary.mustFailures).toBe(0);
    } finally {
      target.close();
    }
  });
});

describe.concurrent('a hostile protected resource: a finding or a bounded could-not-run, never a hang or a crash', () => {
  type Serve = (res: import('node:http').ServerResponse) => void;
  // The verdict of server.auth.resource-metadata (AUTH-PRM-02), and what its message says.
  it.each([
    ['metadata that is not JSON: a failure', named, ((res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>login</body></html>')) as Serve, 'fail', /HTTP 200 \(text\/html\): "<html>/],
    // Reading 20 MB is beyond mcpcheck's bound, not the server's fault: whether it was JSON is not known.
    ['metadata of 20 MB: could not judge', named, ((res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(`{"resource":"${'x'.repeat(20 * 1024 * 1024)}"}`)) as Serve, 'error', /body longer than mcpcheck reads/],
    ['metadata that never answers: a failure, within the wait', named, (() => undefined) as Serve, 'fail', /no response within \d+ ms/],
    // Read leniently, the unterminated quote swallows the scope: the URL it names serves no metadata.
    ['a challenge whose quoted string never ends: a failure', (origin: string) => `Bearer resource_metadata="${origin}/prm, scope="mcp:tools`, ((res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}')) as Serve, 'fail', /prm,%20scope=/],
  ] as const)('%s', async (_name, challenge, prm, status, said) => {
    const target = await hostileResource(challenge, prm);
    try {
      const started = performance.now();
      const report = await testServer({ url: target.url, targetFlags: `--url ${target.url}`, only: AUTH_ONLY.only, requestTimeoutMs: 3_000 });
      expect(performance.now() - started).toBeLessThan(60_000);
      // No token: the era could not run; the authorization scenarios judged what the server showed.
      expect(report.checks.filter((c) => c.status === 'error' && c.id !== 'server.auth.resource-metadata').map((c) => c.id)).toEqual(['server.era/could-not-run']);
      const metadata = report.checks.find((c) => c.id === 'server.auth.resource-metadata');
      expect(metadata?.status, metadata?.message).toBe(status);
      expect(metadata?.message).toMatch(said);
      for (const c of report.checks) expect(c.message.length, c.id).toBeLessThan(4_000);
    } finally {
      target.close();
    }
  });
});
