import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Baseline } from '../grade/index.js';
import type { RunReport } from '../model.js';
import { packageRoot } from '../paths.js';
import type { Exchange, ExchangeTap } from '../proxy/http-reverse.js';
import type { Side } from '../validate/message.js';

/** How far judging may fall behind the traffic before it stops (the traffic itself never waits). */
const MAX_BEHIND_BYTES = 64 * 1024 * 1024;
/** The judging thread tells how far it got every this many bytes (what the backlog bound counts). */
export const ACK_BYTES = 1024 * 1024;
/**
 * What passes is handed over in batches, at most this long after it passed (a hand-over a chunk
 * wakes the judging thread each time, which costs a round trip more than copying it does)…
 */
const BATCH_MS = 5;
/** …or at once when this many bytes wait. */
const BATCH_BYTES = 1024 * 1024;
/** Once the session ended, how long the judging thread may go without a sign of progress before it is given up. */
const FINISH_SILENCE_MS = 60_000;

/** What the judging thread is set up with (its workerData). */
export type JudgingSetup = {
  started: number;
  verbose: boolean;
  baseline?: Baseline;
  invokedAs?: string;
  /** `--header` values to keep out of what is written (with the environment's). */
  headers: string[];
} & (
  | { kind: 'stdio'; command: string; transcript?: string }
  | { kind: 'http'; upstream: string; transcriptDir?: string }
);

/** How the session ended, told to the judging thread when it did. */
export type Ending = { kind: 'stdio'; ended: string; startupFailure?: string } | { kind: 'http'; endpoint: string };

type ExchangePart = keyof ExchangeTap;

/** Where a chunk's bytes are in its batch's buffer. */
export type Range = [offset: number, length: number];

type Answer = Required<Pick<Exchange, 'status' | 'responseHeaders'>>;

/** What passed, as the forwarder tells it. `at`: when it passed (ms since the epoch). */
export type Passed =
  | { t: 'bytes'; from: Side; chunk: Range; at: number }
  | { t: 'end'; from: Side; at: number }
  /** `exchange`: the request, with the exchange's first part; `answer`: the response's status and headers, with its part. */
  | { t: 'exchange'; part: ExchangePart; n: number; at: number; exchange?: Exchange; answer?: Answer; chunk?: Range; why?: string }
  | { t: 'listening'; endpoint: string };

/** Forwarder → judging thread: what passed, in batches whose chunks share one buffer; then the end. */
export type ToJudging = { t: 'batch'; passed: Passed[]; bytes: ArrayBuffer } | { t: 'stop'; why: string } | { t: 'finish'; ending: Ending };

/** Judging thread → forwarder. */
export type FromJudging = { t: 'line'; text: string } | { t: 'judged'; bytes: number } | { t: 'report'; report: RunReport };

/** A part waiting to be handed over, with its chunk (the stream's own buffer, which it does not reuse). */
type Waiting = { passed: Passed; chunk?: Buffer };

/**
 * The forwarder's side of mcpcheck proxy's judging thread: what passes is handed over, in
 * batches, to a worker thread that frames, judges, records and grades it, so the traffic's own
 * thread does little more than forward. Judging that falls more than MAX_BEHIND_BYTES behind stops
 * (the traffic goes on); a judging thread that fails stops judging, never the traffic.
 */
export class JudgingThread implements ExchangeTap {
  private readonly worker: Worker;
  /** Bytes handed over or waiting, not yet judged. */
  private behind = 0;
  private stopped = false;
  private failure: string | undefined;
  private readonly announced = new WeakSet<Exchange>();
  private waiting: Waiting[] = [];
  private waitingBytes = 0;
  private batchTimer: NodeJS.Timeout | undefined;
  private reported: ((report: RunReport) => void) | undefined;
  private progress: (() => void) | undefined;
  private failed: ((why: string) => void) | undefined;

  constructor(
    setup: JudgingSetup,
    private readonly log: (line: string) => void,
  ) {
    this.worker = new Worker(join(packageRoot(), 'dist/src/commands/proxy-judging.js'), { workerData: setup, stdout: false, stderr: false });
    this.worker.on('message', (m: FromJudging) => {
      this.progress?.();
      if (m.t === 'line') this.log(m.text);
      else if (m.t === 'judged') this.behind -= m.bytes;
      else this.reported?.(m.report);
    });
    const fail = (why: string): void => {
      if (this.failure !== undefined) return;
      this.failure = why;
      this.stopped = true;
      this.log(`stopped judging: mcpcheck's judging thread failed (${why}); the rest was forwarded unjudged — a bug in mcpcheck`);
      this.failed?.(why);
    };
    this.worker.on('error', (e) => fail(e.message));
    this.worker.on('exit', (code) => fail(`it exited with code ${code}`));
  }

