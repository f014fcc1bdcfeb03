import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testClient } from '../src/commands/client.js';
import { packageRoot } from '../src/paths.js';
import { median } from './time.js';
import { timeOfficialClientScenarios } from './official-client.js';

const root = packageRoot();
const RUNS = 3;
const example = join(root, 'examples/sdk-client.js');
const fixture = join(root, 'dist/tests/fixtures/client/client.js');

const targets = [
  { name: 'SDK example, HTTP', command: `node ${example}` },
  { name: 'SDK example, stdio', command: `node ${example} {stdio}` },
  { name: 'client fixture, HTTP', command: `node ${fixture}` },
  { name: 'client fixture, stdio', command: `node ${fixture} {stdio}` },
];

/** CPU seconds of this process's reaped children so far (Linux: cutime + cstime of /proc/self/stat, in 1/100 s). */
function childrenCpuS(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** Wall time of the full client suite per client (median of RUNS): one client process per scenario. */
export async function benchClient(): Promise<void> {
  console.log(`client suite: wall time, median of ${RUNS} runs (a client process started per scenario)`);
  for (const t of targets) {
    const times: number[] = [];
    const ownCpu: number[] = [];
    const clientCpu: number[] = [];
    let scenarios = 0;
    let headline = '';
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const own0 = process.cpuUsage();
      const children0 = childrenCpuS();
      const report = await testClient({ command: t.command, targetFlags: '' });
      times.push(performance.now() - t0);
      const own = process.cpuUsage(own0);
      ownCpu.push((own.user + own.system) / 1e6);
      clientCpu.push(childrenCpuS() - children0);
      scenarios = new Set(report.checks.filter((c) => c.scenario !== undefined && c.status !== 'skip').map((c) => c.scenario)).size;
      headline = report.summary.headline;
    }
    console.log(`  ${t.name.padEnd(26)} ${(median(times) / 1000).toFixed(2).padStart(6)} s  ${String(scenarios).padStart(3)} scenarios run  ${headline}`);
    // On 2 cores the wall time cannot fall below half the CPU time all processes need.
    console.log(`  ${''.padEnd(26)} CPU: mcpcheck ${median(ownCpu).toFixed(1)} s, client processes (and their relays) ${median(clientCpu).toFixed(1)} s`);
  }
  // Side by side: the official suite's client scenarios that need no authorization, one after another as its CLI runs them.
  const scenarios = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(timeOfficialClientScenarios(`node ${example}`, scenarios));
  console.log(`  ${'official, 4 client scenarios'.padEnd(26)} ${(median(times) / 1000).toFixed(2).padStart(6)} s  (SDK example, HTTP; its auth scenarios left out)`);
  console.log('  (target: under 8 s on 2 cores for the example client)');
}
