import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FuzzCase } from '../src/fuzz/case.js';
import type { RunReport } from '../src/model.js';
import { freePort, processesMarked, REFERENCE, requireBuild, ROOT } from './server-helpers.js';

const CLI = join(ROOT, 'dist/src/cli.js');
const FIXTURE = `node ${join(ROOT, 'dist/tests/fixtures/fuzz/server.js')}`;

beforeAll(requireBuild);

/** Resolves once something accepts connections on the loopback port (at most 10 s). */
async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

function mcpcheck(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 90_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Run {
  code: number | null;
  report: RunReport;
  out: string;
  stdout: string;
}

function fuzz(target: string, extra: string[] = []): Run {
  return fuzzAt(['--stdio', target], extra);
}

function fuzzAt(targetFlags: string[], extra: string[] = []): Run {
  const out = mkdtempSync(join(tmpdir(), 'mcpcheck-fuzz-'));
  const json = join(out, 'report.json');
  const r = mcpcheck(['fuzz', ...targetFlags, '--seed', '1', '--out', out, '--json', json, ...extra]);
  expect(r.stderr, r.stderr).not.toMatch(/internal error/);
  return { code: r.code, report: JSON.parse(readFileSync(json, 'utf8')) as RunReport, out, stdout: r.stdout };
}

function saved(run: Run, oracle: string): { file: string; input: FuzzCase } {
  const name = readdirSync(run.out).find((f) => f.startsWith(`${oracle}-`) && f.endsWith('.case.json'));
  expect(name, `no saved case for ${oracle} in ${readdirSync(run.out).join(', ')}`).toBeDefined();
  const file = join(run.out, name!);
  return { file, input: (JSON.parse(readFileSync(file, 'utf8')) as { input: FuzzCase }).input };
}

function found(run: Run): string[] {
  return run.report.checks.filter((c) => c.status === 'fail' || c.status === 'warn').map((c) => c.id);
}

/** The crash-shape run, kept for the replay test. The case-oracle tests turn sequences off: a sequence may find the same bug. */
let crashRun: Run | undefined;
const crashShape = () => (crashRun ??= fuzz(`${FIXTURE} --bug crash-shape`, ['--sequences', '0', '--runs', '150']));

const args = (c: FuzzCase) => ((c.body as { json: { params: { arguments: Record<string, unknown> } } }).json.params.arguments);

describe('mcpcheck fuzz finds each planted bug and shrinks it to a minimal input', () => {
  it('a crash on a nested argument shape: item.tags with exactly 3 entries', () => {
    const run = crashShape();
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.tool-input-survives']);
    const { input } = saved(run, 'fuzz.tool-input-survives');
    expect((args(input).item as { tags: string[] }).tags).toHaveLength(3);
    expect(run.report.checks.find((c) => c.id === 'fuzz.tool-input-survives')?.reproduce).toMatch(/mcpcheck fuzz --stdio .* --replay .*\.case\.json$/);
  }, 60_000);

  it('a hang on a string longer than 1000 characters: shrunk to 1001', () => {
    const run = fuzz(`${FIXTURE} --bug hang-long`, ['--sequences', '0', '--runs', '100', '--case-timeout', '500', '--max-string', '2000']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.tool-input-survives']);
    const { input } = saved(run, 'fuzz.tool-input-survives');
    expect(input.mutation).toBe('args.long-string');
    expect(args(input).text).toHaveLength(1001);
  }, 60_000);

  it('big ids cut to 32 bits: the id is not echoed', () => {
    const run = fuzz(`${FIXTURE} --bug big-ids`, ['--sequences', '0', '--runs', '150', '--case-timeout', '500']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.one-response']);
    expect(saved(run, 'fuzz.one-response').input.mutation).toBe('id.above-2^31');
  }, 60_000);

  it('an answered notification', () => {
    const run = fuzz(`${FIXTURE} --bug answer-notification`, ['--sequences', '0', '--runs', '150']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.notification-unanswered']);
    expect(saved(run, 'fuzz.notification-unanswered').input.method).toBe('notifications/mcpcheck_unknown');
  }, 60_000);

  it('the wrong parse-error code (a SHOULD: a warning, still exit 1): shrunk to a short frame', () => {
    const run = fuzz(`${FIXTURE} --bug parse-code`, ['--sequences', '0', '--runs', '150']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.parse-error-code']);
    expect(run.report.checks.find((c) => c.id === 'fuzz.parse-error-code')?.status).toBe('warn');
    const { input } = saved(run, 'fuzz.parse-error-code');
    expect(['frame.truncated', 'frame.not-json']).toContain(input.mutation);
    expect((input.body as { text: string }).text.length).toBeLessThanOrEqual(9);
  }, 60_000);

  it('a missing required field answered with a success (a SHOULD: a warning)', () => {
    const run = fuzz(`${FIXTURE} --bug missing-required`, ['--sequences', '0', '--runs', '200']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.invalid-params']);
    const { input } = saved(run, 'fuzz.invalid-params');
    expect(input.mutation).toBe('args.missing-required');
    // Shrunk to the call with nothing but the missing field's absence.
    expect(args(input)).toEqual({});
  }, 60_000);

  it('valid arguments refused with −32602: shrunk to the smallest count refused', () => {
    const run = fuzz(`${FIXTURE} --bug rejects-valid`, ['--sequences', '0', '--runs', '200']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.valid-arguments-accepted']);
    const { input } = saved(run, 'fuzz.valid-arguments-accepted');
    expect(input.mutation).toBe('valid');
    expect(args(input)).toEqual({ text: '', count: 6 });
  }, 60_000);

  it('structuredContent that breaks the outputSchema: shrunk to the shortest text that shows it', () => {
    const run = fuzz(`${FIXTURE} --bug output-mismatch`, ['--sequences', '0', '--runs', '200']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.structured-output']);
    expect(run.report.checks.find((c) => c.id === 'fuzz.structured-output')?.requirements).toEqual(['TOOL-OUT-01']);
    const { input } = saved(run, 'fuzz.structured-output');
    // More than 5 UTF-16 code units (what the fixture counts), and no shrink left: one character fewer is fine.
    const text = args(input).text as string;
    expect(text.length).toBeGreaterThan(5);
    expect([...text].length).toBeLessThanOrEqual(6);
  }, 60_000);

  it('death on deep nesting: shrunk to the smallest depth that kills it', () => {
    const run = fuzz(`${FIXTURE} --bug deep-crash`, ['--sequences', '0', '--runs', '150']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.tool-input-survives']);
    const { input } = saved(run, 'fuzz.tool-input-survives');
    expect(input.mutation).toBe('args.deep-nesting');
    expect(input.at).toMatch(/\(depth 1000\)$/);
  }, 60_000);
});

describe('stateful runs find bugs only a sequence of operations shows, shrunk to the fewest steps', () => {
  const sequences = (bug: string) => fuzz(`${FIXTURE} --bug ${bug}`, ['--runs', '1', '--sequences', '30']);
  const smallest = (run: Run, id: string) => {
    const check = run.report.checks.find((c) => c.id === id)!;
    expect(check.reproduce).toMatch(/--replay .*\.sequence\.json$/);
    return /Smallest failing sequence \((\d+) step\(s\).*replayPath "[^"]*"\): (.*)$/.exec(check.message)!.slice(1);
  };

  it('a second subscribe to the same URI refused: subscribe, subscribe (RES-SUB-01, a MUST)', () => {
    const run = sequences('double-subscribe');
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.sequence.subscribe-result']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.subscribe-result');
    expect(steps).toBe('2');
    expect(shown).toMatch(/^subscribe (\S+) → subscribe \1$/);
  }, 60_000);

  it('updates after unsubscribing: subscribe, unsubscribe, a call (RES-SUB-02)', () => {
    const run = sequences('stale-updates');
    expect(found(run)).toEqual(['fuzz.sequence.updates-subscribed']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.updates-subscribed');
    expect(steps).toBe('3');
    expect(shown).toMatch(/^subscribe (\S+) → unsubscribe \1 → call/);
  }, 60_000);

  it('the log level ignored: setLevel, a call (LOG-SET-02)', () => {
    const run = sequences('level-ignored');
    expect(found(run)).toEqual(['fuzz.sequence.level-respected']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.level-respected');
    expect(steps).toBe('2');
    expect(shown).toMatch(/^logging\/setLevel (?!debug)\w+ → call/);
  }, 60_000);

  it("its own cursor refused once the session subscribed: subscribe, then walk the list (PAGE-01, a MUST)", () => {
    const run = sequences('cursor-after-subscribe');
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.sequence.cursor-accepted']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.cursor-accepted');
    expect(steps).toBe('2');
    expect(shown).toMatch(/^subscribe \S+ → resources\/list to its last page$/);
  }, 60_000);

  it('pages that repeat after a call: a call, then walk the list (PAGE-05)', () => {
    const run = sequences('pages-repeat-after-call');
    expect(found(run)).toEqual(['fuzz.sequence.pages-end']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.pages-end');
    expect(steps).toBe('2');
    expect(shown).toMatch(/^call .* → resources\/list to its last page$/);
  }, 60_000);

  it('a crash on the call after a cancelled one, and --replay of the saved sequence reproduces it', () => {
    const run = sequences('crash-after-cancel');
    // The crash comes at the next call: a plain call (the server stops answering ping) or another cancelled one.
    const [id] = found(run);
    expect(found(run)).toHaveLength(1);
    expect(['fuzz.sequence.cancel-healthy', 'fuzz.sequence.survives']).toContain(id);
    const [steps, shown] = smallest(run, id!);
    expect(steps).toBe('2');
    expect(shown).toMatch(/^call and cancel wait .* → call/);
    const file = join(run.out, readdirSync(run.out).find((f) => f.endsWith('.sequence.json'))!);
    const again = mcpcheck(['fuzz', '--stdio', `${FIXTURE} --bug crash-after-cancel`, '--replay', file]);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stdout).toMatch(new RegExp(`(FAIL|WARN)\\s+${id!.replace(/\./g, '\\.')}`));
    expect(mcpcheck(['fuzz', '--stdio', `${FIXTURE} --stateful`, '--replay', file]).code).toBe(0);
  }, 60_000);

  it('the correct stateful fixture passes every invariant it exercised, and exercises them all', () => {
    const run = fuzz(`${FIXTURE} --stateful`, ['--runs', '1', '--sequences', '30']);
    expect(found(run)).toEqual([]);
    expect(run.code).toBe(0);
    const sequenceChecks = run.report.checks.filter((c) => c.id.startsWith('fuzz.sequence.'));
    // Two sessions of one server need HTTP: over stdio those two are skips that say so.
    const twoSessions = ['fuzz.sequence.second-session', 'fuzz.sequence.updates-own-session'];
    expect(sequenceChecks.filter((c) => c.status !== 'pass' && !twoSessions.includes(c.id)).map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    for (const id of twoSessions) expect(sequenceChecks.find((c) => c.id === id)).toMatchObject({ status: 'skip', message: expect.stringMatching(/two sessions of one server need --url/) });
    expect(sequenceChecks).toHaveLength(12);
  }, 60_000);
});

/** Runs `fn` with the fuzz fixture serving Streamable HTTP on a free loopback port. */
async function overHttp<T>(fixtureArgs: string[], fn: (url: string) => T): Promise<T> {
  const port = await freePort();
  const server = spawn(process.execPath, [join(ROOT, 'dist/tests/fixtures/fuzz/server.js'), '--http', '--port', String(port), ...fixtureArgs], { stdio: 'ignore' });
  try {
    await waitForPort(port);
    return fn(`http://127.0.0.1:${port}/mcp`);
  } finally {
    server.kill('SIGKILL');
  }
}

describe('stateful runs over HTTP open a second session on the same server and keep the two apart', () => {
  const sequences = (url: string, extra: string[] = []) => fuzzAt(['--url', url], ['--runs', '1', '--sequences', '30', ...extra]);

  it('the correct fixture: no finding, and steps on two sessions at once exercised both session invariants', async () => {
    const run = await overHttp(['--stateful'], (url) => sequences(url));
    expect(found(run)).toEqual([]);
    expect(run.code).toBe(0);
    const passed = run.report.checks.filter((c) => c.status === 'pass').map((c) => c.id);
    expect(passed).toEqual(expect.arrayContaining(['fuzz.sequence.second-session', 'fuzz.sequence.updates-own-session', 'fuzz.sequence.updates-subscribed', 'fuzz.sequence.cancel-healthy']));
  }, 60_000);

  it('a server that serves one session at a time is not judged for two: no finding, both session invariants skipped with the reason', async () => {
    const run = await overHttp(['--stateful', '--single-session'], (url) => sequences(url));
    expect(found(run)).toEqual([]);
    expect(run.code).toBe(0);
    for (const id of ['fuzz.sequence.second-session', 'fuzz.sequence.updates-own-session']) {
      expect(run.report.checks.find((c) => c.id === id)).toMatchObject({ status: 'skip', message: expect.stringMatching(/did not open a second session .*one session at a time/) });
    }
    expect(run.report.checks.find((c) => c.id === 'fuzz.sequence.subscribe-result')?.status).toBe('pass');
  }, 60_000);

  it("updates for another session's subscription: subscribe, then a call on two sessions at once (RES-SUB-02); --replay reproduces it", async () => {
    await overHttp(['--bug', 'shared-subscriptions'], (url) => {
      const run = sequences(url);
      expect(run.code).toBe(1);
      expect(found(run)).toEqual(['fuzz.sequence.updates-own-session']);
      const check = run.report.checks.find((c) => c.id === 'fuzz.sequence.updates-own-session')!;
      expect(check.message).toMatch(/on the second session .*which subscribed to nothing; the first session is subscribed to/);
      expect(check.message).toMatch(/Smallest failing sequence \(2 step\(s\).*\): subscribe (\S+) → on two sessions at once: .*call/);
      expect(check.evidence.map((e) => e.location)).toEqual(expect.arrayContaining([expect.stringMatching(/-second\.jsonl$/)]));
      const file = /--replay (\S+)$/.exec(check.reproduce!)![1]!;
      const again = mcpcheck(['fuzz', '--url', url, '--replay', file]);
      expect(again.code, again.stdout + again.stderr).toBe(1);
      expect(again.stdout).toMatch(/WARN\s+fuzz\.sequence\.updates-own-session/);
    });
  }, 60_000);

  it("answers sent on another session's stream: a request on one of two sessions goes unanswered (BASE-ID-04)", async () => {
    const run = await overHttp(['--bug', 'one-transport'], (url) => sequences(url, ['--case-timeout', '2000']));
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.sequence.second-session']);
    expect(run.report.checks.find((c) => c.id === 'fuzz.sequence.second-session')!.message).toMatch(/got no response|responses with id/);
  }, 90_000);
});

describe('mcpcheck fuzz over Streamable HTTP', () => {
  it('the reference server over HTTP gives no finding, cases and sequences alike', async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [REFERENCE, '--http', '--port', String(port)], { stdio: 'ignore' });
    try {
      await waitForPort(port);
      const out = mkdtempSync(join(tmpdir(), 'mcpcheck-fuzz-http-'));
      const json = join(out, 'report.json');
      const r = mcpcheck(['fuzz', '--url', `http://127.0.0.1:${port}/mcp`, '--seed', '1', '--runs', '150', '--out', out, '--json', json]);
      const report = JSON.parse(readFileSync(json, 'utf8')) as RunReport;
      expect(report.checks.filter((c) => c.status === 'fail' || c.status === 'warn').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      expect(r.code, r.stderr).toBe(0);
      expect(report.target.kind).toBe('http');
      const passed = report.checks.filter((c) => c.status === 'pass').map((c) => c.id);
      expect(passed).toEqual(expect.arrayContaining(['fuzz.one-response', 'fuzz.invalid-params', 'fuzz.sequence.subscribe-result', 'fuzz.sequence.cancel-healthy']));
    } finally {
      server.kill('SIGKILL');
    }
  }, 90_000);
});

describe('mcpcheck fuzz --url with --start', () => {
  it('starts the server again after each crash, finds the crash, and the replay line (with --start) reproduces it; no server is left', async () => {
    const port = await freePort();
    const marker = `MCPCHECK_FUZZ_START_${randomUUID()}`;
    const start = `node ${REFERENCE} --http --port ${port} --break crashes-on-negative-addends`;
    const out = mkdtempSync(join(tmpdir(), 'mcpcheck-fuzz-start-'));
    const json = join(out, 'report.json');
    const env = { ...process.env, [marker]: '1' };
    // The budget ends shrinking early (each shrinking step restarts the server): the run is then incomplete.
    const r = spawnSync(process.execPath, [CLI, 'fuzz', '--url', `http://127.0.0.1:${port}/mcp`, '--start', start, '--seed', '1', '--runs', '200', '--sequences', '0', '--time-budget', '15', '--out', out, '--json', json], { encoding: 'utf8', timeout: 90_000, env });
    expect(processesMarked(marker)).toEqual([]);
    expect(r.status, r.stderr).toBe(1);
    const report = JSON.parse(readFileSync(json, 'utf8')) as RunReport;
    const crash = report.checks.find((c) => c.id === 'fuzz.tool-input-survives');
    expect(crash?.status, crash?.message).toBe('fail');
    expect(crash?.message).toMatch(/the target went away: POST failed/);
    const restarts = Number(/(\d+) restart\(s\) of the target/.exec(report.notes.join('\n'))?.[1]);
    expect(restarts).toBeGreaterThan(0);
    expect(crash?.reproduce).toContain(`--start ${JSON.stringify(start)}`);
    const file = /--replay (\S+)$/.exec(crash!.reproduce!)?.[1];
    const replayed = spawnSync(process.execPath, [CLI, 'fuzz', '--url', `http://127.0.0.1:${port}/mcp`, '--start', start, '--replay', file!], { encoding: 'utf8', timeout: 60_000, env });
    expect(replayed.status, replayed.stdout + replayed.stderr).toBe(1);
    expect(processesMarked(marker)).toEqual([]);
  }, 150_000);
});

describe('mcpcheck fuzz: no false findings, replay, transcripts, exit codes', () => {
  it('the correct fixture and the reference server give no finding (exit 0), and every run prints its seed', () => {
    for (const target of [FIXTURE, `node ${REFERENCE}`]) {
      const run = fuzz(target, ['--runs', '200']);
      expect(found(run), JSON.stringify(run.report.checks.filter((c) => c.status !== 'pass'), null, 1)).toEqual([]);
      expect(run.code).toBe(0);
      expect(run.report.seed).toBe(1);
      expect(run.report.checks.filter((c) => c.status === 'pass').map((c) => c.id)).toEqual(expect.arrayContaining(['fuzz.survives', 'fuzz.one-response', 'fuzz.notification-unanswered', 'fuzz.responses-validate', 'fuzz.invalid-params', 'fuzz.valid-arguments-accepted']));
    }
  }, 60_000);

  it('--replay reproduces a saved failure (exit 1) and passes on a server without the bug (exit 0); the transcript is read by validate', () => {
    const { file } = saved(crashShape(), 'fuzz.tool-input-survives');
    const again = mcpcheck(['fuzz', '--stdio', `${FIXTURE} --bug crash-shape`, '--replay', file]);
    expect(again.code, again.stdout + again.stderr).toBe(1);
    expect(again.stdout).toMatch(/FAIL\s+fuzz\.tool-input-survives/);
    expect(mcpcheck(['fuzz', '--stdio', FIXTURE, '--replay', file]).code).toBe(0);
    const transcript = file.replace(/\.case\.json$/, '.jsonl');
    const lines = readFileSync(transcript, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ mcpcheck: 'transcript', transport: 'stdio' });
    const validated = mcpcheck(['validate', '--judge', 'server', transcript]);
    expect([0, 1, 3]).toContain(validated.code);
  }, 60_000);

  it('a run cut short by --time-budget is incomplete (exit 3), never a pass', () => {
    const run = fuzz(FIXTURE, ['--runs', '1000000', '--time-budget', '1']);
    expect(run.code).toBe(3);
    expect(run.report.checks.find((c) => c.id === 'fuzz.run')?.status).toBe('error');
  }, 30_000);

  it('setup errors: a non-loopback URL without --allow-remote, a target that is no MCP server, a bad flag (exit 2, one line)', () => {
    for (const argv of [
      ['fuzz', '--url', 'http://192.0.2.1:3000/mcp'],
      ['fuzz', '--stdio', 'node -e "process.exit(0)"'],
      ['fuzz', '--stdio', FIXTURE, '--runs', '0'],
      ['fuzz', '--stdio', FIXTURE, '--replay', join(ROOT, 'package.json')],
    ]) {
      const r = mcpcheck(argv);
      expect(r.code, argv.join(' ') + r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    }
  }, 30_000);
});
