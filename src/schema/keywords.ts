/** A keyword's value when it is a finite number (a bound, a length, a step), else undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A number's bounds as a schema states them: each bound, and whether it is exclusive. */
export interface NumericBounds {
  lo: number | undefined;
  hi: number | undefined;
  loOpen: boolean;
  hiOpen: boolean;
}

/** Reads minimum/maximum and exclusiveMinimum/exclusiveMaximum, the tighter bound winning. */
export function numericBounds(schema: Record<string, unknown>): NumericBounds {
  let lo = num(schema.minimum);
  let hi = num(schema.maximum);
  let loOpen = false;
  let hiOpen = false;
  // draft-04 spells exclusivity as booleans beside minimum/maximum; later drafts as numbers.
  const xlo = num(schema.exclusiveMinimum);
  const xhi = num(schema.exclusiveMaximum);
  if (schema.exclusiveMinimum === true) loOpen = lo !== undefined;
  else if (xlo !== undefined && (lo === undefined || xlo >= lo)) [lo, loOpen] = [xlo, true];
  if (schema.exclusiveMaximum === true) hiOpen = hi !== undefined;
  else if (xhi !== undefined && (hi === undefined || xhi <= hi)) [hi, hiOpen] = [xhi, true];
  return { lo, hi, loOpen, hiOpen };
}
