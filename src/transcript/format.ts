import { isAscii } from 'node:buffer';
import { isObject } from '../json.js';

/**
 * The transcript format: JSON Lines. An optional first line
 * `{"mcpcheck":"transcript","version":1,"transport":"stdio"|"http"}`, then one frame a line:
 * `{"from":"client"|"server","message":<JSON>}` or `{"from":…,"raw":"<exact frame text>"}`,
 * with an optional ISO 8601 `"time"` and, over HTTP, an optional `"inResponseTo"`: the id of the
 * request whose POST response (JSON body or SSE stream) carried the frame, and an optional
 * `"exchange"`: the number of the HTTP exchange that carried it. Over HTTP a transcript may also
 * hold exchange records, `{"exchange":N,"method":…,"path":…,"status":…,"requestHeaders":{…},
 * "responseHeaders":{…}}` (credentials redacted): what the HTTP rules were judged on, kept as
 * their evidence (validate judges the frames, not these). Described by
 * schemas/transcript.schema.json.
 */
export type Side = 'client' | 'server';

export interface TranscriptHeader {
  mcpcheck: 'transcript';
  version: 1;
  transport?: 'stdio' | 'http';
}

export interface TranscriptFrame {
  from: Side;
  /** The parsed message; absent for raw frames. */
  message?: unknown;
  /** The exact frame text, for frames that are not JSON or whose bytes matter. */
  raw?: string;
  time?: string;
  /** HTTP: the id of the request whose POST response (JSON body or SSE stream) carried the frame. */
  inResponseTo?: string | number;
  /** HTTP: the exchange that carried the frame (its exchange record's number). */
  exchange?: number;
  /** 1-based line in the file it was read from. */
  line?: number;
}

/** One HTTP exchange as it passed (mcpcheck proxy): the evidence of the rules judged on headers and statuses. */
export interface TranscriptExchange {
  exchange: number;
  method: string;
  /** The path and query the client asked for. */
  path: string;
  /** Absent when no answer came (the server could not be reached). */
  status?: number;
  /** Lower-cased names; credentials redacted. */
  requestHeaders: Record<string, string>;
  responseHeaders?: Record<string, string>;
  time?: string;
}

export interface TranscriptProblem {
  line: number;
  message: string;
}

export interface ParsedTranscript {
  header?: TranscriptHeader;
  frames: TranscriptFrame[];
  /** Lines that are not transcript records: reported, skipped, never fatal. */
  problems: TranscriptProblem[];
}

/** The input cannot be read as a transcript at all (mcpcheck exits 2). */
export class TranscriptUnusable extends Error {}

function describe(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? s.slice(0, 80) + '…' : s;
}

/** Reads one record; returns a problem string when the line is not a frame. */
function readFrame(value: unknown): TranscriptFrame | string {
  if (!isObject(value)) return `expected a frame object, got ${describe(value)}`;
  if (value.from !== 'client' && value.from !== 'server') return `expected "from": "client" or "server", got ${describe(value.from)}`;
  const hasMessage = 'message' in value;
  const hasRaw = 'raw' in value;
  if (hasMessage === hasRaw) return 'expected exactly one of "message" and "raw"';
  if (hasRaw && typeof value.raw !== 'string') return `expected "raw" to be a string, got ${describe(value.raw)}`;
  if ('time' in value && (typeof value.time !== 'string' || Number.isNaN(Date.parse(value.time)))) {
    return `expected "time" to be an ISO 8601 timestamp, got ${describe(value.time)}`;
  }
  if ('inResponseTo' in value && typeof value.inResponseTo !== 'string' && typeof value.inResponseTo !== 'number') {
    return `expected "inResponseTo" to be a request id (a string or a number), got ${describe(value.inResponseTo)}`;
  }
  if ('exchange' in value && !isExchangeNumber(value.exchange)) return `expected "exchange" to be an exchange number, got ${describe(value.exchange)}`;
  const frame: TranscriptFrame = { from: value.from };
  if (hasMessage) frame.message = value.message;
  else frame.raw = value.raw as string;
  if (typeof value.time === 'string') frame.time = value.time;
  if (typeof value.inResponseTo === 'string' || typeof value.inResponseTo === 'number') frame.inResponseTo = value.inResponseTo;
  if (isExchangeNumber(value.exchange)) frame.exchange = value.exchange;
  return frame;
}

const isExchangeNumber = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

const isHeaders = (v: unknown): v is Record<string, string> => isObject(v) && Object.values(v).every((h) => typeof h === 'string');