  /** Bytes `from` sent over stdio, already forwarded. */
  bytes(from: Side, chunk: Buffer): void {
    this.add({ t: 'bytes', from, chunk: [0, 0], at: Date.now() }, chunk);
  }

  /** `from` closed its side of a stdio connection. */
  end(from: Side): void {
    this.add({ t: 'end', from, at: Date.now() });
  }

  /** The HTTP proxy listens: its endpoint is what the client is given. */
  listening(endpoint: string): void {
    this.add({ t: 'listening', endpoint });
  }

  requestBody(x: Exchange, chunk: Buffer): void {
    this.part(x, { t: 'exchange', part: 'requestBody', n: x.number, at: Date.now(), chunk: [0, 0] }, chunk);
  }

  requestEnd(x: Exchange): void {
    this.part(x, { t: 'exchange', part: 'requestEnd', n: x.number, at: Date.now() });
  }

  response(x: Exchange): void {
    this.part(x, { t: 'exchange', part: 'response', n: x.number, at: Date.now(), answer: { status: x.status ?? 502, responseHeaders: x.responseHeaders ?? {} } });
  }

  responseBody(x: Exchange, chunk: Buffer): void {
    this.part(x, { t: 'exchange', part: 'responseBody', n: x.number, at: Date.now(), chunk: [0, 0] }, chunk);
  }

  responseEnd(x: Exchange): void {
    this.part(x, { t: 'exchange', part: 'responseEnd', n: x.number, at: Date.now() });
  }

  unreachable(x: Exchange, why: string): void {
    this.part(x, { t: 'exchange', part: 'unreachable', n: x.number, at: Date.now(), why });
  }

  /**
   * The session ended: the judging thread judges what it still holds and grades the run. Rejects
   * when it failed, or went FINISH_SILENCE_MS without progress.
   */
  finish(ending: Ending): Promise<RunReport> {
    this.flush();
    return new Promise<RunReport>((resolve, reject) => {
      let silence: NodeJS.Timeout | undefined;
      const settle = (): void => {
        clearTimeout(silence);
        this.reported = this.progress = this.failed = undefined;
      };
      this.reported = (report) => {
        settle();
        resolve(report);
      };
      this.failed = (why) => {
        settle();
        reject(new Error(`mcpcheck's judging thread failed: ${why}`));
      };
      this.progress = () => silence?.refresh();
      silence = setTimeout(() => this.failed?.(`no progress in ${FINISH_SILENCE_MS / 1000} s`), FINISH_SILENCE_MS);
      if (this.failure !== undefined) return this.failed(this.failure);
      this.worker.postMessage({ t: 'finish', ending } satisfies ToJudging);
    }).finally(() => {
      this.worker.removeAllListeners('exit');
      void this.worker.terminate();
    });
  }

  /** An exchange's part; its first carries the request. */
  private part(x: Exchange, passed: Extract<Passed, { t: 'exchange' }>, chunk?: Buffer): void {
    if (this.stopped) return;
    if (!this.announced.has(x)) {
      this.announced.add(x);
      passed.exchange = { number: x.number, connection: x.connection, method: x.method, path: x.path, requestHeaders: x.requestHeaders };
    }
    this.add(passed, chunk);
  }

  /** Queues a part for the next batch; a chunk counts into the backlog, which stops judging beyond its bound. */
  private add(passed: Passed, chunk?: Buffer): void {
    if (this.stopped) return;
    if (chunk) {
      this.behind += chunk.length;
      if (this.behind > MAX_BEHIND_BYTES) {
        this.stopped = true;
        this.flush();
        this.post({ t: 'stop', why: `judging fell more than ${MAX_BEHIND_BYTES / 1024 / 1024} MiB behind the traffic; the rest was forwarded unjudged` });
        return;
      }
      this.waitingBytes += chunk.length;
    }
    this.waiting.push(chunk ? { passed, chunk } : { passed });
    if (this.waitingBytes >= BATCH_BYTES) this.flush();
    else this.batchTimer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  /** Hands what waits over as one batch, its chunks copied into one buffer. */
  private flush(): void {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.waiting.length === 0) return;
    const bytes = new Uint8Array(this.waitingBytes);
    let offset = 0;
    const passed = this.waiting.map(({ passed, chunk }) => {
      if (chunk && 'chunk' in passed) {
        bytes.set(chunk, offset);
        passed.chunk = [offset, chunk.length];
        offset += chunk.length;
      }
      return passed;
    });
    this.waiting = [];
    this.waitingBytes = 0;
    this.post({ t: 'batch', passed, bytes: bytes.buffer }, [bytes.buffer]);
  }

  private post(m: ToJudging, transfer: ArrayBuffer[] = []): void {
    if (this.failure === undefined) this.worker.postMessage(m, transfer);
  }
}
