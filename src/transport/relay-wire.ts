// No project imports: the relay process loads this, and it must start fast.

/**
 * What the stdio relay and the harness say to each other on the relay's socket: one JSON object
 * per line. The relay reports what the client did to it; the harness says what it writes and when
 * it exits. Bytes travel base64-encoded, so a line never carries a raw newline of the payload.
 */
export type RelayRecord =
  /** relay → harness: bytes the client wrote to the relay's stdin. */
  | { t: 'in'; b: string }
  /** relay → harness: the relay's stdin ended (the client closed it). */
  | { t: 'eof' }
  /** relay → harness: the relay received this signal and exits because of it. */
  | { t: 'signal'; name: string }
  /** harness → relay: bytes to write to stdout / stderr. */
  | { t: 'out'; b: string }
  | { t: 'err'; b: string }
  /** harness → relay: exit with this code. */
  | { t: 'exit'; code: number };

/** Payload bytes per record: a longer write is split, so every line stays far below MAX_RECORD_CHARS. */
export const RECORD_PAYLOAD_BYTES = 48 * 1024;
/** A longer line on the socket breaks the protocol (base64 of RECORD_PAYLOAD_BYTES is 64 KiB). */
export const MAX_RECORD_CHARS = 128 * 1024;

export function encodeRecord(record: RelayRecord): string {
  return JSON.stringify(record) + '\n';
}

/** Bytes as one or more records of kind `t`, ready to write. */
export function encodeBytes(t: 'in' | 'out' | 'err', bytes: string | Uint8Array): string {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out = '';
  for (let at = 0; at < buffer.length; at += RECORD_PAYLOAD_BYTES) {
    out += encodeRecord({ t, b: buffer.subarray(at, at + RECORD_PAYLOAD_BYTES).toString('base64') });
  }
  return out;
}

export function decodeBytes(record: { b: string }): Buffer {
  return Buffer.from(record.b, 'base64');
}

function parseRecord(line: string): RelayRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const r = value as Record<string, unknown>;
  switch (r.t) {
    case 'in':
    case 'out':
    case 'err':
      return typeof r.b === 'string' ? { t: r.t, b: r.b } : undefined;
    case 'eof':
      return { t: 'eof' };
    case 'signal':
      return typeof r.name === 'string' ? { t: 'signal', name: r.name } : undefined;
    case 'exit':
      return Number.isInteger(r.code) ? { t: 'exit', code: r.code as number } : undefined;
    default:
      return undefined;
  }
}

/** Splits the socket's bytes into records; anything malformed or over-long ends the reading. */
export class RecordReader {
  private pending = '';
  private broken = false;

  constructor(
    private readonly onRecord: (record: RelayRecord) => void,
    private readonly onBroken: (detail: string) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.broken) return;
    // Records are ASCII (JSON of base64 and names), so decoding chunk by chunk cannot split a character.
    const lines = (this.pending + chunk.toString('latin1')).split('\n');
    this.pending = lines.pop()!;
    for (const line of lines) {
      const record = line.length <= MAX_RECORD_CHARS ? parseRecord(line) : undefined;
      if (!record) return this.break(`a malformed record (${line.length} chars): ${line.slice(0, 80)}`);
      this.onRecord(record);
      if (this.broken) return;
    }
    if (this.pending.length > MAX_RECORD_CHARS) this.break(`a record longer than ${MAX_RECORD_CHARS} chars`);
  }

  /** No more records are delivered (the reader's owner is done). */
  stop(): void {
    this.broken = true;
    this.pending = '';
  }

  private break(detail: string): void {
    this.broken = true;
    this.pending = '';
    this.onBroken(detail);
  }
}
