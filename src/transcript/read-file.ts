import { readFile, open } from 'node:fs/promises';
import { SetupError } from '../errors.js';

function unreadable(file: string, e: unknown): SetupError {
  const code = (e as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'ERR_STRING_TOO_LONG' ? 'too large to hold as one string' : (e as Error).message;
  return new SetupError(`${file}: cannot read the transcript (${why})`);
}

/**
 * A transcript file's text, read whole. A regular file is read in one call into a buffer of its
 * size and decoded once: that is a fraction of what readFileSync(file, 'utf8') costs on a large
 * file, and the read runs on libuv's pool while the caller loads the validator. Pipes and other
 * files without a size (`<(…)`, /dev/stdin) are read as a stream is. Errors are SetupErrors.
 */
export async function readTranscriptFile(file: string): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    throw unreadable(file, e);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!stat.isFile() || stat.size === 0) return await readFile(handle, 'utf8');
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
