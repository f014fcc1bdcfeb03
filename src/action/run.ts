import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT_INTERNAL, EXIT_USAGE } from '../cli/exit.js';
import type { RunReport } from '../model.js';
import { ActionInputError, failOnOf, mcpcheckArgv, outputFileText, outputsOf, readInputs, stepFails } from './action.js';

// The composite step of action.yml runs this: inputs in, mcpcheck run without a shell, outputs out.

const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));

/** A workflow command line: GitHub shows it as an annotation. Its data must not end the command early. */
function annotate(kind: 'error' | 'warning', text: string): void {
  process.stdout.write(`::${kind}::${text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`);
}

function readReport(path: string): RunReport | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as RunReport;
  } catch {
    return undefined;
  }
}

function run(): number {
  if (Number(process.versions.node.split('.')[0]) < 20) {
    annotate('error', `mcpcheck needs Node.js 20 or newer; this step runs ${process.version} (add actions/setup-node before it)`);
    return EXIT_USAGE;
  }
  const inputs = readInputs(process.env);
  const failOn = failOnOf(inputs['fail-on']);
  const jsonPath = inputs.json || join(mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), 'mcpcheck-')), 'report.json');
  const argv = mcpcheckArgv(inputs, jsonPath);
  const child = spawnSync(process.execPath, [CLI, ...argv], { stdio: 'inherit' });
  // No status: mcpcheck did not start or was killed by a signal, which is no grade either.
  const exitCode = child.status ?? EXIT_INTERNAL;
  const report = readReport(jsonPath);
  const outputs = outputsOf(report, exitCode, inputs, jsonPath);
  if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, outputFileText(outputs));
  if (stepFails(exitCode, failOn)) return exitCode;
  if (exitCode !== 0) annotate('warning', `mcpcheck exited ${exitCode} (${outputs.grade}); fail-on: setup leaves it to the outputs`);
  return 0;
}

try {
  process.exitCode = run();
} catch (e) {
  if (!(e instanceof ActionInputError)) throw e;
  annotate('error', `mcpcheck action: ${e.message}`);
  process.exitCode = EXIT_USAGE;
}
