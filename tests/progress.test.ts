/**
 * Progress on a terminal and Ctrl-C. The end-to-end cases run mcpcheck under util-linux `script`,
 * so that its stderr is a real pseudo-terminal, and press Ctrl-C the way a user does: a 0x03 byte
 * on the terminal, which its line discipline turns into SIGINT for the foreground process group.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { grade } from '../src/grade/index.js';
import type { CheckResult, RunReport } from '../src/model.js';
import { renderConsole } from '../src/report/console.js';
import { ProgressLine, wantProgress } from '../src/report/progress.js';
import { requirement } from '../src/spec/catalog.js';
import { processesMarked, REFERENCE, requireBuild, ROOT } from './server-helpers.js';

const CLI = join(ROOT, 'dist/src/cli.js');
const CLIENT = join(ROOT, 'dist/tests/fixtures/client/client.js');
const SCRIPT = '/usr/bin/script';
const ERASE = '\r\x1b[2K';
const tmp = () => mkdtempSync(join(tmpdir(), 'mcpcheck-progress-'));

beforeAll(requireBuild);

function check(id: string, status: CheckResult['status']): CheckResult {
  const r = requirement('BASE-ID-01');
  return { id, title: `title of ${id}`, requirements: [r.id], level: r.level, status, message: '', area: r.area, evidence: [] };
}

describe('ProgressLine', () => {
  /** A terminal that records what was written, and a clock the test moves. */
  function terminal(columns = 60) {
    const writes: string[] = [];
    let now = 0;
    const line = new ProgressLine({ write: (t: string) => writes.push(t), columns }, { verbose: true, color: false, now: () => now });
    return { line, writes, tick: (ms: number) => (now += ms) };
  }

  it('redraws in place, at most once per 100 ms, and cuts the line to the terminal width', () => {
    const { line, writes, tick } = terminal();
    line.planned(3);
    expect(writes).toEqual([`${ERASE}mcpcheck: 0/3 scenarios · 0.0 s`]);
    line.started('server.base.first-scenario-with-a-long-name');
    line.started('server.base.second');
    // Both came within the interval: one redraw is scheduled, none drawn yet.
    expect(writes).toHaveLength(1);
    tick(160);
    line.finished('server.base.second', [check('x', 'pass')]);
    expect(writes).toHaveLength(2);
    const last = writes.at(-1)!;
    expect(last.startsWith(ERASE)).toBe(true);
    // 60 columns: 59 characters, the last column left free.
    expect(last.slice(ERASE.length)).toMatch(/^mcpcheck: 1\/3 scenarios · 0\.2 s · running: server\.base\.f[a-z-]*…$/);
    expect(Array.from(last.slice(ERASE.length))).toHaveLength(59);
    line.clear();
  });

  it('--verbose prints failing checks above the line; clear() erases it and nothing is drawn afterwards', () => {
    const { line, writes, tick } = terminal();
    line.planned(2);
    line.started('a');
    tick(200);
    line.finished('a', [check('a/ok', 'pass'), check('a/bad', 'fail'), check('a/slow', 'error')]);
    const stream = writes.join('');
    expect(stream).toContain(`${ERASE}  FAIL  a/bad — title of a/bad\n  ERROR a/slow — title of a/slow\n`);
    expect(stream).not.toContain('a/ok');
    line.clear();
    const count = writes.length;
    expect(writes.at(-1)).toBe(ERASE);
    line.started('b');
    line.finished('b', [check('b', 'fail')]);
    tick(2000);
    expect(writes).toHaveLength(count);
  });

  it('counts every run a command plans: a dual-era server run\'s eras (at once) add up', () => {
    const { line, writes, tick } = terminal(80);
    line.planned(2);
    line.planned(3);
    line.started('server.tools.call');
    line.started('server.tools.call');
    tick(200);
    line.finished('server.tools.call', [check('x', 'pass')]);
    expect(writes.at(-1)!.slice(ERASE.length)).toMatch(/^mcpcheck: 1\/5 scenarios · 0\.2 s · running: server\.tools\.call$/);
    line.clear();
  });

  it('is wanted on a terminal only, without --quiet, outside CI', () => {
    expect(wantProgress({ isTTY: true }, false, {})).toBe(true);
    expect(wantProgress({ isTTY: false }, false, {})).toBe(false);
    expect(wantProgress({}, false, {})).toBe(false);
    expect(wantProgress({ isTTY: true }, true, {})).toBe(false);
    expect(wantProgress({ isTTY: true }, false, { CI: 'true' })).toBe(false);
    expect(wantProgress({ isTTY: true }, false, { CI: '1' })).toBe(false);
    expect(wantProgress({ isTTY: true }, false, { CI: 'false' })).toBe(true);
    expect(wantProgress({ isTTY: true }, false, { CI: '' })).toBe(true);
  });
});

