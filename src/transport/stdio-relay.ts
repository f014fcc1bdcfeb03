import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { SetupError } from '../errors.js';
import { packageRoot, privateTempDir } from '../paths.js';
import { note, unjudged } from '../validate/finding.js';
import { ChannelEvents } from './channel-base.js';
import type { ChannelClosed, SendResult } from './channel.js';
import { clockFrom, Listeners } from './common.js';
import { decodeBytes, encodeBytes, encodeRecord, RecordReader, type RelayRecord } from './relay-wire.js';
import type { ServerChannel, StdioClientEvent } from './server-channel.js';
import { LineFramer } from './stdio.js';

export interface StdioRelayOptions {
  /** A longer line on the relay's stdin is reported and dropped. Default 16 MiB. */
  maxLineBytes?: number;
  /** Total stdin read before the channel gives up on the client. Default 256 MiB. */
  maxStdinBytes?: number;
  /** How long a send waits for a full socket (a client not reading the relay's stdout) to drain. Default 30 s. */
  writeTimeoutMs?: number;
  /** die() and close(): how long the relay may take to exit once told. Default 2000 ms. */
  exitTimeoutMs?: number;
}

/**
 * mcpcheck as the stdio server of a client under test. The client starts `address` (the relay,
 * `mcpcheck relay --socket …`) as its server; the relay carries its stdin, stdout, stderr and the
 * signals it receives over a private Unix socket to this channel, so frames are judged here as
 * they would be in the server process itself. One relay per channel: one server process per scenario.
 * The relay does not exit when its stdin closes: the harness decides how the server reacts (call
 * die(0) on 'stdin-closed' to act as a server that exits on EOF). On SIGTERM, SIGINT or SIGHUP it
 * reports the signal and exits with 128 + n.
 */
export class StdioRelayChannel extends ChannelEvents implements ServerChannel {
  readonly kind = 'stdio' as const;
  /** `<node> <…/dist/src/cli.js> relay --socket <path>`: words without quoting. */
  readonly address: string;
  private readonly clock = clockFrom();
  private readonly events = new Listeners<StdioClientEvent>();
  private readonly framer: LineFramer;
  private readonly writeTimeoutMs: number;
  private readonly exitTimeoutMs: number;
  private relay: Socket | undefined;
  private relayGone = false;
  /** The exit code the relay was told to use, or the signal the client stopped it with. */
  private exitCode: number | undefined;
  private exitSignal: string | undefined;
  private readonly waiters = new Set<(connected: boolean) => void>();
  private closedInfo: ChannelClosed | undefined;
  private closing: Promise<void> | undefined;

  /** Opens the socket in a fresh private directory; rejects with SetupError when the relay cannot be offered. */
  static async open(options: StdioRelayOptions = {}): Promise<StdioRelayChannel> {
    const cli = join(packageRoot(), 'dist', 'src', 'cli.js');
    if (!existsSync(cli)) throw new SetupError(`the stdio relay needs the built mcpcheck: ${cli} is missing (npm run build)`);
    // No other user can reach the socket in it.
    const dir = privateTempDir('mcpcheck-relay-', "the stdio relay's socket");
    const socketPath = join(dir, 's.sock');
    const words = [process.execPath, cli, 'relay', '--socket', socketPath];
    const server = createServer();
    try {
      const spaced = words.find((w) => /\s/.test(w));
      if (spaced !== undefined) throw new Error(`the path ${JSON.stringify(spaced)} contains whitespace, and the {stdio} command line is given without quoting`);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socketPath, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      server.close();
      await rm(dir, { recursive: true, force: true });
      throw new SetupError(`cannot offer the stdio relay: ${err instanceof Error ? err.message : String(err)}`);
    }
    return new StdioRelayChannel(server, dir, words.join(' '), options);
  }

  private constructor(
    private readonly server: Server,
    /** The private directory holding the socket; removed by close(). */
    readonly dir: string,
    address: string,
    options: StdioRelayOptions,
  ) {
    super();
    this.address = address;
    this.writeTimeoutMs = options.writeTimeoutMs ?? 30_000;
    this.exitTimeoutMs = options.exitTimeoutMs ?? 2000;
    this.framer = new LineFramer({
      via: 'stdin',
      source: 'stdin',
      noiseRequirement: 'STDIO-IN-01',
      maxLineBytes: options.maxLineBytes,
      maxTotalBytes: options.maxStdinBytes,
      clock: this.clock,
      onFrame: (f) => this.frames.emit(f),
      onFinding: (f) => this.findings.emit(f),
      onOverflow: (detail) => {
        this.findings.emit(note('STDIO-IN-01', `${detail}; the server (relay) was stopped`));
        this.finish({ reason: 'error', detail });
        void this.die(1);
      },
    });
    server.on('connection', (socket) => this.accept(socket));
  }

  onStdioEvent(listener: (event: StdioClientEvent) => void): void {
    this.events.add(listener);
  }

