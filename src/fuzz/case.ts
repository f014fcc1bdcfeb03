/**
 * One generated input of a fuzz run: the frame sent, the mutation that made it, and what a
 * conforming server does with it (which oracles judge it). Plain data, so a failure can be saved
 * as JSON and sent again exactly (`--replay`).
 */

/**
 * What a conforming server does with the frame:
 * - `response`: exactly one response with the request's id (same type and value);
 * - `invalid-params`: that response is −32602 or a CallToolResult with `isError: true`;
 * - `parse-error`: if anything answers, it is a −32700 error;
 * - `no-response`: nothing at all (a notification);
 * - `survive`: whatever it answers, it keeps running and answers its liveness probe;
 * - `refused`: exactly one response, an error of the codes its `refusal` allows (2026-07-28).
 */
export type Expectation = 'response' | 'invalid-params' | 'parse-error' | 'no-response' | 'survive' | 'refused';

/**
 * Why a modern request must be refused, which names the row that judges it:
 * - `meta-required`: a required per-request field missing (META-REQ-03: −32602, over HTTP −32020 too, ruling missing-meta-error);
 * - `version`: a protocol version the server does not implement (VER-NEG-01: −32022, over HTTP −32020 too, ruling version-mismatch-error);
 * - `header`: a standard HTTP header missing or differing from the body (HDR-VAL-01: −32020; a version header −32022 too).
 */
export type Refusal = 'meta-required' | 'version' | 'header';

/** The bytes of the frame: a JSON value serialised as is, exact text, or bytes in hex (invalid UTF-8). */
export type FrameBody = { json: unknown } | { text: string } | { hex: string };

/**
 * How the frame ends on stdio: `lf` (the framing MCP defines), `crlf`, or `split` (the frame
 * written in two parts, the newline with the second). Over HTTP the body is the frame.
 */
export type FrameEnding = 'lf' | 'crlf' | 'split';

export interface FuzzCase {
  /** The mutation operator, e.g. `args.wrong-type` (`valid` for an unmutated request). */
  mutation: string;
  /** Where it applied, for the reader (`arguments.count`, `id`, …). */
  at?: string;
  /** The method of the request or notification the case was built from. */
  method: string;
  expects: Expectation;
  body: FrameBody;
  ending: FrameEnding;
  /** The mutation changed a time argument of the tool (a duration, a delay): the call may run as long as that asks, past the case's wait. */
  timed?: true;
  /** For a `refused` case: why the request must be refused. */
  refusal?: Refusal;
  /** Over HTTP: request headers set (or, null, removed) over the ones the body calls for. */
  headers?: Record<string, string | null>;
  /** For an unmutated tools/call: the schemas the listed tool declared, which judge its arguments and result. */
  tool?: { inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown> };
}

/** Text frames longer than this are not parsed for their id. */
const ID_READ_LIMIT = 1024 * 1024;

function textId(text: string): unknown {
  if (text.length > ID_READ_LIMIT) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const ids = new WeakMap<FuzzCase, { id: string | number | undefined }>();

/** The request id a case carries, when the frame is one JSON object with a usable id (as a JSON reader sees it). */
export function caseId(c: FuzzCase): string | number | undefined {
  // Every oracle asks, and a text frame is parsed to answer: once per case is enough.
  let known = ids.get(c);
  if (!known) ids.set(c, (known = { id: readId(c) }));
  return known.id;
}

function readId(c: FuzzCase): string | number | undefined {
  const m = 'json' in c.body ? c.body.json : 'text' in c.body ? textId(c.body.text) : undefined;
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return undefined;
  const id = (m as Record<string, unknown>).id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The frame's bytes as sent, without the stdio line ending. */
export function frameBytes(c: FuzzCase): string | Uint8Array {
  if ('json' in c.body) return JSON.stringify(c.body.json);
  if ('text' in c.body) return c.body.text;
  return Buffer.from(c.body.hex, 'hex');
}

const SHOWN = 300;

/** A bounded one-line rendering of a case for reports (long strings and deep nesting summarised). */
export function describeCase(c: FuzzCase): string {
  const bytes = frameBytes(c);
  const text = typeof bytes === 'string' ? bytes : `hex ${Buffer.from(bytes).toString('hex')}`;
  const shown = text.length > SHOWN ? `${text.slice(0, SHOWN / 2)}…(${text.length} characters)…${text.slice(-SHOWN / 4)}` : text;
  const headers = c.headers ? `, ${describeHeaders(c.headers)}` : '';
  return `${c.mutation}${c.at ? ` at ${c.at}` : ''} (${c.method}${c.ending !== 'lf' ? `, ending ${c.ending}` : ''}${headers}): ${shown}`;
}

/** The header overrides of a case, for reports: `headers Mcp-Method: x, no Mcp-Name`. */
export function describeHeaders(headers: Record<string, string | null>): string {
  return `headers ${Object.entries(headers).map(([k, v]) => (v === null ? `no ${k}` : `${k}: ${v}`)).join(', ')}`;
}
