import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FuzzCase } from '../src/fuzz/case.js';
import type { RunReport } from '../src/model.js';
import { CLI, FIXTURE, found, fuzz, fuzzAtAsync, mcpcheck, overHttp, type Run, saved, waitForPort } from './fuzz-helpers.js';
import { freePort, processesMarked, REFERENCE, requireBuild, ROOT } from './server-helpers.js';

beforeAll(requireBuild);

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
    expect(run.report.checks.find((c) => c.id === 'fuzz.tool-input-survives')?.reproduce).toMatch(/^node dist\/src\/cli\.js fuzz --stdio .* --replay .*\.case\.json$/);
  }, 60_000);

  it('a hang on a string longer than 1000 characters: shrunk to 1001', () => {
    const run = fuzz(`${FIXTURE} --bug hang-long`, ['--sequences', '0', '--runs', '100', '--case-timeout', '500', '--max-string', '2000']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.tool-input-survives']);
    const { input } = saved(run, 'fuzz.tool-input-survives');
    expect(input.mutation).toBe('args.long-string');
    expect(args(input).text).toHaveLength(1001);
  }, 60_000);

  it('a tool call never answered while ping still is: a one-response failure, shrunk to the smallest count that goes unanswered, and its replay line reproduces it', () => {
    const target = `${FIXTURE} --bug silent-count`;
    const run = fuzz(target, ['--sequences', '0', '--runs', '100', '--case-timeout', '500']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.one-response']);
    const check = run.report.checks.find((c) => c.id === 'fuzz.one-response')!;
    expect(check.message).toMatch(/^tools\/call request with id .* got no response within \d+ ms, while the ping sent after it was answered\. Minimal input/);
    expect(check.message).not.toMatch(/did not fail again/);
    const { file, input } = saved(run, 'fuzz.one-response');
    expect(args(input)).toEqual({ text: '', count: 4 });
    // Run from the clone: the line starts as the run did, and runs as pasted there.
    expect(check.reproduce).toBe(`node dist/src/cli.js fuzz --stdio ${JSON.stringify(target)} --case-timeout 500 --replay ${file}`);
    const again = mcpcheck(['fuzz', '--stdio', target, '--case-timeout', '500', '--replay', file]);
    expect(again.code, again.stdout + again.stderr).toBe(1);
    expect(again.stdout).toMatch(/FAIL\s+fuzz\.one-response/);
    expect(mcpcheck(['fuzz', '--stdio', FIXTURE, '--case-timeout', '500', '--replay', file]).code).toBe(0);
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

describe('mcpcheck fuzz over Streamable HTTP: a call never answered', () => {
  it('a POST whose answer (and response headers) never come is judged within --case-timeout, not the channel\'s 30 s', async () => {
    const run = await overHttp(['--bug', 'silent-count'], (url) => fuzzAtAsync(['--url', url], ['--sequences', '0', '--runs', '60', '--case-timeout', '500']));
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.one-response']);
    const waited = Number(/got no response within (\d+) ms/.exec(run.report.checks.find((c) => c.id === 'fuzz.one-response')!.message)?.[1]);
    expect(waited).toBeLessThan(5000);
    expect(args(saved(run, 'fuzz.one-response').input).count).toBeGreaterThanOrEqual(4);
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
    expect(crash?.message).toMatch(/the target went away/);
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
    // Each run first probes the server's eras (two fresh processes), as mcpcheck server does.
  }, 90_000);

  it('a call whose time argument was pushed past its bound may take that long: its late answer is no finding', () => {
    // Seed 1 calls wait with ms 5001 (out of bounds), which this fixture then waits for: with --case-timeout 500 no answer comes in time.
    const run = fuzz(`${FIXTURE} --bug wait-unbounded`, ['--sequences', '0', '--runs', '300', '--call-tools', 'wait', '--case-timeout', '500']);
    expect(found(run), JSON.stringify(run.report.checks.filter((c) => c.status !== 'pass'), null, 1)).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.report.checks.find((c) => c.id === 'fuzz.one-response')?.status).toBe('pass');
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

  it('a budget that cuts only the sequences, after every case ran, says how many sequences ran and leaves the run complete (exit 0)', () => {
    const run = fuzz(FIXTURE, ['--runs', '20', '--sequences', '1000', '--time-budget', '5']);
    expect(run.report.checks.find((c) => c.id === 'fuzz.run')).toBeUndefined();
    expect(run.report.notes.join('\n')).toMatch(/the time budget \(5 s\) ended the sequences: \d+ of 1000 sequences ran/);
    expect(run.code).toBe(0);
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
