import { ChannelEvents } from './channel-base.js';
import type { Channel, ChannelClosed, IncomingFrame, SendResult } from './channel.js';
import { note, violation, type Finding } from '../validate/finding.js';
import { clockFrom, decodeUtf8, MiB, parseJson, quote } from './common.js';
import { TargetDidNotStart, TargetProcess, type TargetProcessOptions } from './process.js';
import { ruling } from '../spec/rulings.js';

export interface LineFramerOptions {
  /** IncomingFrame.via for the frames it delivers, e.g. 'stdout'. */
  via: string;
  /** What the lines come from, for messages: 'stdout' or 'stdin'. */
  source: string;
  /**
   * The rule that forbids anything but messages on this stream: STDIO-OUT-01 when reading a
   * server's stdout, STDIO-IN-01 when reading what a client writes to our stdin.
   */
  noiseRequirement: 'STDIO-OUT-01' | 'STDIO-IN-01';
  /** A longer line is reported and dropped. Default 16 MiB. */
  maxLineBytes?: number;
  /** After this many bytes in total the framer stops and calls onOverflow. Default 256 MiB. */
  maxTotalBytes?: number;
  /**
   * Whether a non-blank line that is not a message is reported here (default) or only delivered,
   * for a caller whose session validator judges such frames itself (mcpcheck proxy).
   */
  reportNoise?: boolean;
  /**
   * Whether a value spread over several lines is delivered as the one message it makes (default),
   * or, reported all the same, as the lines a line-reading peer received: each no message
   * (mcpcheck proxy, which judges the peer's reaction to what it could read).
   */
  deliverJoined?: boolean;
  clock: () => number;
  onFrame: (frame: IncomingFrame) => void;
  onFinding: (finding: Finding) => void;
  onOverflow?: (detail: string) => void;
  /**
   * Told as soon as a line goes over maxLineBytes (it will be dropped, and reported once it ends):
   * a frame passes that nobody judges, which a peer may already answer with an error without id.
   */
  onDropping?: (detail: string) => void;
}

/** Lines a pretty-printed value may span before we give up joining them. */
const MAX_JOIN_LINES = 10_000;
/** Noise lines reported one by one; the rest are summarised so a chatty target can't flood the report. */
const MAX_NOISE_FINDINGS = 20;
/** Silence after which unparsable lines held back for joining are reported on their own. */
const JOIN_IDLE_MS = 50;

/**
 * Splits a byte stream into newline-delimited JSON frames (STDIO-FRAME-01), judging each line the
 * way the spec asks. Used for whichever side of a stdio connection mcpcheck reads.
 */
export class LineFramer {
  private readonly maxLine: number;
  private readonly maxTotal: number;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** Bytes of an over-long line being skipped, or -1 when not skipping. */
  private skipping = -1;
  private total = 0;
  private overflowed = false;
  private lineNo = 0;
  private crlfReported = false;
  private noiseCount = 0;
  /** Unparsable lines that may be the start of a value spread over several lines. */
  private held: Array<{ text: string; line: number; why: string }> = [];
  private heldBytes = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(private readonly o: LineFramerOptions) {
    this.maxLine = o.maxLineBytes ?? 16 * MiB;
    this.maxTotal = o.maxTotalBytes ?? 256 * MiB;
  }

  push(input: Buffer): void {
    if (this.overflowed || this.ended) return;
    const room = this.maxTotal - this.total;
    const chunk = input.length > room ? input.subarray(0, room) : input;
    this.total += chunk.length;
    this.split(chunk);
    if (chunk !== input) {
      this.overflowed = true;
      clearTimeout(this.idleTimer);
      this.flushHeld();
      this.o.onOverflow?.(`${this.o.source} exceeded ${this.maxTotal} bytes in total; reading stopped`);
      return;
    }
    this.armIdle();
  }

  private split(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) {
        this.append(chunk.subarray(start));
        break;
      }
      this.append(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
  }

