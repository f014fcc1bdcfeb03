import { join } from 'node:path';
import { testServer, type ServerCommandOptions } from '../src/commands/server.js';
import { packageRoot } from '../src/paths.js';
import { freePort } from './processes.js';
import { median } from './time.js';

const reference = join(packageRoot(), 'dist/tests/fixtures/reference/server.js');
const reference2026 = join(packageRoot(), 'dist/tests/fixtures/reference-2026/server.js');
const RUNS = 5;
/** What the task scenarios may add to a full run against the reference server (issue 24). */
const TARGET_S = 3;

interface TasksTarget {
  name: string;
  options: (port: number) => Omit<ServerCommandOptions, 'targetFlags'>;
  /** The scenarios of tasks in the target's era: 2025-11-25's utility, or 2026-07-28's extension. */
  scenarios: string;
}

const targets: TasksTarget[] = [
  { name: 'reference, stdio', options: () => ({ stdio: `node ${reference}` }), scenarios: 'server.tasks' },
  { name: 'reference, HTTP', options: (port) => ({ url: `http://127.0.0.1:${port}/mcp`, start: `node ${reference} --http --port ${port}` }), scenarios: 'server.tasks' },
  { name: 'reference-2026, stdio', options: () => ({ stdio: `node ${reference2026}`, specVersion: '2026-07-28' }), scenarios: 'server.modern.tasks' },
  { name: 'reference-2026, HTTP', options: (port) => ({ url: `http://127.0.0.1:${port}/mcp`, start: `node ${reference2026} --http --port ${port}`, specVersion: '2026-07-28' }), scenarios: 'server.modern.tasks' },
];

/**
 * The time the task scenarios add to a full server run: the whole suite with and without the
 * tasks scenarios of the target's era, run alternately (so a busy spell hits both alike), medians
 * side by side.
 */
export async function benchTasks(): Promise<void> {
  console.log(`tasks: full server suite with and without the task scenarios (server.tasks in 2025-11-25, server.modern.tasks for the 2026-07-28 extension), alternating, median of ${RUNS} each`);
  for (const t of targets) {
    const withTasks: number[] = [];
    const without: number[] = [];
    let taskChecks = 0;
    for (let i = 0; i < RUNS; i++) {
      for (const skip of [false, true]) {
        const port = await freePort();
        const t0 = performance.now();
        const report = await testServer({ ...t.options(port), ...(skip ? { skip: [t.scenarios] } : {}), targetFlags: '' });
        (skip ? without : withTasks).push(performance.now() - t0);
        if (!skip) taskChecks = report.checks.filter((c) => c.id.startsWith(`${t.scenarios}.`)).length;
      }
    }
    const added = (median(withTasks) - median(without)) / 1000;
    console.log(`  ${t.name.padEnd(22)} with ${(median(withTasks) / 1000).toFixed(2)} s, without ${(median(without) / 1000).toFixed(2)} s: +${added.toFixed(2)} s for ${taskChecks} task checks (target ≤ ${TARGET_S} s)`);
  }
}
