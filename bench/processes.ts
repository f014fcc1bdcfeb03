import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';
import { connect, createServer } from 'node:net';

/** Every process group the benchmark started and has not stopped yet; stopped on exit, whatever happens. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) signalGroup(child, 'SIGKILL');
});
// Ctrl-C or a kill of the benchmark first passes SIGINT on to each group (they run detached, so a
// terminal's Ctrl-C does not reach them; mcpcheck then stops the targets it started itself), gives
// them 3 s, and exits: the 'exit' handler kills what is left.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of running) signalGroup(child, 'SIGINT');
    const deadline = performance.now() + 3_000;
    const poll = setInterval(() => {
      if (running.size > 0 && performance.now() < deadline) return;
      clearInterval(poll);
      process.exit(130);
    }, 50);
  });
}

/** The leader has exited, or never started (a spawn that failed, e.g. a missing program, has no pid and never emits 'exit'). */
function gone(child: ChildProcess): boolean {
  return child.pid === undefined || child.exitCode !== null || child.signalCode !== null;
}

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

/** Starts a program as the leader of a new process group (so all it spawns can be stopped together). */
export function spawnGroup(program: string, args: string[], env: Record<string, string> = {}, stdio: StdioOptions = 'ignore'): ChildProcess {
  const child = spawn(program, args, { detached: true, stdio, env: { ...process.env, ...env } });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // A failed spawn reports here (unlistened it would end the benchmark); `gone` tells the callers.
  child.once('error', () => {
    if (child.pid === undefined) running.delete(child);
  });
  return child;
}

/** Starts a node script as the leader of a new process group. */
export function startGroup(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawnGroup(process.execPath, args, env);
}

/** Stops the whole group: SIGTERM, then SIGKILL if the leader is still there after 2 s. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (gone(child)) {
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

/** Waits until a started server accepts connections on 127.0.0.1:port; stops it and throws if it exits or the deadline passes. */
export async function awaitListening(child: ChildProcess, port: number, what: string, timeoutMs = 20_000): Promise<ChildProcess> {
  const deadline = performance.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (gone(child) || performance.now() > deadline) {
      const why = child.pid === undefined ? 'it did not start' : gone(child) ? `exited (${child.exitCode ?? child.signalCode})` : `not within ${timeoutMs} ms`;
      await stopGroup(child);
      throw new Error(`${what} did not listen on 127.0.0.1:${port}: ${why}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return child;
}

/** Starts a node script as a server and waits until it accepts connections on 127.0.0.1:port. */
export function startServer(args: string[], port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  return awaitListening(startGroup(args, env), port, args.join(' '));
}

/**
 * Waits for a started group's leader to end, within timeoutMs: past it the leader gets `interrupt`
 * (SIGINT lets mcpcheck stop its own targets and write a partial report), and the group SIGKILL
 * 10 s later. The group is stopped either way.
 */
export async function runToEnd(child: ChildProcess, timeoutMs: number, interrupt: NodeJS.Signals = 'SIGKILL'): Promise<{ code: number | null; timedOut: boolean }> {
  let timedOut = false;
  const kill = setTimeout(() => signalGroup(child, 'SIGKILL'), timeoutMs + 10_000);
  const cut = setTimeout(() => {
    timedOut = true;
    try {
      child.kill(interrupt);
    } catch {
      // gone already
    }
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => {
    if (gone(child)) resolve(child.exitCode);
    else child.once('exit', (c) => resolve(c));
  });
  clearTimeout(cut);
  clearTimeout(kill);
  await stopGroup(child);
  return { code, timedOut };
}

/** Runs a node script to its end in its own process group; its wall time and exit code. */
export async function timeRun(args: string[], timeoutMs: number): Promise<{ ms: number; code: number | null }> {
  const t0 = performance.now();
  const { code } = await runToEnd(startGroup(args), timeoutMs);
  return { ms: performance.now() - t0, code };
}
