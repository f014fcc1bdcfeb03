#!/usr/bin/env node
/**
 * The `mcpcheck` binary. `--version` answers before the command table is even loaded, and so
 * does `relay`, the hidden command a client under test starts as its stdio server once per
 * scenario; every other invocation goes through `cli/main.ts`, whose commands import their own
 * modules when they run.
 */
import { fatal, tolerateClosedOutput } from './cli/exit.js';
import { toolInfo } from './version.js';

process.on('uncaughtException', fatal);
tolerateClosedOutput();

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${toolInfo().version}\n`);
} else if (argv[0] === 'relay') {
  import('./commands/relay.js').then((m) => m.runRelay(argv.slice(1))).then((code) => process.exit(code), fatal);
} else {
  import('./cli/main.js').then((m) => m.main(argv)).catch(fatal);
}
