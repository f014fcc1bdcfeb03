/**
 * `mcpcheck client` against OAuth clients (basic/authorization.mdx): mcpcheck's endpoint protected
 * by its own loopback authorization server. The reference OAuth client passes, each of its breaks
 * fails exactly its rule, the SDK example client passes, and a client that stops at the 401 gets
 * skips that say so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { testClient, type ClientCommandOptions } from '../src/commands/client.js';
import type { RunReport } from '../src/model.js';
import { inLanes } from '../src/runner/guard.js';
import { clientScenarios } from '../suites/client/index.js';
import { OAUTH_CLIENT_BREAKS } from './fixtures/client/oauth-breaks.js';
import { OAUTH_CLIENT_2026_BREAKS } from './fixtures/client-2026/oauth-breaks.js';
import { ALL_PASS, ALL_PASS_2026, authVerdicts } from './client-auth-verdicts.js';
import { describeFailures, harnessErrors, mcpcheckAsync, requireBuild, ROOT } from './server-helpers.js';

beforeAll(requireBuild);

const OAUTH_CLIENT = join(ROOT, 'dist/tests/fixtures/client/oauth-client.js');
const OAUTH_CLIENT_2026 = join(ROOT, 'dist/tests/fixtures/client-2026/oauth-client.js');
const FIXTURE = join(ROOT, 'dist/tests/fixtures/client/client.js');
const AUTH_ONLY = { only: ['client.auth'] };

/** Whether this machine can make the network sandbox (as mcpcheck does: unshare, then ip on the new loopback). */
function canIsolateNetwork(): boolean {
  const user = process.getuid?.() === 0 ? [] : ['--user', '--map-root-user'];
  return spawnSync('unshare', [...user, '--net', '--', 'ip', 'link', 'set', 'lo', 'up'], { timeout: 10_000 }).status === 0;
}

function run(command: string, extra: Partial<ClientCommandOptions> = {}): Promise<RunReport> {
  return testClient({ command, targetFlags: `--command ${JSON.stringify(command)}`, concurrency: 4, ...AUTH_ONLY, ...extra });
}

/** Rules a break also breaks by necessity, beside its own; each entry says why. */
const ALSO: Record<string, string[]> = {
  // Without the metadata the SDK v1 sends no resource at all (it takes it from the metadata alone),
  // and cannot know the metadata's scopes_supported.
  // Nor can it know an issuer with a path: it looks for the metadata at the server's origin.
  'auth-no-resource-metadata': ['client.auth.resource', 'client.auth.scope-from-metadata', 'client.auth.metadata-order'],
  // Dropping the scope it was told drops the metadata's scopes too: the same rule, its other variant;
  // and the challenge's scopes where they differ from the metadata's (AUTH-WWW-03).
  // And it drops the scope the 403 named from its step-up authorization.
  'auth-scope-dropped': ['client.auth.scope-from-metadata', 'client.auth.scope-challenge-authoritative', 'client.auth.step-up'],
  // Pre-registered, it is assigned client_secret_basic as well.
  'auth-client-secret-post': ['client.auth.pre-registration'],
  // Its token request for either credential leaves out resource.
  'auth-cc-resource-dropped': ['client.auth.client-credentials-jwt/resource'],
  // No Protected Resource Metadata, no authorization: the metadata variant's as well.
  'auth-no-legacy-fallback': ['client.auth.legacy-metadata/discovery'],
};

/**
 * The scenarios a break run needs: those citing its rule, and those ALSO names (as a server break
 * run does, breakScope): each scenario is a client process or two, and all of them for each break
 * spent most of this file's CPU. The correct clients' runs are whole.
 */
function authBreakScope(requirement: string, name: string): { only: string[] } {
  const citing = clientScenarios.filter((s) => s.id.startsWith('client.auth.') && (s.requirements as readonly string[]).includes(requirement)).map((s) => s.id);
  // An ALSO entry may be a keyed check id (`<scenario>/<key>`): its scenario runs.
  return { only: [...citing.flatMap((id) => PREPARED_BY[id] ?? []), ...citing, ...(ALSO[name] ?? []).map((id) => id.split('/')[0]!)] };
}

