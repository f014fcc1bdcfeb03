import type { CheckResult, Status } from '../model.js';

/** Checks of one spec area, in the order the report presents them. */
export interface AreaGroup {
  area: string;
  checks: CheckResult[];
}

/** Display order inside an area: what needs attention first, then what went well, then what did not run. */
const ORDER: Record<Status, number> = { fail: 0, error: 1, warn: 2, pass: 3, skip: 4 };

/** A failure the baseline did not excuse; these are what a reader must look at first. */
export function isUnexpectedFailure(check: CheckResult): boolean {
  return (check.status === 'fail' || check.status === 'error') && !check.expected;
}

function attention(group: CheckResult[]): number {
  if (group.some(isUnexpectedFailure)) return 0;
  if (group.some((c) => c.status === 'warn' || c.expected)) return 1;
  return 2;
}

/**
 * Group by area: areas with unexpected failures first, then areas with warnings or baselined
 * failures, then the rest, each tier keeping first-appearance order so runs compare line by line.
 */
export function groupByArea(checks: readonly CheckResult[]): AreaGroup[] {
  const byArea = new Map<string, CheckResult[]>();
  for (const check of checks) {
    const list = byArea.get(check.area);
    if (list) list.push(check);
    else byArea.set(check.area, [check]);
  }
  const groups = [...byArea].map(([area, list]) => ({
    area,
    checks: list
      .map((c, i) => ({ c, i }))
      .sort((a, b) => ORDER[a.c.status] - ORDER[b.c.status] || Number(!!a.c.expected) - Number(!!b.c.expected) || a.i - b.i)
      .map(({ c }) => c),
  }));
  return groups
    .map((g, i) => ({ g, i, rank: attention(g.checks) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map(({ g }) => g);
}

/** Skip reasons with how often each occurred, most frequent first (ties in first-seen order). */
export function skipReasons(skipped: readonly CheckResult[]): Array<{ reason: string; count: number }> {
  const counts = new Map<string, number>();
  for (const c of skipped) {
    const reason = c.message.trim() || 'no reason given';
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count);
}
