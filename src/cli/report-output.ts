import { mkdir, open, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { SetupError } from '../errors.js';
import type { RunReport } from '../model.js';
import type { Redactor } from '../redact.js';
import { FILE_FORMAT_NAMES, type FileFormatName } from '../report/formats.js';
import { write } from './exit.js';

/** `--json -` / `--junit -`: that report goes to stdout, and the console report to stderr. */
export const STDOUT = '-';

/** The --reporter names: every file format, and the two that are views of their own. */
export const REPORTERS = ['console', 'github', ...FILE_FORMAT_NAMES] as const;
export type ReporterName = (typeof REPORTERS)[number];

export type ReportFlags = Partial<Record<FileFormatName, string | undefined>> & {
  reporter?: string[] | undefined;
  verbose?: boolean | undefined;
  color?: boolean | undefined;
};

/** Where each view of the report goes. */
export interface OutputPlan {
  files: Partial<Record<FileFormatName, string>>;
  /** The file format that owns stdout; the console report then goes to stderr. */
  stdout?: FileFormatName;
  /** GitHub annotations: on the console's stream (the runner reads workflow commands on both). */
  github: boolean;
  /** $GITHUB_STEP_SUMMARY: the Markdown summary is appended there. */
  stepSummary?: string;
}

function isFileFormat(name: string): name is FileFormatName {
  return (FILE_FORMAT_NAMES as string[]).includes(name);
}

/**
 * Decide where each view goes. `--<format> -` and `--reporter <format>` put that format on stdout,
 * `--reporter console` keeps the console there; more than one of them is a usage error, since
 * two documents on one stream are neither. GitHub annotations come with `--reporter github` or
 * on a GitHub runner (GITHUB_ACTIONS=true), the job summary whenever GITHUB_STEP_SUMMARY is set.
 */
export function planOutput(flags: ReportFlags, env: NodeJS.ProcessEnv): OutputPlan {
  const reporters = flags.reporter ?? [];
  const claims = new Map<string, string>();
  const files: Partial<Record<FileFormatName, string>> = {};
  for (const format of FILE_FORMAT_NAMES) {
    const path = flags[format];
    if (path === STDOUT) claims.set(format, `--${format} -`);
    else if (path !== undefined) files[format] = path;
  }
  for (const name of reporters) {
    if ((name === 'console' || isFileFormat(name)) && !claims.has(name)) claims.set(name, `--reporter ${name}`);
  }
  if (claims.size > 1) {
    const named = [...claims.values()];
    const list = `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
    throw new SetupError(`${list} cannot ${named.length === 2 ? 'both' : 'all'} go to stdout: only one report format can (write the others to files)`);
  }
  const [owner] = claims.keys();
  return {
    files,
    ...(owner !== undefined && isFileFormat(owner) ? { stdout: owner } : {}),
    github: reporters.includes('github') || env.GITHUB_ACTIONS === 'true',
    ...(env.GITHUB_STEP_SUMMARY ? { stepSummary: env.GITHUB_STEP_SUMMARY } : {}),
  };
}

export function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const known: Record<string, string> = {
    ENOENT: 'no such file or directory',
    ENOTDIR: 'a parent is a file, not a directory',
    // mkdir -p reports a file in the way of a folder as EEXIST
    EEXIST: 'a parent is a file, not a directory',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'read-only file system',
    EISDIR: 'is a directory',
  };
  return (code !== undefined ? known[code] : undefined) ?? code ?? (e as Error).message;
}

/**
 * `mkdir -p`, one level at a time from the nearest folder that exists: Node's recursive mkdir
 * spins for ever where a file system says ENOENT to a new entry under a folder that exists (/proc).
 */
async function makeDirectory(dir: string): Promise<void> {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const found = await stat(at).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
    if (found) {
      if (!found.isDirectory()) throw Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' });
      break;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const level of missing.reverse()) await mkdir(level).catch((e: NodeJS.ErrnoException) => (e.code === 'EEXIST' ? undefined : Promise.reject(e)));
}

function cannotWrite(flag: string, path: string, e: unknown): SetupError {
  return new SetupError(`${flag} ${path}: cannot write there (${errnoText(e)})`);
}

async function writableDir(flag: string, path: string, dir: string): Promise<void> {
  try {
    await makeDirectory(dir);
    // A folder that access() calls writable may still refuse a file (/proc, /sys): a file is made and removed.
    const probe = join(dir, `.mcpcheck-write-test-${process.pid}-${Math.random().toString(36).slice(2)}`);
    await (await open(probe, 'wx')).close();
    await rm(probe, { force: true });
  } catch (e) {
    throw cannotWrite(flag, path, e);
  }
}

/**
 * A report file, proven writable now: an existing one must be a regular file and is opened for
 * appending (nothing of it is lost if the run never gets to write it); a new one is created, and
 * removed again, since it is mcpcheck's own.
 */
export async function writableFile(flag: string, path: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new SetupError(`${flag} ${path}: is a directory, not a file`);
  if (existing && !existing.isFile()) throw new SetupError(`${flag} ${path}: is not a regular file (a device, a pipe or a socket); name a file, or - for stdout`);
  if (!existing) {
    try {
      await makeDirectory(dirname(path));
    } catch (e) {
      throw cannotWrite(flag, path, e);
    }
  }
  try {
    await (await open(path, existing ? 'a' : 'wx')).close();
    if (!existing) await rm(path, { force: true });
  } catch (e) {
    throw cannotWrite(flag, path, e);
  }
}

/**
 * Report destinations are checked before anything runs: a run of minutes must not end in
 * "cannot write the report". Parent folders are created here, as writing them would.
 */
export async function checkReportPaths(
  flags: ReportFlags & { transcript?: string | undefined; 'update-baseline'?: string | undefined; out?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const plan = planOutput(flags, env);
  for (const [format, path] of Object.entries(plan.files)) await writableFile(`--${format}`, path);
  if (plan.stepSummary !== undefined) await writableFile('GITHUB_STEP_SUMMARY', plan.stepSummary);
  if (flags['update-baseline'] !== undefined) await writableFile('--update-baseline', flags['update-baseline']);
  if (flags.transcript !== undefined) await writableDir('--transcript', flags.transcript, flags.transcript);
  if (flags.out !== undefined) await writableDir('--out', flags.out, flags.out);
}

/**
 * Colour: an explicit --color / --no-color wins; then NO_COLOR (any non-empty value, no-color.org)
 * turns it off; then FORCE_COLOR turns it on ("0" or "false" off); else colour when a terminal reads.
 */
export function useColor(flag: boolean | undefined, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (flag !== undefined) return flag;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return stream.isTTY === true;
}

/**
 * Report files first (a closed stdout must not cost them), then the job summary, then the console
 * report, then stdout's format, then annotations. A job summary that cannot be appended to after
 * the run is a setup error (exit 2): CI would show a summary that is silently missing. Every view
 * is rendered from the report with its secrets replaced (redact.ts), before any escaping.
 */
export async function emitReport(full: RunReport, flags: ReportFlags, redactor: Redactor, env: NodeJS.ProcessEnv = process.env, consoleTo?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }): Promise<void> {
  const report = redactor.deep(full);
  const plan = planOutput(flags, env);
  // The modules themselves, not the report barrel: a run loads only the renderers it writes with.
  const [{ appendReport, render, writeReports }, { renderConsole }, { renderGithub }] = await Promise.all([import('../report/write.js'), import('../report/console.js'), import('../report/github.js')]);
  await writeReports(report, plan.files);
  if (plan.stepSummary !== undefined) {
    try {
      await appendReport(plan.stepSummary, await render(report, 'markdown'));
    } catch (e) {
      throw new SetupError(`GITHUB_STEP_SUMMARY ${plan.stepSummary}: cannot append the summary (${errnoText(e)})`);
    }
  }
  const consoleStream = consoleTo ?? (plan.stdout === undefined ? process.stdout : process.stderr);
  const width = consoleStream.isTTY && consoleStream.columns !== undefined && consoleStream.columns > 0 ? { width: consoleStream.columns } : {};
  await write(consoleStream, renderConsole(report, { color: useColor(flags.color, consoleStream, env), verbose: flags.verbose ?? false, ...width }));
  if (plan.stdout !== undefined) await write(process.stdout, await render(report, plan.stdout));
  if (plan.github) await write(consoleStream, renderGithub(report));
}
