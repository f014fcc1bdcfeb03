#!/usr/bin/env node
/**
 * The `mcpcheck` binary. `--version` answers before yargs is even loaded (yargs alone costs more
 * than the rest of start-up); every other invocation goes through `cli/main.ts`, whose commands
 * import their own modules when they run.
 */
import { fatal, tolerateClosedOutput } from './cli/exit.js';
import { toolInfo } from './version.js';

process.on('uncaughtException', fatal);
tolerateClosedOutput();

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${toolInfo().version}\n`);
} else {
  import('./cli/main.js').then((m) => m.main(argv)).catch(fatal);
}