  /** The stream ended: judge what is left. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    // After an overflow the cut-off line is not the target's fault.
    if (!this.overflowed && (this.skipping >= 0 || this.partialBytes > 0)) {
      const unterminated = this.skipping < 0;
      const line = this.lineNo + 1;
      this.endLine();
      if (unterminated) {
        this.o.onFinding(
          violation(
            'STDIO-FRAME-01',
            `${this.o.source} ended with an unterminated line ${line} (no trailing newline)`,
            '',
            'warn',
          ),
        );
      }
    }
    this.flushHeld();
  }

  private append(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.skipping >= 0) {
      this.skipping += bytes.length;
      return;
    }
    if (this.partialBytes + bytes.length > this.maxLine) {
      this.skipping = this.partialBytes + bytes.length;
      this.partial = [];
      this.partialBytes = 0;
      this.o.onDropping?.(`${this.o.source} line ${this.lineNo + 1} is over mcpcheck's limit of ${this.maxLine} bytes`);
      return;
    }
    // Copy: a subarray would pin the whole chunk it came from.
    this.partial.push(Buffer.from(bytes));
    this.partialBytes += bytes.length;
  }

  private endLine(): void {
    this.lineNo++;
    if (this.skipping >= 0) {
      const size = this.skipping;
      this.skipping = -1;
      this.flushHeld();
      this.o.onFinding(note('STDIO-FRAME-01', `${this.o.source} line ${this.lineNo} is ${size} bytes long, over mcpcheck's limit of ${this.maxLine}; it was not read`));
      return;
    }
    let bytes = this.partial.length === 1 ? this.partial[0]! : Buffer.concat(this.partial);
    this.partial = [];
    this.partialBytes = 0;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) {
      bytes = bytes.subarray(0, -1);
      if (!this.crlfReported) {
        this.crlfReported = true;
        this.o.onFinding(
          note(
            'STDIO-FRAME-01',
            `${this.o.source} lines end in \\r\\n; accepted, since the spec says newline-delimited without settling \\r\\n (${ruling('stdio-crlf').cite})`,
          ),
        );
      }
    }
    this.line(bytes);
  }

  private line(bytes: Buffer): void {
    const decoded = decodeUtf8(bytes);
    let text = decoded.text;
    if (decoded.invalid) {
      this.o.onFinding(
        violation(
          'BASE-MSG-02',
          `${this.o.source} line ${this.lineNo} is not valid UTF-8 (shown with U+FFFD replacements): ${quote(text)}`,
        ),
      );
    }
    if (text.startsWith('\uFEFF')) {
      this.o.onFinding(
        violation('BASE-MSG-02', `${this.o.source} line ${this.lineNo} starts with a UTF-8 byte-order mark`, '', 'warn'),
      );
      text = text.slice(1);
    }

    if (text.trim() === '') {
      if (this.held.length > 0) this.hold(text, 'a blank line');
      else this.noise(text, this.lineNo, 'a blank line');
      return;
    }
    const alone = parseJson(text);
    if (this.held.length > 0) {
      const joined = [...this.held.map((h) => h.text), text].join('\n');
      const parsed = parseJson(joined);
      if (parsed.ok) {
        const held = this.held;
        const first = held[0]!.line;
        this.held = [];
        this.heldBytes = 0;
        this.o.onFinding(
          violation(
            'STDIO-FRAME-01',
            `one JSON value is spread over ${this.o.source} lines ${first}–${this.lineNo} (pretty-printed); each message must be a single line: ${quote(joined)}`,
          ),
        );
        if (this.o.deliverJoined === false) {
          for (const h of held) this.o.onFrame({ raw: h.text, parseError: h.why, via: this.o.via, at: this.o.clock() });
          this.o.onFrame({ raw: text, parseError: 'the last line of a value spread over several lines', via: this.o.via, at: this.o.clock() });
        } else this.deliver(joined, parsed);
        return;
      }
    }
    // While lines are held for joining, a line that alone is a string, number or array (an element
    // of the pretty-printed value, e.g. `"48x48"`) is more of that value; only a message ends it.
    if (alone.ok && (this.held.length === 0 || isMessageLike(alone.value))) {
      this.flushHeld();
      this.deliver(decoded.text, alone); // raw keeps a BOM if there was one
      return;
    }
    const why = alone.ok ? 'a line inside a value spread over several lines' : alone.error;
    // Only a line that opens an object or array can start a pretty-printed value.
    if (this.held.length === 0 && !/^\s*[[{]/.test(text)) {
      this.noise(text, this.lineNo, why);
      return;
    }
    this.hold(text, why);
  }

  private hold(text: string, why: string): void {
    this.held.push({ text, line: this.lineNo, why });
    this.heldBytes += text.length;
    while (this.held.length > MAX_JOIN_LINES || this.heldBytes > this.maxLine) {
      const oldest = this.held.shift()!;
      this.heldBytes -= oldest.text.length;
      this.noise(oldest.text, oldest.line, oldest.why);
    }
  }

  private flushHeld(): void {
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const h of held) this.noise(h.text, h.line, h.why);
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.held.length === 0) return;
    this.idleTimer = setTimeout(() => this.flushHeld(), JOIN_IDLE_MS);
    this.idleTimer.unref();
  }

  /** A line that is not a message: reported, and delivered with parseError so transcripts keep it. */
  private noise(text: string, line: number, why: string): void {
    const blank = text.trim() === '';
    if (!blank && this.o.reportNoise === false) {
      this.o.onFrame({ raw: text, parseError: why, via: this.o.via, at: this.o.clock() });
      return;
    }
    this.noiseCount++;
    if (this.noiseCount <= MAX_NOISE_FINDINGS) {
      const what = blank ? 'a blank line' : `a line that is not JSON: ${quote(text)}`;
      this.o.onFinding(violation(this.o.noiseRequirement, `${this.o.source} line ${line} is ${what}`));
    } else if (this.noiseCount === MAX_NOISE_FINDINGS + 1) {
      this.o.onFinding(
        violation(
          this.o.noiseRequirement,
          `more lines on ${this.o.source} are not JSON; only the first ${MAX_NOISE_FINDINGS} are reported one by one`,
        ),
      );
    }
    if (!blank) this.o.onFrame({ raw: text, parseError: why, via: this.o.via, at: this.o.clock() });
  }