/** Reads an exchange record (a line with `exchange` and no `from`); a problem string when it is not one. */
function readExchange(value: Record<string, unknown>): TranscriptExchange | string {
  if (!isExchangeNumber(value.exchange)) return `expected "exchange" to be an exchange number, got ${describe(value.exchange)}`;
  if (typeof value.method !== 'string' || typeof value.path !== 'string') return 'expected an exchange record to name its "method" and "path"';
  if ('status' in value && !(typeof value.status === 'number' && Number.isInteger(value.status))) return `expected "status" to be an HTTP status, got ${describe(value.status)}`;
  if (!isHeaders(value.requestHeaders) || ('responseHeaders' in value && !isHeaders(value.responseHeaders))) return 'expected an exchange record\'s headers as an object of strings';
  return {
    exchange: value.exchange,
    method: value.method,
    path: value.path,
    ...(typeof value.status === 'number' ? { status: value.status } : {}),
    requestHeaders: value.requestHeaders,
    ...(isHeaders(value.responseHeaders) ? { responseHeaders: value.responseHeaders } : {}),
    ...(typeof value.time === 'string' ? { time: value.time } : {}),
  };
}

/** Where the line that starts at `start` ends: at its LF, at the CR of a CR LF, or at the end of the text. */
function lineEnd(text: string, start: number): number {
  const newline = text.indexOf('\n', start);
  const end = newline < 0 ? text.length : newline;
  return end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
}

/** The same in bytes, the line ending at `limit` at the latest. */
function byteLineEnd(bytes: Buffer, start: number, limit: number): number {
  const newline = bytes.indexOf(10, start);
  const end = newline < 0 || newline >= limit ? limit : newline;
  return end > start && bytes[end - 1] === 13 ? end - 1 : end;
}

/** A transcript held in memory: its text, or its bytes (decoded as eachLineOfBytes does). */
export type TranscriptContent = string | Uint8Array;

/** Called for each line: its text (without its LF or CR LF) and where it starts (a character offset in a text, a byte offset in bytes). */
export type LineVisitor = (text: string, at: number) => void;

/** About how many bytes are decoded at once: a window ends at the first line end after that. */
const WINDOW = 1 << 16;

function eachLineOfText(text: string, offset: number, visit: LineVisitor): void {
  for (let start = 0; start < text.length; ) {
    const end = lineEnd(text, start);
    visit(text.slice(start, end), offset + start);
    // Past the LF, or the CR LF, or (at the end of the text) past the end.
    start = end + (text.charCodeAt(end) === 13 ? 2 : 1);
  }
}

/**
 * The lines of `bytes` from `start` to `end`, which is a line's end; `offset` is where `bytes`
 * starts in its file. Decoded a window at a time: the string of a whole large file cost more to
 * make than judging its frames (its memory was new to the process), a window's is made among
 * V8's young objects and soon dropped. An ASCII window, where a character is a byte, is decoded
 * whole and its offsets are the bytes'; any other line by line.
 */
