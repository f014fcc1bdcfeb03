import { readFile, writeFile } from 'node:fs/promises';
import { SetupError } from '../errors.js';
import type { Baseline } from '../grade/index.js';
import { isObject } from '../json.js';
import type { CheckResult, RunReport } from '../model.js';
import { errnoText } from './report-output.js';
import { write } from './exit.js';

async function readText(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new SetupError(`${flag} ${path}: cannot read it (${errnoText(e)})`);
  }
}

export async function readBaseline(path: string | undefined): Promise<Baseline | undefined> {
  if (path === undefined) return undefined;
  const text = await readText('--baseline', path);
  const { loadBaseline } = await import('../grade/index.js');
  try {
    return loadBaseline(text, path);
  } catch (e) {
    throw new SetupError((e as Error).message);
  }
}

/**
 * Writes the baseline graded checks call for (see `updatedBaseline`), with one line on stderr
 * saying what changed; `label` names where the path came from in an error.
 */
export async function writeUpdatedBaseline(label: string, path: string, checks: readonly CheckResult[], previous: Baseline | undefined): Promise<void> {
  const { formatBaseline, updatedBaseline } = await import('../grade/index.js');
  const entries = updatedBaseline(checks, previous);
  try {
    await writeFile(path, formatBaseline(entries), 'utf8');
  } catch (e) {
    throw new SetupError(`${label}: cannot write it (${errnoText(e)})`);
  }
  const before = new Set(previous?.expected ?? []);
  const kept = entries.filter((e) => before.has(e.id)).length;
  const dropped = before.size - kept;
  await write(process.stderr, `mcpcheck: wrote ${entries.length} baseline entr${entries.length === 1 ? 'y' : 'ies'} to ${path} (${kept} kept, ${entries.length - kept} new, ${dropped} stale dropped)\n`);
}

const STATUSES = new Set(['pass', 'fail', 'warn', 'skip', 'error']);

/** A check as a saved JSON report holds it: what baseline upkeep reads of it, checked. */
function isSavedCheck(value: unknown): value is CheckResult {
  return (
    isObject(value) &&
    typeof value.id === 'string' &&
    typeof value.title === 'string' &&
    typeof value.level === 'string' &&
    typeof value.status === 'string' &&
    STATUSES.has(value.status) &&
    Array.isArray(value.requirements) &&
    value.requirements.every((r) => typeof r === 'string') &&
    (value.baselineReason === undefined || typeof value.baselineReason === 'string')
  );
}

/** The checks of a JSON report mcpcheck wrote (`--json FILE`). */
export async function readSavedChecks(path: string): Promise<CheckResult[]> {
  const text = await readText('--from', path);
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch (e) {
    throw new SetupError(`--from ${path}: not valid JSON (${(e as Error).message})`);
  }
  const checks = isObject(report) ? (report as Partial<Record<keyof RunReport, unknown>>).checks : undefined;
  if (!Array.isArray(checks)) throw new SetupError(`--from ${path}: not an mcpcheck JSON report (no "checks" list; write one with --json FILE)`);
  const bad = checks.findIndex((c) => !isSavedCheck(c));
  if (bad >= 0) throw new SetupError(`--from ${path}: check ${bad} is not a check of an mcpcheck JSON report`);
  return checks as CheckResult[];
}
