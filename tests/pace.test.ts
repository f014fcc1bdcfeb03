import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { testClient } from '../src/commands/client.js';
import { clientScenario } from '../src/runner/client-scenario.js';
import { fuzzServer } from '../src/commands/fuzz.js';
import { Pace, PACE_CEILING_MS, STARTUP_MS } from '../src/harness/pace.js';
import { runGuarded } from '../src/runner/guard.js';
import { CheckRecorder } from '../src/runner/checks.js';
import type { RunReport } from '../src/model.js';
import { REFERENCE, requireBuild, ROOT, runHttp, runStdio } from './server-helpers.js';

// Same target, same verdict on an idle or a busy machine: the waits that decide a verdict scale
// with what the target was measured to need on this run, under a ceiling (src/harness/pace.ts).

describe('the pace of a run', () => {
  it('waits for the first start up to the ceiling, and for later ones by the first, times the most processes starting at once', () => {
    const pace = new Pace();
    const unmeasured = pace.starting();
    expect(unmeasured.ms).toBe(PACE_CEILING_MS);
    unmeasured.done();
    pace.firstStart(4_000);
    const alone = pace.starting();
    expect(alone.ms).toBe(STARTUP_MS);
    alone.done();
    const first = pace.starting();
    // Six more start while the first one is still starting: they slow it too.
    const others = Array.from({ length: 6 }, () => pace.starting());
    expect(first.ms).toBe(2 * 4_000 * 7);
    for (const s of others) s.done();
    others[0]!.done(); // once only
    expect(first.ms).toBe(2 * 4_000 * 7);
    expect(pace.starting().ms).toBe(Math.max(STARTUP_MS, 2 * 4_000 * 2)); // the first, and this one
    pace.firstStart(50_000); // the first measure stays
    expect(pace.startupMs(1)).toBe(STARTUP_MS);
  });

  it('says why a start may take as long as it does', () => {
    const pace = new Pace();
    expect(pace.startupReason(1)).toBe('the most mcpcheck waits for a first start');
    pace.firstStart(7_321);
    expect(pace.startupMs(3)).toBe(2 * 7_321 * 3);
    expect(pace.startupReason(3)).toBe(`2 × the first start's 7321 ms times the 3 starting at once, at least ${STARTUP_MS} ms and at most ${PACE_CEILING_MS} ms`);
  });

  it('never waits longer than the ceiling for a start', () => {
    const pace = new Pace();
    pace.firstStart(45_000);
    expect(pace.startupMs(1)).toBe(PACE_CEILING_MS);
  });

  it('stretches an answer wait by the typical ping, not by one slow ping; the base wait is the floor', () => {
    const pace = new Pace();
    expect(pace.requestMs(5_000)).toBe(5_000);
    for (const ms of [400, 450, 500, 30_000]) pace.roundTrip(ms);
    expect(pace.requestMs(5_000)).toBe(20 * 500);
    expect(pace.requestMs(15_000)).toBe(15_000);
    for (let i = 0; i < 20; i++) pace.roundTrip(5_000);
    expect(pace.requestMs(5_000)).toBe(PACE_CEILING_MS);
    expect(pace.requestMs(90_000)).toBe(90_000);
  });

  it("gives a process's stop twice its measured first start, the ping-stretched wait, or the base, whichever is longest", () => {
    const pace = new Pace();
    expect(pace.processMs(5_000)).toBe(5_000);
    pace.firstStart(4_000);
    expect(pace.processMs(5_000)).toBe(8_000);
    for (let i = 0; i < 5; i++) pace.roundTrip(600);
    expect(pace.processMs(5_000)).toBe(12_000);
    pace.firstStart(90_000);
    expect(new Pace().processMs(5_000)).toBe(5_000);
  });

  it("gives a step of a process's own twice the slower of its own start and the run's first, or what processMs gives", () => {
    const pace = new Pace();
    expect(pace.stepMs(5_000, 1_000)).toBe(5_000);
    // A load that came after the first start: this process's slow start counts.
    expect(pace.stepMs(5_000, 6_000)).toBe(12_000);
    pace.firstStart(4_000);
    expect(pace.stepMs(5_000, 1_000)).toBe(8_000);
    expect(pace.stepMs(5_000, 90_000)).toBe(PACE_CEILING_MS);
  });
});

describe("a scenario's budget", () => {
  const recorder = () => new CheckRecorder('s', 'a scenario', ['PING-01'], () => undefined, 'mcpcheck server --only s', () => undefined);
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  it('does not pay for the time its sessions waited on the target to start or read', async () => {
    const r = recorder();
    const { cutShort } = await runGuarded(r, { ms: 100, stalled: () => 300 }, async () => {
      await sleep(250);
      r.expect(true, { expected: 'x', actual: 'x' });
    });
    expect(cutShort).toBe(false);
    expect(r.results.map((c) => c.status)).toEqual(['pass']);
  });

  it('is cut short once its own work outlasts it, saying what the target took', async () => {
    const r = recorder();
    const { cutShort } = await runGuarded(r, { ms: 100, stalled: () => 50 }, () => sleep(1_000));
    expect(cutShort).toBe(true);
    expect(r.results.map((c) => c.message).join()).toMatch(/scenario timeout \(100 ms; see --timeout; plus 50 ms its sessions waited on the target to start, to read what was sent or to answer ping\)/);
  });
});

