// Stateless pieces of the HTTP transport: bounded body reads, error wording, redaction.
import { createParser } from 'eventsource-parser';
import type { HttpResponse } from './http-client.js';

/** Reads at most `max` bytes; stops (and cancels the rest) beyond. Never throws. */
export async function readBody(res: HttpResponse, max: number): Promise<{ bytes: Buffer; truncated: boolean; error?: unknown }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  let error: unknown;
  try {
    for await (const value of res.body) {
      if (size + value.length > max) {
        chunks.push(value.subarray(0, max - size));
        size = max;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } catch (err) {
    error = err;
  }
  if (truncated || error !== undefined) res.cancel();
  const out: { bytes: Buffer; truncated: boolean; error?: unknown } = { bytes: Buffer.concat(chunks), truncated };
  if (error !== undefined) out.error = error;
  return out;
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

export interface SseRead {
  bytes: Buffer;
  truncated: boolean;
  error?: unknown;
  /** Events in order, up to (and including) the one `stopWhen` accepted. */
  events: SseEvent[];
  /** The last `retry` value the server sent, in ms. */
  retry?: number;
  /** Reading ended because `stopWhen` accepted an event (or `maxEvents` were read), not with the body. */
  stopped: boolean;
}

export interface SseReading {
  /** Stop reading (and drop the connection) right after the first event this accepts. */
  stopWhen?: ((e: SseEvent) => boolean) | undefined;
  /** The most events read before the connection is dropped. Default 1000. */
  maxEvents?: number | undefined;
  /** Sees each event as it is read. */
  onEvent?: ((e: SseEvent) => void) | undefined;
}

/**
 * Reads an SSE body event by event, at most `max` bytes and `maxEvents` events, and stops as soon
 * as `stopWhen` accepts an event: whatever the same chunk held after it counts as never received,
 * as for a client whose connection dropped there. The caller owns the deadline and must abort the
 * request when `stopped` (cancelling the reader alone may leave the connection up). Never throws.
 */
export async function readSseBody(res: HttpResponse, max: number, { stopWhen, maxEvents = 1000, onEvent }: SseReading = {}): Promise<SseRead> {
  const out: SseRead = { bytes: Buffer.alloc(0), truncated: false, events: [], stopped: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const parser = createParser({
    onEvent: (e) => {
      if (out.stopped) return;
      const event: SseEvent = { ...(e.id !== undefined ? { id: e.id } : {}), ...(e.event !== undefined ? { event: e.event } : {}), data: e.data };
      out.events.push(event);
      onEvent?.(event);
      if (out.events.length >= maxEvents || stopWhen?.(event)) out.stopped = true;
    },
    onRetry: (ms) => {
      if (!out.stopped) out.retry = ms;
    },
  });
  try {
    for await (const value of res.body) {
      const room = max - size;
      const kept = value.length > room ? value.subarray(0, room) : value;
      chunks.push(kept);
      size += kept.length;
      parser.feed(decoder.decode(kept, { stream: true }));
      if (kept.length < value.length) {
        out.truncated = true;
        break;
      }
      if (out.stopped) break;
    }
  } catch (err) {
    out.error = err;
  }
  if (out.stopped || out.truncated || out.error !== undefined) res.cancel();
  out.bytes = Buffer.concat(chunks);
  return out;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found (DNS)',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'the connection was closed while sending',
};

/** Node's errors carry a `code`; a wrapped one hides it in `cause` (sometimes an AggregateError). */
export function describeNetworkError(err: unknown): string {
  let cause: unknown = err instanceof Error && err.cause !== undefined ? err.cause : err;
  if (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[0];
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return `${NETWORK_CODES[code] ?? (cause as Error).message ?? code} (${code})`;
  if (cause instanceof Error) return cause.message.split('\n')[0]!;
  return String(cause);
}

export function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase();
}

/** Every value replaced: the user's headers are assumed to be secret (tokens, API keys, cookies). */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) out[name] = '[redacted]';
  return out;
}

/** The URL without user info, and with query values hidden (API keys often travel there). */
export function redactUrl(url: string | URL): string {
  const u = new URL(String(url));
  u.username = '';
  u.password = '';
  const params = [...u.searchParams.keys()];
  if (params.length === 0) return u.toString();
  u.search = '';
  return `${u.toString()}?${params.map((k) => `${encodeURIComponent(k)}=[redacted]`).join('&')}`;
}
