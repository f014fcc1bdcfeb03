import { show } from '../validate/finding.js';

/**
 * A listener list. A listener that throws is a bug in the harness, not something the target did,
 * so it must not break the transport's own bookkeeping: the error is re-thrown on a later tick,
 * where it surfaces as an uncaught exception instead of being swallowed.
 */
export class Listeners<T> {
  private readonly list: Array<(value: T) => void> = [];
  /**
   * Values emitted before anyone listened. A target may write before `start()` even returns
   * (a banner, an early notification), and that is exactly what must not be lost.
   */
  private early: T[] | undefined = [];

  add(listener: (value: T) => void): void {
    this.list.push(listener);
    const early = this.early;
    this.early = undefined;
    for (const value of early ?? []) this.call(listener, value);
  }

  emit(value: T): void {
    if (this.early) {
      // Bounded: a stream nobody listens to must not grow without limit.
      if (this.early.length < 10_000) this.early.push(value);
      return;
    }
    for (const listener of this.list) this.call(listener, value);
  }

  private call(listener: (value: T) => void, value: T): void {
    try {
      listener(value);
    } catch (err) {
      setImmediate(() => {
        throw err;
      });
    }
  }
}

export interface Decoded {
  text: string;
  /** The bytes were not valid UTF-8; `text` then holds a lossy decoding (U+FFFD replacements). */
  invalid: boolean;
}

// ignoreBOM keeps a leading BOM in the text, so callers can see and report it.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lossy = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Strict UTF-8 decoding (BASE-MSG-02) that still yields readable text when the bytes are broken. */
export function decodeUtf8(bytes: Uint8Array): Decoded {
  try {
    return { text: strict.decode(bytes), invalid: false };
  } catch {
    return { text: lossy.decode(bytes), invalid: true };
  }
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** The first `max` characters of text a target sent, escaped for a report. */
export function quote(text: string, max = 200): string {
  if (text.length <= max) return show(text, max * 6 + 2);
  return show(text.slice(0, max), max * 6 + 2) + `…(${text.length} chars)`;
}

/** Milliseconds since a fixed start, for IncomingFrame.at. */
export function clockFrom(start = performance.now()): () => number {
  return () => Math.round((performance.now() - start) * 1000) / 1000;
}

export const MiB = 1024 * 1024;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 20 ms until it holds (true) or `timeoutMs` passes (false). */
export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}
