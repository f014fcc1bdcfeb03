/**
 * Runs one property against a live target with fast-check: seeded generation, shrinking of a
 * failure to the smallest case that still fails, and a budget, because every case costs real
 * traffic (and, for a client, maybe a process). A case the target could not be judged on
 * (it went away cleanly, say) is skipped, never counted as held.
 */
import fc from 'fast-check';

/** What one case showed: the property held, it failed (and why), or the case judged nothing. */
export type CaseVerdict = { held: true } | { failed: string } | { inconclusive: string };

export interface PropertyBudget {
  /** Generated cases to try. */
  cases: number;
  /** Cases judged at most, shrinking included. */
  maxEvaluations: number;
  /** No case starts after this time (performance.now()). */
  deadline: number;
  /** Nor once this is aborted (Ctrl-C). */
  signal?: AbortSignal | undefined;
}

/** Whether no case may start any more: the deadline passed, or the run was stopped. */
export function budgetOver(budget: { deadline: number; signal?: AbortSignal | undefined }): boolean {
  return performance.now() >= budget.deadline || budget.signal?.aborted === true;
}

export interface PropertyFailure<T> {
  /** The smallest failing case shrinking reached. */
  counterexample: T;
  /** Why that case failed. */
  reason: string;
  /** fast-check's path to the counterexample (with the seed, it replays exactly that case). */
  path: string;
  shrinks: number;
}

export interface PropertyOutcome<T> {
  seed: number;
  /** Cases that were judged (held or failed), shrinking included. */
  judged: number;
  /** Why cases judged nothing, each reason once. */
  inconclusive: string[];
  failure?: PropertyFailure<T>;
  /** The budget ran out: fewer cases were tried, or shrinking stopped early. */
  cutShort: boolean;
  /** Of cutShort: the time budget or an interruption did it (not the bound on evaluations). */
  outOfTime: boolean;
  /**
   * Shrinking candidates that judged nothing: shrinking passed them by, so another run with the
   * same seed may reach a different smallest case.
   */
  unjudgedShrinks: number;
}

/** Cases drawn from any of `arbitraries` (a property over several tools' arguments). */
export function anyOf<T>(arbitraries: ReadonlyArray<fc.Arbitrary<T>>): fc.Arbitrary<T> {
  return fc.oneof(...arbitraries);
}

export async function checkProperty<T>(arbitrary: fc.Arbitrary<T>, seed: number, budget: PropertyBudget, judge: (value: T) => Promise<CaseVerdict>): Promise<PropertyOutcome<T>> {
  let judged = 0;
  let cutShort = false;
  let outOfTime = false;
  let unjudgedShrinks = 0;
  const inconclusive = new Set<string>();
  let lastFailure: { value: T; reason: string } | undefined;
  // Past the budget (or interrupted), a skip (fc.pre) would leave fast-check generating and skipping
  // every case left, at the cost of each (seconds for a large run): one failing case ends its run at
  // once, and each shrinking candidate after it, like those of a real failure, holds.
  let stopped = false;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    if (judged >= budget.maxEvaluations || budgetOver(budget)) {
      cutShort = true;
      if (budgetOver(budget)) outOfTime = true;
      if (lastFailure !== undefined || stopped) return true;
      stopped = true;
      return false;
    }
    const verdict = await judge(value);
    if ('inconclusive' in verdict) {
      inconclusive.add(verdict.inconclusive);
      if (lastFailure) unjudgedShrinks++;
      fc.pre(false);
    }
    judged++;
    if ('failed' in verdict) {
      lastFailure = { value, reason: verdict.failed };
      return false;
    }
    return true;
  });
  // Few skips per case: a skipped case costs as much as a judged one.
  // Past the deadline fast-check stops generating at all (values still cost time to generate and skip).
  const remainingMs = budget.deadline - performance.now();
  const interrupt = Number.isFinite(remainingMs) ? { interruptAfterTimeLimit: Math.max(1, Math.ceil(remainingMs)), markInterruptAsFailure: false } : {};
  const details = await fc.check(property, { seed, numRuns: budget.cases, maxSkipsPerRun: 1, ...interrupt });
  // fast-check's own clock may stop it a moment before the deadline by ours: it stopped for the time all the same.
  if (details.interrupted) cutShort = outOfTime = true;
  // A judge that threw is a bug in mcpcheck, not a failure of the target: it is not passed off as an ended run.
  if (details.failed && !lastFailure && !stopped && details.errorInstance instanceof Error) throw details.errorInstance;
  const outcome: PropertyOutcome<T> = { seed, judged, inconclusive: [...inconclusive], cutShort, outOfTime, unjudgedShrinks };
  if (details.failed && details.counterexample && lastFailure) {
    // Shrinking ends on the last case that failed; that is the counterexample fast-check reports.
    outcome.failure = { counterexample: details.counterexample[0] as T, reason: lastFailure.reason, path: details.counterexamplePath ?? '', shrinks: details.numShrinks };
  }
  return outcome;
}
