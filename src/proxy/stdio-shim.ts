import type { Readable, Writable } from 'node:stream';
import { constants } from 'node:os';
import { type ExitInfo, TargetProcess } from '../transport/process.js';
import type { Side } from '../validate/message.js';

/** After the client closed its output, how long the server gets to exit before it is stopped (a client that went away without stopping it). */
const SERVER_EXIT_GRACE_MS = 10_000;
/** How long the last bytes to the client may take to drain once the server is gone. */
const FLUSH_MS = 2_000;
/** Signals that end a proxy run as they would end the server it stands in for. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

export interface StdioShimOptions {
  /** The server's command line, run by the shell in its own process group. */
  command: string;
  /** The client's side: what it writes (our stdin), where it reads (our stdout), where the server's stderr goes. */
  input: Readable;
  output: Writable;
  errors: Writable;
  /** Told every chunk each side sent, once it is on its way to the other side. */
  onBytes: (from: Side, chunk: Buffer) => void;
  /** Told when a side closed its output. */
  onEnd: (from: Side) => void;
}

export interface StdioShimEnd {
  /** How the server ended (undefined: it could not be started). */
  exit: ExitInfo | undefined;
  /** The signal that stopped the proxy, if one did. */
  signal?: NodeJS.Signals;
  /** The server could not be started or exited before writing anything: why, from its stderr. */
  startupFailure?: string;
  /** What ended the session, in words. */
  ended: string;
  /** The exit code a shell would report for the server: the proxy exits with it, as the server would have. */
  exitCode: number;
}

/**
 * `mcpcheck proxy --stdio`: stands in for a stdio server. The client's bytes go to the server's
 * stdin and the server's stdout to the client unchanged (same bytes, same order, same chunking
 * into lines), with each side's flow control passed through; the server's stderr goes to ours.
 * Every chunk is also handed to `onBytes` after it was written on. The session ends when the
 * server exits (its stdout read to the end), or when the client goes away or a signal stops the
 * proxy: then the server is stopped as a client stops it (stdin closed, then SIGTERM, then SIGKILL).
 */
export function runStdioShim(o: StdioShimOptions): Promise<StdioShimEnd> {
  return new Promise((resolve) => {
    const target = new TargetProcess({ command: o.command });
    const { stdin, stdout, stderr } = target.pipes;
    let ended: string | undefined;
    let signal: NodeJS.Signals | undefined;
    let graceTimer: NodeJS.Timeout | undefined;

    const carry = (from: Side, source: Readable, sink: Writable): void => {
      source.on('data', (chunk: Buffer) => {
        if (!sink.writableEnded && !sink.destroyed && !sink.write(chunk)) {
          source.pause();
          sink.once('drain', () => source.resume());
        }
        o.onBytes(from, chunk);
      });
    };
    carry('client', o.input, stdin);
    carry('server', stdout, o.output);
    // The client may close the pipe it reads our stderr from before the server stops writing to it.
    let errorsOpen = true;
    o.errors.on('error', () => (errorsOpen = false));
    stderr.on('data', (chunk: Buffer) => {
      if (errorsOpen) o.errors.write(chunk);
    });

    o.input.on('end', () => {
      o.onEnd('client');
      ended ??= 'the client closed its output';
      target.closeStdin();
      graceTimer = setTimeout(() => void target.stop(0), SERVER_EXIT_GRACE_MS);
      graceTimer.unref();
    });
    // The client stopped reading (it exited): nobody is left to serve.
    o.output.on('error', () => {
      ended ??= 'the client stopped reading';
      void target.stop();
    });
    const onSignal = (s: NodeJS.Signals): void => {
      signal ??= s;
      ended ??= `mcpcheck proxy received ${s}`;
      void target.stop(0);
    };
    for (const s of STOP_SIGNALS) process.on(s, onSignal);
    // A spawn that failed outright (no process, so no exit to wait for).
    target.ready().catch(() => {
      if (target.pid !== undefined) return;
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
      o.output.destroy();
      resolve({ exit: undefined, startupFailure: target.startupFailure()?.message ?? `cannot run \`${o.command}\``, ended: 'the server could not be started', exitCode: 127 });
    });

    target.onFinished((exit) => {
      clearTimeout(graceTimer);
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
      o.onEnd('server');
      o.input.pause();
      const failure = target.startupFailure();
      let flushed = false;
      const done = (): void => {
        if (flushed) return;
        flushed = true;
        clearTimeout(flushTimer);
        o.output.destroy();
        void target.stop(0).then(() =>
          resolve({
            exit,
            ...(signal ? { signal } : {}),
            ...(failure ? { startupFailure: failure.message } : {}),
            ended: ended ?? `the server ${exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`}`,
            exitCode: signal ? 128 + constants.signals[signal] : exitCodeOf(exit),
          }),
        );
      };
      // The client sees the server's end at once (not after the report is written), as it would without the proxy.
      const flushTimer = setTimeout(done, FLUSH_MS);
      if (o.output.writableLength === 0 || o.output.destroyed) done();
      else o.output.once('drain', done);
    });
  });
}

/** What a shell reports for a process that ended so. */
function exitCodeOf(exit: ExitInfo): number {
  if (exit.signal) return 128 + (constants.signals[exit.signal] ?? 0);
  return exit.code ?? 0;
}
