import { SetupError } from '../errors.js';
import type { CheckResult } from '../model.js';
import type { ScenarioIdentity } from '../runner/scenario.js';
import { matches, select } from '../runner/select.js';
import { findRequirement } from '../spec/catalog.js';

/** The id prefix of the live checks (the passive validators run over a server run's traffic). */
export const LIVE = 'live.';

/** What --only/--skip asked for: the scenarios to run, and which of the run's checks to report. */
export interface Selection<S extends ScenarioIdentity> {
  scenarios: S[];
  keep: (check: CheckResult) => boolean;
  /** --only or --skip left something out (what the run did not test may be why). */
  narrowed: boolean;
}

function liveRequirement(entry: string, flag: string): string {
  const id = entry.slice(LIVE.length).toUpperCase();
  if (!findRequirement(id)) throw new SetupError(`${flag} ${entry}: ${id} is not a requirement id (see mcpcheck list)`);
  return id;
}

/**
 * Scenario entries (ids, prefixes, areas, requirement ids) choose scenarios, as `select` does.
 * A live check `live.X` judges the traffic of every scenario, so `--only live.X` runs them all
 * and the report keeps the checks citing X; `--skip live.X` drops that one live check.
 * An --only entry that matches nothing is a usage error: a typo must not pass as "nothing failed".
 */
export function planSelection<S extends ScenarioIdentity>(all: S[], only: string[], skip: string[]): Selection<S> {
  const liveOnly = only.filter((e) => e.startsWith(LIVE)).map((e) => liveRequirement(e, '--only'));
  const scenarioOnly = only.filter((e) => !e.startsWith(LIVE));
  const liveSkip = new Set(skip.filter((e) => e.startsWith(LIVE)).map((e) => LIVE + liveRequirement(e, '--skip')));
  const scenarioSkip = skip.filter((e) => !e.startsWith(LIVE));
  for (const entry of scenarioOnly) {
    if (!all.some((s) => matches(s, entry))) throw new SetupError(`--only ${entry} matches no scenario id, area or requirement id (see mcpcheck list)`);
  }
  const scenarios = select(all, liveOnly.length > 0 ? [] : scenarioOnly, scenarioSkip);
  if (scenarios.length === 0) throw new SetupError('--only/--skip left no scenario to run (see mcpcheck list)');
  const byId = new Map(all.map((s) => [s.id, s]));
  const chosenScenario = (c: CheckResult) => {
    const s = c.scenario !== undefined ? byId.get(c.scenario) : undefined;
    return s !== undefined && scenarioOnly.some((e) => matches(s, e));
  };
  const keep = (c: CheckResult) => {
    if (liveSkip.has(c.id)) return false;
    if (liveOnly.length === 0) return true;
    return c.requirements.some((r) => liveOnly.includes(r)) || chosenScenario(c);
  };
  return { scenarios, keep, narrowed: only.length + skip.length > 0 };
}
