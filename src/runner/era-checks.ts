/**
 * How the checks of one era's run stand in a report that may hold two: a check of the stateless
 * era says so in its id (`server.modern.…`, `live.modern.…`) and its revision, so the ids of the
 * two sections never meet and stay stable whichever eras a run tested.
 */
import type { CheckResult } from '../model.js';
import { requirementIn } from '../spec/catalog.js';
import { eraOf, type Revision } from '../spec/revisions.js';
import type { RequirementId } from '../spec/requirement-id.js';

/** The prefix every check id of the stateless era carries. */
export const MODERN_SCENARIO_PREFIX = 'server.modern.';

/** A check id as the stateless era's section has it. */
function modernId(id: string): string {
  if (id.startsWith(MODERN_SCENARIO_PREFIX)) return id;
  return id.replace(/^(server|live)\./, '$1.modern.');
}

/** The checks of a run in `revision`, as its era's section holds them. */
export function inEraSection(checks: CheckResult[], revision: Revision): CheckResult[] {
  if (eraOf(revision) === 'stateful') return checks;
  return checks.map((c) => ({ ...c, id: modernId(c.id), revision, ...(c.scenario !== undefined ? { scenario: modernId(c.scenario) } : {}) }));
}

/**
 * An era whose run could not start its conversations (the probes found it, but its first
 * conversation failed; or the server wants a token mcpcheck was not given): the era is "could not
 * run", never a pass. It cites DISC-IMPL-01 in the stateless era (every server implements
 * server/discover) and in the stateful one LIFE-INIT-02 (the server answers initialize; a rule that
 * binds the client would keep the check out of a server's report). `message` says why, whole.
 */
export function eraCheck(revision: Revision, message: string): CheckResult {
  const stateless = eraOf(revision) === 'stateless';
  return couldNotRun(revision, stateless ? 'DISC-IMPL-01' : 'LIFE-INIT-02', `${stateless ? MODERN_SCENARIO_PREFIX : 'server.'}era/could-not-run`, `The ${revision} era's conversation starts`, message);
}

/**
 * The server began refusing the run's token mid-run (a 401 to a request that carried it: expired
 * or revoked): one could-not-run that says so, where every check that failed or could not run from
 * then on is a skip (runScenarios), since the refused token, not the server, may explain it. It
 * cites AUTH-GEN-01, the rule that brings the authorization rules in: what the run could not judge
 * is whatever the token was needed for.
 */
export function tokenRefusedCheck(revision: Revision): CheckResult {
  return couldNotRun(
    revision,
    'AUTH-GEN-01',
    `${eraOf(revision) === 'stateless' ? MODERN_SCENARIO_PREFIX : 'server.'}auth/token-refused`,
    'The token mcpcheck was given works for the whole run',
    'the server began refusing the token mcpcheck was given (HTTP 401 to a request that carried it: it expired or was revoked during the run); the checks that failed or could not run from then on are not judged (skipped). Rerun with a fresh token',
  );
}

/** A check of the run itself that could not run, citing `rule` as `revision` has it. */
function couldNotRun(revision: Revision, rule: RequirementId, id: string, title: string, message: string): CheckResult {
  const row = requirementIn(rule, revision)!;
  return { id, title, requirements: [row.id], level: row.level, status: 'error', message, area: row.area, evidence: [], revision };
}
