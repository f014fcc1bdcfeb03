import type { CheckResult, Status } from '../model.js';

/** Known failures a run tolerates: check ids, or requirement ids (matching every check citing them). */
export interface Baseline {
  expected: string[];
  /** Why an entry is expected to fail, by entry; only entries that carry a reason are here. */
  reasons?: Readonly<Record<string, string>>;
}

/** One entry of a baseline file as written: `{ "id": …, "reason": … }` (a bare string is an entry without a reason). */
export interface BaselineEntry {
  id: string;
  reason?: string;
}

const FAILING: ReadonlySet<Status> = new Set<Status>(['fail', 'warn', 'error']);

export function isFailing(status: Status): boolean {
  return FAILING.has(status);
}

/**
 * Parse a baseline file's text. Accepted shapes: `["id", …]`, `{ "expected": [...] }` or
 * `{ "expectedFailures": [...] }`; each entry is an id, or `{ "id": "…", "reason": "…" }`. Anything else throws a one-line Error naming the file, because
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
  const reasons: Record<string, string> = {};
  list.forEach((entry, i) => {
    const { id, reason } = readEntry(entry, (why) => fail(`entry ${i} ${why}`));
    ids.push(id);
    if (reason !== undefined) reasons[id] ??= reason;
  });
  return { expected: [...new Set(ids)], ...(Object.keys(reasons).length > 0 ? { reasons } : {}) };
}

/** An entry: a non-empty id string, or an object with exactly `id` and an optional string `reason`. */
function readEntry(entry: unknown, fail: (why: string) => never): BaselineEntry {
  const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
  if (nonEmpty(entry)) return { id: entry.trim() };
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return fail('is neither a non-empty string nor an object with "id"');
  const { id, reason, ...other } = entry as Record<string, unknown>;
  const extra = Object.keys(other)[0];
  if (extra !== undefined) fail(`has an unknown key ${JSON.stringify(extra)} (expected "id" and "reason")`);
  if (!nonEmpty(id)) fail('needs "id", a non-empty string');
  if (reason !== undefined && typeof reason !== 'string') fail('has a "reason" that is not a string');
  const why = (reason as string | undefined)?.trim();
  return { id: (id as string).trim(), ...(why ? { reason: why } : {}) };
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

function stillFails(entry: string, checks: readonly CheckResult[]): boolean {
  return checks.some((c) => isFailing(c.status) && matches(entry, c));
}

/** Mark baselined failures as expected; input checks are not mutated. */
export function applyBaseline(checks: readonly CheckResult[], baseline: Baseline | undefined): BaselineOutcome {
  const entries = baseline?.expected ?? [];
  const honoured: string[] = [];
  const stale: string[] = [];
  for (const entry of entries) {
    // A skipped or passing match counts as stale too: a baseline that tolerates nothing real
    // must be pruned, otherwise it would silently swallow the next regression.
    if (stillFails(entry, checks)) honoured.push(entry);
    else stale.push(entry);
  }
  const marked = checks.map((check) => {
    // Drop any `expected` flag (and reason) the producer set: only grading decides them.
    const { expected: _ignored, baselineReason: _alsoIgnored, ...rest } = check;
    const entries = isFailing(check.status) ? honoured.filter((e) => matches(e, check)) : [];
    if (entries.length === 0) return rest;
    const reason = entries.map((e) => baseline?.reasons?.[e]).find((r) => r !== undefined);
    return { ...rest, expected: true as const, ...(reason !== undefined ? { baselineReason: reason } : {}) };
  });
  return { checks: marked, honoured, stale };
}

/** Failures a baseline takes on: a SHOULD warns and a MUST fails; "could not run" is mcpcheck's, never baselined by upkeep. */
function isTargetFailure(check: CheckResult): boolean {
  return check.status === 'fail' || check.status === 'warn';
}

/**
 * The baseline a run's graded checks call for: the previous entries that still match a failing
 * check, with their reasons; then one entry per failing check none of them covers, by check id,
 * with its title and level as the reason (or the reason a report recorded for it). Stale entries
 * are dropped. Sorted by id, so a rewritten baseline diffs cleanly.
 */
export function updatedBaseline(checks: readonly CheckResult[], previous: Baseline | undefined): BaselineEntry[] {
  const withReason = (id: string, reason: string | undefined): BaselineEntry => (reason !== undefined ? { id, reason } : { id });
  const kept = (previous?.expected ?? []).filter((entry) => stillFails(entry, checks)).map((id) => withReason(id, previous?.reasons?.[id]));
  const added = checks
    .filter((c) => isTargetFailure(c) && !kept.some((e) => matches(e.id, c)))
    .map((c) => withReason(c.id, c.baselineReason ?? `${c.title} (${c.level})`));
  return [...kept, ...added].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A baseline file's text, in the `{ "expected": [...] }` shape `loadBaseline` reads. */
export function formatBaseline(entries: readonly BaselineEntry[]): string {
  return `${JSON.stringify({ expected: entries }, null, 2)}\n`;
}
