import { SetupError } from '../errors.js';
import type { CheckRecorder } from './checks.js';
import { INTERRUPTED } from './observer.js';

/**
 * The least time a freshly started target gets for its first message, whatever the request
 * timeout: a cold Node start on a busy machine takes seconds, and that is no slowness of its answers.
 */
export const STARTUP_MS = 10_000;

/**
 * Runs one scenario body under mcpcheck's scenario timeout, whichever role mcpcheck plays. What
 * goes wrong on mcpcheck's side (its timeout, an interruption, an exception) is "could not run",
 * never a verdict on the target; a setup error ends the whole run. `cutShort`: the timeout or the
 * signal ended the body, which may still be running and whose session is of no use any more.
 */
export async function runGuarded(recorder: CheckRecorder, timeoutMs: number, body: () => Promise<void>, signal?: AbortSignal): Promise<{ cutShort: boolean }> {
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
        timer = setTimeout(() => cut(`could not run to its end: mcpcheck's scenario timeout (${timeoutMs} ms; see --timeout) cut it short`, reject), timeoutMs);
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

/** Runs `work` over `items`, at most `concurrency` at a time, in order of the list. */
export async function inLanes<T>(items: readonly T[], concurrency: number, work: (item: T, lane: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, concurrency) }, async (_, lane) => {
      while (next < items.length) await work(items[next++]!, lane);
    }),
  );
}
