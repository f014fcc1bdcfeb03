import type { CheckResult, RequirementVerdict, Status } from '../model.js';
import { allRequirements, appliesIn, isRequirementId, levelIn, requirementIn, requirementOfEither, strongerLevel, weakerLevel, type Level, type Requirement } from '../spec/catalog.js';
import { isRevision, isStatefulRevision } from '../spec/revisions.js';

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
 * The level a check grades one of its requirements at: the requirement's level in the revision the
 * check's session negotiated (`levelIn`: LIFE-OP-02 on a 2024-11-05 session is a SHOULD, even where
 * another rule leads the check), or the check's own where that is lower (a ruling that makes a
 * MUST a warning).
 */
export function gradedLevel(check: Pick<CheckResult, 'level' | 'revision'>, id: string): Level {
  return weakerLevel(check.level, ruleLevel(check, id) ?? check.level);
}

/** The rule's level where the check was judged: in its session's revision, else the catalog's. */
export function ruleLevel(check: Pick<CheckResult, 'revision'>, id: string): Level | undefined {
  const known = catalogued(id, [check]);
  if (!known) return undefined;
  if (isStatefulRevision(check.revision)) return levelIn(known.id, check.revision);
  // A check judged in the stateless era grades the rule by that era's catalog.
  return isRevision(check.revision) && appliesIn(known.id, check.revision) ? levelIn(known.id, check.revision) : known.level;
}

/**
 * A verdict's level is the highest level its deciding checks (those with its status) graded it
 * at: a MUST that one check passed is a MUST pass, a MUST that only a ruling's warning judged is
 * a SHOULD warning. Errors take the rule's level in their sessions' revisions (a check that could
 * not run applied no ruling); skips keep the catalog's level.
 */
function verdictLevel(id: string, status: Status, cited: readonly CheckResult[], catalogued: Level): Level {
  if (status === 'skip') return catalogued;
  const deciding = cited.filter((c) => c.status === status);
  const levels = deciding.map((c) => (status === 'error' ? (ruleLevel(c, id) ?? catalogued) : gradedLevel(c, id)));
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
    const known = catalogued(id, cited);
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

/**
 * The rule as the catalog its checks were judged by has it: a carried rule judged only in the
 * stateless era is that catalog's row (its URL is the 2026-07-28 page); otherwise the 2025-11-25
 * row, or the 2026-07-28 one for a rule new there. Undefined for an id of no catalog.
 */
function catalogued(id: string, cited: ReadonlyArray<Pick<CheckResult, 'revision'>>): Requirement | undefined {
  if (!isRequirementId(id)) return undefined;
  const stateless = cited[0]?.revision;
  const allStateless = stateless !== undefined && isRevision(stateless) && !isStatefulRevision(stateless) && cited.every((c) => c.revision === stateless);
  return (allStateless ? requirementIn(id, stateless) : undefined) ?? requirementOfEither(id);
}

let positions: Map<string, number> | undefined;
function catalogOrder(): Map<string, number> {
  positions ??= new Map(allRequirements().map((r, i) => [r.id, i]));
  return positions;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
