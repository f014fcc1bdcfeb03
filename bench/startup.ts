import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { median } from './time.js';

const RUNS = 9;
const root = packageRoot();
const cli = join(root, 'dist/src/cli.js');
const transcript = join(root, 'tests/fixtures/transcripts/valid/2025-11-25-tools.jsonl');

interface Invocation {
  label: string;
  args: string[];
}

const invocations: Invocation[] = [
  { label: 'node -e 0 (Node alone)', args: ['-e', '0'] },
  { label: 'mcpcheck --version', args: [cli, '--version'] },
  { label: 'mcpcheck --help', args: [cli, '--help'] },
  { label: 'mcpcheck list', args: [cli, 'list'] },
  { label: 'mcpcheck validate (a 12-frame transcript)', args: [cli, 'validate', transcript] },
];

function wallMs(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'ignore', timeout: 60_000 });
  if (r.status === null) throw new Error(`${args.join(' ')} did not finish`);
  return performance.now() - t0;
}

/**
 * What a command costs before it does anything: wall time of short invocations, each a process of
 * its own, beside Node starting and doing nothing. Interleaved, so a neighbour's load falls on all alike.
 */
export function benchStartup(): void {
  const times = invocations.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) invocations.forEach((inv, k) => times[k]!.push(wallMs(inv.args)));
  const node = median(times[0]!);
  console.log(`start-up: wall time, median of ${RUNS} interleaved runs of each`);
  invocations.forEach((inv, k) => {
    const ms = median(times[k]!);
    const beyond = k === 0 ? '' : `  ${(ms / node).toFixed(2)}× Node alone, +${(ms - node).toFixed(0)} ms`;
    console.log(`  ${inv.label.padEnd(44)} ${ms.toFixed(0).padStart(5)} ms${beyond}${inv.args[1] === '--version' ? '   target ≤ 120 ms' : ''}`);
  });
}
