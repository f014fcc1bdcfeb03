import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { useColor } from '../src/cli/report-output.js';
import { planSelection } from '../src/commands/selection.js';
import type { CheckResult } from '../src/model.js';
import { serverScenarios } from '../suites/server/index.js';
import { freePort, mcpcheckAsync, processesMarked, REFERENCE, requireBuild, ROOT } from './server-helpers.js';

const CLI = join(ROOT, 'dist/src/cli.js');

beforeAll(requireBuild);

function mcpcheck(args: string[], env: NodeJS.ProcessEnv = {}, nodeFlags: string[] = []) {
  const started = Date.now();
  // GitHub's variables would add annotations and a job summary when the suite itself runs on a runner.
  const r = spawnSync(process.execPath, [...nodeFlags, CLI, ...args], { encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '', ...env }, timeout: 90_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

/** One line on stderr, `mcpcheck: …`, and no stack frame. */
function expectOneLine(stderr: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^mcpcheck: /);
  expect(stderr).not.toMatch(/^\s+at /m);
}

const tmp = () => mkdtempSync(join(tmpdir(), 'mcpcheck-cli-'));

// Its first start is waited for up to the pace's ceiling (a slow server may need more than 10 s):
// started before every other test and judged after them, so that the minute passes meanwhile.
let neverServes: ReturnType<typeof mcpcheckAsync>;
beforeAll(async () => {
  const port = await freePort();
  neverServes = mcpcheckAsync(['server', '--url', `http://127.0.0.1:${port}/mcp`, '--start', `${process.execPath} -e "setTimeout(() => {}, 90000)"`], { GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '' });
});

describe('bad input to mcpcheck: one line on stderr, exit 2', () => {
  it('an unreachable URL, within 10 s', async () => {
    const port = await freePort();
    const r = mcpcheck(['server', '--url', `http://127.0.0.1:${port}/mcp`]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: connection refused/);
    expect(r.ms).toBeLessThan(10_000);
  });

  it('a command that does not start', () => {
    const r = mcpcheck(['server', '--stdio', 'mcpcheck-no-such-command-xyz']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('target did not start');
  });

  it('a command that exits at once', () => {
    const r = mcpcheck(['server', '--stdio', `${process.execPath} -e "process.exit(3)"`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/exited with code 3/);
  });

  it('a command that dies at start says why: the error line of its stderr, not its stack or version banner', () => {
    const missing = join(tmpdir(), 'mcpcheck-no-such-server.js');
    const r = mcpcheck(['server', '--stdio', `${process.execPath} ${missing}`]);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr);
    expect(r.stderr).toContain(`stderr: Error: Cannot find module '${missing}'`);
    expect(r.stderr).not.toMatch(/Node\.js v\d|MODULE_NOT_FOUND|\s+at /);
  });

  it('a transcript line that is not JSON is quoted with its control characters escaped, none reaching the terminal', () => {
    const file = join(tmp(), 'escape.jsonl');
    writeFileSync(file, '{"a":\x1b[31mRED\r\n');
    const r = mcpcheck(['validate', file]);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr);
    expect(r.stderr).toContain('not JSON');
    expect(r.stderr).toContain('\\x1b[31mRED');
    expect(r.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
  });

  it("every --help exit-code table says what README's tables say (each row starts with the help's words)", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    /** The exit-code table after `heading` in README: code → meaning. */
    const readmeTable = (heading: string) => {
      const from = readme.indexOf(heading);
      expect(from, heading).toBeGreaterThan(-1);
      const rows = readme.slice(from).split('\n').slice(1);
      const table = rows.slice(rows.findIndex((l) => l.startsWith('| exit |')) + 2);
      return new Map(table.slice(0, table.findIndex((l) => !l.startsWith('|'))).map((l) => {
        const [, code, meaning] = /^\| (\d+) \| (.*) \|$/.exec(l)!;
        return [code!, meaning!] as const;
      }));
    };
    const helpTable = (args: string[]) => {
      const out = mcpcheck(args).stdout;
      return new Map([...out.slice(out.indexOf('Exit codes:')).matchAll(/^ {2}(\d+) {2}(.*)$/gm)].map((m) => [m[1]!, m[2]!] as const));
    };
    const unticked = (text: string) => text.replace(/`/g, '');
    for (const [args, heading] of [[['--help'], '### Exit codes'], [['server', '--help'], '### Exit codes'], [['client', '--help'], '### Exit codes'], [['validate', '--help'], '### Exit codes'], [['fuzz', '--help'], "Fuzz's exit codes"], [['proxy', '--help'], "The proxy's exit codes"]] as const) {
      const help = helpTable([...args]);
      const table = readmeTable(heading);
      expect([...help.keys()], args.join(' ')).toEqual([...table.keys()]);
      for (const [code, meaning] of help) expect(unticked(table.get(code)!).startsWith(meaning), `${args.join(' ')}: exit ${code}`).toBe(true);
    }
  });

  it('a URL with credentials in it is refused before anything is sent: one line, exit 2', () => {
    const r = mcpcheck(['server', '--url', 'http://user:pw@127.0.0.1:9/mcp']);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr);
    expect(r.stderr).toMatch(/--url must not carry a user name or password/);
    expect(r.stderr).not.toContain('pw@');
  });

  it.each([
    [['server'], /exactly one target/],
    [['server', '--stdio', 'x', '--url', 'http://127.0.0.1:1/mcp'], /exactly one target/],
    [['server', '--url', 'not a url'], /not a valid URL/],
    [['server', '--stdio', 'x', '--concurrency', '0'], /--concurrency takes a positive whole number/],
    [['server', '--stdio', 'x', '--bogus'], /unknown flag --bogus/],
    [['server', '--stdio', 'x', '--only', 'no.such.scenario'], /--only no\.such\.scenario matches no scenario/],
    [['server', '--stdio', 'x', '--only', 'server.base,no.such.scenario'], /--only no\.such\.scenario matches no scenario/],
    [['server', '--stdio', 'x', '--only', 'live.NO-SUCH-01'], /--only live\.NO-SUCH-01: NO-SUCH-01 is not a requirement id/],
    [['server', '--stdio', 'x', '--skip', 'live.NO-SUCH-01'], /--skip live\.NO-SUCH-01: NO-SUCH-01 is not a requirement id/],
    [['server', '--stdio', 'x', '--skip', 'server'], /left no scenario/],
    [['server', '--stdio', 'x', '--json', '-', '--junit', '-'], /cannot both go to stdout/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [[], /name a command/],
    [['validate'], /name at least one transcript file/],
    [['validate', '/nonexistent/session.jsonl'], /no such file/],
    [['validate', 'tests/fixtures/transcripts/valid/2025-11-25-tools.jsonl', '--baseline', '/nonexistent/b.json'], /--baseline \/nonexistent\/b\.json: cannot read it \(no such file or directory\)/],
    [['baseline'], /name a baseline action: write/],
    [['baseline', 'write', 'b.json'], /--from is required/],
    [['baseline', 'write', '--from', '/nonexistent/r.json', 'b.json'], /--from \/nonexistent\/r\.json: cannot read it/],
    [['baseline', 'write', '--from', 'package.json', 'b.json'], /--from package\.json: not an mcpcheck JSON report/],
  ])('%j', (args, message) => {
    const r = mcpcheck(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expectOneLine(r.stderr);
  });

  // Every flag that takes a value, given none (at the end, or followed by another flag).
  it.each([
    ['server', '--stdio'], ['server', '--url'], ['server', '--stdio', 'x', '--start'], ['server', '--url', 'http://127.0.0.1:1/mcp', '--header'],
    ['server', '--stdio', 'x', '--json'], ['server', '--stdio', 'x', '--junit'], ['server', '--stdio', 'x', '--baseline'],
    ['server', '--stdio', 'x', '--transcript'], ['server', '--stdio', 'x', '--only'], ['server', '--stdio', 'x', '--skip'],
    ['server', '--stdio', 'x', '--concurrency'], ['server', '--stdio', 'x', '--timeout'], ['server', '--stdio', 'x', '--request-timeout'],
    ['server', '--stdio', 'x', '--call-tools'], ['server', '--stdio', 'x', '--origin-probe'], ['server', '--stdio', '--json', 'r.json'],
    ['validate', 'f.jsonl', '--json'], ['validate', 'f.jsonl', '--junit'], ['validate', 'f.jsonl', '--baseline'], ['validate', 'f.jsonl', '--judge'],
    ['validate', 'f.jsonl', '--update-baseline'], ['baseline', 'write', 'b.json', '--from'],
  ])('%s %s … without its value', (...args) => {
    const r = mcpcheck(args);
    expect(r.code, r.stderr).toBe(2);
    expectOneLine(r.stderr);
    const flag = args.at(-1)!.startsWith('--') ? args.at(-1)! : args.at(-3)!;
    expect(r.stderr).toContain(flag.slice(2));
  });

  describe('report destinations are checked before the run', () => {
    // The target records that it was started: none of these may get that far.
    const marker = () => join(tmp(), 'started');
    const target = (file: string) => `${process.execPath} -e "require('fs').writeFileSync(${JSON.stringify(JSON.stringify(file)).slice(1, -1)}, 'x')"`;
    it.each([
      ['--json', '/etc/passwd/r.json', /--json \/etc\/passwd\/r\.json: cannot write there \(a parent is a file, not a directory\)/],
      ['--junit', '/etc/passwd/j.xml', /--junit \/etc\/passwd\/j\.xml: cannot write there/],
      ['--transcript', '/etc/passwd/t', /--transcript \/etc\/passwd\/t: cannot write there/],
      ['--update-baseline', '/etc/passwd/b.json', /--update-baseline \/etc\/passwd\/b\.json: cannot write there/],
      ['--json', tmpdir(), /is a directory, not a file/],
      // Special file systems: a folder that access() calls writable, a file that cannot be made (and Node's recursive mkdir spins under /proc).
      ['--junit', '/proc/r.xml', /--junit \/proc\/r\.xml: cannot write there/],
      ['--json', '/sys/r.json', /--json \/sys\/r\.json: cannot write there/],
      ['--transcript', '/proc/tr', /--transcript \/proc\/tr: cannot write there/],
      ['--json', '/dev/null', /--json \/dev\/null: is not a regular file/],
    ])('%s %s', (flag, path, message) => {
      const started = marker();
      const r = mcpcheck(['server', '--stdio', target(started), flag, path]);
      expect(r.code, r.stderr).toBe(2);
      expectOneLine(r.stderr);
      expect(r.stderr).toMatch(message);
      expect(existsSync(started)).toBe(false);
    });

    it('an existing report file is proven writable without losing a byte; one mcpcheck made for the check is removed again', () => {
      const dir = tmp();
      const kept = join(dir, 'kept.json');
      writeFileSync(kept, 'the previous report');
      const made = join(dir, 'deeper', 'made.xml');
      // The target does not start: the run ends at setup, after the paths were checked.
      const r = mcpcheck(['server', '--stdio', `${process.execPath} -e "process.exit(3)"`, '--json', kept, '--junit', made]);
      expect(r.code, r.stderr).toBe(2);
      expect(readFileSync(kept, 'utf8')).toBe('the previous report');
      expect(existsSync(made)).toBe(false);
      expect(readdirSync(join(dir, 'deeper'))).toEqual([]);
    });

    it('and for validate', () => {
      const r = mcpcheck(['validate', join(ROOT, 'tests/fixtures/transcripts/valid/2025-11-25-tools.jsonl'), '--junit', '/etc/passwd/j.xml']);
      expect(r.code).toBe(2);
      expectOneLine(r.stderr);
    });

    it('the marker target does start when the paths are fine (the cases above can fail)', () => {
      const started = marker();
      mcpcheck(['server', '--stdio', target(started), '--json', join(tmp(), 'r.json')]);
      expect(existsSync(started)).toBe(true);
    });
  });

  it('a file that is not a transcript names the file and line', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'not.jsonl'), '<html>\n<body>\n');
    const r = mcpcheck(['validate', join(dir, 'not.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not\.jsonl: not an mcpcheck transcript .*line 1/);
  });

  it('a corrupt line inside a transcript is a finding, not a crash', () => {
    const dir = tmp();
    const good = readFileSync(join(ROOT, 'tests/fixtures/transcripts/valid/2025-11-25-tools.jsonl'), 'utf8').split('\n');
    good.splice(3, 0, '{"from":"server","message":');
    writeFileSync(join(dir, 't.jsonl'), good.join('\n'));
    const r = mcpcheck(['validate', join(dir, 't.jsonl'), '--json', join(dir, 'r.json')]);
    // A line that could not be judged leaves the grade incomplete: exit 3, not a pass.
    expect(r.code).toBe(3);
    const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    expect(report.checks.some((c: { status: string; message: string }) => c.status === 'error' && c.message.includes('t.jsonl:4'))).toBe(true);
  });
});

const TRANSCRIPT = join(ROOT, 'tests/fixtures/transcripts/valid/2025-11-25-tools.jsonl');

describe('the command line', () => {
  it('-h is --help, and the help lists exit codes 0–4 (top level and per command)', () => {
    const long = mcpcheck(['--help']);
    expect(long.code).toBe(0);
    expect(mcpcheck(['-h']).stdout).toBe(long.stdout);
    for (const out of [long.stdout, mcpcheck(['server', '-h']).stdout, mcpcheck(['validate', '--help']).stdout]) {
      expect(out).toContain('Exit codes:');
      for (const code of [0, 1, 2, 3, 4]) expect(out).toMatch(new RegExp(`^  ${code}  `, 'm'));
    }
  });

  it('--version and -V print the package version', () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    for (const flag of ['--version', '-V']) {
      const r = mcpcheck([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
  });

  /** The packages a command loaded. */
  const loaded = (args: string[]): string[] => {
    const r = mcpcheck(args, {}, ['--require', join(ROOT, 'tests/fixtures/loaded-packages.cjs')]);
    return /^mcpcheck-test-loaded: (.*)$/m.exec(r.stderr)?.[1]?.split(' ') ?? [];
  };

  it('--version and --help load no ajv (a command that compiles a schema does)', () => {
    expect(loaded(['--version'])).not.toContain('ajv');
    expect(loaded(['--help'])).not.toContain('ajv');
    expect(loaded(['validate', '--help'])).not.toContain('ajv');
    expect(loaded(['validate', TRANSCRIPT])).toContain('ajv');
  });

  it('a temporary directory mcpcheck cannot write to is a setup error: one line, exit 2, over either transport', () => {
    const client = join(ROOT, 'dist/tests/fixtures/client/client.js');
    for (const [command, what] of [[`node ${client}`, 'the browser a client is given'], [`node ${client} {stdio}`, "the stdio relay's socket"]] as const) {
      const r = mcpcheck(['client', '--command', command, '--only', 'client.lifecycle.handshake'], { TMPDIR: join(ROOT, 'no-such-directory') });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.split('\n')).toEqual([expect.stringMatching(/\(set TMPDIR to a writable directory\)$/), '']);
      expect(r.stderr.startsWith(`mcpcheck: cannot make a directory for ${what} in ${join(ROOT, 'no-such-directory')}: ENOENT`)).toBe(true);
    }
  });

  it('--network-sandbox on a machine that cannot make the namespace (here: no unshare on the PATH) is a setup error: one line, exit 2', () => {
    const r = mcpcheck(['client', '--network-sandbox', '--command', `node ${join(ROOT, 'dist/tests/fixtures/client/client.js')}`], { PATH: join(ROOT, 'no-such-directory') });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe("mcpcheck: --network-sandbox: this machine cannot make an isolated network namespace (util-linux's unshare is not installed); run without it (the scenarios that need it are then skipped)\n");
  });

  it('an internal error is one line and exit 4; MCPCHECK_DEBUG=1 adds the stack', () => {
    // A bug stand-in: writing to stdout throws inside the list command.
    const broken = ['--import', 'data:text/javascript,process.stdout.write = () => { throw new TypeError("boom") };'];
    const r = mcpcheck(['list'], {}, broken);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('mcpcheck: internal error: boom\n');
    const debug = mcpcheck(['list'], { MCPCHECK_DEBUG: '1' }, broken);
    expect(debug.code).toBe(4);
    expect(debug.stderr).toMatch(/^mcpcheck: internal error: boom\nTypeError: boom\n\s+at /);
  });

  /** Runs mcpcheck with its stdout closed before it writes anything (as `| head -0` would). */
  function closedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  it.each([[['list']], [['--help']], [['validate', TRANSCRIPT]]])('%j to a closed stdout ends quietly with its own exit code', async (args) => {
    const r = await closedStdout(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('a closed stdout does not hide a failing verdict', async () => {
    const file = join(ROOT, 'tests/fixtures/transcripts/broken/BASE-ID-02--null-request-id.jsonl');
    expect(mcpcheck(['validate', file]).code).toBe(1);
    const r = await closedStdout(['validate', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
  });

  it('--json - writes the JSON report to stdout and the console report to stderr', () => {
    const r = mcpcheck(['validate', TRANSCRIPT, '--json', '-']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).tool.name).toBe('mcpcheck');
    expect(r.stderr).toMatch(/^mcpcheck \d/);
    expect(r.stderr).toMatch(/MUST \d+\/\d+/);
    const x = mcpcheck(['validate', TRANSCRIPT, '--junit', '-']);
    expect(x.stdout).toMatch(/^<\?xml[\s\S]*<testsuites/);
  });

  it.each([
    [{}, undefined, false, false],
    [{}, undefined, true, true],
    [{}, true, false, true],
    [{}, false, true, false],
    [{ NO_COLOR: '1' }, undefined, true, false],
    [{ NO_COLOR: '' }, undefined, true, true],
    [{ NO_COLOR: '1' }, true, false, true],
    [{ FORCE_COLOR: '1' }, undefined, false, true],
    [{ FORCE_COLOR: '0' }, undefined, true, false],
    [{ NO_COLOR: '1', FORCE_COLOR: '1' }, undefined, false, false],
  ])('colour with env %j, --color %s, a terminal %s: %s', (env, flag, isTTY, coloured) => {
    expect(useColor(flag, { isTTY }, env)).toBe(coloured);
  });

  it('NO_COLOR turns colour off unless --color is given', () => {
    const forced = { NO_COLOR: '1', FORCE_COLOR: '1' };
    expect(mcpcheck(['validate', TRANSCRIPT], { NO_COLOR: '', FORCE_COLOR: '1' }).stdout).toContain('\x1b[');
    expect(mcpcheck(['validate', TRANSCRIPT], forced).stdout).not.toContain('\x1b[');
    expect(mcpcheck(['validate', TRANSCRIPT, '--color'], forced).stdout).toContain('\x1b[');
  });

  it('every report lists the areas its run did not test, once (console, JSON, JUnit)', () => {
    const dir = tmp();
    const r = mcpcheck(['validate', TRANSCRIPT, '--json', join(dir, 'r.json'), '--junit', join(dir, 'j.xml')]);
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as { untested: Array<{ area: string; why: string }>; notes: string[] };
    // No validator judges HTTP headers or OAuth; a transcript holds neither.
    expect(report.untested.map((u) => u.area)).toEqual(['Streamable HTTP', 'Authorization', 'Security best practices', 'General principles', 'Authorization — client credentials extension', 'Tasks — experimental, in part']);
    expect(report.untested[0]!.why).toBe('mcpcheck validate has no check for it');
    expect(report.notes.join('\n')).not.toContain('not tested');
    // The console wraps a long item, its continuation lines indented under it.
    const console = r.stdout.replace(/\n {4}(?=\S)/g, ' ');
    for (const { area, why } of report.untested) {
      expect(console.split(`  - ${area}: ${why}\n`).length, area).toBe(2);
      expect(readFileSync(join(dir, 'j.xml'), 'utf8')).toContain(`<property name="note" value="not tested: ${area}: `);
    }
  });
});

describe('mcpcheck server', () => {
  it('exits 1 on a MUST failure, writes JSON (valid against its schema) and JUnit, and leaves no process behind', () => {
    const dir = tmp();
    const marker = `MCPCHECK_TEST_MARKER=${randomUUID()}`;
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE} --break init-missing-serverinfo`, '--json', join(dir, 'r.json'), '--junit', join(dir, 'j.xml'), '--transcript', join(dir, 't')], {
      MCPCHECK_TEST_MARKER: marker.split('=')[1],
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('LIFE-INIT-02');
    const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'schemas/report.schema.json'), 'utf8')));
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(readFileSync(join(dir, 'j.xml'), 'utf8')).toMatch(/<testsuites[\s\S]*LIFE-INIT-02[\s\S]*<failure/);
    expect(processesMarked(marker.split('=')[1]!)).toEqual([]);
    // What --transcript wrote is what validate reads.
    const transcripts = readdirSync(join(dir, 't')).map((f) => join(dir, 't', f));
    expect(transcripts.length).toBeGreaterThan(3);
    const v = mcpcheck(['validate', ...transcripts]);
    expect(v.code, v.stdout.slice(-2000)).toBe(1);
    expect(v.stdout).toContain('LIFE-INIT-02');
  });

  it("what --transcript records of a correct server validates clean when the server's side is judged", () => {
    const dir = tmp();
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--transcript', dir]);
    expect(r.code).toBe(0);
    const files = readdirSync(dir).map((f) => join(dir, f));
    const v = mcpcheck(['validate', '--judge', 'server', ...files]);
    expect(v.code, v.stdout.slice(-2000)).toBe(0);
    expect(v.stdout).not.toMatch(/FAIL|WARN/);
    // Both sides judged, mcpcheck's own deliberately malformed probes show up as client violations.
    expect(mcpcheck(['validate', ...files]).stdout).toContain('BASE-ID-02');
  });

  it('a baseline holds expected failures; a stale entry fails the run', () => {
    const dir = tmp();
    // The missing serverInfo also fails the InitializeResult schema (BASE-RES-03).
    writeFileSync(join(dir, 'b.json'), JSON.stringify(['LIFE-INIT-02', 'BASE-RES-03']));
    const held = mcpcheck(['server', '--stdio', `node ${REFERENCE} --break init-missing-serverinfo`, '--baseline', join(dir, 'b.json')]);
    expect(held.code, held.stdout.slice(-1500)).toBe(0);
    const stale = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--baseline', join(dir, 'b.json')]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/stale/i);
  });

  it('--update-baseline writes the failures with reasons: the rerun holds them, the fixed server makes them stale', () => {
    const dir = tmp();
    const [file, report, fresh, fromReport] = ['b.json', 'r.json', 'b2.json', 'b3.json'].map((f) => join(dir, f)) as [string, string, string, string];
    const broken = `node ${REFERENCE} --break init-missing-serverinfo`;
    const first = mcpcheck(['server', '--stdio', broken, '--update-baseline', file, '--json', report]);
    // The run is graded as it stands: writing a baseline accepts nothing for this run.
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(new RegExp(`wrote \\d+ baseline entr(y|ies) to ${file.replace(/[.]/g, '\\.')} \\(0 kept, \\d+ new, 0 stale dropped\\)`));
    const entries = JSON.parse(readFileSync(file, 'utf8')).expected as Array<{ id: string; reason: string }>;
    expect(entries.map((e) => e.id)).toContain('live.LIFE-INIT-02');
    for (const e of entries) expect(e.reason).toMatch(/ \((MUST|SHOULD|MAY)\)$/);

    const held = mcpcheck(['server', '--stdio', broken, '--baseline', file]);
    expect(held.code, held.stdout.slice(-1500)).toBe(0);
    expect(held.stdout).toMatch(/\(expected, baselined: .+ \((MUST|SHOULD|MAY)\)\)/);

    const stale = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--baseline', file, '--update-baseline', fresh]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/Stale baseline entries/);
    expect(stale.stderr).toContain(`(0 kept, 0 new, ${entries.length} stale dropped)`);
    expect(JSON.parse(readFileSync(fresh, 'utf8'))).toEqual({ expected: [] });

    // The same baseline, from the saved report.
    expect(mcpcheck(['baseline', 'write', '--from', report, fromReport]).code).toBe(0);
    expect(readFileSync(fromReport, 'utf8')).toBe(readFileSync(file, 'utf8'));
  });

  it('--only selects by requirement id and `list` names every scenario', () => {
    const out = join(tmp(), 'r.json');
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--only', 'ROBUST-01', '--json', out]);
    expect(r.code).toBe(0);
    const scenarios = new Set(JSON.parse(readFileSync(out, 'utf8')).checks.map((c: { scenario?: string }) => c.scenario).filter(Boolean));
    expect([...scenarios]).toEqual(['server.base.null-id-rejected']);
    const untested = JSON.parse(readFileSync(out, 'utf8')).untested as Array<{ area: string; why: string }>;
    expect(untested).toContainEqual({ area: 'Cancellation', why: 'no check of it was selected (--only/--skip)' });
    expect(untested).toContainEqual({ area: 'Roots', why: 'mcpcheck server has no check for it' });
    expect(untested.map((u) => u.area)).not.toContain('Base protocol — JSON-RPC messages');
    const list = mcpcheck(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/server\.base\.null-id-rejected {2}\[ROBUST-01\]/);
  });

  it('redacts header values in every report', async () => {
    const dir = tmp();
    const port = await freePort();
    const secret = `s3cret-${randomUUID()}`;
    const r = mcpcheck([
      'server', '--url', `http://127.0.0.1:${port}/mcp`, '--start', `node ${REFERENCE} --http --port ${port}`,
      '--header', `Authorization: Bearer ${secret}`, '--only', 'server.base', '--json', join(dir, 'r.json'), '--junit', join(dir, 'j.xml'), '--transcript', join(dir, 't'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const everything = [r.stdout, r.stderr, readFileSync(join(dir, 'r.json'), 'utf8'), readFileSync(join(dir, 'j.xml'), 'utf8'), ...readdirSync(join(dir, 't')).map((f) => readFileSync(join(dir, 't', f), 'utf8'))];
    for (const text of everything) expect(text).not.toContain(secret);
  });

  it('--only live.X runs every scenario and reports the checks citing X; its reproduce line runs as pasted', () => {
    const out = join(tmp(), 'r.json');
    // BASE-RES-01 (a result repeats its request's id) is exercised by every answer the server sends.
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--only', 'live.BASE-RES-01', '--json', out]);
    expect(r.code, r.stderr).toBe(0);
    const checks = JSON.parse(readFileSync(out, 'utf8')).checks as Array<{ id: string; status: string; requirements: string[] }>;
    expect(checks.find((c) => c.id === 'live.BASE-RES-01')?.status).toBe('pass');
    for (const c of checks) expect(c.requirements).toContain('BASE-RES-01');

    const failing = join(tmp(), 'f.json');
    const bad = mcpcheck(['server', '--stdio', `node ${REFERENCE} --break bad-meta-key`, '--only', 'live.META-KEY-02', '--json', failing]);
    expect(bad.code, bad.stdout.slice(-1500)).toBe(1);
    const live = (JSON.parse(readFileSync(failing, 'utf8')).checks as Array<{ id: string; status: string; reproduce?: string }>).find((c) => c.id === 'live.META-KEY-02');
    expect(live?.status).toBe('fail');
    // The seed comes along: a live violation may arise in a generated case.
    // Run from the clone as `node <path>`: the line names mcpcheck the same way, relative to the working directory.
    const prefix = `node dist/src/cli.js server --stdio ${JSON.stringify(`node ${REFERENCE} --break bad-meta-key`)} --only live.META-KEY-02 --seed `;
    expect(live?.reproduce?.startsWith(prefix), live?.reproduce).toBe(true);
    expect(live!.reproduce!.slice(prefix.length)).toMatch(/^-?\d+$/);
    const again = spawnSync('sh', ['-c', live!.reproduce!], { encoding: 'utf8', timeout: 60_000, cwd: process.cwd() });
    expect(again.status).toBe(1);
    expect(again.stdout).toMatch(/FAIL\s+live\.META-KEY-02/);
  });

  it('--skip live.X drops that live check only', () => {
    const out = join(tmp(), 'r.json');
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--only', 'server.base', '--skip', 'live.BASE-RES-01', '--json', out]);
    expect(r.code, r.stderr).toBe(0);
    const ids = (JSON.parse(readFileSync(out, 'utf8')).checks as Array<{ id: string }>).map((c) => c.id);
    expect(ids).not.toContain('live.BASE-RES-01');
    expect(ids).toContain('live.BASE-MSG-01');
  });
});

describe('--only / --skip with live checks (planSelection)', () => {
  const check = (id: string, requirements: string[], scenario?: string): CheckResult => ({
    id, title: id, requirements, level: 'MUST', status: 'pass', message: '', area: 'x', evidence: [], ...(scenario ? { scenario } : {}),
  });

  it('live.X runs every scenario and keeps what cites X, beside the scenarios named next to it', () => {
    const { scenarios, keep } = planSelection(serverScenarios, ['live.base-id-03', 'server.base.null-id-rejected'], []);
    expect(scenarios).toEqual(serverScenarios);
    expect(keep(check('live.BASE-ID-03', ['BASE-ID-03']))).toBe(true);
    expect(keep(check('server.tools.call', ['BASE-ID-03'], 'server.tools.call'))).toBe(true);
    expect(keep(check('server.base.null-id-rejected', ['ROBUST-01'], 'server.base.null-id-rejected'))).toBe(true);
    expect(keep(check('live.BASE-ID-01', ['BASE-ID-01']))).toBe(false);
    expect(keep(check('server.tools.call', ['TOOL-CALL-01'], 'server.tools.call'))).toBe(false);
  });

  it('without live entries it is the plain scenario selection, and every check is kept', () => {
    const { scenarios, keep } = planSelection(serverScenarios, ['server.base'], ['live.BASE-ID-01']);
    expect(scenarios.length).toBeGreaterThan(0);
    expect(scenarios.every((s) => s.id.startsWith('server.base.'))).toBe(true);
    expect(keep(check('live.BASE-ID-03', ['BASE-ID-03']))).toBe(true);
    expect(keep(check('live.BASE-ID-01', ['BASE-ID-01']))).toBe(false);
  });
});

describe('the npm package', () => {
  it('ships the built CLI, the catalog, the schemas and the LICENSE, and builds dist/ before packing', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.prepack).toMatch(/npm run build/);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0/);
    expect(pkg.license).toBe('Apache-2.0');
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const files = new Set((JSON.parse(r.stdout)[0].files as Array<{ path: string }>).map((f) => f.path));
    for (const f of ['LICENSE', 'dist/src/cli.js', 'dist/src/cli/main.js', 'dist/suites/server/index.js', 'src/spec/requirements.json', 'schemas/report.schema.json']) expect(files).toContain(f);
    expect([...files].some((f) => f.startsWith('dist/tests/'))).toBe(false);
  });
});

describe('bad input to mcpcheck, judged last: a --start command that never serves the URL', () => {
  it('one line after the start-up wait, exit 2', async () => {
    const r = await neverServes;
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/did not accept connections within 60000 ms of starting .* \(the most mcpcheck waits for a first start\)/);
  }, 90_000);
});
