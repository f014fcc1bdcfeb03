import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { testServer, type ServerCommandOptions } from '../src/commands/server.js';
import { packageRoot } from '../src/paths.js';
import { freePort } from './processes.js';
import { median } from './time.js';

const root = packageRoot();
const reference = join(root, 'dist/tests/fixtures/reference/server.js');
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const loopback = join(root, 'tests/fixtures/loopback-only.mjs');
const RUNS = 3;

interface Target {
  name: string;
  options: (port: number) => Omit<ServerCommandOptions, 'targetFlags'>;
}

const targets: Target[] = [
  { name: 'reference, stdio', options: () => ({ stdio: `node ${reference}` }) },
  { name: 'reference, HTTP', options: (port) => ({ url: `http://127.0.0.1:${port}/mcp`, start: `node ${reference} --http --port ${port}` }) },
  { name: 'server-everything, stdio', options: () => ({ stdio: `node ${everything} stdio` }) },
  {
    name: 'server-everything, HTTP',
    options: (port) => ({ url: `http://127.0.0.1:${port}/mcp`, start: `PORT=${port} node --import ${loopback} ${everything} streamableHttp` }),
  },
];

/** Wall time of the full server suite per target (median of RUNS), with the number of checks run. */
export async function benchServer(): Promise<void> {
  console.log(`server suite: wall time, median of ${RUNS} runs (the --start server's own start-up included for HTTP)`);
  for (const t of targets) {
    const times: number[] = [];
    let checks = 0;
    let headline = '';
    for (let i = 0; i < RUNS; i++) {
      const port = await freePort();
      const t0 = performance.now();
      const report = await testServer({ ...t.options(port), targetFlags: '' });
      times.push(performance.now() - t0);
      checks = report.checks.length;
      headline = report.summary.headline;
    }
    console.log(`  ${t.name.padEnd(26)} ${(median(times) / 1000).toFixed(2).padStart(6)} s  ${String(checks).padStart(4)} checks  ${headline}`);
  }
  const cores = execFileSync('nproc').toString().trim();
  console.log(`  (${cores} cores; targets: server-everything HTTP ≤ 1.5 s, stdio ≤ 3 s)`);
}
