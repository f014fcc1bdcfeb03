import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SetupError } from '../errors.js';
import type { RunReport } from '../model.js';
import { write } from './exit.js';

/** `--json -` / `--junit -`: that report goes to stdout, and the console report to stderr. */
export const STDOUT = '-';

export interface ReportFlags {
  json?: string | undefined;
  junit?: string | undefined;
  html?: string | undefined;
  verbose?: boolean | undefined;
  color?: boolean | undefined;
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

async function writableDir(flag: string, path: string, dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
  } catch (e) {
    throw new SetupError(`${flag} ${path}: cannot write there (${errnoText(e)})`);
  }
}

async function writableFile(flag: string, path: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new SetupError(`${flag} ${path}: is a directory, not a file`);
  await writableDir(flag, path, dirname(path));
}

/**
 * Report destinations are checked before anything runs: a run of minutes must not end in
 * "cannot write the report". Parent folders are created here, as writing them would.
 */
export async function checkReportPaths(flags: ReportFlags & { transcript?: string | undefined }): Promise<void> {
  if (flags.json === STDOUT && flags.junit === STDOUT) throw new SetupError('--json - and --junit - cannot both go to stdout');
  if (flags.json !== undefined && flags.json !== STDOUT) await writableFile('--json', flags.json);
  if (flags.junit !== undefined && flags.junit !== STDOUT) await writableFile('--junit', flags.junit);
  if (flags.html !== undefined) await writableFile('--html', flags.html);
  if (flags.transcript !== undefined) await writableDir('--transcript', flags.transcript, flags.transcript);
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

/** Report files first (a closed stdout must not cost them), then the console report, then stdout's report. */
export async function emitReport(report: RunReport, flags: ReportFlags): Promise<void> {
  const { renderConsole, renderJson, renderJunit, writeReports } = await import('../report/index.js');
  await writeReports(report, {
    ...(flags.json !== undefined && flags.json !== STDOUT ? { json: flags.json } : {}),
    ...(flags.junit !== undefined && flags.junit !== STDOUT ? { junit: flags.junit } : {}),
    ...(flags.html !== undefined ? { html: flags.html } : {}),
  });
  const toStdout = flags.json === STDOUT ? renderJson(report) : flags.junit === STDOUT ? renderJunit(report) : undefined;
  const consoleStream = toStdout === undefined ? process.stdout : process.stderr;
  await write(consoleStream, renderConsole(report, { color: useColor(flags.color, consoleStream, process.env), verbose: flags.verbose ?? false }));
  if (toStdout !== undefined) await write(process.stdout, toStdout);
}
