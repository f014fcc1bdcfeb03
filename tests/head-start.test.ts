import { beforeAll, describe, expect, it } from 'vitest';
import { HttpTarget } from '../src/harness/target.js';
import { discoverServer } from '../src/runner/discovery.js';
import { inLanes } from '../src/runner/guard.js';
import { runScenarios } from '../src/runner/run.js';
import { scenario, type Scenario } from '../src/runner/scenario.js';
import { freePort, REFERENCE, requireBuild } from './server-helpers.js';

beforeAll(requireBuild);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A waiting scenario with a head start: `underwayAfterMs` into its run it says it is under way (never, if undefined); it runs `runMs` in all. */
function headStarting(id: string, at: Record<string, number>, runMs: number, underwayAfterMs?: number): Scenario {
  return scenario({
    id,
    title: 'holds the rest of the run back until it is under way',
    requirements: ['PING-01'],
    isolation: 'session',
    waits: true,
    headStart: true,
    async run({ session, connect, check, underway }) {
      at.started = performance.now();
      const init = await connect(session);
      if (underwayAfterMs !== undefined) {
        await sleep(underwayAfterMs);
        at.underway = performance.now();
        underway();
      }
      await sleep(runMs - (performance.now() - at.started));
      at.ended = performance.now();
      check.expect(init.ok, { expected: 'a conversation', actual: 'none' });
    },
  });
}

/** A scenario that notes when it started: shared (a lane's), or, waiting on a session of its own, beside the lanes. */
function noting(id: string, at: Record<string, number>, own = false): Scenario {
  return scenario({
    id,
    title: 'notes when it starts',
    requirements: ['PING-01'],
    isolation: own ? 'session' : 'shared',
    ...(own ? { waits: true } : {}),
    async run({ session, connect, check }) {
      at.started = performance.now();
      if (own) await connect(session);
      const reply = await session.request('ping');
      check.expect(reply.kind === 'result', { expected: 'a result', actual: reply.kind });
    },
  });
}

/** The statuses of the run's checks of these scenarios (the live checks aside), against the reference server over HTTP. */
async function run(scenarios: Scenario[]): Promise<string[]> {
  const port = await freePort();
  const target = new HttpTarget({ url: `http://127.0.0.1:${port}/mcp`, start: `node ${REFERENCE} --http --port ${port}` });
  await target.prepare();
  const out = await runScenarios({
    target,
    scenarios,
    discover: discoverServer,
    options: { callTools: { mode: 'readonly' }, originProbe: 'http://mcpcheck-evil.example', requestTimeoutMs: 10_000, seed: 1, cases: 0 },
    concurrency: 2,
    scenarioTimeoutMs: 30_000,
    reproduce: 'mcpcheck server --only {scenario}',
  });
  return out.checks.filter((c) => scenarios.some((s) => s.id === c.scenario)).map((c) => c.status);
}

// Over HTTP, where every scenario's session is on the one server (over stdio each has its own).
describe('a scenario with a head start', () => {
  it('runs before the rest of its run, which starts once it is under way, but for one lane on the open session', async () => {
    const first: Record<string, number> = {};
    const other: Record<string, number> = {};
    const laned: Record<string, number> = {};
    expect(await run([noting('test.head-start.other', other, true), noting('test.head-start.laned', laned), headStarting('test.head-start.first', first, 600, 300)])).toEqual(['pass', 'pass', 'pass']);
    // A session of its own waits for the head start; lane 0, on discovery's open session, does not.
    expect(other.started).toBeGreaterThanOrEqual(first.underway!);
    expect(laned.started).toBeLessThan(first.underway!);
    // The rest of the run did not wait for its end.
    expect(other.started).toBeLessThan(first.ended!);
  }, 60_000);

  it('holds the rest of the run back for a bounded time when it never says it is under way', async () => {
    const first: Record<string, number> = {};
    const other: Record<string, number> = {};
    expect(await run([noting('test.head-start.other', other, true), headStarting('test.head-start.silent', first, 4_000)])).toEqual(['pass', 'pass']);
    expect(other.started! - first.started!).toBeGreaterThanOrEqual(900);
    expect(other.started).toBeLessThan(first.ended!);
  }, 60_000);
});

describe('lanes held back', () => {
  it('start once released; until then the running lanes take the list from its end', async () => {
    // Released while lane 0 works on its second item.
    const released = sleep(30);
    const taken: string[] = [];
    await inLanes(
      ['a', 'b', 'c', 'd', 'e', 'f'],
      3,
      async (item, lane) => {
        taken.push(`${item}${lane}`);
        await sleep(20);
      },
      (lane) => (lane > 0 ? released : undefined),
    );
    // Lane 0 took f and e from the end; lanes 1 and 2, once released, took a and b from the front, and then all of them the rest.
    expect(taken.slice(0, 2)).toEqual(['f0', 'e0']);
    expect(taken.slice(2, 4)).toEqual(['a1', 'b2']);
    expect(taken.slice(4).map((t) => t[0])).toEqual(['c', 'd']);
  });
});
