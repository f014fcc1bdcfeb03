import { beforeAll, describe, expect, it } from 'vitest';
import { StdioTarget } from '../src/harness/target.js';
import { discoverServer } from '../src/runner/discovery.js';
import { runScenarios } from '../src/runner/run.js';
import { outsideRevisions, scenario, type RevisionSpan, type Scenario } from '../src/runner/scenario.js';
import { REFERENCE, requireBuild } from './server-helpers.js';

beforeAll(requireBuild);

/** A scenario that pings on its lane's session, for the revisions `span` names. */
function pinging(id: string, revisions: RevisionSpan): Scenario {
  return scenario({
    id,
    title: 'ping is answered',
    requirements: ['PING-01'],
    isolation: 'shared',
    revisions,
    async run({ session, check }) {
      const reply = await session.request('ping');
      check.expect(reply.kind === 'result', { expected: 'a result', actual: reply.kind });
    },
  });
}

describe('a scenario declares the revisions it applies to', () => {
  it('runs on the revision the server negotiated when it is in the span, and is skipped naming that revision when not', async () => {
    const out = await runScenarios({
      target: new StdioTarget({ command: `node ${REFERENCE}` }),
      scenarios: [pinging('test.revisions.since-2025-06-18', { introduced: '2025-06-18' }), pinging('test.revisions.before-2025-11-25', { removed: '2025-11-25' })],
      discover: discoverServer,
      options: { callTools: { mode: 'readonly' }, originProbe: 'http://mcpcheck-evil.example', requestTimeoutMs: 10_000, seed: 1, cases: 0 },
      concurrency: 1,
      scenarioTimeoutMs: 30_000,
      reproduce: 'mcpcheck server --only {scenario}',
    });
    const of = (id: string) => out.checks.filter((c) => c.scenario === id).map((c) => ({ status: c.status, message: c.message }));
    expect(out.discovery.protocolVersion).toBe('2025-11-25');
    expect(of('test.revisions.since-2025-06-18').map((c) => c.status)).toEqual(['pass']);
    expect(of('test.revisions.before-2025-11-25')).toEqual([{ status: 'skip', message: 'applies to revisions before 2025-11-25, which removed what it tests; the server negotiated 2025-11-25' }]);
  }, 60_000);
});

describe('outsideRevisions', () => {
  it('names the span and the negotiated revision; inside the span, nothing', () => {
    expect(outsideRevisions({ introduced: '2025-06-18' }, '2025-03-26')).toBe('applies from revision 2025-06-18 on; the server negotiated 2025-03-26');
    expect(outsideRevisions({ introduced: '2025-06-18', removed: '2025-11-25' }, '2025-06-18')).toBeUndefined();
    expect(outsideRevisions(undefined, '2024-11-05')).toBeUndefined();
  });
});
