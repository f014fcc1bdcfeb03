import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { testClient } from '../src/commands/client.js';
import { packageRoot } from '../src/paths.js';
import { median } from './time.js';
import { OFFICIAL_CLI, timeOfficialClientScenarios } from './official-client.js';

const root = packageRoot();
const RUNS = 3;
const example = join(root, 'examples/sdk-client.js');

/** The pinned official suite's client authorization scenarios, as its `list --client` names them. */
function officialAuthScenarios(): string[] {
  const listed = execFileSync(process.execPath, [OFFICIAL_CLI, 'list', '--client'], { encoding: 'utf8', timeout: 30_000 });
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
    theirs.push(timeOfficialClientScenarios(`node ${example}`, scenarios));
  }
  const [a, b] = [median(ours) / 1000, median(theirs) / 1000];
  console.log(`client authorization scenarios, SDK example over HTTP: wall time, median of ${RUNS} alternating runs`);
  console.log(`  mcpcheck client --only client.auth  ${a.toFixed(2).padStart(6)} s  (${judged})`);
  console.log(`  official, ${String(scenarios.length).padStart(2)} auth scenarios      ${b.toFixed(2).padStart(6)} s`);
  console.log(`  ratio mcpcheck/official ${(a / b).toFixed(2)} (target: at most 1)`);
}
