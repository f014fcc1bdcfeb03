import { type Finding, show, violation } from './finding.js';
import type { RequirementId } from '../spec/requirement-id.js';
import { ruling } from '../spec/rulings.js';

/**
 * What the HTTP rules read of one request a client made: transport/server-channel.ts's
 * ClientExchange is one (declared here so the validator needs nothing from the transport).
 */
export interface ExchangeSeen {
  /** Numbers the exchange, for messages. */
  exchange: number;
  /** The HTTP method. */
  method: string;
  /** Request headers, lower-cased names. */
  headers: Readonly<Record<string, string>>;
  /** Whether it went to the MCP endpoint. */
  toEndpoint: boolean;
  /** POST: the body carried an initialize request. */
  initialize?: true;
  /** POST: how many JSON-RPC messages the body held; absent when not JSON. */
  messages?: number;
}

/** What is known of the session when an exchange is judged. */
export interface ExchangeContext {
  /** The client began the exchange after its initialization was over (notifications/initialized taken in). */
  afterInitialize: boolean;
  /** The version that answer negotiated. */
  negotiated?: string;
  /**
   * The client held an MCP-Session-Id the server issued when it made the request: it had shown it
   * read the answer issuing it (the request itself may show that), and was not yet told the
   * session ended (a 404 to it, its own DELETE). Outside that it may have no id to send (ruling
   * session-id-while-held).
   */
  sessionHeld: boolean;
}

export interface ExchangeVerdict {
  /** Rules the exchange gave a chance to fail. */
  applied: RequirementId[];
  findings: Finding[];
}

const mediaTypes = (accept: string | undefined) => (accept ?? '').split(',').map((p) => p.split(';')[0]!.trim().toLowerCase());

/**
 * The Streamable HTTP rules a client's requests are judged by, one exchange at a time: Accept on
 * POST and GET, one message per POST, and after initialize the version and session headers.
 * Only exchanges with the MCP endpoint count; an initialize starts a session, so it has neither
 * header to repeat yet.
 */
export function judgeClientExchange(e: ExchangeSeen, ctx: ExchangeContext): ExchangeVerdict {
  const out: ExchangeVerdict = { applied: [], findings: [] };
  if (!e.toEndpoint) return out;
  const what = `${e.method} #${e.exchange}`;
  const rule = (id: RequirementId, ok: boolean, message: () => string) => {
    out.applied.push(id);
    if (!ok) out.findings.push(violation(id, `${what}: ${message()}`));
  };
  const accept = mediaTypes(e.headers.accept);
  if (e.method === 'POST') {
    rule('HTTP-POST-02', accept.includes('application/json') && accept.includes('text/event-stream'), () => `expected Accept naming application/json and text/event-stream; got ${show(e.headers.accept ?? '(none)')}`);
    if (e.messages !== undefined) rule('HTTP-POST-01', e.messages === 1, () => `expected one JSON-RPC message in the POST body; got ${e.messages}`);
  }
  if (e.method === 'GET') rule('HTTP-GET-01', accept.includes('text/event-stream'), () => `expected Accept naming text/event-stream; got ${show(e.headers.accept ?? '(none)')}`);
  if (e.initialize) return out;
  // The value may be an earlier session's (one at a time here): presence is what the rule asks.
  if (ctx.sessionHeld) rule('HTTP-SESS-04', e.headers['mcp-session-id'] !== undefined, () => `expected the issued MCP-Session-Id (owed from the first request showing the client read the answer that issued it until a 404 or the client's DELETE ends the session, ${ruling('session-id-while-held').cite}); none was sent`);
  if (!ctx.afterInitialize) return out;
  const version = e.headers['mcp-protocol-version'];
  rule('HTTP-VER-01', version !== undefined, () => 'expected MCP-Protocol-Version after initialization; none was sent');
  if (version !== undefined && ctx.negotiated !== undefined) rule('HTTP-VER-02', version === ctx.negotiated, () => `expected MCP-Protocol-Version: ${ctx.negotiated}, the negotiated version; got ${show(version)}`);
  return out;
}
