import { exitCode } from '../grade/grade.js';
import type { RunReport } from '../model.js';

export interface VerdictWords {
  /** passed, failed or incomplete: what the exit code says, in one word. */
  word: 'passed' | 'failed' | 'incomplete';
  /** What that exit code means, for a reader who did not run the command. */
  meaning: string;
}

const MEANING: Record<0 | 1 | 3, VerdictWords> = {
  0: { word: 'passed', meaning: 'exit 0: graded, no unexpected MUST failure' },
  1: { word: 'failed', meaning: 'exit 1: an unexpected MUST failure or a stale baseline entry' },
  3: { word: 'incomplete', meaning: 'exit 3: some check could not run, so the grade is incomplete (not a pass)' },
};

/** The run's verdict as its exit code gives it: the same words in every view that states one. */
export function verdictOf(report: RunReport): VerdictWords {
  const words = MEANING[exitCode(report)];
  return { ...words, meaning: report.summary.interrupted ? `${words.meaning}; the run was interrupted (Ctrl-C), so the report is partial` : words.meaning };
}
