import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

// No project imports but stderr-gist.ts (which has none): this module must stay loadable on its own (tests run it in a bare child process).
import { stderrGist } from './stderr-gist.js';
const MiB = 1024 * 1024;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface TargetProcessOptions {
  /** A command line, run by the shell (`sh -c` on POSIX) unless `argv` is given; reports name it. */
  command: string;
  /** The program and its arguments, run without a shell. */
  argv?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How much of stderr is kept (the tail). Default 1 MiB. */
  stderrLimit?: number;
  /** After SIGTERM, how long the process group gets before SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The target could not be run: the spawn failed, or it exited before it wrote anything to stdout. */
export class TargetDidNotStart extends Error {
  override readonly name = 'TargetDidNotStart';
  constructor(
    message: string,
    readonly command: string,
    readonly exit?: ExitInfo,
    /** The tail of what it wrote to stderr. */
    readonly stderr?: string,
  ) {
    super(message);
  }
}

/** Keeps the last `limit` bytes written to it and counts what it had to drop. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;

  constructor(readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit) {
      const first = this.chunks[0]!;
      const excess = this.size - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
        this.dropped += excess;
      }
    }
  }

  get bytes(): number {
    return this.size;
  }

  /** Lossy: stderr is free-form logging (STDIO-ERR-01), and the cut may split a character. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * A target command running in its own process group, so that everything it starts can be
 * signalled at once and nothing outlives the harness.
 */
export class TargetProcess {
  readonly command: string;
  readonly stderr: TailBuffer;
  /** Bytes read from stdout so far. */
  stdoutBytes = 0;
  /** The end of what it wrote to stdout: over HTTP, what a client showed its user (an authorization error it should not have, say). */
  readonly stdoutTail = new TailBuffer(64 * 1024);
  /** Whether mcpcheck wrote to its stdin: a process that exits after reading input did start. */
  private wroteInput = false;
  private readonly child: ChildProcess;
  private readonly killGraceMs: number;
  private exitInfo: ExitInfo | undefined;
  private spawnError: Error | undefined;
  private stdinError: string | undefined;
  private stopping: Promise<ExitInfo | undefined> | undefined;
  private finishedInfo: ExitInfo | undefined;
  private readonly exitListeners: Array<(info: ExitInfo) => void> = [];
  private readonly finishListeners: Array<(info: ExitInfo) => void> = [];
  private readonly failListeners: Array<(err: Error) => void> = [];

  constructor(options: TargetProcessOptions) {
    this.command = options.command;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.stderr = new TailBuffer(options.stderrLimit ?? MiB);
    const [program, ...args] = options.argv ?? [options.command];
    this.child = spawn(program!, options.argv ? args : [], {
      shell: options.argv === undefined,
      detached: true,
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    if (this.child.pid !== undefined) register(this);
    this.child.on('error', (err) => {
      // 'error' also reports failed kills and writes; only a missing pid means the spawn failed.
      if (this.child.pid !== undefined) return;
      this.spawnError = err;
      for (const l of this.failListeners) l(err);
    });
    this.child.on('exit', (code, signal) => {
      const info = { code, signal };
      this.exitInfo = info;
      for (const l of this.exitListeners) l(info);
      // 'exit' can come before the last stdout chunk was read. A grandchild may hold stdout open
      // for ever, so the wait for its end is bounded.
      const finish = (): void => {
        if (this.finishedInfo) return;
        clearTimeout(timer);
        this.finishedInfo = info;
        for (const l of this.finishListeners) l(info);
      };
      const timer = setTimeout(finish, 250);
      if (this.child.stdout!.closed) finish();
      else this.child.stdout!.once('close', finish);
    });
    this.child.stdin!.on('error', (err: NodeJS.ErrnoException) => {
      // EPIPE: the target stopped reading. Remember it; a later write reports it instead of throwing.
      this.stdinError = err.code ?? err.message;
    });
    this.child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.stdoutBytes += chunk.length;
      this.stdoutTail.push(chunk);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  get running(): boolean {
    return this.child.pid !== undefined && this.exitInfo === undefined;
  }

  /** The child's own pipes, for a caller that carries its bytes itself and so needs their flow control (mcpcheck proxy). */
  get pipes(): { stdin: Writable; stdout: Readable; stderr: Readable } {
    return { stdin: this.child.stdin!, stdout: this.child.stdout!, stderr: this.child.stderr! };
  }

  onStdout(listener: (chunk: Buffer) => void): void {
    this.child.stdout!.on('data', listener);
  }

  onExit(listener: (info: ExitInfo) => void): void {
    this.exitListeners.push(listener);
  }

  /** After exit, once stdout has been read to its end (or 250 ms later); fires at most once. */
  onFinished(listener: (info: ExitInfo) => void): void {
    if (this.finishedInfo) listener(this.finishedInfo);
    else this.finishListeners.push(listener);
  }

  /**
   * Waits until the target looks started: it wrote to stdout, or it is still alive after
   * `windowMs`. Rejects with TargetDidNotStart when the spawn failed or the process exited first
   * (e.g. `sh: 1: foo: not found`, exit 127).
   */
  ready(windowMs = 100): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = (err?: Error): void => {
        clearTimeout(timer);
        this.child.stdout!.off('data', onData);
        if (err) reject(err);
        else resolve();
      };
      const onData = (): void => finish();
      const timer = setTimeout(() => finish(), windowMs);
      if (this.spawnError) return finish(this.spawnFailure(this.spawnError));
      this.failListeners.push((err) => finish(this.spawnFailure(err)));
      this.onFinished(() => finish(this.startupFailure()));
      this.child.stdout!.on('data', onData);
    });
  }

  /** Set when the process could not be spawned, or exited without ever writing to stdout. */
  startupFailure(): TargetDidNotStart | undefined {
    if (this.spawnError) return this.spawnFailure(this.spawnError);
    if (!this.finishedInfo || !this.exitInfo || this.stdoutBytes > 0) return undefined;
    const how = describeExit(this.exitInfo);
    const tail = stderrGist(this.stderr.text());
    // A process that exits once it has been given input did start, unless its shell could not
    // find or run the command (126, 127), which may end after mcpcheck's first write on a busy machine.
    const shellFailed = this.exitInfo.code === 126 || this.exitInfo.code === 127;
    const what = this.wroteInput && !shellFailed ? `the target exited: \`${this.command}\` ${how} once mcpcheck had written to its stdin,` : `target did not start: \`${this.command}\` ${how}`;
    return new TargetDidNotStart(
      `${what} before writing anything to stdout` +
        (tail ? `; stderr: ${tail}` : ' (stderr was empty)'),
      this.command,
      this.exitInfo,
      tail,
    );
  }

  private spawnFailure(err: Error): TargetDidNotStart {
    return new TargetDidNotStart(
      `target did not start: cannot run \`${this.command}\`: ${err.message} (check the command and working directory)`,
      this.command,
    );
  }

  /**
   * Writes to the target's stdin, waiting for 'drain' when the pipe is full. Resolves to an error
   * description instead of throwing: a target that died or stopped reading is something to report.
   */
  write(data: string | Uint8Array, drainTimeoutMs = 30_000): Promise<string | undefined> {
    const stdin = this.child.stdin!;
    if (this.spawnError) return Promise.resolve('the target process was never started');
    if (this.stdinError) return Promise.resolve(`stdin is broken (${this.stdinError})`);
    if (stdin.destroyed || stdin.writableEnded) return Promise.resolve('stdin is closed');
    return new Promise((resolve) => {
      let accepted: boolean;
      try {
        accepted = stdin.write(data);
      } catch (err) {
        resolve(`write failed: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      this.wroteInput = true;
      if (accepted) return resolve(undefined);
      const done = (result: string | undefined): void => {
        clearTimeout(timer);
        stdin.off('drain', onDrain);
        stdin.off('close', onClose);
        resolve(result);
      };
      const onDrain = (): void => done(undefined);
      const onClose = (): void => done(`stdin closed before the data was written${this.stdinError ? ` (${this.stdinError})` : ''}`);
      const timer = setTimeout(() => done(`the target did not read its stdin within ${drainTimeoutMs} ms`), drainTimeoutMs);
      stdin.on('drain', onDrain);
      stdin.on('close', onClose);
    });
  }

  /** Ends stdin (EOF for the target). */
  closeStdin(): void {
    const stdin = this.child.stdin!;
    if (!stdin.destroyed && !stdin.writableEnded) stdin.end();
  }

  /** Resolves with the exit info, or undefined if the process is still running after `timeoutMs`. */
  waitForExit(timeoutMs: number): Promise<ExitInfo | undefined> {
    if (this.exitInfo || this.spawnError) return Promise.resolve(this.exitInfo);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      this.onExit((info) => {
        clearTimeout(timer);
        resolve(info);
      });
    });
  }

  /**
   * Resolves with the exit info once the process exited and its stdout was read to the end (bounded
   * as onFinished is), or undefined if that has not happened after `timeoutMs`: what a caller needs
   * before judging the last things the process wrote.
   */
  waitForFinished(timeoutMs: number): Promise<ExitInfo | undefined> {
    if (this.finishedInfo || this.spawnError) return Promise.resolve(this.finishedInfo);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      this.onFinished((info) => {
        clearTimeout(timer);
        resolve(info);
      });
    });
  }

  /** Signals the whole process group; false when nothing was left to signal. */
  signalGroup(signal: NodeJS.Signals): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** True while any process of the group still runs (zombies do not count). */
  groupAlive(): boolean {
    const pid = this.child.pid;
    return pid !== undefined && groupHasLiveMembers(pid);
  }

  /**
   * The clean shutdown a stdio client should do (LIFE-SHUT-01): close stdin, give the target
   * `stdinGraceMs` to exit, then SIGTERM the group, then SIGKILL it after the grace period.
   * The group is signalled even when the leader already exited, for the children it left behind.
   */
  stop(stdinGraceMs = 500): Promise<ExitInfo | undefined> {
    this.stopping ??= (async () => {
      if (this.running) {
        this.closeStdin();
        await this.waitForExit(stdinGraceMs);
      }
      await this.terminateGroup();
      unregister(this);
      return this.exitInfo;
    })();
    return this.stopping;
  }

  /** SIGTERM, wait for the group to go, SIGKILL what is left. */
  async terminateGroup(): Promise<void> {
    if (!this.groupAlive()) return;
    this.signalGroup('SIGTERM');
    if (await waitUntil(() => !this.groupAlive(), this.killGraceMs)) return;
    this.signalGroup('SIGKILL');
    await waitUntil(() => !this.groupAlive(), 1000);
  }
}

function describeExit(info: ExitInfo): string {
  return info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(25);
  }
}

/**
 * `kill(-pgid, 0)` succeeds as long as any member exists, zombies included, and an init that does
 * not reap orphans (common in containers) leaves killed grandchildren as zombies forever. On Linux
 * /proc tells the states apart; elsewhere the signal probe is the best there is.
 */
function groupHasLiveMembers(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  // The leader alive settles it without reading every process's stat (a scan every 25 ms of a stop
  // costs a busy machine's hundreds of files each time).
  if (liveIn(readStat(pgid), pgid)) return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    if (liveIn(readStat(Number(entry)), pgid)) return true;
  }
  return false;
}

/** Whether a process's stat shows it running (not a zombie, not dead) in group `pgid`. */
function liveIn(stat: ReturnType<typeof readStat>, pgid: number): boolean {
  return stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X';
}

/** State and process group from /proc/<pid>/stat; undefined if the process is gone. */
export function readStat(pid: number): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may contain spaces; fields after it are plain.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0] ?? '?', pgrp: Number(rest[2]) };
}

/** Whether a single process is alive (not gone, not a zombie). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

// ---- Every group still alive is killed when mcpcheck itself goes away. ----

const live = new Set<TargetProcess>();
let hooked = false;
let signalled = false;

function register(target: TargetProcess): void {
  live.add(target);
  if (hooked) return;
  hooked = true;
  process.on('exit', killAllNow);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

function unregister(target: TargetProcess): void {
  live.delete(target);
  if (live.size > 0 || !hooked || signalled) return;
  hooked = false;
  process.off('exit', killAllNow);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

/**
 * SIGKILLs every target process group still alive, at once. 'exit' handlers cannot wait, so there
 * is no grace period: SIGKILL is the only signal that is sure to work. The CLI calls it too, when
 * a second Ctrl-C quits without waiting.
 */
export function killAllNow(): void {
  for (const target of live) target.signalGroup('SIGKILL');
}

function onSignal(signal: NodeJS.Signals): void {
  const reRaise = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', killAllNow);
    hooked = false;
    // Another handler (e.g. the CLI's) owns the decision to exit; with none, die of the signal as usual.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  if (signalled) {
    killAllNow();
    reRaise();
    return;
  }
  signalled = true;
  void Promise.allSettled([...live].map((t) => t.terminateGroup())).then(reRaise);
}
