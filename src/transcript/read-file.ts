import { constants } from 'node:buffer';
import { open } from 'node:fs/promises';
import { SetupError } from '../errors.js';

/** The most a transcript may hold: its text must fit one string (a pipe such as /dev/zero never ends). */
export const MAX_TRANSCRIPT_BYTES = constants.MAX_STRING_LENGTH;
/** How much of a pipe is read at a time. */
const CHUNK = 1 << 20;

/** A file mcpcheck will not read as a transcript; the message says why. */
class Refused extends Error {}

function unreadable(file: string, e: unknown): SetupError {
  const why = e instanceof Refused ? e.message : (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
  return new SetupError(`${file}: cannot read the transcript (${why})`);
}

/**
 * A transcript file's text, read whole. A regular file is read in one call into a buffer of its
 * size and decoded once: that is a fraction of what readFileSync(file, 'utf8') costs on a large
 * file, and the read runs on libuv's pool while the caller loads the validator. Pipes and other
 * files without a size (`<(…)`, /dev/stdin) are read chunk by chunk. Either way no more than
 * `limit` bytes are read. Errors are SetupErrors.
 */
export async function readTranscriptFile(file: string, limit = MAX_TRANSCRIPT_BYTES): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    throw unreadable(file, e);
  }
  try {
    const stat = await handle.stat();
    // A directory opens (on Linux); only its read would fail.
    if (stat.isDirectory()) throw new Refused('is a directory');
    const tooLarge = () => new Refused(`more than ${limit.toLocaleString('en')} bytes, the most mcpcheck reads`);
    if (!stat.isFile() || stat.size === 0) {
      const chunks: Buffer[] = [];
      const chunk = Buffer.allocUnsafe(CHUNK);
      let total = 0;
      for (;;) {
        const { bytesRead } = await handle.read(chunk, 0, CHUNK, null);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > limit) throw tooLarge();
        // A pipe hands over a little at a time: keep what came, not the whole chunk.
        chunks.push(Buffer.from(chunk.subarray(0, bytesRead)));
      }
      return Buffer.concat(chunks, total).toString('utf8');
    }
    if (stat.size > limit) throw tooLarge();
    const bytes = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break; // the file shrank while it was read: judge what was there
      filled += bytesRead;
    }
    return bytes.toString('utf8', 0, filled);
  } catch (e) {
    throw unreadable(file, e);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Every file's read under way at once; a later file's failure waits until the earlier ones are read. */
export function startReads(files: readonly string[]): Promise<string>[] {
  return files.map((file) => {
    const read = readTranscriptFile(file);
    read.catch(() => undefined);
    return read;
  });
}