  /** Whether the client started the relay (it connected) within `timeoutMs`; false at once after close(). */
  connected(timeoutMs: number): Promise<boolean> {
    if (this.relay) return Promise.resolve(true);
    if (this.closing) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(ok);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(done);
    });
  }

  send(message: unknown): Promise<SendResult> {
    return this.write(encodeBytes('out', JSON.stringify(message) + '\n'));
  }

  /** Bytes exactly as given on the relay's stdout; no newline is added. */
  sendRaw(bytes: string | Uint8Array): Promise<SendResult> {
    return this.write(encodeBytes('out', bytes));
  }

  async stderr(text: string): Promise<void> {
    await this.write(encodeBytes('err', text));
  }

  /** The relay exits with `code` (default 1, a crashed server), closing its stdout; resolves once it is gone (bounded). */
  async die(code = 1): Promise<void> {
    const relay = this.relay;
    if (!relay || this.relayGone || this.exitCode !== undefined) return;
    const closed = closeOf(relay, this.exitTimeoutMs);
    const written = this.write(encodeRecord({ t: 'exit', code }));
    // Set only now: write() refuses anything once the relay was told to exit.
    this.exitCode = code;
    await written;
    // A relay that did not go in time is cut off; losing its socket makes it exit too.
    if (!(await closed)) relay.destroy();
  }

  /** Tells the relay to exit (code 0), closes the socket, removes the directory; leaves no handle behind. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const waiter of [...this.waiters]) waiter(false);
      if (this.relay && !this.relayGone) await this.die(0);
      this.relay?.destroy();
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
      await rm(this.dir, { recursive: true, force: true });
      this.framer.end();
      this.finish({ reason: 'closed', code: this.exitCode ?? null, signal: this.exitSignal ?? null });
    })();
    return this.closing;
  }

  private accept(socket: Socket): void {
    if (this.relay || this.closing) {
      socket.destroy();
      if (!this.closing) {
        this.findings.emit(
          unjudged(
            'LIFE-SHUT-01',
            'the client started its stdio server a second time in one session; mcpcheck serves one server process per scenario, so the second was refused (it exits at once)',
          ),
        );
      }
      return;
    }
    this.relay = socket;
    for (const waiter of [...this.waiters]) waiter(true);
    const reader = new RecordReader(
      (record) => this.onRecord(record),
      (detail) => {
        this.finish({ reason: 'error', detail: `the stdio relay sent ${detail}` });
        socket.destroy();
      },
    );
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    // An error is followed by 'close', which reports the relay's end.
    socket.on('error', () => {});
    socket.on('close', () => this.relayExited());
  }

  private onRecord(record: RelayRecord): void {
    switch (record.t) {
      case 'in':
        this.framer.push(decodeBytes(record));
        return;
      case 'eof':
        this.framer.end();
        this.events.emit({ kind: 'stdin-closed', at: this.clock() });
        return;
      case 'signal':
        this.exitSignal = record.name;
        this.events.emit({ kind: 'signal', signal: record.name, at: this.clock() });
        return;
      default:
        this.finish({ reason: 'error', detail: `the stdio relay sent a record only the harness sends (${record.t})` });
        this.relay?.destroy();
    }
  }

  private relayExited(): void {
    this.relayGone = true;
    this.framer.end();
    this.events.emit({ kind: 'relay-exit', at: this.clock() });
    const detail =
      this.exitSignal !== undefined
        ? `the server (relay) exited on ${this.exitSignal} from the client`
        : this.exitCode !== undefined
          ? `the server (relay) exited with code ${this.exitCode}, as mcpcheck told it`
          : 'the server (relay) ended without being told to: the client killed it or the relay lost the harness';
    // When we are the ones closing, close() reports it as 'closed'.
    if (!this.closing) this.finish({ reason: 'exit', code: this.exitCode ?? null, signal: this.exitSignal ?? null, detail });
  }

  private write(data: string): Promise<SendResult> {
    const relay = this.relay;
    if (!relay) return Promise.resolve({ error: 'the client has not started its stdio server (the relay) yet' });
    if (this.relayGone || relay.destroyed) return Promise.resolve({ error: 'the server (relay) has exited; its stdout is closed' });
    if (this.exitCode !== undefined) return Promise.resolve({ error: 'the server (relay) was told to exit' });
    if (relay.write(data)) return Promise.resolve({});
    return new Promise((resolve) => {
      const done = (result: SendResult): void => {
        clearTimeout(timer);
        relay.off('drain', onDrain);
        relay.off('close', onClose);
        resolve(result);
      };
      const onDrain = (): void => done({});
      const onClose = (): void => done({ error: 'the server (relay) exited before the data was written' });
      const timer = setTimeout(
        () => done({ error: `the client did not read the server's stdout within ${this.writeTimeoutMs} ms` }),
        this.writeTimeoutMs,
      );
      relay.on('drain', onDrain);
      relay.on('close', onClose);
    });
  }

  private finish(info: ChannelClosed): void {
    if (this.closedInfo) return;
    this.closedInfo = info;
    this.closes.emit(info);
  }
}

/** Resolves true when the socket closes, false after `timeoutMs`. */
function closeOf(socket: Socket, timeoutMs: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
