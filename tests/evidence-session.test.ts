/**
 * Evidence lists the frames that show a defect, in the session that showed it: a scenario with two
 * sessions must not point a check (scenario or live) at the other session's wire log, where the
 * same frame numbers are other frames.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { testServer } from '../src/commands/server.js';
import type { RunReport } from '../src/model.js';
import { scenario } from '../src/runner/scenario.js';
import { REFERENCE, requireBuild } from './server-helpers.js';

beforeAll(requireBuild);

/** Pings on its first session; on a second one asks for an unknown method and fails a check on that answer. */
const twoSessions = scenario({
  id: 'test.two-sessions',
  title: 'a check judged on a second session',
  requirements: ['BASE-ERR-04'],
  isolation: 'session',
  async run({ session, openSession, check }) {
    await session.initialize({ capabilities: {} });
    for (let i = 0; i < 3; i++) await session.request('ping');
    const second = await openSession();
    await second.initialize({ capabilities: {} });
    const reply = await second.request('mcpcheck/no-such-method', {}, 2_000);
    check.expect(false, { expected: 'a deliberate failure', actual: 'shown on the second session', session: second, frames: [second.mark - 1] });
    void reply;
  },
});

function run(brk: string): Promise<RunReport> {
  const command = `node ${REFERENCE} --break ${brk}`;
  return testServer({ stdio: command, targetFlags: `--stdio ${JSON.stringify(command)}`, concurrency: 1, requestTimeoutMs: 2_000 }, [twoSessions]);
}

describe('evidence stays in the session that showed the defect', () => {
  it('a scenario check and a live check judged on a second session cite only its wire log', async () => {
    // The error for the unknown method leaves out the id: a live BASE-ERR-01 failure, on the second session.
    const report = await run('error-without-id');
    const logs = new Map((report.wire ?? []).map((l) => [l.id, l.label]));
    const scenarioCheck = report.checks.find((c) => c.id === 'test.two-sessions')!;
    expect(scenarioCheck.status).toBe('warn');
    expect(scenarioCheck.wire?.map((id) => logs.get(id))).toEqual(['test.two-sessions (session 2)']);
    const live = report.checks.find((c) => c.id === 'live.BASE-ERR-01')!;
    expect(live.status).toBe('fail');
    expect(live.wire?.map((id) => logs.get(id))).toEqual(['test.two-sessions (session 2)']);
    expect(live.evidence.map((e) => e.location)).toEqual(['scenario test.two-sessions, session test.two-sessions-extra']);
    // No check cites the first session's log, so the report leaves it out.
    expect(report.wire!.map((l) => l.label)).not.toContain('test.two-sessions');
    const cited = new Set([...scenarioCheck.evidence, ...live.evidence].map((e) => e.frame));
    const second = report.wire!.find((l) => l.label === 'test.two-sessions (session 2)')!;
    expect(second.frames.filter((f) => cited.has(f.index)).map((f) => f.from)).toContain('server');
  });
});