export function eachLineOfBytes(bytes: Buffer, start: number, end: number, offset: number, visit: LineVisitor): void {
  while (start < end) {
    const newline = bytes.indexOf(10, Math.min(start + WINDOW, end) - 1);
    const stop = newline < 0 || newline >= end ? end : newline + 1;
    if (isAscii(bytes.subarray(start, stop))) eachLineOfText(bytes.toString('latin1', start, stop), offset + start, visit);
    else {
      for (let at = start; at < stop; ) {
        const lineStop = byteLineEnd(bytes, at, stop);
        visit(bytes.toString('utf8', at, lineStop), offset + at);
        at = lineStop + (bytes[lineStop] === 13 ? 2 : 1);
      }
    }
    start = stop;
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A run of whole lines of a transcript file (the last may lack its LF): `bytes` up to `length`, starting at `offset` in the file. */
export interface LineChunk {
  bytes: Buffer;
  length: number;
  offset: number;
}

/** Every line of `content`, in order. */
function eachLine(content: TranscriptContent, visit: LineVisitor): void {
  if (typeof content === 'string') eachLineOfText(content, 0, visit);
  else eachLineOfBytes(asBuffer(content), 0, content.byteLength, 0, visit);
}

/** The text of the line that starts at `at` in `content`. */
export function lineAt(content: TranscriptContent, at: number): string {
  if (typeof content === 'string') return content.slice(at, lineEnd(content, at));
  const bytes = asBuffer(content);
  return bytes.toString('utf8', at, byteLineEnd(bytes, at, bytes.length));
}

/**
 * One record of a transcript file, as read: the header, a frame (with its line's text, and where
 * the line starts, for frameOfLine), or a line that is neither.
 */
export type TranscriptRecord =
  | { kind: 'header'; header: TranscriptHeader }
  | { kind: 'frame'; frame: TranscriptFrame; at: number; text: string }
  | { kind: 'exchange'; exchange: TranscriptExchange }
  | { kind: 'problem'; problem: TranscriptProblem };

/**
 * The frame TranscriptRecordReader read from a line (`text`, line number `line`), read again: a caller
 * that judged a long transcript as it was read keeps two numbers a frame, not the frame.
 */
export function frameOfLine(text: string, line: number): TranscriptFrame {
  const frame = readFrame(JSON.parse(text));
  if (typeof frame === 'string') throw new Error(`mcpcheck: line ${line} is no longer the frame it was (${frame})`);
  frame.line = line;
  return frame;
}

/**
 * Reads a transcript record by record, line by line in file order, so a caller can judge each
 * frame as it is read and keep none of them; `source` names the file in errors. end() throws
 * TranscriptUnusable when nothing read was a frame, as parseTranscript does.
 */
export class TranscriptRecordReader {
  private lines = 0;
  private records = 0;
  private frames = 0;
  private firstBad: TranscriptProblem | undefined;

  constructor(private readonly source: string) {}

  /** The record of the next line (`text`, starting at `at`); undefined for a blank line. */
  record(text: string, at: number): TranscriptRecord | undefined {
    const n = ++this.lines;
    // A frame line starts with its brace; only other lines need the scan for blankness.
    if (text.charCodeAt(0) !== 123 && text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return this.problem({ line: n, message: `not JSON: ${(e as Error).message}` });
    }
    if (this.records === 0 && isObject(value) && value.mcpcheck === 'transcript') {
      if (value.version !== 1) throw new TranscriptUnusable(`${this.source}:${n}: unsupported transcript version ${describe(value.version)} (mcpcheck reads version 1)`);
      if ('transport' in value && value.transport !== 'stdio' && value.transport !== 'http') {
        throw new TranscriptUnusable(`${this.source}:${n}: unknown transport ${describe(value.transport)} (expected "stdio" or "http")`);
      }
      this.records++;
      return { kind: 'header', header: { mcpcheck: 'transcript', version: 1, ...(value.transport ? { transport: value.transport as 'stdio' | 'http' } : {}) } };
    }
    if (isObject(value) && 'exchange' in value && !('from' in value)) {
      const exchange = readExchange(value);
      if (typeof exchange === 'string') return this.problem({ line: n, message: exchange });
      this.records++;
      return { kind: 'exchange', exchange };
    }
    const frame = readFrame(value);
    if (typeof frame === 'string') return this.problem({ line: n, message: frame });
    frame.line = n;
    this.records++;
    this.frames++;
    return { kind: 'frame', frame, at, text };
  }

  private problem(problem: TranscriptProblem): TranscriptRecord {
    this.firstBad ??= problem;
    return { kind: 'problem', problem };
  }

  /** A line visitor that hands `take` the record of each line that has one. */
  visitor(take: (record: TranscriptRecord) => void): LineVisitor {
    return (text, at) => {
      const record = this.record(text, at);
      if (record) take(record);
    };
  }

  /** After the last line: throws when the transcript held no frame. */
  end(): void {
    if (this.records === 0) {
      const why = this.firstBad ? `line ${this.firstBad.line}: ${this.firstBad.message}` : 'the file is empty';
      throw new TranscriptUnusable(`${this.source}: not an mcpcheck transcript (JSON Lines of frames) — ${why}`);
    }
    if (this.frames === 0) throw new TranscriptUnusable(`${this.source}: the transcript holds no frames`);
  }
}

/** Every record of `content`, in order; throws as TranscriptRecordReader.end() does. */
function eachRecord(content: TranscriptContent, source: string, take: (record: TranscriptRecord) => void): void {
  const reader = new TranscriptRecordReader(source);
  eachLine(content, reader.visitor(take));
  reader.end();
}

/** Pure parse of a transcript's text; `source` names it in errors. */
export function parseTranscript(content: TranscriptContent, source: string): ParsedTranscript {
  const out: ParsedTranscript = { frames: [], problems: [] };
  eachRecord(content, source, (record) => {
    if (record.kind === 'header') out.header = record.header;
    else if (record.kind === 'frame') out.frames.push(record.frame);
    else if (record.kind === 'problem') out.problems.push(record.problem);
  });
  return out;
}

export function formatHeader(transport: 'stdio' | 'http'): string {
  return JSON.stringify({ mcpcheck: 'transcript', version: 1, transport });
}

export function formatFrame(frame: TranscriptFrame): string {
  const record: Record<string, unknown> = { from: frame.from };
  if (frame.raw !== undefined) record.raw = frame.raw;
  else record.message = frame.message;
  if (frame.time !== undefined) record.time = frame.time;
  if (frame.inResponseTo !== undefined) record.inResponseTo = frame.inResponseTo;
  if (frame.exchange !== undefined) record.exchange = frame.exchange;
  return JSON.stringify(record);
}

export function formatExchange(x: TranscriptExchange): string {
  return JSON.stringify(x);
}

/** A whole transcript file: the header, then the frames as a session recorded them (raw text where they were not JSON). */
export function formatTranscript(transport: 'stdio' | 'http', frames: ReadonlyArray<Pick<TranscriptFrame, 'from' | 'message' | 'raw' | 'inResponseTo'>>): string {
  const lines = [
    formatHeader(transport),
    ...frames.map((f) => formatFrame({ from: f.from, ...(f.raw !== undefined ? { raw: f.raw } : { message: f.message }), ...(f.inResponseTo !== undefined ? { inResponseTo: f.inResponseTo } : {}) })),
  ];
  return lines.join('\n') + '\n';
}
