import type { Finding } from '../validate/finding.js';

/** One frame that arrived from the peer, exactly as it came. */
export interface IncomingFrame {
  /** The exact frame text: a stdout line (without its newline) or an SSE event's data. */
  raw: string;
  /** The parsed JSON value; absent when `raw` is not JSON (then `parseError` says why). */
  message?: unknown;
  parseError?: string;
  /** Where it came from: 'stdout', 'post-json', 'post-error' (JSON body of an HTTP error status), 'post-sse', 'get-sse'. */
  via: string;
  /** For HTTP: the id of the POST or GET exchange that carried it (see SendResult.exchange). */
  exchange?: number;
  /** For HTTP: the id of the request whose POST's response (JSON body or SSE stream) carried it. */
  inResponseTo?: string | number;
  /** Milliseconds since the channel opened. */
  at: number;
}

/** What happened to one outgoing frame at the transport level. */
export interface SendResult {
  /** HTTP only: the status code of the POST. */
  status?: number;
  /** HTTP only: the response headers, lower-cased names. */
  headers?: Record<string, string>;
  /** HTTP only: 'json', 'sse', 'empty' or 'other' (then `body` holds up to 64 KiB of it). */
  bodyKind?: 'json' | 'sse' | 'empty' | 'other';
  /** HTTP only: the response's Content-Type. */
  contentType?: string;
  body?: string;
  /** HTTP only: numbers the exchange so frames it carries can be tied back to it. */
  exchange?: number;
  /**
   * Set when the frame could not be delivered (process gone, stdin not drained, connection lost):
   * the target's doing, so it is reported here rather than thrown.
   */
  error?: string;
  /** With `error`: the target went away (a refused or dropped connection), so no answer can come back on it. */
  lost?: true;
}

export interface ChannelClosed {
  /** Why: 'exit' (process ended), 'closed' (we closed it), 'error'. */
  reason: 'exit' | 'closed' | 'error';
  code?: number | null;
  signal?: string | null;
  detail?: string;
}

/**
 * The one interface every transport implements, whichever side mcpcheck plays. Everything a
 * target sends is delivered through the listeners; nothing a target does may throw out of here.
 */
export interface Channel {
  readonly kind: 'stdio' | 'http';
  /** Serialises one JSON-RPC message and sends it as one frame. */
  send(message: unknown): Promise<SendResult>;
  /** Sends bytes exactly as given (for malformed-input probes). stdio: no newline is added. HTTP: `headers` set or remove request headers. */
  sendRaw(bytes: string | Uint8Array, headers?: Record<string, string | null>): Promise<SendResult>;
  onFrame(listener: (frame: IncomingFrame) => void): void;
  /** Transport-level findings (framing, stdout noise, …) with the frame index left unset. */
  onFinding(listener: (finding: Finding) => void): void;
  onClose(listener: (info: ChannelClosed) => void): void;
  /**
   * Opens the way for messages tied to no request (list_changed, resources/updated, server
   * requests): over HTTP the GET stream; stdio always has it (absent: nothing to open).
   */
  listen?(): Promise<void>;
  /** Tells the transport the negotiated protocol version (HTTP sends it as a header afterwards). */
  setProtocolVersion(version: string): void;
  /** Closes the channel and releases everything it holds (kills the process group for stdio). */
  close(): Promise<void>;
}
