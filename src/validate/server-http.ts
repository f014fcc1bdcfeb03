import { show, violation } from './finding.js';
import { isObject } from '../json.js';
import type { ExchangeVerdict } from './client-http.js';
import type { RequirementId } from '../spec/requirement-id.js';
import type { RuleTable } from './rule-table.js';

/** What the HTTP rules read of a server's answer to one request a client made. */
export interface AnswerSeen {
  /** Numbers the exchange, for messages. */
  exchange: number;
  /** The HTTP method of the request. */
  method: string;
  /** Whether it went to the MCP endpoint. */
  toEndpoint: boolean;
  /** POST: what the body carried (a request among its messages, or only notifications and responses); absent when not JSON. */
  carried?: 'request' | 'no request';
  status: number;
  /** Response headers, lower-cased names. */
  headers: Readonly<Record<string, string>>;
  /** The response had a body (a byte of it arrived). */
  body: boolean;
  /** The era of the exchange: the stateless era has no sessions. */
  modern: boolean;
}

/** The rules judgeServerAnswer cites (mcpcheck proxy judges them on a server's answers as they pass). */
export const SERVER_ANSWER_RULES: RuleTable = ['HTTP-POST-03', 'HTTP-POST-05', 'HTTP-GET-02', 'HTTP-SESS-03'];

const mediaOf = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * HTTP-GET-04: whether a message a server sent on a GET stream breaks the rule — a JSON-RPC
 * response (result or error), on a stream that resumes no earlier request's stream (no
 * Last-Event-ID). Requests and notifications are what a GET stream is for.
 */
export function responseOnGetStream(message: unknown, resumed: boolean): boolean {
  if (resumed || !isObject(message)) return false;
  return !('method' in message) && ('result' in message || 'error' in message);
}

/** The characters of a session id outside visible ASCII (0x21–0x7E), each once (HTTP-SESS-03). */
export function invisibleSessionIdChars(id: string): string[] {
  return [...new Set([...id].filter((c) => c.charCodeAt(0) < 0x21 || c.charCodeAt(0) > 0x7e))];
}

/**
 * The Streamable HTTP rules a server's answers are judged by, one exchange at a time: a request
 * answered with JSON or SSE (HTTP-POST-05), an accepted notification or response with 202 and no
 * body (HTTP-POST-03), a GET with an SSE stream (or 405, HTTP-GET-02), a session id of visible
 * ASCII (HTTP-SESS-03). Error statuses are the server refusing, judged by their own rules.
 */
export function judgeServerAnswer(a: AnswerSeen): ExchangeVerdict {
  const out: ExchangeVerdict = { applied: [], findings: [] };
  if (!a.toEndpoint) return out;
  const what = `${a.method} #${a.exchange}`;
  const rule = (id: RequirementId, ok: boolean, message: () => string): void => {
    out.applied.push(id);
    if (!ok) out.findings.push(violation(id, `${what}: ${message()}`));
  };
  const ok = a.status >= 200 && a.status < 300;
  const media = mediaOf(a.headers['content-type']);
  const answered = `answered ${a.status}${a.headers['content-type'] !== undefined ? ` with Content-Type ${show(a.headers['content-type'])}` : ' with no Content-Type'}`;
  if (a.method === 'POST' && ok && a.carried === 'request') {
    rule('HTTP-POST-05', media === 'application/json' || media === 'text/event-stream', () => `expected a request to be answered with application/json or text/event-stream; ${answered}`);
  }
  if (a.method === 'POST' && ok && a.carried === 'no request') {
    rule('HTTP-POST-03', a.status === 202 && !a.body, () => `expected an accepted notification or response to be answered 202 Accepted with no body; ${answered}${a.body ? ' and a body' : ''}`);
  }
  if (a.method === 'GET' && ok && !a.modern) {
    rule('HTTP-GET-02', media === 'text/event-stream', () => `expected GET to be answered with an SSE stream (or 405 Method Not Allowed); ${answered}`);
  }
  const session = a.headers['mcp-session-id'];
  if (session !== undefined && !a.modern) {
    const bad = invisibleSessionIdChars(session);
    rule('HTTP-SESS-03', session.length > 0 && bad.length === 0, () => (session.length === 0 ? 'expected a session id of visible ASCII characters; got an empty MCP-Session-Id' : `expected a session id of visible ASCII characters only (0x21–0x7E); it holds ${bad.map(codePoint).join(', ')}`));
  }
  return out;
}

function codePoint(c: string): string {
  return `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}
