import { randomInt } from 'node:crypto';

/** Generated cases per property in a normal run: enough to vary what a target sees, few enough to stay fast. */
export const PROPERTY_CASES = 3;

/** A seed fast-check accepts (a 32-bit signed integer), new for each run that was given none. */
export function freshSeed(): number {
  return randomInt(-(2 ** 31), 2 ** 31);
}

/** `--seed`: a whole number in fast-check's range, or undefined when the text is not one. */
export function parseSeed(text: unknown): number | undefined {
  const n = typeof text === 'number' ? text : typeof text === 'string' && /^-?\d+$/.test(text.trim()) ? Number(text) : NaN;
  return Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 ? n : undefined;
}
