/** The middle value (the upper middle of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * The median of the ratios a[i] / b[i], run i of each taken in turn: a change in the machine's
 * speed during the bench falls on both runs of a pair alike, where a ratio of medians may pair a
 * fast spell of one with a slow spell of the other.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((x, i) => x / b[i]!));
}