  private deliver(raw: string, parsed: { ok: true; value: unknown }): void {
    this.o.onFrame({ raw, message: parsed.value, via: this.o.via, at: this.o.clock() });
  }
}

export interface StdioChannelOptions extends TargetProcessOptions {
  /** A longer stdout line is reported and dropped. Default 16 MiB. */
  maxLineBytes?: number;
  /** Total stdout read before the channel gives up on the target. Default 256 MiB. */
  maxStdoutBytes?: number;
  /** How long a send waits for a full stdin pipe to drain. Default 30 s. */
  writeTimeoutMs?: number;
  /** close(): how long the target may take to exit after its stdin closed, before SIGTERM. Default 500 ms. */
  stdinGraceMs?: number;
  /** start(): how long to watch for an immediate exit (a command that does not exist). Default 100 ms. */
  startupWindowMs?: number;
}

/** mcpcheck as the client of a stdio server it launched. */
export class StdioChannel extends ChannelEvents implements Channel {
  readonly kind = 'stdio' as const;
  readonly process: TargetProcess;
  private readonly framer: LineFramer;
  private readonly writeTimeoutMs: number;
  private readonly stdinGraceMs: number;
  private closedInfo: ChannelClosed | undefined;
  private closing: Promise<void> | undefined;

  /** Starts the command; rejects with TargetDidNotStart if it cannot run or dies at once. */
  static async start(options: StdioChannelOptions): Promise<StdioChannel> {
    const channel = new StdioChannel(options);
    try {
      await channel.process.ready(options.startupWindowMs ?? 100);
    } catch (err) {
      await channel.close();
      throw err;
    }
    return channel;
  }

  /** Prefer `start()`; the constructor does not wait to see whether the command runs. */
  constructor(options: StdioChannelOptions) {
    super();
    this.writeTimeoutMs = options.writeTimeoutMs ?? 30_000;
    this.stdinGraceMs = options.stdinGraceMs ?? 500;
    const clock = clockFrom();
    this.process = new TargetProcess(options);
    this.framer = new LineFramer({
      via: 'stdout',
      source: 'stdout',
      noiseRequirement: 'STDIO-OUT-01',
      maxLineBytes: options.maxLineBytes,
      maxTotalBytes: options.maxStdoutBytes,
      clock,
      onFrame: (f) => this.frames.emit(f),
      onFinding: (f) => this.findings.emit(f),
      onOverflow: (detail) => {
        this.findings.emit(note('STDIO-OUT-01', `${detail}; the target was stopped`));
        this.finish({ reason: 'error', detail });
        void this.process.stop(0);
      },
    });
    // Attached before any I/O event can fire, so no stdout is missed.
    this.process.onStdout((chunk) => this.framer.push(chunk));
    this.process.onFinished((exit) => {
      // When we are the ones closing, close() reports it as 'closed'.
      if (this.closing) return;
      this.framer.end();
      const failure = this.process.startupFailure();
      const detail = failure?.message ?? `the target ${exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`}`;
      this.finish({ reason: 'exit', code: exit.code, signal: exit.signal, detail });
    });
  }

  /** Set when the target exited without ever writing to stdout, or could not be spawned. */
  get didNotStart(): TargetDidNotStart | undefined {
    return this.process.startupFailure();
  }

  get negotiatedVersion(): string | undefined {
    return this.protocolVersion;
  }

  /** What the target wrote to stderr (the tail), and how many earlier bytes were dropped. */
  stderr(): { text: string; dropped: number } {
    return { text: this.process.stderr.text(), dropped: this.process.stderr.dropped };
  }

  describe(): string {
    return `stdio: ${this.process.command}`;
  }

  send(message: unknown): Promise<SendResult> {
    return this.write(JSON.stringify(message) + '\n');
  }

  sendRaw(bytes: string | Uint8Array): Promise<SendResult> {
    return this.write(bytes);
  }

  private async write(data: string | Uint8Array): Promise<SendResult> {
    if (this.closedInfo) return { error: `the channel is closed (${this.closedInfo.detail ?? this.closedInfo.reason})` };
    const error = await this.process.write(data, this.writeTimeoutMs);
    return error === undefined ? {} : { error };
  }


  /** Closes stdin, waits, then SIGTERM and SIGKILL to the whole process group (LIFE-SHUT-01). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const exit = await this.process.stop(this.stdinGraceMs);
      this.framer.end();
      this.finish({ reason: 'closed', code: exit?.code ?? null, signal: exit?.signal ?? null });
    })();
    return this.closing;
  }

  private finish(info: ChannelClosed): void {
    if (this.closedInfo) return;
    this.closedInfo = info;
    this.closes.emit(info);
  }
}

function isMessageLike(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'jsonrpc' in value;
}
