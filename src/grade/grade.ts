import type { CheckResult, RunReport, Status, TargetInfo } from '../model.js';
import { applyBaseline, type Baseline } from './baseline.js';
import { headline, levelCounts } from './headline.js';
import { requirementVerdicts } from './verdicts.js';

export type { Baseline } from './baseline.js';

export interface GradeInput {
  tool: { name: string; version: string };
  target: TargetInfo;
  startedAt: string;
  durationMs: number;
  checks: CheckResult[];
  notes?: string[];
  baseline?: Baseline;
}

/** Turn a run's checks into the report every output format renders; nothing downstream recomputes. */
export function grade(input: GradeInput): RunReport {
  const { checks, honoured, stale } = applyBaseline(input.checks, input.baseline);
  const requirements = requirementVerdicts(checks);

  const perStatus: Record<Status, number> = { pass: 0, fail: 0, warn: 0, skip: 0, error: 0 };
  for (const c of checks) perStatus[c.status]++;

  // Only `fail` at MUST level breaks the build: `warn` is a SHOULD/heuristic, and `error` means the
  // harness could not test (reported as "could not run", not as the target's fault).
  const mustFailures = checks.filter((c) => c.status === 'fail' && c.level === 'MUST' && !c.expected).length;

  return {
    tool: input.tool,
    target: input.target,
    startedAt: input.startedAt,
    summary: {
      headline: headline(requirements),
      checks: perStatus,
      levels: levelCounts(requirements),
      mustFailures,
      expectedFailures: honoured.length,
      staleBaseline: stale,
      durationMs: input.durationMs,
    },
    requirements,
    checks,
    notes: input.notes ?? [],
  };
}

/** 1 on an unexpected MUST failure or a stale baseline entry (a baseline must be kept honest), else 0. */
export function exitCode(report: RunReport): 0 | 1 {
  return report.summary.mustFailures > 0 || report.summary.staleBaseline.length > 0 ? 1 : 0;
}
