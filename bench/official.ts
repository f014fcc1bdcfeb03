import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunReport } from '../src/model.js';
import { packageRoot } from '../src/paths.js';
import { freePort, startServer, stopGroup, timeRun } from './processes.js';
import { median, pairedRatio } from './time.js';

const root = packageRoot();
const cli = join(root, 'dist/src/cli.js');
const official = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const reference = join(root, 'dist/tests/fixtures/reference/server.js');
const loopback = join(root, 'tests/fixtures/loopback-only.mjs');
const RUNS = 7;
const RUN_TIMEOUT_MS = 180_000;

interface HttpServer {
  name: string;
  /** node arguments and environment that serve Streamable HTTP at 127.0.0.1:port/mcp. */
  serve: (port: number) => { args: string[]; env?: Record<string, string> };
  /** The issue's target for the ratio, where it sets one. */
  target?: string;
}

const servers: HttpServer[] = [
  { name: 'server-everything', serve: (port) => ({ args: ['--import', loopback, everything, 'streamableHttp'], env: { PORT: String(port) } }), target: '≤ 1.0×' },
  // The official scenarios expect their own test server's tool names: most fail here; only the time is compared.
  { name: 'reference server', serve: (port) => ({ args: [reference, '--http', '--port', String(port)] }) },
];

interface Tool {
  name: string;
  /** Arguments for one full run against `url`, writing its results under `out`. */
  args: (url: string, out: string) => string[];
  /** Checks and their outcomes, from what the run wrote. */
  checks: (out: string) => { count: number; outcomes: string };
}

function tally(statuses: string[]): string {
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n} ${s.toLowerCase()}`).join(', ');
}

function mcpcheckReport(out: string): RunReport {
  return JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReport;
}

const tools: Tool[] = [
  {
    name: 'official conformance 0.1.13 (--suite all)',
    args: (url, out) => [official, 'server', '--url', url, '--suite', 'all', '--output-dir', out],
    checks: (out) => {
      const statuses = readdirSync(out).flatMap((dir) => (JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Array<{ status: string }>).map((c) => c.status));
      return { count: statuses.length, outcomes: tally(statuses) };
    },
  },
  {
    name: 'mcpcheck server --url',
    args: (url, out) => [cli, 'server', '--url', url, '--json', join(out, 'report.json')],
    checks: (out) => {
      const { checks } = mcpcheckReport(out);
      return { count: checks.length, outcomes: tally(checks.map((c) => c.status)) };
    },
  },
];

/** The scenarios that took longest (a check's durationMs counts from its scenario's start). */
function slowest(report: RunReport, n: number): string[] {
  const longest = new Map<string, number>();
  for (const c of report.checks) {
    if (c.scenario === undefined || c.durationMs === undefined) continue;
    longest.set(c.scenario, Math.max(longest.get(c.scenario) ?? 0, c.durationMs));
  }
  return [...longest].sort((a, b) => b[1] - a[1]).slice(0, n).map(([s, ms]) => `${s} ${ms} ms`);
}

/**
 * The official suite and mcpcheck side by side over Streamable HTTP: for every run a fresh server
 * process on a fresh loopback port, started and listening before the clock starts and stopped
 * (its process group) after; wall time of the tool's own process, median of RUNS. The tools take
 * turns run by run, so that a neighbour's load falls on both alike.
 */
export async function benchOfficial(): Promise<void> {
  console.log(`server suites side by side over HTTP: wall time of the tool's process, median of ${RUNS} interleaved runs, fresh server each run`);
  for (const server of servers) {
    const times: number[][] = tools.map(() => []);
    const checks = tools.map(() => ({ count: 0, outcomes: '' }));
    let lastReport: RunReport | undefined;
    for (let i = 0; i < RUNS; i++) {
      for (const [t, tool] of tools.entries()) {
        const port = await freePort();
        const { args, env } = server.serve(port);
        const out = mkdtempSync(join(tmpdir(), 'mcpcheck-bench-'));
        const serving = await startServer(args, port, env);
        try {
          const run = await timeRun(tool.args(`http://127.0.0.1:${port}/mcp`, out), RUN_TIMEOUT_MS);
          if (run.code === null) throw new Error(`${tool.name} against ${server.name} did not finish within ${RUN_TIMEOUT_MS / 1000} s`);
          times[t]!.push(run.ms);
          checks[t] = tool.checks(out);
          if (tool.name.startsWith('mcpcheck')) lastReport = mcpcheckReport(out);
        } finally {
          await stopGroup(serving);
          rmSync(out, { recursive: true, force: true });
        }
      }
    }
    const medians = times.map(median);
    for (const [t, tool] of tools.entries()) {
      const spread = `${(Math.min(...times[t]!) / 1000).toFixed(2)}–${(Math.max(...times[t]!) / 1000).toFixed(2)}`;
      console.log(`  ${server.name.padEnd(18)} ${tool.name.padEnd(42)} ${(medians[t]! / 1000).toFixed(2).padStart(6)} s (${spread})  ${String(checks[t]!.count).padStart(4)} checks (${checks[t]!.outcomes})`);
    }
    const paired = pairedRatio(times[1]!, times[0]!);
    console.log(`  ${server.name.padEnd(18)} ratio mcpcheck/official: ${paired.toFixed(2)}× (median of the ${RUNS} runs' ratios; of the medians ${(medians[1]! / medians[0]!).toFixed(2)}×)${server.target ? `   target ${server.target}` : ''}`);
    if (lastReport) console.log(`    mcpcheck's slowest scenarios: ${slowest(lastReport, 10).join(' · ')}`);
  }
}
