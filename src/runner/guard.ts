import { SetupError } from '../errors.js';
import type { CheckRecorder } from './checks.js';
import { INTERRUPTED } from './observer.js';
import { PACE_CEILING_MS } from '../harness/pace.js';

/** The most a scenario's budget grows by its stalls: a start and a wait, each at the pace's ceiling. */
export const STALLS_CEILING_MS = 2 * PACE_CEILING_MS;

/**
 * A scenario's budget: `ms` for its own work, plus what `stalled` reports (the time its sessions
 * waited on the target's pace: its starts, frames it was slow to read in, pings), at most
 * STALLS_CEILING_MS of that.
 */
export interface ScenarioBudget {
  ms: number;
  stalled?: () => number;
}

/** Milliseconds the budget grants, counted from the scenario's start, as of now. */
export function budgetMs(budget: ScenarioBudget): number {
  return budget.ms + Math.min(STALLS_CEILING_MS, budget.stalled?.() ?? 0);
}

/**
 * Runs one scenario body under mcpcheck's scenario timeout, whichever role mcpcheck plays. What
 * goes wrong on mcpcheck's side (its timeout, an interruption, an exception) is "could not run",
 * never a verdict on the target; a setup error ends the whole run. `cutShort`: the timeout or the
 * signal ended the body, which may still be running and whose session is of no use any more.
 */
export async function runGuarded(recorder: CheckRecorder, budget: number | ScenarioBudget, body: () => Promise<void>, signal?: AbortSignal): Promise<{ cutShort: boolean }> {
  const b: ScenarioBudget = typeof budget === 'number' ? { ms: budget } : budget;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let cutShort = false;
  // Sealed before the session closes: what the scenario sees after this is mcpcheck's doing.
  const cut = (reason: string, reject: (e: Error) => void) => {
    cutShort = true;
    recorder.seal(reason);
    reject(new Error(reason));
  };
  try {
    await Promise.race([
      body(),
      new Promise<void>((_, reject) => {
        // The target's pace may have grown the budget meanwhile: the timer is set again for the rest.
        const expire = () => {
          const granted = budgetMs(b);
          const left = granted - (performance.now() - started);
          if (left > 0) timer = setTimeout(expire, left);
          else {
            const waited = Math.round(granted - b.ms);
            cut(`could not run to its end: mcpcheck's scenario timeout (${b.ms} ms; see --timeout${waited > 0 ? `; plus ${waited} ms its sessions waited on the target to start, to read what was sent or to answer ping` : ''}) cut it short`, reject);
          }
        };
        timer = setTimeout(expire, b.ms);
        onAbort = () => cut(INTERRUPTED, reject);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) onAbort();
      }),
    ]);
    if (recorder.checkCount === 0) recorder.couldNotRun('the scenario recorded no check (a harness bug)');
  } catch (e) {
    if (e instanceof SetupError) throw e;
    recorder.couldNotRun(`could not run: ${(e as Error).message ?? String(e)}`);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
  return { cutShort };
}

/**
 * Runs `work` over `items`, at most `concurrency` at a time, in order of the list. A lane that
 * `held` holds back starts once that settles; until every such hold has settled, the lanes
 * already running take the list from its end.
 */
export async function inLanes<T>(items: readonly T[], concurrency: number, work: (item: T, lane: number) => Promise<void>, held?: (lane: number) => Promise<unknown> | undefined): Promise<void> {
  let next = 0;
  let end = items.length;
  const waits = Array.from({ length: Math.max(1, concurrency) }, (_, lane) => held?.(lane));
  let holding = waits.filter((w) => w !== undefined).length;
  // Counted down before any lane it held resumes (these handlers come first), so that a released
  // lane already takes from the front.
  for (const w of waits) w?.then(() => holding--, () => holding--);
  await Promise.all(
    waits.map(async (wait, lane) => {
      if (wait) await wait.catch(() => undefined);
      while (next < end) await work(holding > 0 ? items[--end]! : items[next++]!, lane);
    }),
  );
}

/** Waits until `work` settles, `ms` at most (the timer is cleared either way). */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([work.then(() => undefined, () => undefined), over]);
  clearTimeout(timer);
}
