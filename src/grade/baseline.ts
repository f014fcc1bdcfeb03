import type { CheckResult, Status } from '../model.js';

/** Known failures a run tolerates: check ids, or requirement ids (matching every check citing them). */
export interface Baseline {
  expected: string[];
}

const FAILING: ReadonlySet<Status> = new Set<Status>(['fail', 'warn', 'error']);

export function isFailing(status: Status): boolean {
  return FAILING.has(status);
}

/**
 * Parse a baseline file's text. Accepted shapes: `["id", …]`, `{ "expected": [...] }` or
 * `{ "expectedFailures": [...] }`. Anything else throws a one-line Error naming the file, because
 * a baseline silently read as empty would turn known failures into surprise CI breakages (or,
 * worse, a typo'd key into a baseline that tolerates nothing while looking like it does).
 */
export function loadBaseline(text: string, source: string): Baseline {
  const fail = (why: string): never => {
    throw new Error(`invalid baseline ${source}: ${why}`.replace(/\s*[\r\n]+\s*/g, ' '));
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return fail(`not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }

  let list: unknown;
  if (Array.isArray(data)) {
    list = data;
  } else if (data !== null && typeof data === 'object') {
    const keys = Object.keys(data);
    const known = keys.filter((k) => k === 'expected' || k === 'expectedFailures');
    const unknown = keys.filter((k) => k !== 'expected' && k !== 'expectedFailures');
    if (unknown.length > 0) fail(`unknown key ${JSON.stringify(unknown[0])} (expected "expected" or "expectedFailures")`);
    if (known.length !== 1) fail('needs exactly one of "expected" or "expectedFailures"');
    list = (data as Record<string, unknown>)[known[0]!];
  } else {
    return fail('expected a JSON array of ids or an object with "expected": [...]');
  }

  if (!Array.isArray(list)) return fail('the list of expected failures is not an array');
  const ids: string[] = [];
  list.forEach((entry, i) => {
    if (typeof entry !== 'string' || entry.trim() === '') fail(`entry ${i} is not a non-empty string`);
    ids.push((entry as string).trim());
  });
  return { expected: [...new Set(ids)] };
}

export interface BaselineOutcome {
  /** The checks, with `expected` set exactly on the failing ones the baseline covers. */
  checks: CheckResult[];
  /** Entries that matched at least one failing check. */
  honoured: string[];
  /** Entries that matched no failing check: fixed since, or never matching anything. */
  stale: string[];
}

function matches(entry: string, check: CheckResult): boolean {
  return check.id === entry || check.requirements.includes(entry);
}

/** Mark baselined failures as expected; input checks are not mutated. */
export function applyBaseline(checks: readonly CheckResult[], baseline: Baseline | undefined): BaselineOutcome {
  const entries = baseline?.expected ?? [];
  const honoured: string[] = [];
  const stale: string[] = [];
  for (const entry of entries) {
    // A skipped or passing match counts as stale too: a baseline that tolerates nothing real
    // must be pruned, otherwise it would silently swallow the next regression.
    if (checks.some((c) => isFailing(c.status) && matches(entry, c))) honoured.push(entry);
    else stale.push(entry);
  }
  const marked = checks.map((check) => {
    // Drop any `expected` flag the producer set: only grading decides it.
    const { expected: _ignored, ...rest } = check;
    const expected = isFailing(check.status) && honoured.some((e) => matches(e, check));
    return expected ? { ...rest, expected: true } : rest;
  });
  return { checks: marked, honoured, stale };
}
