import type { CheckResult, RequirementVerdict, Status } from '../model.js';
import { allRequirements, findRequirement, strongerLevel, weakerLevel, type Level } from '../spec/catalog.js';

/**
 * How bad each status is. error outranks fail because a requirement we could not test must
 * never be reported as met; skip is lowest so one skipped check cannot hide a real outcome.
 */
const SEVERITY: Record<Status, number> = { skip: 0, pass: 1, warn: 2, fail: 3, error: 4 };

/** The worst of the statuses; an empty list means nothing ran, which is a skip. */
export function worstStatus(statuses: Iterable<Status>): Status {
  let worst: Status = 'skip';
  for (const s of statuses) if (SEVERITY[s] > SEVERITY[worst]) worst = s;
  return worst;
}

/** Sort key for statuses, worst first (for reports that list failures before passes). */
export function statusRank(status: Status): number {
  return -SEVERITY[status];
}

/**
 * The level a check grades one of its requirements at: the requirement's level, or the check's own
 * where that is lower — a ruling that makes a MUST a warning, or an older revision where the rule
 * was a SHOULD, records the check at the lower level, and the tally must count it there.
 */
export function gradedLevel(check: Pick<CheckResult, 'level'>, id: string): Level {
  return weakerLevel(check.level, findRequirement(id)?.level ?? check.level);
}

/**
 * A verdict's level is the highest level its deciding checks (those with its status) graded it
 * at: a MUST that one check passed is a MUST pass, a MUST that only a ruling's warning judged is
 * a SHOULD warning. Skips and errors keep the catalog's level.
 */
function verdictLevel(id: string, status: Status, cited: readonly CheckResult[], catalogued: Level): Level {
  if (status === 'skip' || status === 'error') return catalogued;
  const levels = cited.filter((c) => c.status === status).map((c) => gradedLevel(c, id));
  return levels.length > 0 ? levels.reduce(strongerLevel) : catalogued;
}

/**
 * One verdict per requirement cited by any check. Verdicts come in catalog order so a report
 * does not change with the order concurrent scenarios happened to finish in.
 */
export function requirementVerdicts(checks: readonly CheckResult[]): RequirementVerdict[] {
  const byRequirement = new Map<string, CheckResult[]>();
  for (const check of checks) {
    for (const id of new Set(check.requirements)) {
      const list = byRequirement.get(id);
      if (list) list.push(check);
      else byRequirement.set(id, [check]);
    }
  }

  const verdicts: RequirementVerdict[] = [];
  for (const [id, cited] of byRequirement) {
    const known = findRequirement(id);
    const status = worstStatus(cited.map((c) => c.status));
    // An uncatalogued id is a bug in a check (a catalog test guards it), but losing a whole run's
    // grade to it would be worse, so it is graded at the level the check claims.
    verdicts.push({
      id,
      level: verdictLevel(id, status, cited, known?.level ?? cited[0]!.level),
      status,
      checks: [...new Set(cited.map((c) => c.id))],
      url: known?.url ?? '',
      title: known?.title ?? '(not in the requirement catalog)',
    });
  }

  const order = catalogOrder();
  return verdicts.sort((a, b) => (order.get(a.id) ?? Infinity) - (order.get(b.id) ?? Infinity) || cmp(a.id, b.id));
}

let positions: Map<string, number> | undefined;
function catalogOrder(): Map<string, number> {
  positions ??= new Map(allRequirements().map((r, i) => [r.id, i]));
  return positions;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
