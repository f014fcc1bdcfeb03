import { createConnection, type Socket } from 'node:net';
import { constants } from 'node:os';
import { decodeBytes, encodeBytes, encodeRecord, RecordReader, type RelayRecord } from '../transport/relay-wire.js';

// `mcpcheck relay`: the process a client under test starts as its stdio server (the `{stdio}`
// command line of `mcpcheck client`). It only carries bytes and events between the client and the
// harness's socket (src/transport/stdio-relay.ts), which judges everything. Started once per
// scenario, so it imports nothing but node built-ins and the wire format.

/** The signals a client may use to stop its server; each is reported, then the relay exits as a server would (128 + n). */
const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** How long the last output may take to drain before the relay exits regardless (a client that stopped reading). */
const FLUSH_MS = 1000;

const USAGE = 'mcpcheck relay: usage: mcpcheck relay --socket PATH (mcpcheck client starts it; it is not meant to be run by hand)\n';

/** Runs the relay until the harness tells it to exit, a signal stops it or the harness goes away; resolves to the exit code. */
export function runRelay(argv: string[]): Promise<number> {
  const path = argv.length === 2 && argv[0] === '--socket' ? argv[1] : undefined;
  if (!path) {
    process.stderr.write(USAGE);
    return Promise.resolve(2);
  }
  return new Relay(path).exited;
}

class Relay {
  readonly exited: Promise<number>;
  private resolveExit!: (code: number) => void;
  private readonly socket: Socket;
  private connected = false;
  private exiting = false;
  private readonly reader: RecordReader;

  constructor(private readonly path: string) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    this.reader = new RecordReader(
      (record) => this.onRecord(record),
      (detail) => this.fail(`the harness sent ${detail}`),
    );
    for (const signal of FORWARDED_SIGNALS) process.on(signal, () => this.onSignal(signal));
    this.socket = createConnection(path);
    this.socket.on('connect', () => {
      this.connected = true;
      this.forwardStdin();
    });
    this.socket.on('data', (chunk: Buffer) => this.reader.push(chunk));
    this.socket.on('error', (err: NodeJS.ErrnoException) => {
      const why = err.code ?? err.message;
      this.fail(this.connected ? `lost the harness (${why})` : `cannot reach the harness at ${this.path} (${why})`);
    });
    // The harness is gone: there is nobody left to serve the client, so say so and exit at once.
    this.socket.on('close', () => this.fail('the harness closed the connection'));
  }

  private forwardStdin(): void {
    const stdin = process.stdin;
    stdin.on('data', (chunk: Buffer) => {
      if (this.exiting) return;
      if (!this.socket.write(encodeBytes('in', chunk))) {
        stdin.pause();
        this.socket.once('drain', () => stdin.resume());
      }
    });
    let ended = false;
    const eof = (): void => {
      if (ended || this.exiting) return;
      ended = true;
      this.socket.write(encodeRecord({ t: 'eof' }));
    };
    stdin.once('end', eof);
    stdin.on('error', eof);
  }

  private onRecord(record: RelayRecord): void {
    switch (record.t) {
      case 'out':
        if (!process.stdout.write(decodeBytes(record))) {
          this.socket.pause();
          process.stdout.once('drain', () => this.socket.resume());
        }
        return;
      case 'err':
        process.stderr.write(decodeBytes(record));
        return;
      case 'exit':
        void this.exit(record.code);
        return;
      default:
        this.fail(`a record only the relay sends (${record.t})`);
    }
  }

  private onSignal(signal: (typeof FORWARDED_SIGNALS)[number]): void {
    if (this.connected && !this.exiting) this.socket.write(encodeRecord({ t: 'signal', name: signal }));
    void this.exit(128 + constants.signals[signal]);
  }

  private fail(message: string): void {
    if (this.exiting) return;
    process.stderr.write(`mcpcheck relay: ${message}\n`);
    void this.exit(1);
  }

  /** Lets what was written reach stdout and the socket (bounded), then resolves the exit code. */
  private async exit(code: number): Promise<void> {
    if (this.exiting) return;
    this.exiting = true;
    this.reader.stop();
    process.stdin.pause();
    await within(FLUSH_MS, (done) => process.stdout.write('', () => done()));
    await within(FLUSH_MS, (done) => {
      if (this.socket.destroyed) return done();
      this.socket.once('close', done);
      this.socket.end();
    });
    this.socket.destroy();
    this.resolveExit(code);
  }
}

/** Resolves when `start` calls done, or after `ms` at the latest. */
function within(ms: number, start: (done: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    start(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
