// One SSE stream of mcpcheck's HTTP endpoint: its event ids, its bounded history for resumption,
// and the connection currently carrying it (none while the client is away).
import type { ServerResponse } from 'node:http';

/** How a stream opens: the priming event (HTTP-SSE-01) and the `retry` field (HTTP-SSE-04). */
export interface StreamOpening {
  priming: boolean;
  /** Comment lines: `:` at the start, `: keep-alive` before every event (a client must ignore them, HTTP-SSE-13). */
  comments?: boolean;
  retryMs?: number;
  /** Extra response headers (Mcp-Session-Id on the stream that answers initialize). */
  headers?: Record<string, string>;
}

/**
 * Event ids name their stream (`s<stream>-<seq>`), so a Last-Event-ID maps back to the stream it
 * came from (HTTP-RESUME-02), and are unique across the endpoint because stream numbers are.
 */
export function eventId(stream: number, seq: number): string {
  return `${eventIdPrefix(stream)}${seq}`;
}

/** What every event id of a stream starts with. */
export function eventIdPrefix(stream: number): string {
  return `s${stream}-`;
}

export function parseEventId(id: string): { stream: number; seq: number } | undefined {
  const m = /^s(\d{1,9})-(\d{1,9})$/.exec(id);
  return m ? { stream: Number(m[1]), seq: Number(m[2]) } : undefined;
}

/**
 * One SSE event, its data bytes kept exactly (sendRaw may hand over bytes that are not UTF-8):
 * latin1 maps bytes one to one, so the line split cannot touch them. Data with line breaks
 * becomes several data lines, which the client joins with \n.
 */
export function formatEvent(id: string, data: string | Uint8Array, retryMs?: number): Buffer {
  const retry = retryMs !== undefined ? `retry: ${retryMs}\n` : '';
  const lines = Buffer.from(data).toString('latin1').split(/\r\n|\r|\n/);
  return Buffer.from(`id: ${id}\n${retry}${lines.map((line) => `data: ${line}\n`).join('')}\n`, 'latin1');
}

export class EndpointStream {
  /** Events with data (priming events carry none and are never replayed). */
  private readonly history: Array<{ seq: number; data: string | Uint8Array }> = [];
  private seq = 0;
  private res: ServerResponse | undefined;
  /** The stream carries comment lines (StreamOpening.comments). */
  private comments = false;
  /** The exchange whose connection carries it now (the POST, or the GET that resumed it). */
  carriedBy: number;
  /** Client requests this stream answers (id keys); empty for a GET stream. */
  readonly awaiting = new Set<string>();
  /** Every response it was opened for has been written: it ends after them, also on a resumed connection. */
  finished = false;

  constructor(
    readonly no: number,
    readonly kind: 'post' | 'get',
    /** The exchange that opened it. */
    readonly exchange: number,
    /** The session it belongs to (undefined without sessions). */
    readonly session: string | undefined,
    private readonly maxHistory: number,
  ) {
    this.carriedBy = exchange;
  }

  /** A live connection carries it. */
  get open(): boolean {
    return this.res !== undefined;
  }

  /** Pending client requests wait on it, so what the server sends meanwhile may go here (HTTP-SSE-06). */
  get pending(): boolean {
    return this.kind === 'post' && !this.finished;
  }

  /**
   * Puts the stream on a (new) connection: headers, the priming event, then every event after
   * `afterSeq` (a resumption, HTTP-RESUME-04: this stream's events only). Ends at once when finished.
   */
  attach(res: ServerResponse, exchange: number, opening: StreamOpening, afterSeq?: number): void {
    this.res?.end();
    this.res = res;
    this.carriedBy = exchange;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...opening.headers });
    this.comments = opening.comments === true;
    if (this.comments) res.write(':\n\n');
    if (opening.priming) res.write(formatEvent(eventId(this.no, ++this.seq), '', opening.retryMs));
    else if (opening.retryMs !== undefined) res.write(`retry: ${opening.retryMs}\n\n`);
    if (afterSeq !== undefined) {
      for (const e of this.history) if (e.seq > afterSeq) res.write(formatEvent(eventId(this.no, e.seq), e.data));
    }
    res.on('close', () => {
      if (this.res === res) this.res = undefined;
    });
    if (this.finished) this.detach();
  }

  /** Writes one event (kept for replay); returns its id. Without a connection it waits in the history. */
  write(data: string | Uint8Array): string {
    const seq = ++this.seq;
    this.history.push({ seq, data });
    if (this.history.length > this.maxHistory) this.history.shift();
    const id = eventId(this.no, seq);
    if (this.comments) this.res?.write(': keep-alive\n\n');
    this.res?.write(formatEvent(id, data));
    return id;
  }

  /** Ends the connection (not the stream: the client may resume it). */
  detach(): void {
    const res = this.res;
    this.res = undefined;
    res?.end();
  }
}
