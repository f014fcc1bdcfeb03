import { spawn, spawnSync } from 'node:child_process';
import { SetupError } from '../errors.js';
import { SANDBOX_ADDRESSES, SANDBOX_ENV } from '../harness/network-sandbox.js';

/**
 * Starts this mcpcheck command again inside the network sandbox (harness/network-sandbox.ts): a
 * user and network namespace made by util-linux's `unshare` (a root user needs no user namespace),
 * its loopback interface brought up by iproute2's `ip` with the sandbox's addresses added. Resolves
 * to the exit code of the command inside. A machine that cannot make one (no `unshare` or `ip`, user
 * namespaces not allowed, a container without the capability) is a setup error, said in one line.
 */
export async function runInNetworkSandbox(argv: readonly string[]): Promise<number> {
  const user = process.getuid?.() === 0 ? [] : ['--user', '--map-root-user'];
  const setup = ['ip link set lo up', ...Object.values(SANDBOX_ADDRESSES).map((a) => `ip addr add ${a}/32 dev lo`)].join(' && ');
  const probe = spawnSync('unshare', [...user, '--net', '--', 'sh', '-c', setup], { encoding: 'utf8', timeout: 10_000 });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? (probe.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'util-linux\'s unshare is not installed' : probe.error.message : (probe.stderr.trim().split('\n')[0] ?? `exit ${probe.status}`);
    throw new SetupError(`--network-sandbox: this machine cannot make an isolated network namespace (${why}); run without it (the scenarios that need it are then skipped)`);
  }
  const child = spawn('unshare', [...user, '--net', '--', 'sh', '-c', `${setup} && exec "$0" "$@"`, process.execPath, ...process.execArgv, process.argv[1]!, ...argv], {
    stdio: 'inherit',
    env: { ...process.env, [SANDBOX_ENV]: '1' },
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const forwarded = (['SIGINT', 'SIGTERM'] as const).map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of forwarded) process.on(signal, handler);
  try {
    return await new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 130 : 1))));
  } finally {
    for (const [signal, handler] of forwarded) process.off(signal, handler);
  }
}
