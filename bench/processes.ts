import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

/** Every process group the benchmark started and has not stopped yet; stopped on exit, whatever happens. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) signalGroup(child, 'SIGKILL');
});

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

/** A port free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts a node script as the leader of a new process group (so all it spawns can be stopped together). */
export function startGroup(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', env: { ...process.env, ...env } });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Stops the whole group: SIGTERM, then SIGKILL if the leader is still there after 2 s. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    signalGroup(child, 'SIGKILL'); // the leader is gone; its children may not be
    running.delete(child);
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 2_000);
  await exited;
  clearTimeout(timer);
  signalGroup(child, 'SIGKILL');
}

/** Starts a server and waits until it accepts connections on 127.0.0.1:port. */
export async function startServer(args: string[], port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = startGroup(args, env);
  const deadline = performance.now() + 20_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || performance.now() > deadline) {
      await stopGroup(child);
      throw new Error(`${args.join(' ')} did not listen on 127.0.0.1:${port}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return child;
}

/** Runs a node script to its end in its own process group; its wall time and exit code. */
export async function timeRun(args: string[], timeoutMs: number): Promise<{ ms: number; code: number | null }> {
  const t0 = performance.now();
  const child = startGroup(args);
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const ms = performance.now() - t0;
  clearTimeout(timer);
  await stopGroup(child);
  return { ms, code };
}
