import type { Level, Role } from '../spec/catalog.js';
import type { RevisionSpan, ScenarioIdentity } from '../runner/scenario.js';
import { catalogRow } from '../runner/checks.js';
import type { Step } from '../runner/client-scenario.js';
import { planSelection } from './selection.js';

export interface ListOptions {
  role: Role;
  only: string[];
  skip: string[];
}

/** One scenario as `list --json` gives it. */
export interface ListedScenario {
  id: string;
  alias?: string;
  title: string;
  requirements: Array<{ id: string; level: Level }>;
  /** Set when the scenario grades at a level of its own instead of its requirements'. */
  level?: Level;
  transports: Array<'stdio' | 'http'>;
  /** Client scenarios: what the client is asked to do, as data and in words. */
  steps?: Step[];
  asks?: string;
}

interface Listable extends ScenarioIdentity {
  needs?: { transport?: 'stdio' | 'http' };
  revisions?: RevisionSpan;
  steps?: Step[];
}

/** The scenarios --only/--skip would run, chosen exactly as a run chooses them. */
export async function listScenarios(o: ListOptions): Promise<ListedScenario[]> {
  const all: Listable[] =
    o.role === 'client'
      ? (await import('../../suites/client/index.js')).clientScenarios
      : o.role === 'AS'
        ? (await import('../../suites/authorization-server/index.js')).authorizationServerScenarios
        : (await import('../../suites/server/index.js')).serverScenarios;
  const { describeSteps } = await import('../runner/client-scenario.js');
  return planSelection(all, o.only, o.skip).scenarios.map((s) => ({
    id: s.id,
    ...(s.alias !== undefined ? { alias: s.alias } : {}),
    title: s.title,
    // A scenario of the 2026-07-28 era cites that catalog's rows, at their level there.
    requirements: s.requirements.map((id) => ({ id, level: catalogRow(id, s.revisions?.introduced).level })),
    ...(s.level !== undefined ? { level: s.level } : {}),
    transports: o.role === 'AS' ? ['http'] : s.needs?.transport ? [s.needs.transport] : ['stdio', 'http'],
    ...(s.steps !== undefined ? { steps: s.steps, asks: describeSteps(s.steps) } : {}),
  }));
}

/** One line per scenario (two for a client scenario: what it asks the client to do). */
export function listText(scenarios: ListedScenario[]): string {
  return scenarios
    .map((s) => {
      const only = s.transports.length === 1 ? ` ${s.transports[0]} only` : '';
      const head = `${s.id}${s.alias ? ` (alias ${s.alias})` : ''}  [${s.requirements.map((r) => r.id).join(', ')}]${only}  ${s.title}\n`;
      return s.asks !== undefined ? `${head}    asks the client to: ${s.asks}\n` : head;
    })
    .join('');
}
