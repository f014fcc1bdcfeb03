import type { LevelCount, RequirementVerdict } from '../model.js';
import type { Level } from '../spec/catalog.js';

export const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'MAY'];

/** Per level: requirements actually graded (non-skip verdicts) and how many of them passed. */
export function levelCounts(verdicts: readonly RequirementVerdict[]): Record<Level, LevelCount> {
  const counts: Record<Level, LevelCount> = {
    MUST: { passed: 0, total: 0 },
    SHOULD: { passed: 0, total: 0 },
    MAY: { passed: 0, total: 0 },
  };
  for (const v of verdicts) {
    if (v.status === 'skip') continue;
    counts[v.level].total++;
    if (v.status === 'pass') counts[v.level].passed++;
  }
  return counts;
}

/**
 * The one-line grade, e.g. `requirements: MUST 57/60 · SHOULD 30/34 · MAY 1/1 · 4 skipped · 0 could not run`:
 * every number counts requirements (verdicts), as `summary.levels` and `summary.requirements` do.
 * A level with nothing graded is left out (a 0/0 reads like a failure); the skip and error counts
 * always show, since "0 could not run" is itself worth saying.
 */
export function headline(verdicts: readonly RequirementVerdict[]): string {
  const counts = levelCounts(verdicts);
  const parts = LEVELS.filter((l) => counts[l].total > 0).map((l) => `${l} ${counts[l].passed}/${counts[l].total}`);
  const skipped = verdicts.filter((v) => v.status === 'skip').length;
  const errored = verdicts.filter((v) => v.status === 'error').length;
  parts.push(`${skipped} skipped`, `${errored} could not run`);
  return `requirements: ${parts.join(' · ')}`;
}
