import type { ChildProcess } from 'node:child_process';

/** Waits a test spends on a fixture process: each bounded, so a broken fixture fails the test instead of hanging it. */

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `probe` until it yields a value, or throws after `ms` naming `what` was awaited. */
export async function waitUntil<T>(probe: () => T | undefined, ms: number, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** The child's exit code, or 'timeout' when it has not exited within `ms`. */
export function waitExit(child: ChildProcess, ms: number): Promise<number | null | 'timeout'> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve('timeout'), ms);
    child.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}
