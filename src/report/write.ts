import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RunReport } from '../model.js';
import { FILE_FORMATS, FILE_FORMAT_NAMES, type FileFormatName } from './formats.js';

export type ReportPaths = Partial<Record<FileFormatName, string>>;

/** The report in one format. */
export async function render(report: RunReport, format: FileFormatName): Promise<string> {
  return (await FILE_FORMATS[format].load())(report);
}

/** Write the requested report files, creating parent folders. The only I/O in report/. */
export async function writeReports(report: RunReport, paths: ReportPaths): Promise<void> {
  for (const format of FILE_FORMAT_NAMES) {
    const path = paths[format];
    if (path === undefined) continue;
    const text = await render(report, format);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text, 'utf8');
  }
}

/** Append to a file others write too (GitHub's job summary collects every step's). */
export async function appendReport(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, text, 'utf8');
}
