import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RunReport } from '../model.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderHtml } from './html/index.js';

export interface ReportPaths {
  json?: string;
  junit?: string;
  html?: string;
}

/** Write the requested report files, creating parent folders. The only I/O in report/. */
export async function writeReports(report: RunReport, paths: ReportPaths): Promise<void> {
  const jobs: Array<[string, string]> = [];
  if (paths.json !== undefined) jobs.push([paths.json, renderJson(report)]);
  if (paths.junit !== undefined) jobs.push([paths.junit, renderJunit(report)]);
  if (paths.html !== undefined) jobs.push([paths.html, renderHtml(report)]);
  for (const [path, text] of jobs) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text, 'utf8');
  }
}
