import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunReport } from '../src/model.js';
import { packageRoot } from '../src/paths.js';
import { freePort, startServer, stopGroup, timeRun } from './processes.js';
import { median, pairedRatio } from './time.js';

const root = packageRoot();
const cli = join(root, 'dist/src/cli.js');
const sdkV2 = join(root, 'dist/tests/fixtures/sdk-v2/server.js');
const RUNS = 5;
const RUN_TIMEOUT_MS = 240_000;

interface Mode {
  name: string;
  flags: string[];
}

const modes: Mode[] = [
  { name: '--spec-version 2025-11-25', flags: ['--spec-version', '2025-11-25'] },
  { name: 'both eras (no --spec-version)', flags: [] },
  { name: '--spec-version 2026-07-28', flags: ['--spec-version', '2026-07-28'] },
];

/**
 * A dual-era server tested in both eras in one run, beside the same server tested in one era, over
 * Streamable HTTP (issue 21: the dual-era run takes at most 1.5× the 2025-11-25 run). Fresh server
 * process per run, modes interleaved run by run so that a neighbour's load falls on all alike.
 */
export async function benchEras(): Promise<void> {
  console.log(`eras: the SDK v2 server (@modelcontextprotocol/server 2.4.0) over HTTP; wall time of mcpcheck's process, median of ${RUNS} interleaved runs, fresh server each run`);
  const times: number[][] = modes.map(() => []);
  const counts: string[] = modes.map(() => '');
  for (let i = 0; i < RUNS; i++) {
    for (const [m, mode] of modes.entries()) {
      const port = await freePort();
      const out = mkdtempSync(join(tmpdir(), 'mcpcheck-bench-'));
      const serving = await startServer([sdkV2, '--http', '--port', String(port)], port);
      try {
        const run = await timeRun([cli, 'server', '--url', `http://127.0.0.1:${port}/mcp`, ...mode.flags, '--json', join(out, 'report.json')], RUN_TIMEOUT_MS);
        if (run.code === null) throw new Error(`mcpcheck server ${mode.name} did not finish within ${RUN_TIMEOUT_MS / 1000} s`);
        times[m]!.push(run.ms);
        const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReport;
        counts[m] = `${report.checks.length} checks, ${report.summary.headline}`;
      } finally {
        await stopGroup(serving);
        rmSync(out, { recursive: true, force: true });
      }
    }
  }
  const medians = times.map(median);
  for (const [m, mode] of modes.entries()) {
    const spread = `${(Math.min(...times[m]!) / 1000).toFixed(2)}–${(Math.max(...times[m]!) / 1000).toFixed(2)}`;
    console.log(`  ${mode.name.padEnd(32)} ${(medians[m]! / 1000).toFixed(2).padStart(6)} s (${spread})  ${counts[m]}`);
  }
  console.log(`  ratio both eras / 2025-11-25 alone: ${pairedRatio(times[1]!, times[0]!).toFixed(2)}× (median of the ${RUNS} runs' ratios; of the medians ${(medians[1]! / medians[0]!).toFixed(2)}×)   target ≤ 1.5×`);
}
