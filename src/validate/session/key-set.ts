import type { Key } from './ledger.js';

/**
 * The request ids a session has seen, in memory that stays small however long the session runs
 * (mcpcheck proxy judges sessions of hours): integer ids, which most peers count up one by one,
 * are kept as runs of consecutive integers; any other id is kept as itself.
 */
export class KeySet {
  private readonly others = new Set<Key>();
  /** Disjoint runs of integers [starts[i], ends[i]], sorted, never adjacent (adjacent runs are merged). */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  has(key: Key): boolean {
    if (typeof key !== 'number' || !Number.isSafeInteger(key)) return this.others.has(key);
    const run = this.runBefore(key);
    return run >= 0 && key <= this.ends[run]!;
  }

  add(key: Key): void {
    if (typeof key !== 'number' || !Number.isSafeInteger(key)) {
      this.others.add(key);
      return;
    }
    const run = this.runBefore(key);
    if (run >= 0 && key <= this.ends[run]!) return;
    const next = run + 1;
    const joinsBefore = run >= 0 && this.ends[run] === key - 1;
    const joinsAfter = next < this.starts.length && this.starts[next] === key + 1;
    if (joinsBefore && joinsAfter) {
      this.ends[run] = this.ends[next]!;
      this.starts.splice(next, 1);
      this.ends.splice(next, 1);
    } else if (joinsBefore) this.ends[run] = key;
    else if (joinsAfter) this.starts[next] = key;
    else {
      this.starts.splice(next, 0, key);
      this.ends.splice(next, 0, key);
    }
  }

  /** The last run that starts at or before `key`, or -1. */
  private runBefore(key: number): number {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.starts[mid]! <= key) low = mid + 1;
      else high = mid;
    }
    return low - 1;
  }
}
