import type { Channel } from './channel.js';

/**
 * One HTTP request the client under test made to mcpcheck's endpoint, and what mcpcheck answered.
 * Client-side transport rules (Accept, one message per POST, the version and session headers,
 * DELETE at the end, Last-Event-ID) are judged on these.
 */
export interface ClientExchange {
  /** Numbers the exchange; frames it carried have the same `exchange`. */
  exchange: number;
  method: string;
  /**
   * The path of the request target as sent, cut at 1 KiB; the query is left out (it may carry
   * credentials). Requests to other paths are answered 404 and recorded too: what a client asks
   * of mcpcheck's origin besides the endpoint (a metadata probe, an icon src it took for a
   * relative URL) is evidence.
   */
  path: string;
  /** Request headers, lower-cased names, values as sent (bounded). */
  headers: Record<string, string>;
  /** Whether it went to the MCP endpoint (not, say, to a well-known metadata URL a client probes first). */
  toEndpoint: boolean;
  /** The client held a session id mcpcheck issued when it made the request: it had shown it read the answer issuing it (this request may be what shows it), and was not yet answered 404 for it, nor ended it by its DELETE. */
  sessionHeld?: true;
  /** POST: the body carried an initialize request (which starts a session, so carries no session id yet). */
  initialize?: true;
  /** POST: the body carried notifications/initialized (initialization is over once it is answered). */
  initialized?: true;
  /** POST: it carried a request of the stateless era (2026-07-28), served without a session. */
  modern?: true;
  /** POST: how many JSON-RPC messages the body held (each member of an array); absent when not JSON. */
  messages?: number;
  /** The status mcpcheck answered with. */
  status: number;
  /** How the body was answered: a JSON body, an SSE stream, nothing (202/4xx without body). */
  answer: 'json' | 'sse' | 'empty';
  /** Milliseconds since the endpoint opened, when the request arrived. */
  started: number;
  /** Milliseconds since the endpoint opened, when mcpcheck answered (the status and headers went out). */
  at: number;
}

/** Over stdio: what the relay saw the client do to the process it started as its server. */
export interface StdioClientEvent {
  kind: 'stdin-closed' | 'signal' | 'relay-exit';
  /** For 'signal': the name (SIGTERM, SIGINT, …). */
  signal?: string;
  at: number;
}

/**
 * How mcpcheck's HTTP endpoint answers; a scenario may change it at any time, and it applies to
 * exchanges that arrive afterwards.
 */
export interface EndpointPolicy {
  /** A POST carrying requests: answered by a JSON body or by an SSE stream. */
  answerWith: 'json' | 'sse';
  /** Issue an Mcp-Session-Id on the initialize response and require it afterwards. */
  sessions: boolean;
  /** SSE streams start with a priming event (an id, empty data) and carry `retry` when set. */
  priming: boolean;
  /** SSE streams carry comment lines (`:` when opened, `: keep-alive` before every event), as a server's keep-alives do (HTTP-SSE-12/13). */
  comments?: boolean;
  retryMs?: number;
  /** GET opens a stream for messages tied to no request; false answers 405. */
  getStream: boolean;
  /** Requests after initialize must carry a supported MCP-Protocol-Version header (else 400). */
  requireVersionHeader: boolean;
  /** A Set-Cookie the initialize response carries: a credential whose travels can be watched. */
  cookie?: string;
  /**
   * The eras served: 'stateful' as an initialize-era server (a modern request that carries no
   * session id is refused 400 with an empty body, as such servers do: HTTP-BC-03), 'stateless' as
   * a modern-only server (GET and DELETE 405), 'both' on one endpoint (VER-BC-01).
   */
  eras: 'both' | 'stateful' | 'stateless';
}

/** A request to mcpcheck's HTTP origin, as a guard sees it. */
export interface GuardRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The body (bounded): of a POST to the endpoint, or of any request with a body to another path. */
  body?: string;
}

export interface GuardAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Consulted before the endpoint serves a request: an answer it gives is the request's answer (and
 * an exchange like any other); undefined lets the endpoint serve it (a path not its own: 404). A
 * protected endpoint's gate and the authorization server beside it (basic/authorization.mdx) are one.
 */
export type RequestGuard = (request: GuardRequest) => GuardAnswer | undefined | Promise<GuardAnswer | undefined>;

/**
 * The channel towards a client under test, mcpcheck playing the server. `send` routes by itself:
 * a response goes back on the exchange that carried its request, anything else on an open stream
 * (the GET stream over HTTP, stdout over stdio), held until one opens.
 */
export interface ServerChannel extends Channel {
  /** What the client is given to reach mcpcheck: the endpoint URL, or the command line that starts the stdio relay. */
  readonly address: string;
  /** HTTP: every exchange, once answered (absent over stdio). */
  onExchange?(listener: (exchange: ClientExchange) => void): void;
  /**
   * stdio: whether the client started the relay (it connected) within `timeoutMs`, telling a
   * client that never started its server (a setup error) from one that did.
   */
  connected?(timeoutMs: number): Promise<boolean>;
  /** stdio: what the client did to the relay process (absent over HTTP). */
  onStdioEvent?(listener: (event: StdioClientEvent) => void): void;
  /** HTTP: the policy the endpoint answers with (absent over stdio). */
  readonly policy?: EndpointPolicy;
  /** HTTP: the client's current session ends (its id is answered with 404 from now on). */
  expireSession?(): void;
  /** HTTP: every request from now on goes to `guard` first. */
  guardWith?(guard: RequestGuard): void;
  /**
   * HTTP: ends the SSE stream that carries the response to request `id` before that response is
   * sent (a dropped stream). Returns the prefix of that stream's event ids, by which a resuming
   * GET's Last-Event-ID names it.
   */
  dropStreamOf?(id: string | number): string[];
  /** stdio: the relay exits, as a server that died would (its stdout closes). */
  die?(code?: number): Promise<void>;
  /** stdio: writes text to the relay's stderr (a server's log line). */
  stderr?(text: string): Promise<void>;
}
