import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientScenarios } from '../suites/client/index.js';
import { serverScenarios } from '../suites/server/index.js';
import { authorizationServerScenarios } from '../suites/authorization-server/index.js';
import { ORACLES } from '../src/fuzz/oracles.js';
import { grade } from '../src/grade/grade.js';
import type { CheckResult } from '../src/model.js';
import { renderConsole } from '../src/report/console.js';
import { totalsLine } from '../src/report/coverage.js';
import { allRequirements, bindsRole, requirement } from '../src/spec/catalog.js';
import { buildCoverage, type CoverageMatrix, type CoverageSources, type ScenarioRef, scenarioRef, untestedContext } from '../src/grade/coverage.js';
import { UNTESTED_AREAS } from '../src/grade/untested.js';
import { TRANSPORT_RULES, VALIDATOR_RULES } from '../src/validate/coverage.js';
import { requireBuild, ROOT } from './server-helpers.js';
import type { RequirementId } from '../src/spec/requirement-id.js';

const CLI = join(ROOT, 'dist/src/cli.js');
const ID = /['"`]([A-Z]+(?:-[A-Z]+)*-\d{2})['"`]/g;
const SOURCES: CoverageSources = { server: serverScenarios.map(scenarioRef), client: clientScenarios.map(scenarioRef), authorization: authorizationServerScenarios.map(scenarioRef) };

beforeAll(requireBuild);

function mcpcheck(args: string[], nodeFlags: string[] = []) {
  const r = spawnSync(process.execPath, [...nodeFlags, CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function idsIn(dir: string): Set<string> {
  const ids = new Set<string>();
  for (const name of readdirSync(join(ROOT, dir))) for (const m of readFileSync(join(ROOT, dir, name), 'utf8').matchAll(ID)) ids.add(m[1]!);
  return ids;
}

const row = (m: CoverageMatrix, id: string) => m.rows.find((r) => r.id === id)!;

describe('the requirement matrix', () => {
  const all = buildCoverage(SOURCES);

  it('counts what the catalog test counts: 344 requirements, the 3 of the client credentials extension and the 3 of 2025-03-26 alone, per level and per area', () => {
    expect(all.totals.all.total).toBe(344 + 3 + 3);
    expect(all.rows.map((r) => r.id)).toEqual(allRequirements().map((r) => r.id));
    for (const level of ['MUST', 'SHOULD', 'MAY'] as const) expect(all.totals[level].total, level).toBe(allRequirements().filter((r) => r.level === level).length);
    for (const key of ['MUST', 'SHOULD', 'MAY', 'all'] as const) {
      expect(all.areas.reduce((n, a) => n + a.totals[key].total, 0)).toBe(all.totals[key].total);
      expect(all.areas.reduce((n, a) => n + a.totals[key].covered, 0)).toBe(all.totals[key].covered);
    }
    expect(all.totals.all.covered).toBe(all.rows.filter((r) => r.covered).length);
    for (const role of ['server', 'client', 'AS'] as const) {
      expect(buildCoverage(SOURCES, { role }).totals.all.total, role).toBe(allRequirements().filter((r) => bindsRole(r, role)).length);
    }
  });

  it('covers exactly the bound rules some scenario, validator rule or fuzz oracle cites', () => {
    const cited = new Set([...serverScenarios, ...clientScenarios, ...ORACLES].flatMap((s) => s.requirements));
    for (const id of [...VALIDATOR_RULES, ...TRANSPORT_RULES.stdio, ...TRANSPORT_RULES.http]) cited.add(id);
    const asCited = new Set(authorizationServerScenarios.flatMap((s) => s.requirements));
    const judgeable = (id: RequirementId) => (cited.has(id) && (bindsRole(requirement(id), 'server') || bindsRole(requirement(id), 'client'))) || (asCited.has(id) && bindsRole(requirement(id), 'AS'));
    expect(all.rows.filter((r) => r.covered).map((r) => r.id)).toEqual(allRequirements().map((r) => r.id).filter(judgeable));
    // Of tasks, what live validation and the server and client scenarios judge so far; of authorization, what the scenarios of a protected server, an OAuth client and an authorization server judge.
    expect(all.rows.filter((r) => r.id.startsWith('TASK-') && r.covered).map((r) => r.id)).toEqual([
      'TASK-CAP-01', 'TASK-CAP-02', 'TASK-TOOL-01', 'TASK-TOOL-02', 'TASK-TOOL-03', 'TASK-TOOL-04', 'TASK-SUP-01', 'TASK-CREATE-01', 'TASK-ID-01', 'TASK-ST-01', 'TASK-ST-02',
      'TASK-IR-01', 'TASK-IR-02', 'TASK-IR-03', 'TASK-TTL-01', 'TASK-TTL-02', 'TASK-POLL-01', 'TASK-RES-01', 'TASK-RES-02', 'TASK-RES-03', 'TASK-META-01', 'TASK-META-02', 'TASK-META-03', 'TASK-NOTIF-02', 'TASK-LIST-01', 'TASK-LIST-02', 'TASK-LIST-03', 'TASK-CANCEL-01', 'TASK-CANCEL-02', 'TASK-CANCEL-03',
      'TASK-ERR-01', 'TASK-EXEC-01', 'TASK-SEC-01', 'TASK-SEC-02', 'TASK-HTTP-01',
    ]);
    expect(all.rows.filter((r) => r.id.startsWith('AUTH-') && r.covered).map((r) => r.id)).toEqual([
      'AUTH-GEN-01', 'AUTH-AS-01', 'AUTH-PRM-01', 'AUTH-PRM-02', 'AUTH-PRM-03', 'AUTH-PRM-04', 'AUTH-WWW-01', 'AUTH-WWW-02', 'AUTH-WWW-03', 'AUTH-ASMD-01', 'AUTH-ASMD-02', 'AUTH-ASMD-03',
      'AUTH-REG-01', 'AUTH-CIMD-01', 'AUTH-CIMD-02', 'AUTH-CIMD-03', 'AUTH-CIMD-04', 'AUTH-CIMD-05', 'AUTH-DCR-01', 'AUTH-SCOPE-01', 'AUTH-RES-01', 'AUTH-RES-02', 'AUTH-TOKEN-01', 'AUTH-TOKEN-02', 'AUTH-TOKEN-03', 'AUTH-TOKEN-04',
      'AUTH-TOKEN-05', 'AUTH-ERR-01', 'AUTH-ERR-02', 'AUTH-STEP-01', 'AUTH-STEP-02', 'AUTH-SEC-02', 'AUTH-SEC-03', 'AUTH-SEC-04', 'AUTH-PKCE-01', 'AUTH-PKCE-02', 'AUTH-PKCE-03',
      'AUTH-REDIR-01', 'AUTH-REDIR-02', 'AUTH-REDIR-03', 'AUTH-CC-01', 'AUTH-CC-03', 'AUTH-LEGACY-01', 'AUTH-LEGACY-02', 'AUTH-LEGACY-03',
    ]);
    // A rule that binds both sides of OAuth is judged for each by its own scenarios.
    expect(row(all, 'AUTH-SEC-04').coveredBy.map((c) => `${c.kind} ${c.id} ${c.roles.join()}`)).toEqual(['client-scenario client.auth.redirect-safe client', 'as-scenario as.registration.redirect-scheme AS']);
  });

  it('says for which role, transport and revisions a rule is judged, and by what', () => {
    const sse = row(all, 'HTTP-SSE-01');
    expect(sse).toMatchObject({ covered: true, roles: ['server'], transports: ['http'], revisions: ['2025-11-25'] });
    expect(sse.coveredBy.map((c) => c.kind)).toEqual(expect.arrayContaining(['server-scenario', 'live']));
    expect(sse.coveredBy.map((c) => c.kind)).not.toContain('validate');
    expect(row(all, 'STDIO-OUT-01')).toMatchObject({ roles: ['server'], transports: ['stdio'] });
    expect(row(all, 'BASE-MSG-05').revisions).toEqual(['2024-11-05', '2025-06-18', '2025-11-25']);
    const version = row(all, 'LIFE-VER-01');
    expect(version.coveredBy).toContainEqual({ kind: 'client-scenario', id: 'client.lifecycle.handshake', roles: ['client'], transports: ['stdio', 'http'] });
    expect(row(all, 'ROBUST-05').coveredBy).toContainEqual({ kind: 'fuzz', id: 'fuzz.survives', roles: ['server'], transports: ['stdio', 'http'] });
    // A client-only rule is not covered for a server, whatever cites it.
    expect(buildCoverage(SOURCES, { role: 'server' }).rows.some((r) => r.id === 'HTTP-POST-02')).toBe(false);
    expect(row(buildCoverage(SOURCES, { role: 'client' }), 'STDIO-FRAME-01').coveredBy.every((c) => c.roles.join() === 'client')).toBe(true);
  });

  it('filters by area name or id prefix and lists only the uncovered, counting all', () => {
    const auth = buildCoverage(SOURCES, { area: 'AUTH', uncovered: true });
    // The core catalog's 44, the client credentials extension's 3 (AUTH-CC-02, a client's configuration, is not black-box) and 2025-03-26's own 3.
    expect(auth.totals.all).toEqual({ covered: 45, total: 50 });
    expect(auth.rows).toHaveLength(5);
    const tools = buildCoverage(SOURCES, { area: 'tools', uncovered: true });
    expect(tools.areas.map((a) => a.area)).toEqual(['Tools']);
    expect(tools.rows.length).toBe(tools.totals.all.total - tools.totals.all.covered);
  });

  it('knows every requirement a suite cites: each is declared by a scenario of that role', () => {
    const declared = (list: Array<{ requirements: string[] }>) => new Set(list.flatMap((s) => s.requirements));
    expect([...idsIn('suites/server')].filter((id) => !declared(serverScenarios).has(id))).toEqual([]);
    expect([...idsIn('suites/client')].filter((id) => !declared(clientScenarios).has(id))).toEqual([]);
    expect([...idsIn('suites/authorization-server')].filter((id) => !declared(authorizationServerScenarios).has(id))).toEqual([]);
  });

  it('knows every rule the transports judge live', () => {
    const known = new Set<string>([...VALIDATOR_RULES, ...TRANSPORT_RULES.stdio, ...TRANSPORT_RULES.http]);
    const cited = [...idsIn('src/transport'), ...[...readFileSync(join(ROOT, 'src/validate/client-http.ts'), 'utf8').matchAll(ID)].map((m) => m[1]!)];
    expect(cited.filter((id) => !known.has(id))).toEqual([]);
  });
});

describe('mcpcheck coverage', () => {
  it('prints the matrix the suites give, from the build\'s scenario index, without loading ajv', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-coverage-'));
    const hook = join(dir, 'hook.mjs');
    writeFileSync(hook, "export async function resolve(s, c, next) { if (/^ajv|fast-check/.test(s)) throw new Error('loaded ' + s); return next(s, c); }\n");
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hook).href)});\n`);
    const r = mcpcheck(['coverage', '--format', 'json'], ['--import', join(dir, 'register.mjs')]);
    expect(r.code, r.stderr).toBe(0);
    const both = [buildCoverage(SOURCES), buildCoverage(SOURCES, { revision: '2026-07-28' })];
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify({ catalogs: both })));
    const one = mcpcheck(['coverage', '--format', 'json', '--spec-version', '2026-07-28']);
    expect(JSON.parse(one.stdout)).toEqual(JSON.parse(JSON.stringify(both[1])));
  });

  it('lists the 2026-07-28 catalog from its own rows, and counts only scenarios whose revision span reaches it', () => {
    const m = buildCoverage(SOURCES, { revision: '2026-07-28' });
    expect(m.spec).toBe('2026-07-28');
    // The revision's 417 rows and the extensions', which judge 2026-07-28 traffic where the extension is in play.
    expect(m.totals.all.total).toBe(417 + m.extensions.find((e) => e.extension === 'io.modelcontextprotocol/tasks')!.total + 3);
    expect(m.extensions.find((e) => e.extension === 'io.modelcontextprotocol/oauth-client-credentials')?.total).toBe(3);
    expect(m.rows.filter((r) => r.id.startsWith('TASK-')).length).toBe(m.extensions[0]!.total);
    expect(m.rows.find((r) => r.id === 'LIFE-INIT-01')).toBeUndefined();
    expect(m.rows.find((r) => r.id === 'DISC-IMPL-01')).toMatchObject({ revisions: ['2026-07-28'], url: 'https://modelcontextprotocol.io/specification/2026-07-28/server/discover' });
    const coverers = (ref: Partial<ScenarioRef>) =>
      buildCoverage({ server: [{ id: 'server.x', requirements: ['TOOL-CAP-01'], ...ref }], client: [] }, { revision: '2026-07-28' }).rows.find((r) => r.id === 'TOOL-CAP-01')!.coveredBy.map((c) => c.id);
    expect(coverers({ revisions: { introduced: '2026-07-28' } })).toContain('server.x');
    expect(coverers({ carriedOver: true })).toContain('server.x');
    // Written for the initialize era, and not carried over: the runner does not run it in 2026-07-28.
    expect(coverers({})).not.toContain('server.x');
    expect(coverers({ carriedOver: true, revisions: { removed: '2026-07-28' } })).not.toContain('server.x');
    const old = buildCoverage({ server: [{ id: 'server.x', requirements: ['TOOL-CAP-01'], revisions: { introduced: '2026-07-28' } }], client: [] });
    expect(old.rows.find((r) => r.id === 'TOOL-CAP-01')!.coveredBy.map((c) => c.id)).not.toContain('server.x');
  });

  it('text and Markdown show per-area totals, every row, and the total', () => {
    const m = buildCoverage(SOURCES);
    const total = `MUST ${m.totals.MUST.covered}/216 · SHOULD ${m.totals.SHOULD.covered}/127 · MAY ${m.totals.MAY.covered}/7 · all ${m.totals.all.covered}/350`;
    const text = mcpcheck(['coverage']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Total: ${total} covered`);
    const modern = buildCoverage(SOURCES, { revision: '2026-07-28' });
    expect(text.stdout).toMatch(/^mcpcheck coverage of the 2025-11-25 catalog: 350 requirements, of which 3 of the extension io\.modelcontextprotocol\/oauth-client-credentials[^]*^mcpcheck coverage of the 2026-07-28 catalog: \d+ requirements, of which 33 of the extension io\.modelcontextprotocol\/tasks/m);
    expect(text.stdout).toContain(`Total: ${totalsLine(modern.totals)} covered`);
    expect(text.stdout).toMatch(/^ {2}AUTH-GEN-02 +SHOULD +binds both +NOT COVERED \(since 2025-03-26\)$/m);
    expect(text.stdout).toMatch(/^ {2}HTTP-SSE-01 +SHOULD +binds server +server over http, since 2025-11-25: server\.http[^\n]*live\.HTTP-SSE-01$/m);
    for (const r of m.rows) expect(text.stdout).toContain(`  ${r.id} `);
    const md = mcpcheck(['coverage', '--format', 'markdown', '--role', 'client', '--uncovered']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('| **total** |');
    expect(md.stdout).toMatch(/^\| \[ICON-MIME-01\]\(https:\/\/modelcontextprotocol\.io\/[^)]+\) \| MUST \| client \| — \| — \| since 2025-11-25 \| \*\*not covered\*\* \|$/m);
    expect(md.stdout).not.toContain('[LIFE-INIT-01]');
  });

  it('refuses an area that matches nothing in one line, and is in --help', () => {
    const r = mcpcheck(['coverage', '--area', 'nonsense']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mcpcheck: --area nonsense matches no catalog area[^\n]*\n$/);
    expect(mcpcheck(['--help']).stdout).toMatch(/mcpcheck coverage +the requirement matrix/);
  });
});