describe('a server slowed on purpose gets the verdicts it gets at full speed', () => {
  beforeAll(requireBuild);
  const verdicts = (report: RunReport) => Object.fromEntries(report.checks.map((c) => [c.id, c.status]));

  // The fixed 10 s start-up wait gave this server no session at all ("did not answer initialize
  // within 10000 ms"): its every process takes 11 s to read its input, and every message it writes
  // leaves 150 ms late, as on a busy machine.
  it('starting in 11 s, answering 150 ms late: the same verdicts, none could not run', async () => {
    const [plain, slow] = await Promise.all([
      runStdio(`node ${REFERENCE}`, { seed: 7 }),
      runStdio(`MCPCHECK_SLOW_START_MS=11000 MCPCHECK_SLOW_ANSWER_MS=150 node ${REFERENCE}`, { seed: 7, concurrency: 4 }),
    ]);
    expect(slow.checks.filter((c) => c.status === 'error').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(verdicts(slow)).toEqual(verdicts(plain));
  }, 180_000);
});

// Each of these started in more than the 10 s the fixed start-up waits gave it, and was a setup
// error (exit 2) for it: now its first start is waited for up to the ceiling, and measured.
describe.concurrent('a target that takes 12 s to start is tested, not turned away', () => {
  beforeAll(requireBuild);
  const SLOW = 'MCPCHECK_SLOW_START_MS=12000';
  const problems = (report: RunReport) => report.checks.filter((c) => c.status === 'error' || c.status === 'fail').map((c) => `${c.id}: ${c.message}`);

  it('by fuzz, over stdio', async () => {
    const stdio = `${SLOW} node ${REFERENCE}`;
    const report = await fuzzServer({ stdio, runs: 10, seed: 3, sequences: 0, outDir: mkdtempSync(join(tmpdir(), 'mcpcheck-slow-fuzz-')), targetFlags: `--stdio ${JSON.stringify(stdio)}` });
    expect(problems(report)).toEqual([]);
    expect(report.notes.join('\n')).toMatch(/10 cases sent .*; 0 restart\(s\)/);
  }, 60_000);

  it('by the server command, over HTTP with --start', async () => {
    const report = await runHttp((port) => `${SLOW} node ${REFERENCE} --http --port ${port}`, { only: ['server.utilities.ping'] });
    expect(problems(report)).toEqual([]);
    expect(report.checks.find((c) => c.id.startsWith('server.utilities.ping'))?.status).toBe('pass');
  }, 60_000);

  it('by the client command: the first client alone, the next by its measure', async () => {
    const command = `${SLOW} node ${join(ROOT, 'dist/tests/fixtures/client/client.js')} {url}`;
    const report = await testClient({ command, shell: true, only: ['client.lifecycle.handshake', 'client.utilities.ping'], targetFlags: `--shell --command ${JSON.stringify(command)}` });
    expect(problems(report)).toEqual([]);
    expect(report.checks.filter((c) => c.status === 'pass').length).toBeGreaterThan(0);
  }, 90_000);
});

// The serving command runs in a process group of its own (the terminal's Ctrl-C does not reach
// it): waited for up to the ceiling, its start must still end at Ctrl-C, not 60 s later.
describe('Ctrl-C while the --start command comes up', () => {
  beforeAll(requireBuild);
  it('ends the wait for it at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const started = performance.now();
    await expect(runHttp(() => `node -e "setTimeout(() => {}, 90000)"`, { control: { signal: controller.signal } })).rejects.toThrow(/interrupted/);
    expect(performance.now() - started).toBeLessThan(5_000);
  }, 15_000);
});

// The guard of a client scenario runs from its client's first contact; what the scenario is told
// is left of its budget (the waits it plans by it) ran from before the start, and a client that
// took 2 s to start left it 2 s short.
describe('a client scenario\'s time left', () => {
  beforeAll(requireBuild);
  it('does not count its client\'s start', async () => {
    const told: number[] = [];
    const timeLeft = clientScenario({
      id: 'test.time-left',
      title: 'records the time left when it runs',
      requirements: ['PING-01'],
      steps: [],
      async run(ctx) {
        told.push(ctx.timeLeft());
        ctx.check.expect(true, { expected: 'x', actual: 'x' });
      },
    });
    const command = `MCPCHECK_SLOW_START_MS=2000 node ${join(ROOT, 'dist/tests/fixtures/client/client.js')} {url}`;
    await testClient({ command, shell: true, scenarioTimeoutMs: 5_000, targetFlags: '' }, [timeLeft]);
    expect(told).toHaveLength(1);
    expect(told[0]).toBeGreaterThan(4_500);
  }, 30_000);
});
