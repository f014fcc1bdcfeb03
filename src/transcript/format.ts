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

/**
 * One record of a transcript file, as read: the header, a frame (with its line's text, and where
 * the line starts in the file's text, for frameAt), or a line that is neither.
 */
export type TranscriptRecord =
  | { kind: 'header'; header: TranscriptHeader }
  | { kind: 'frame'; frame: TranscriptFrame; at: number; text: string }
  | { kind: 'exchange'; exchange: TranscriptExchange }
  | { kind: 'problem'; problem: TranscriptProblem };

/** Where the line that starts at `start` ends: at its LF, at the CR of a CR LF, or at the end of the text. */
function lineEnd(text: string, start: number): number {
  const newline = text.indexOf('\n', start);
  const end = newline < 0 ? text.length : newline;
  return end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
}

/**
 * The frame readRecords read from the line at offset `at` (its `at`), read again: a caller that
 * judged a long transcript as it was read keeps two numbers a frame, not the frame.
 */
export function frameAt(text: string, at: number, line: number): TranscriptFrame {
  const frame = readFrame(JSON.parse(text.slice(at, lineEnd(text, at))));
  if (typeof frame === 'string') throw new Error(`mcpcheck: line ${line} is no longer the frame it was (${frame})`);
  frame.line = line;
  return frame;
}

/**
 * Reads a transcript's text record by record, in file order, so a caller can judge each frame
 * as it is read and keep none of them; `source` names the file in errors. Throws
 * TranscriptUnusable (at the end, when nothing in it was a frame) as parseTranscript does.
 */
export function* readRecords(text: string, source: string): Generator<TranscriptRecord> {
  let records = 0;
  let frames = 0;
  let firstBad: TranscriptProblem | undefined;
  let start = 0;
  for (let n = 1; start <= text.length; n++) {
    const at = start;
    const end = lineEnd(text, at);
    const line = text.slice(at, end);
    // Past the LF, or the CR LF, or (at the end of the text) past the end.
    start = end + (text.charCodeAt(end) === 13 ? 2 : 1);
    // A frame line starts with its brace; only other lines need the scan for blankness.
    if (line.charCodeAt(0) !== 123 && line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      const problem = { line: n, message: `not JSON: ${(e as Error).message}` };
      firstBad ??= problem;
      yield { kind: 'problem', problem };
      continue;
    }
    if (records === 0 && isObject(value) && value.mcpcheck === 'transcript') {
      if (value.version !== 1) throw new TranscriptUnusable(`${source}:${n}: unsupported transcript version ${describe(value.version)} (mcpcheck reads version 1)`);
      if ('transport' in value && value.transport !== 'stdio' && value.transport !== 'http') {
        throw new TranscriptUnusable(`${source}:${n}: unknown transport ${describe(value.transport)} (expected "stdio" or "http")`);
      }
      records++;
      yield { kind: 'header', header: { mcpcheck: 'transcript', version: 1, ...(value.transport ? { transport: value.transport as 'stdio' | 'http' } : {}) } };
      continue;
    }
    if (isObject(value) && 'exchange' in value && !('from' in value)) {
      const exchange = readExchange(value);
      if (typeof exchange === 'string') {
        const problem = { line: n, message: exchange };
        firstBad ??= problem;
        yield { kind: 'problem', problem };
      } else {
        records++;
        yield { kind: 'exchange', exchange };
      }
      continue;
    }
    const frame = readFrame(value);
    if (typeof frame === 'string') {
      const problem = { line: n, message: frame };
      firstBad ??= problem;
      yield { kind: 'problem', problem };
      continue;
    }
    frame.line = n;
    records++;
    frames++;
    yield { kind: 'frame', frame, at, text: line };
  }
  if (records === 0) {
    const why = firstBad ? `line ${firstBad.line}: ${firstBad.message}` : 'the file is empty';
    throw new TranscriptUnusable(`${source}: not an mcpcheck transcript (JSON Lines of frames) — ${why}`);
  }
  if (frames === 0) throw new TranscriptUnusable(`${source}: the transcript holds no frames`);
}

/** Pure parse of a transcript's text; `source` names it in errors. */
export function parseTranscript(text: string, source: string): ParsedTranscript {
  const out: ParsedTranscript = { frames: [], problems: [] };
  for (const record of readRecords(text, source)) {
    if (record.kind === 'header') out.header = record.header;
    else if (record.kind === 'frame') out.frames.push(record.frame);
    else if (record.kind === 'problem') out.problems.push(record.problem);
  }
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
