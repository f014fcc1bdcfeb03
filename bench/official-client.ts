import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';

/** The pinned official suite's CLI. */
export const OFFICIAL_CLI = join(packageRoot(), 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** Milliseconds the official suite takes for `scenarios` against one client command, one after another as its CLI runs them. */
export function timeOfficialClientScenarios(command: string, scenarios: readonly string[]): number {
  const out = mkdtempSync(join(tmpdir(), 'mcpcheck-bench-official-'));
  const t0 = performance.now();
  for (const scenario of scenarios) {
    try {
      execFileSync(process.execPath, [OFFICIAL_CLI, 'client', '--command', command, '--scenario', scenario, '-o', out], { stdio: 'ignore', timeout: 120_000 });
    } catch {
      // A failing scenario still took its time; only the time is compared.
    }
  }
  const ms = performance.now() - t0;
  rmSync(out, { recursive: true, force: true });
  return ms;
}
