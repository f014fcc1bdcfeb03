// Stateless pieces of mcpcheck's HTTP endpoint: bounded request reads and header records.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

const MAX_HEADERS = 64;
const MAX_HEADER_VALUE = 1024;
/** Credentials a client may send; their values must never reach a record or a report. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|token|secret|api-?key|password/i;

/**
 * The request headers as an exchange record keeps them: lower-cased names (Node already lowers
 * them), at most 64, each value cut at 1 KiB, credentials replaced by '[redacted]'.
 */
export function recordHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return boundedHeaders(headers, true);
}

/** The headers as sent, credentials included (for a guard that checks them), bounded as records are. */
export function boundedHeaders(headers: IncomingHttpHeaders, hideSecrets = false): Record<string, string> {
  const out: Record<string, string> = {};
  let kept = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (++kept > MAX_HEADERS) break;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = hideSecrets && SECRET_HEADER.test(name) ? '[redacted]' : text.slice(0, MAX_HEADER_VALUE);
  }
  return out;
}

/** The path of a request target as an exchange record keeps it: no query, cut like a header value. */
export function recordPath(url: string | undefined): string {
  return (url ?? '').split('?')[0]!.slice(0, MAX_HEADER_VALUE);
}

/** One header as a single string ('' when absent). */
export function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

export type BodyRead = { kind: 'ok'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

/**
 * Reads a request body of at most `max` bytes. Beyond that it stops keeping bytes but goes on
 * draining (up to 4 × max) so the client can still read the 413, then gives up on the socket.
 */
export function readRequestBody(req: IncomingMessage, max: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (read: BodyRead): void => {
      if (done) return;
      done = true;
      resolve(read);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
      else {
        chunks.length = 0;
        finish({ kind: 'too-large' });
        if (size > 4 * max) req.destroy();
      }
    });
    req.on('end', () => finish({ kind: 'ok', bytes: Buffer.concat(chunks) }));
    req.on('error', () => finish({ kind: 'aborted' }));
    req.on('close', () => finish(size > max ? { kind: 'too-large' } : { kind: 'aborted' }));
  });
}

/** Whether an Accept header names a media type (exactly, or through its type wildcard). */
export function accepts(accept: string, media: string): boolean {
  const [type] = media.split('/');
  return accept
    .split(',')
    .map((range) => range.split(';')[0]!.trim().toLowerCase())
    .some((range) => range === media || range === `${type}/*`);
}
