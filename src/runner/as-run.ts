import type { AuthorizationServerDriver } from '../harness/authorization-server.js';
import type { CheckResult } from '../model.js';
import type { Revision } from '../spec/revisions.js';
import type { AsScenario } from './as-scenario.js';
import { CheckRecorder, scenarioInterrupted, scenarioSkipped } from './checks.js';
import { inLanes, runGuarded } from './guard.js';
import type { RunControl } from './observer.js';
import { outsideRevisions } from './scenario.js';

export interface AsRunInput extends RunControl {
  as: AuthorizationServerDriver;
  scenarios: AsScenario[];
  /** The revision whose catalog judges the server (an authorization server negotiates none). */
  revision: Revision;
  scenarioTimeoutMs: number;
  /** The command line that reruns one scenario: `{scenario}` is replaced by its id. */
  reproduce: string;
}

/** Scenarios at a time: an authorization server's requests are short, and each scenario sends few. */
const LANES = 4;

/**
 * Runs the authorization-server scenarios: those of another revision, and (off loopback) those
 * that send more than metadata GETs, are skips that say why; the others share the driver, so the
 * metadata, the client and the first grant are fetched once.
 */
export async function runAsScenarios(input: AsRunInput): Promise<{ checks: CheckResult[]; notes: string[] }> {
  const { as, observer, signal } = input;
  const checks: CheckResult[] = [];
  const notes: string[] = [];
  observer?.planned(input.scenarios.length);
  await inLanes(input.scenarios, LANES, async (s) => {
    const settle = (results: CheckResult[]) => {
      checks.push(...results);
      observer?.finished(s.id, results);
    };
    const outside = outsideRevisions(s.revisions, input.revision, 'the run judges');
    if (outside !== undefined) return settle([scenarioSkipped(s, `not run: ${outside}`)]);
    if (s.active && as.passiveBecause !== undefined) return settle([scenarioSkipped(s, `not run: ${as.passiveBecause}`)]);
    if (signal?.aborted) return settle([scenarioInterrupted(s)]);
    observer?.started(s.id);
    const recorder = new CheckRecorder(s.id, s.title, s.requirements, () => undefined, input.reproduce.replace('{scenario}', s.id), (text) => notes.push(text), () => input.revision);
    await runGuarded(recorder, input.scenarioTimeoutMs, () => s.run({ as, check: recorder, note: (text) => recorder.note(text) }), signal);
    settle(recorder.results);
  });
  // Lanes finish out of order: the report lists checks in the suite's order.
  const order = new Map(input.scenarios.map((s, i) => [s.id, i]));
  checks.sort((a, b) => (order.get(a.scenario ?? '') ?? 0) - (order.get(b.scenario ?? '') ?? 0));
  return { checks, notes };
}
