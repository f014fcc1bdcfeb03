import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testClient } from '../src/commands/client.js';
import { packageRoot } from '../src/paths.js';
import { median } from './time.js';

const root = packageRoot();
const RUNS = 3;
const example = join(root, 'examples/sdk-client.js');
const official = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** The pinned official suite's client authorization scenarios, as its `list --client` names them. */
function officialAuthScenarios(): string[] {
  const listed = execFileSync(process.execPath, [official, 'list', '--client'], { encoding: 'utf8', timeout: 30_000 });
  return [...listed.matchAll(/^\s+- (auth\/\S+)$/gm)].map((m) => m[1]!);
}

/**
 * The target, side by side on the same client (the SDK example, over HTTP): every
 * client authorization scenario of one mcpcheck run, against every auth scenario of the official
 * suite, one after another as its CLI runs them. The two alternate, so that neither always runs
 * on a machine the other warmed.
 */
export async function benchClientAuth(): Promise<void> {
  const scenarios = officialAuthScenarios();
  const ours: number[] = [];
  const theirs: number[] = [];
  let judged = '';
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const report = await testClient({ command: `node ${example}`, targetFlags: '', only: ['client.auth'] });
    ours.push(performance.now() - t0);
    judged = `${report.checks.filter((c) => c.id.startsWith('client.auth.')).length} checks, ${report.summary.headline}`;
    const out = mkdtempSync(join(tmpdir(), 'mcpcheck-bench-official-auth-'));
    const t1 = performance.now();
    for (const scenario of scenarios) {
      try {
        execFileSync(process.execPath, [official, 'client', '--command', `node ${example}`, '--scenario', scenario, '-o', out], { stdio: 'ignore', timeout: 120_000 });
      } catch {
        // A failing scenario still took its time; only the time is compared.
      }
    }
    theirs.push(performance.now() - t1);
    rmSync(out, { recursive: true, force: true });
  }
  const [a, b] = [median(ours) / 1000, median(theirs) / 1000];
  console.log(`client authorization scenarios, SDK example over HTTP: wall time, median of ${RUNS} alternating runs`);
  console.log(`  mcpcheck client --only client.auth  ${a.toFixed(2).padStart(6)} s  (${judged})`);
  console.log(`  official, ${String(scenarios.length).padStart(2)} auth scenarios      ${b.toFixed(2).padStart(6)} s`);
  console.log(`  ratio mcpcheck/official ${(a / b).toFixed(2)} (target: at most 1)`);
}