/** Scenarios that judge only what an earlier one learnt of the client (ClientScenario.skipIf), and that one. */
const PREPARED_BY: Record<string, string[]> = {
  // Only a client seen to take the contract's pre-registered client there is judged on the order, or on carrying it to another server.
  'client.auth.registration-order': ['client.auth.pre-registration'],
  'client.auth.pre-registered-elsewhere': ['client.auth.pre-registration'],
};

// Some thirty scenarios one at a time, each a whole OAuth flow: on a loaded machine one run took a minute.
describe.concurrent('a client meeting a protected server', { timeout: 180_000 }, () => {
  it('the reference OAuth client passes every authorization scenario', async () => {
    const report = await run(`node ${OAUTH_CLIENT}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(authVerdicts(report), describeFailures(report)).toEqual(ALL_PASS);
  });

  it('the 2026-07-28 reference OAuth client (SDK v2) passes every authorization scenario, those of 2026-07-28 included', async () => {
    const report = await run(`node ${OAUTH_CLIENT_2026}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(authVerdicts(report), describeFailures(report)).toEqual(ALL_PASS_2026);
  });

  it('the 2026-07-28 reference OAuth client opening a browser (--browser): mcpcheck\'s browser takes it through the flow, and it refuses every dangerous authorization endpoint', async () => {
    const report = await run(`node ${OAUTH_CLIENT_2026} --browser`, { only: ['client.auth.pkce', 'client.auth.redirect-registered', 'SEC-AUTHURL-01'] });
    expect(harnessErrors(report)).toEqual([]);
    expect(authVerdicts(report), describeFailures(report)).toEqual({
      'client.auth.pkce': 'pass',
      'client.auth.redirect-registered': 'pass',
      'client.auth.authorization-url-javascript': 'pass',
      'client.auth.authorization-url-data': 'pass',
      'client.auth.authorization-url-file': 'pass',
    });
    // Each refusal is told from a client that opens nothing by a control client that opened the plain endpoint in the browser.
    for (const scheme of ['javascript', 'data', 'file']) expect(report.checks.find((c) => c.id === `client.auth.authorization-url-${scheme}`)!.message).toMatch(/a control client, served the plain metadata, opened "http:\/\/127\.0\.0\.1:\d+\/\S*authorize\?/);
  });

  it('in the network sandbox (--network-sandbox): the 2026-07-28 reference OAuth client asks no authorization server at a private address or over plain http off loopback, follows no redirect there, and each of its three breaks is warned of its own rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-sandbox-'));
    try {
      const sandboxed = async (extra: string) => {
        const json = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
        const run = await mcpcheckAsync(['client', '--network-sandbox', '--command', `node ${OAUTH_CLIENT_2026}${extra}`, '--only', 'SEC-SSRF-02,SEC-SSRF-03,client.auth.pkce', '--json', json, '--quiet']);
        return { run, report: existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as RunReport) : undefined };
      };
      const correct = await sandboxed('');
      if (!canIsolateNetwork()) {
        // A machine that cannot make the namespace says so in one line, exit 2.
        expect(correct.run.code).toBe(2);
        expect(correct.run.stderr).toMatch(/^mcpcheck: --network-sandbox: this machine cannot make an isolated network namespace \(.*\); run without it/);
        return;
      }
      expect(correct.run.code, correct.run.stderr).toBe(0);
      expect(authVerdicts(correct.report!)).toEqual({ 'client.auth.pkce': 'pass', 'client.auth.ssrf-private-address': 'pass', 'client.auth.ssrf-plain-http': 'pass', 'client.auth.ssrf-redirect': 'pass' });
      const sandboxBreaks: Array<[string, { requirement: string; check: string; verdict?: 'warn' }]> = Object.entries(OAUTH_CLIENT_2026_BREAKS).filter(([, b]) => 'sandbox' in b);
      expect(sandboxBreaks.length).toBe(3);
      for (const [name, b] of sandboxBreaks) {
        const { report } = await sandboxed(` --break ${name}`);
        const bad = report!.checks.filter((c) => c.status !== 'pass' && c.status !== 'skip').map((c) => `${c.status} ${c.id} ${c.requirements[0]}`);
        expect(bad, name).toEqual([`${b.verdict ?? 'fail'} ${b.check} ${b.requirement}`]);
        // Its reproduce line runs as pasted: in the sandbox again.
        expect(report!.checks.find((c) => c.id === b.check)?.reproduce).toContain('--network-sandbox');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a client that takes authorization servers on https: only is judged all the same: once it asked a plain-http one nothing, the authorization server moves to https', async () => {
    const report = await run(`node ${OAUTH_CLIENT}`, { env: { ...process.env, MCPCHECK_OAUTH_HTTPS_AS: '1' } });
    expect(harnessErrors(report)).toEqual([]);
    // A 2025-03-26 server's authorization server is its own plain-http origin: not started for it.
    const plainOnly = Object.entries(ALL_PASS).filter(([id]) => !id.startsWith('client.auth.legacy-'));
    expect(authVerdicts(report), describeFailures(report)).toEqual({ ...Object.fromEntries(plainOnly), 'client.auth.legacy-metadata': 'skip', 'client.auth.legacy-fallback': 'skip' });
    expect(report.notes.join('\n')).toMatch(/asked an authorization server on plain http nothing, but went on with one on https \(https:\/\/127\.0\.0\.1:\d+\)/);
  });

  // Each run takes its scenarios one at a time (oneAtATime), two runs at once per family.
  const families = [
    ['the SDK v1 reference OAuth client', OAUTH_CLIENT, OAUTH_CLIENT_BREAKS],
    ['the SDK v2 (2026-07-28) reference OAuth client', OAUTH_CLIENT_2026, OAUTH_CLIENT_2026_BREAKS],
  ] as const;
  for (const [family, client, breaks] of families) {
    it(`each break of ${family} fails exactly its check`, { timeout: 600_000 }, async () => {
      const problems: string[] = [];
      // Those that need the network sandbox run there, below.
      const here = Object.entries(breaks).filter(([, b]) => !('sandbox' in b));
      await inLanes(here, 2, async ([name, b]: [string, { requirement: string; check: string; verdict?: 'warn' }]) => {
        const report = await run(`node ${client} --break ${name}`, authBreakScope(b.requirement, name));
        const bad = report.checks.filter((c) => c.status !== 'pass' && c.status !== 'skip');
        const expected = b.verdict ?? 'fail';
        const allowed = [b.check, ...(ALSO[name] ?? [])];
        const wrong = bad.filter((c) => !allowed.includes(c.id) || (c.id === b.check && (c.status !== expected || !c.requirements.includes(b.requirement))));
        if (!bad.some((c) => c.id === b.check) || wrong.length > 0) problems.push(`${name}: expected ${expected} ${b.check}, got ${bad.map((c) => `${c.status} ${c.id}`).join(', ') || 'nothing'}`);
      });
      expect(problems).toEqual([]);
    });
  }

  it('each alias and contract name is a client scenario of the pinned official package, and no alias is used twice', async () => {
    const listed = execFileSync(process.execPath, [join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'), 'list', '--client'], { encoding: 'utf8' });
    const official = new Set([...listed.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]));
    const aliases = clientScenarios.flatMap((s) => (s.alias ? [s.alias] : []));
    const named = [...aliases, ...clientScenarios.flatMap((s) => (s.contract ? [s.contract] : []))];
    expect(official.size).toBeGreaterThan(10);
    expect(named.filter((n) => !official.has(n))).toEqual([]);
    expect(aliases.filter((a, i) => aliases.indexOf(a) !== i)).toEqual([]);
    expect(clientScenarios.filter((s) => s.id.startsWith('client.auth.') && (s.alias ?? s.contract) === undefined).map((s) => s.id)).toEqual([]);
  });

  it('a client that stops at the 401 (the reference MCP client, which does no OAuth): skips that say authorization is optional', async () => {
    const report = await run(`node ${FIXTURE}`);
    // A scenario not started records one skip under its own id, whatever checks it keys when it runs.
    const scenarios = [...new Set(Object.keys(ALL_PASS_2026).map((id) => id.split('/')[0]!))];
    expect(authVerdicts(report)).toEqual(Object.fromEntries(scenarios.map((id) => [id, 'skip'])));
    for (const c of report.checks.filter((x) => x.id.startsWith('client.auth.'))) expect(c.message).toMatch(/did not start OAuth \(authorization is optional in MCP\)/);
    // Once the plain protected endpoint showed that, the other scenarios start it no more.
    expect(report.checks.filter((c) => c.message.includes('not started again')).length).toBe(scenarios.length - 1);
  });
});
