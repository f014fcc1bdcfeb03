import { constants } from 'node:buffer';
import { fstatSync, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { SetupError } from '../errors.js';
import { lineAt, type LineChunk } from './format.js';

/** The most of a transcript mcpcheck reads (a pipe such as /dev/zero never ends): as long as Node's longest string, which any line then fits. */
export const MAX_TRANSCRIPT_BYTES = constants.MAX_STRING_LENGTH;
/**
 * How much is read at a time. Two buffers this size take turns (one is read into while the
 * lines of the other are judged) and stay in the processor's cache: reading a large file into
 * memory new to the process, and decoding it from there, cost more than judging its frames.
 */
const CHUNK = 1 << 18;
/** How much of a line is read at first when it is read again. */
const LINE_GUESS = 1 << 12;

/** A file mcpcheck will not read as a transcript; the message says why. */
class Refused extends Error {}

function unreadable(file: string, e: unknown): SetupError {
  const why = e instanceof Refused ? e.message : (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
  return new SetupError(`${file}: cannot read the transcript (${why})`);
}

/** What a regular file was when it was opened: a line is read again only from the file it was read from. */
interface Identity {
  size: number;
  mtimeMs: number;
}

/**
 * A transcript file, read as it is judged: runs of whole lines (chunks()), the next run read
 * while the caller judges one, and a line read again by where it starts (lineAt(), for a
 * finding's evidence), from the file or, for a pipe, from what was kept of it. Of a regular file
 * no more than its size when it was opened is read; of any file no more than `limit` bytes.
 * Errors are SetupErrors. close() after use.
 */
export class TranscriptFile {
  private readonly buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
  /** The first read, started on opening, so it runs while the caller loads the validator. */
  private readonly first: Promise<number>;
  /** Of a pipe, which cannot be read twice: its runs of lines, by where each starts. */
  private readonly kept: { offset: number; bytes: Buffer }[] = [];
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly identity: Identity | undefined,
    private readonly limit: number,
  ) {
    this.first = this.fill(this.buffers[0]!, 0, 0);
    // Handled where chunks() awaits it; a file closed unread leaves no rejection behind.
    this.first.catch(() => undefined);
  }

  static async open(path: string, limit = MAX_TRANSCRIPT_BYTES): Promise<TranscriptFile> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (e) {
      throw unreadable(path, e);
    }
    try {
      const stat = await handle.stat();
      // A directory opens (on Linux); only its read would fail.
      if (stat.isDirectory()) throw new Refused('is a directory');
      if (stat.isFile() && stat.size > limit) throw tooLarge(limit);
      // A file that says it is empty may still be a pipe's (/proc, /dev/stdin): read to its end.
      const regular = stat.isFile() && stat.size > 0;
      return new TranscriptFile(path, handle, regular ? { size: stat.size, mtimeMs: stat.mtimeMs } : undefined, limit);
    } catch (e) {
      await handle.close().catch(() => undefined);
      throw unreadable(path, e);
    }
  }

  /** Reads into `buffer` from `start`, at `position` of the file; how many bytes came (0 at the end). */
  private async fill(buffer: Buffer, start: number, position: number): Promise<number> {
    const room = buffer.length - start;
    const wanted = this.identity ? Math.min(room, this.identity.size - position) : room;
    if (wanted <= 0) return 0;
    const { bytesRead } = await this.handle.read(buffer, start, wanted, this.identity ? position : null);
    if (position + bytesRead > this.limit) throw tooLarge(this.limit);
    return bytesRead;
  }

  /**
   * The file's bytes as runs of whole lines, in order (the last may lack its LF). A chunk's bytes
   * are this reader's own and change once the caller asks for the next: it is judged, not kept.
   */
  async *chunks(): AsyncGenerator<LineChunk> {
    let current = 0;
    /** Bytes at the start of the current buffer that came before this read: a line not yet ended. */
    let carried = 0;
    /** Where the current buffer starts in the file, and where the next read is. */
    let offset = 0;
    let position = 0;
    let pending = this.first;
    for (;;) {
      let read: number;
      try {
        read = await pending;
      } catch (e) {
        throw unreadable(this.path, e);
      }
      position += read;
      const buffer = this.buffers[current]!;
      const filled = carried + read;
      if (read === 0) {
        if (filled > 0) yield this.chunk(buffer, filled, offset);
        return;
      }
      const last = buffer.lastIndexOf(10, filled - 1);
      if (last < 0) {
        // No line ends here yet: read on after it, into a larger buffer once this one is full.
        if (filled === buffer.length) {
          const larger = Buffer.allocUnsafe(buffer.length * 2);
          buffer.copy(larger, 0, 0, filled);
          this.buffers[current] = larger;
        }
        carried = filled;
        pending = this.fill(this.buffers[current]!, carried, position);
        continue;
      }
      // The unended line moves to the other buffer, and the next read starts after it, now.
      const next = 1 - current;
      const tail = filled - (last + 1);
      if (this.buffers[next]!.length < tail + CHUNK) this.buffers[next] = Buffer.allocUnsafe(tail + CHUNK);
      buffer.copy(this.buffers[next]!, 0, last + 1, filled);
      pending = this.fill(this.buffers[next]!, tail, position);
      // Not left unhandled while the caller judges this chunk; awaited above.
      pending.catch(() => undefined);
      yield this.chunk(buffer, last + 1, offset);
      offset += last + 1;
      carried = tail;
      current = next;
    }
  }

  private chunk(buffer: Buffer, length: number, offset: number): LineChunk {
    if (!this.identity) this.kept.push({ offset, bytes: Buffer.from(buffer.subarray(0, length)) });
    return { bytes: buffer, length, offset };
  }

  /**
   * The text of the line that starts at `at`, read again; undefined when it cannot be (the file
   * changed since it was opened, or it is closed).
   */
  lineAt(at: number): string | undefined {
    if (this.closed) return undefined;
    if (!this.identity) {
      // The last run that starts at or before `at` holds the line: runs are whole lines.
      let low = 0;
      let high = this.kept.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >> 1;
        if (this.kept[mid]!.offset <= at) low = mid;
        else high = mid - 1;
      }
      const run = this.kept[low];
      return run && at >= run.offset && at < run.offset + run.bytes.length ? lineAt(run.bytes, at - run.offset) : undefined;
    }
    const now = fstatSync(this.handle.fd);
    if (now.size !== this.identity.size || now.mtimeMs !== this.identity.mtimeMs || at >= this.identity.size) return undefined;
    for (let length = LINE_GUESS; ; length *= 4) {
      const bytes = Buffer.allocUnsafe(Math.min(length, this.identity.size - at));
      const read = readSync(this.handle.fd, bytes, 0, bytes.length, at);
      // Whole when its LF is in, or the file ends in it.
      if (bytes.indexOf(10) >= 0 || at + read >= this.identity.size || read < bytes.length) return lineAt(bytes.subarray(0, read), 0);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close().catch(() => undefined);
  }
}

function tooLarge(limit: number): Refused {
  return new Refused(`more than ${limit.toLocaleString('en')} bytes, the most mcpcheck reads`);
}

/** Every file opened at once, its first read under way; a later file's failure waits until the earlier ones are judged. */
export function startReads(files: readonly string[]): Promise<TranscriptFile>[] {
  return files.map((file) => {
    const opened = TranscriptFile.open(file);
    opened.catch(() => undefined);
    return opened;
  });
}
