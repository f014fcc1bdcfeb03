import { createWriteStream, type WriteStream } from 'node:fs';
import { formatExchange, formatFrame, formatHeader, type Side, type TranscriptExchange } from './format.js';

/** What a transcript may hold in memory while the disk catches up; frames beyond it are counted, not written. */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;

export interface PassingFrame {
  from: Side;
  /** The frame's text as it was read. */
  raw: string;
  time: string;
  inResponseTo?: string | number;
  exchange?: number;
}

/**
 * A transcript written as traffic passes (mcpcheck proxy): the header, then one line a frame, in
 * the format `validate` reads. Every frame is kept `raw`, as its bytes were read, so `validate`
 * judges what the proxy judged (its framing as well as its value). Memory is bounded: when the
 * disk falls behind, frames are counted as dropped instead of queued.
 */
export class TranscriptStream {
  private readonly out: WriteStream;
  private failure: string | undefined;
  /** Lines not yet handed to the file: written together once the frames passing at once are in (a write each cost more than judging them). */
  private lines: string[] = [];
  private linesBytes = 0;
  private flushing = false;
  /** Records (frames, exchanges) not written: the disk fell behind, or writing failed. */
  dropped = 0;

  constructor(
    readonly path: string,
    transport: 'stdio' | 'http',
    private readonly redact: (text: string) => string = (text) => text,
  ) {
    this.out = createWriteStream(path);
    this.out.on('error', (e: NodeJS.ErrnoException) => (this.failure ??= e.code ?? e.message));
    this.out.write(formatHeader(transport) + '\n');
  }

  frame(frame: PassingFrame): void {
    this.line(formatFrame(frame));
  }

  /** An HTTP exchange's metadata (its credentials already redacted), the evidence of the rules judged on it. */
  exchange(exchange: TranscriptExchange): void {
    this.line(formatExchange(exchange));
  }

  private line(text: string): void {
    if (this.failure !== undefined || this.out.writableLength + this.linesBytes > MAX_PENDING_BYTES) {
      this.dropped++;
      return;
    }
    const line = this.redact(text) + '\n';
    this.lines.push(line);
    this.linesBytes += line.length;
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushing = false;
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.linesBytes = 0;
    if (this.failure === undefined) this.out.write(text);
  }

  /** Ends the file; resolves to why it is incomplete, or undefined when every frame was written. */
  close(): Promise<string | undefined> {
    this.flush();
    return new Promise((resolve) => {
      const why = (): string | undefined =>
        this.failure !== undefined ? `writing ${this.path} failed (${this.failure})${this.dropped > 0 ? `; ${this.dropped} records were not written` : ''}` : this.dropped > 0 ? `${this.dropped} records were not written: the disk fell more than ${MAX_PENDING_BYTES / 1024 / 1024} MiB behind the traffic` : undefined;
      if (this.out.closed || this.out.destroyed) return resolve(why());
      this.out.end(() => resolve(why()));
      this.out.once('error', () => resolve(why()));
    });
  }
}
