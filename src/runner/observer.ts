import type { CheckResult } from '../model.js';

/**
 * What a run tells whoever watches it as it goes (the progress line): scenarios planned, started
 * and finished, with the checks each recorded. Watching changes nothing about the run.
 */
export interface RunObserver {
  /** `total` more scenarios are planned (each run a command makes plans its own). */
  planned(total: number): void;
  started(scenario: string): void;
  finished(scenario: string, checks: readonly CheckResult[]): void;
}

/** How a run is watched and stopped: both optional, a run without them behaves as it always did. */
export interface RunControl {
  observer?: RunObserver;
  /** Aborted (Ctrl-C): no scenario starts any more, running ones are cut short as "could not run". */
  signal?: AbortSignal;
}

/** The message of the checks an interruption left without a verdict. */
export const INTERRUPTED = 'could not run to its end: the run was interrupted (Ctrl-C)';
export const INTERRUPTED_BEFORE_START = 'could not run: the run was interrupted (Ctrl-C) before this scenario started';