describe('what a run did not test', () => {
  const check = (id: string, status: CheckResult['status'], req: RequirementId): CheckResult => ({ id, title: id, requirements: [req], level: requirement(req).level, status, message: '', area: requirement(req).area, evidence: [] });
  const report = (checks: CheckResult[], selected: boolean) =>
    grade({ role: 'server', tool: { name: 'mcpcheck', version: '0' }, target: { kind: 'stdio', description: 'x' }, startedAt: 'x', durationMs: 0, checks, untested: untestedContext('server', { scenarios: SOURCES.server, role: 'server', selected }) });

  it('names each area no check of the run cites, with why, and the known gaps', () => {
    const r = report([check('a', 'pass', 'PING-01'), check('b', 'skip', 'TOOL-LIST-01')], true);
    const why = Object.fromEntries(r.untested.map((u) => [u.area, u.why]));
    expect(why.Ping).toBeUndefined();
    // Skipped checks are in the report with their reasons already.
    expect(why.Tools).toBeUndefined();
    expect(why.Cancellation).toBe('no check of it was selected (--only/--skip)');
    expect(why.Roots).toBe('mcpcheck server has no check for it');
    // A server run judges authorization (of a protected server): left out by the selection here.
    expect(why.Authorization).toBe('no check of it was selected (--only/--skip)');
    // A run of a command with no authorization check says which commands judge it.
    const validate = grade({ role: 'server', tool: { name: 'mcpcheck', version: '0' }, target: { kind: 'stdio', description: 'x' }, startedAt: 'x', durationMs: 0, checks: [check('a', 'pass', 'PING-01')], untested: untestedContext('validate') });
    expect(validate.untested.find((u) => u.area === 'Authorization')?.why).toBe(UNTESTED_AREAS.find((g) => g.area === 'Authorization')!.why);
    // A server run tests part of 2026-07-28 (discovery, versions, _meta, headers), and says which part it does not.
    expect(why['revision 2026-07-28, in part']).toBeDefined();
    expect(why['parts of the client suite']).toBeUndefined();
    expect(report([], false).untested.find((u) => u.area === 'Cancellation')?.why).toBe("no check of this run judged it: the target's traffic never exercised its rules");
  });

  it('the console shows it once, after the areas, not among the notes', () => {
    const text = renderConsole(report([check('a', 'pass', 'PING-01')], true), { color: false });
    expect(text.match(/Authorization: /g)).toHaveLength(1);
    expect(text).toMatch(/Not tested by this run[^\n]*\n {2}- Base protocol — JSON-RPC messages: no check of it was selected/);
  });
});
