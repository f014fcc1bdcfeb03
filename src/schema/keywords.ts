/** A keyword's value when it is a finite number (a bound, a length, a step), else undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