describe('an interrupted report', () => {
  it('says so in its headline and notes, validates against the report schema, and carries baseline reasons', () => {
    const report = grade({
      tool: { name: 'mcpcheck', version: '0' },
      target: { kind: 'stdio', description: 'x' },
      startedAt: 'x',
      durationMs: 1,
      checks: [check('a', 'pass'), check('b', 'fail'), check('c/could-not-run', 'error')],
      baseline: { expected: ['b'], reasons: { b: 'upstream issue 7' } },
      interrupted: true,
    });
    expect(report.summary.interrupted).toBe(true);
    expect(report.summary.headline).toMatch(/^INTERRUPTED, partial: /);
    expect(report.notes[0]).toMatch(/interrupted \(Ctrl-C\)/);
    expect(report.checks.find((c) => c.id === 'b')!.baselineReason).toBe('upstream issue 7');
    expect(renderConsole(report, { color: false })).toContain('FAIL  b (expected, baselined: upstream issue 7)');
    const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/report.schema.json'), 'utf8')) as object;
    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
    expect(validate(JSON.parse(JSON.stringify(report))), JSON.stringify(validate.errors)).toBe(true);
  });
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface TerminalRun {
  code: number | null;
  /** Everything written to the terminal. */
  tty: string;
  /** ms from the first Ctrl-C to the exit. */
  afterCtrlC?: number;
}

/**
 * Runs `args` of mcpcheck with a pseudo-terminal as stderr (stdout goes to `stdoutFile`, so the
 * terminal shows stderr alone). `ctrlC` decides from what the terminal showed so far when to press
 * Ctrl-C (`times` presses, 100 ms apart).
 */
function onTerminal(args: string[], o: { stdoutFile: string; env?: NodeJS.ProcessEnv; ctrlC?: (tty: string) => boolean; times?: number }): Promise<TerminalRun> {
  const command = `${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(' ')} > ${quote(o.stdoutFile)}`;
  const child = spawn(SCRIPT, ['-qfec', command, '/dev/null'], { env: { ...outsideCi(), ...o.env }, stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  let tty = '';
  let pressedAt: number | undefined;
  const press = (left: number) => {
    child.stdin.write('\x03');
    if (left > 1) setTimeout(() => press(left - 1), 100);
  };
  child.stdout.on('data', (d: Buffer) => {
    tty += d.toString('utf8');
    if (pressedAt === undefined && o.ctrlC?.(tty)) {
      pressedAt = Date.now();
      press(o.times ?? 1);
    }
  });
  return new Promise((resolve) => {
    const guard = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(guard);
      child.stdin.destroy();
      resolve({ code, tty, ...(pressedAt !== undefined ? { afterCtrlC: Date.now() - pressedAt } : {}) });
    });
  });
}

/** This process's environment without what marks a CI job, where mcpcheck shows no progress by design. */
function outsideCi(): NodeJS.ProcessEnv {
  const { CI: _ci, GITHUB_ACTIONS: _actions, ...env } = process.env;
  return env;
}

/** The highest "N/M scenarios" (or another unit) the progress line showed. */
function scenariosDone(tty: string, unit = 'scenarios'): number {
  return Math.max(0, ...[...tty.matchAll(new RegExp(`mcpcheck: (\\d+)/\\d+ ${unit}`, 'g'))].map((m) => Number(m[1])));
}

/** How many distinct done counts the progress line has shown: one per redraw that saw a scenario end. */
function doneSteps(tty: string): number {
  return new Set([...tty.matchAll(/mcpcheck: (\d+)\/\d+ scenarios/g)].map((m) => m[1])).size;
}

const haveScript = existsSync(SCRIPT);
if (!haveScript) console.warn(`${SCRIPT} (util-linux) is missing: the pseudo-terminal tests are skipped`);

describe.runIf(haveScript)('on a terminal', () => {
  const server = ['server', '--stdio', `node ${REFERENCE} --break parse-error-code`, '--only', 'server.base'];
  const quick = ['server', '--stdio', `node ${REFERENCE} --break parse-error-code`, '--only', 'server.base.parse-error'];

  it('shows done/total and the running scenarios, streams failing checks with --verbose, and leaves a clean report', async () => {
    const out = join(tmp(), 'out.txt');
    const r = await onTerminal([...server, '--verbose'], { stdoutFile: out });
    expect(r.code).toBe(0);
    expect(r.tty).toMatch(/mcpcheck: 0\/\d+ scenarios · \d+\.\d s/);
    expect(r.tty).toMatch(/running: server\.base\./);
    expect(scenariosDone(r.tty)).toBeGreaterThan(1);
    expect(r.tty).toMatch(/WARN (\x1b\[0m)? server\.base\.parse-error — /);
    // The line is gone before the report prints, and the report has none of it.
    // (Whatever a loaded machine lets through after it, no status line is drawn after the last erase.)
    expect(r.tty.lastIndexOf(ERASE)).toBeGreaterThan(r.tty.lastIndexOf('mcpcheck: '));
    const report = readFileSync(out, 'utf8');
    expect(report).toContain('server.base.parse-error');
    expect(report).not.toContain('\x1b[2K');
  });

  it.each([
    ['--quiet', ['--quiet'], {}],
    ['CI=1', [], { CI: '1' }],
  ])('%s: nothing on stderr', async (_name, flags, env) => {
    const r = await onTerminal([...quick, ...flags], { stdoutFile: join(tmp(), 'out.txt'), env });
    expect(r.code).toBe(0);
    expect(r.tty).toBe('');
  });

  it('piped (no terminal): nothing on stderr', () => {
    const r = spawnSync(process.execPath, [CLI, ...quick, '--verbose'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('\x1b[2K');
  });

  /** Processes carrying this run's marker in their environment (every target inherits it). */
  const marked = () => {
    const marker = randomUUID();
    return { env: { MCPCHECK_TEST_MARKER: marker }, left: () => processesMarked(marker) };
  };

  it('Ctrl-C: the running scenarios are cut short, the partial report is written, no target is left, exit 130', async () => {
    const dir = tmp();
    const { env, left } = marked();
    const json = join(dir, 'r.json');
    const junit = join(dir, 'j.xml');
    const r = await onTerminal(['server', '--stdio', `node ${REFERENCE}`, '--concurrency', '1', '--json', json, '--junit', junit], {
      stdoutFile: join(dir, 'out.txt'),
      env,
      // The scenarios the reference server's declarations rule out settle at once after discovery
      // (the count jumps by dozens): press once several scenarios have ended after that jump.
      ctrlC: (tty) => doneSteps(tty) >= 6,
    });
    expect(r.code, r.tty.slice(-500)).toBe(130);
    expect(r.afterCtrlC).toBeLessThan(5000);
    expect(r.tty).toContain('mcpcheck: interrupted: stopping the targets and writing the partial report');
    const report = JSON.parse(readFileSync(json, 'utf8')) as RunReport;
    expect(report.summary.interrupted).toBe(true);
    expect(report.summary.headline).toMatch(/^INTERRUPTED, partial: /);
    expect(report.summary.incomplete).toBeGreaterThan(0);
    // Should it fail, what the report held instead says which part of the run went missing.
    const byStatus = report.checks.map((c) => `${c.status} ${c.id}`).slice(0, 40).join('\n');
    expect(report.checks.filter((c) => c.status === 'pass').length, `${byStatus}\n${r.tty.slice(-400)}`).toBeGreaterThan(0);
    const cut = report.checks.filter((c) => c.status === 'error');
    expect(cut.length).toBeGreaterThan(0);
    for (const c of cut) expect(c.message).toMatch(/interrupted \(Ctrl-C\)/);
    // Interrupted is "could not run", never the target's failure.
    expect(report.checks.filter((c) => c.status === 'fail' || c.status === 'warn')).toEqual([]);
    expect(readFileSync(junit, 'utf8')).toMatch(/<testsuites/);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toMatch(/INTERRUPTED, partial: /);
    expect(left()).toEqual([]);
  });

  it('a second Ctrl-C quits at once, without a report, and still leaves no target', async () => {
    const dir = tmp();
    const { env, left } = marked();
    const json = join(dir, 'r.json');
    // The second press comes 100 ms after the first, while the targets are still being stopped: a
    // member of the target's process group that ignores SIGTERM holds the stop for the kill grace.
    const target = `sh -c 'node -e "$MCPCHECK_TEST_IGNORE_TERM" </dev/null >/dev/null & exec node ${REFERENCE}'`;
    const r = await onTerminal(['server', '--stdio', target, '--concurrency', '1', '--json', json], {
      stdoutFile: join(dir, 'out.txt'),
      env: { ...env, MCPCHECK_TEST_IGNORE_TERM: 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)' },
      ctrlC: (tty) => scenariosDone(tty) >= 2,
      times: 2,
    });
    expect(r.code).toBe(130);
    expect(r.tty).toContain('mcpcheck: interrupted again: quitting without a report');
    expect(r.afterCtrlC).toBeLessThan(5000);
    expect(left()).toEqual([]);
  });

  it('Ctrl-C during `mcpcheck fuzz`: the progress line counts cases, the partial report says how many ran, no target left, exit 130', async () => {
    const dir = tmp();
    const { env, left } = marked();
    const json = join(dir, 'r.json');
    const r = await onTerminal(['fuzz', '--stdio', `node ${REFERENCE}`, '--runs', '100000', '--seed', '1', '--out', join(dir, 'fuzz'), '--json', json], {
      stdoutFile: join(dir, 'out.txt'),
      env,
      ctrlC: (tty) => scenariosDone(tty, 'cases and sequences') >= 20,
    });
    expect(r.code, r.tty.slice(-500)).toBe(130);
    expect(r.afterCtrlC).toBeLessThan(10_000);
    expect(r.tty).toMatch(/mcpcheck: \d+\/100010 cases and sequences · \d+\.\d s · running: \S+/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as RunReport;
    expect(report.summary.interrupted).toBe(true);
    expect(report.summary.headline).toMatch(/^INTERRUPTED, partial: /);
    const run = report.checks.find((c) => c.id === 'fuzz.run')!;
    expect(run.status).toBe('error');
    expect(run.message).toMatch(/^the interruption \(Ctrl-C\) ended the run after \d+ of 100000 cases/);
    expect(report.checks.some((c) => c.status === 'pass')).toBe(true);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toMatch(/INTERRUPTED, partial: /);
    expect(left()).toEqual([]);
  });

  it('Ctrl-C during `mcpcheck client`: partial report, no client left, exit 130', async () => {
    const dir = tmp();
    const { env, left } = marked();
    const json = join(dir, 'r.json');
    const r = await onTerminal(['client', '--command', `node ${CLIENT}`, '--json', json], { stdoutFile: join(dir, 'out.txt'), env, ctrlC: (tty) => scenariosDone(tty) >= 3 });
    expect(r.code, r.tty.slice(-500)).toBe(130);
    expect(r.afterCtrlC).toBeLessThan(5000);
    const report = JSON.parse(readFileSync(json, 'utf8')) as RunReport;
    expect(report.summary.interrupted).toBe(true);
    expect(report.checks.some((c) => c.status === 'pass')).toBe(true);
    expect(report.checks.some((c) => c.status === 'error' && /interrupted/.test(c.message))).toBe(true);
    expect(report.checks.filter((c) => c.status === 'fail' || c.status === 'warn')).toEqual([]);
    expect(left()).toEqual([]);
  });
});
