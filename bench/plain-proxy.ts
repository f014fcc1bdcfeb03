/**
 * The yardstick of `npm run bench proxy`: the plainest stdio proxy Node makes. It starts the
 * server command (by the shell) and copies bytes both ways with pipe(), judging nothing.
 */
import { spawn } from 'node:child_process';

const command = process.argv[2];
if (command === undefined) {
  process.stderr.write('usage: plain-proxy.js "<server command>"\n');
  process.exit(2);
}
const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code) => process.exit(code ?? 0));
