import { isObject } from '../json.js';
import { synthesizeArguments } from '../schema/synthesize.js';
import type { ClientExchange, ServerChannel } from '../transport/server-channel.js';
import { checkModernRequestHeaders, checkXMcpHeaderSchema } from '../validate/modern-headers.js';
import { judgeClientExchange } from '../validate/client-http.js';
import { isRevision as isAnyRevision, isStatefulRevision as isRevision, LATEST_REVISION as LATEST_ANY_REVISION, LATEST_STATEFUL_REVISION as LATEST_REVISION, STATELESS_REVISIONS, eraOf, type Era, type Revision } from '../spec/revisions.js';
import { META } from '../spec/modern.js';
import type { AcceptedConversation } from './lifecycle/conversation.js';
import { carriesModernMeta, STATELESS_ONLY } from './lifecycle/stateless-accept.js';
import { PeerSession, type PeerSessionOptions, type RecordedFrame, type Side } from './peer-session.js';

/** How mcpcheck, playing the server, answers one request: a result, an error, or never (to see what the client does then). */
export type Outcome = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } } | { hold: true };

/** Serves one request of the stateless era: `serve` runs the method's handler once the request's `_meta` was taken in. */
export type ModernServing = (request: Record<string, unknown>, serve: () => Promise<Outcome>) => Promise<Outcome>;

/** Which eras mcpcheck serves a client in: both on one endpoint or process (VER-BC-01), or one alone (an older or a modern-only server). */
export type ServedEras = 'both' | Era;

export type Handler = (params: Record<string, unknown>, request: Record<string, unknown>) => Outcome | Promise<Outcome>;

/** One page of a list mcpcheck serves: the cursors it hands out are opaque tokens it made. */
export interface Paged {
  key: string;
  items: unknown[];
  /** Items per page, or each page's size in turn (the last repeated); the whole list in one page when absent. */
  pageSize?: number | readonly number[];
}

/** How many items page `page` (from 0) of a list holds. */
function pageSize(list: Paged, page: number): number {
  const { pageSize: size } = list;
  if (size === undefined) return list.items.length;
  return typeof size === 'number' ? size : size[Math.min(page, size.length - 1)]!;
}

/** The tools every client scenario offers unless it says otherwise: one that echoes, one that adds. */
export const DEFAULT_TOOLS = [
  {
    name: 'add_numbers',
    title: 'Add two numbers',
    description: 'Adds a and b.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  {
    name: 'echo',
    title: 'Echo',
    description: 'Returns the text it was given.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
];

/**
 * A session with a client under test, mcpcheck playing the server: it answers the client's
 * requests from its handlers (the era's opening, ping, tools, and whatever a scenario installs), and
 * records what the client asked for.
 */
export class ServerSession extends PeerSession<ServerChannel> {
  private readonly handlers = new Map<string, Handler>();
  /**
   * What the client's latest conversation began with, once it began (see lifecycle's `accept()`):
   * read this, not the opening request. In the stateless era every request is a conversation of
   * its own: this is what the latest one declared.
   */
  conversation?: AcceptedConversation;
  /** The eras mcpcheck serves; a scenario may narrow it before the client starts (then an initialize, or a modern request, is refused). */
  serves: ServedEras = 'both';
  /**
   * The error code with which mcpcheck, serving the initialize era alone, refuses a method of the
   * stateless era: −32601 as most legacy servers do, or another (legacy servers use various, STDIO-BC-03).
   */
  refusesModernWith = -32601;
  /** The modern revisions mcpcheck accepts in a request's `_meta` and lists in server/discover and −32022. */
  modernVersions: readonly string[] = STATELESS_REVISIONS;
  /** How a modern request is served (set by `accept()`); absent, every request is served as the stateful era's. */
  serveModern?: ModernServing;
  /** Ids (keyed) of the client's requests served in the stateless era: mcpcheck's answers to them are of that era too. */
  private readonly modernIds = new Set<string>();
  /** The revision of the client's latest modern request (see `judgedIn`). */
  private modernRevision: Revision | undefined;
  /** An initialize was taken in: from then on a request without modern `_meta` belongs to that stateful conversation. */
  private statefulOpened = false;
  /** The request that opens a conversation in the era mcpcheck serves (set by `accept()`): over HTTP a second one begins a new session. */
  opening?: string;
  /** The revision mcpcheck answered the client's latest conversation with (the HTTP rules judge the client's version header by it). */
  get negotiated(): string | undefined {
    return this.conversation?.revision;
  }
  capabilities: Record<string, unknown> = { tools: { listChanged: true } };
  tools: unknown[] = DEFAULT_TOOLS;
  toolsPageSize: number | readonly number[] | undefined;
  /** Cursors handed out, by the token, with the list, offset and page they stand for. */
  readonly cursors = new Map<string, { key: string; offset: number; page: number }>();
  private nextCursor = 1;
  /** Every tool a listing has shown the client in this session, by name: a call of one is served even after the list changed. */
  private readonly shown = new Map<string, Record<string, unknown>>();
  private openingSeen = false;

  constructor(options: PeerSessionOptions<ServerChannel>) {
    super('server', options);
    // Initialization is over once the client's notifications/initialized was taken in: a client
    // that turned the chosen version down never got there, and owes no version header.
    let initializedAt: number | undefined;
    this.channel.onExchange?.((e) => {
      // The stateful era's HTTP rules (session id, a version header matching initialize) say nothing
      // of a modern POST: its headers are judged against its body instead.
      if (e.modern) return this.judgeModernHeaders(e);
      const { applied, findings } = judgeClientExchange(e, {
        afterInitialize: initializedAt !== undefined && e.started > initializedAt,
        ...(this.negotiated ? { negotiated: this.negotiated } : {}),
        sessionHeld: e.sessionHeld === true,
      });
      this.judgedOutside('client', applied, findings);
      if (e.initialized && e.status < 300) initializedAt ??= e.at;
    });
    this.handle('ping', () => ({ result: {} }));
    this.handle('tools/list', (params) => this.listTools(params));
    this.handle('tools/call', (params) => this.callTool(params));
  }

  /** Each modern POST's headers judged against the body it carried. */
  private judgeModernHeaders(e: ClientExchange): void {
    // A modern POST refused before it was read (by an endpoint serving the stateful era alone) still shows the client speaks 2026-07-28.
    this.modernRevision ??= LATEST_ANY_REVISION;
    for (const frame of this.peerFrames().filter((f) => f.exchange === e.exchange)) {
      const applied = new Set<string>();
      const findings = checkModernRequestHeaders(e.headers, frame.message, this.headerTool(frame.message), applied);
      this.judgedOutside('client', [...applied], findings.map((f) => ({ ...f, frame: frame.index })));
    }
  }

  /**
   * The tool a tools/call names, when mcpcheck listed it with valid x-mcp-header annotations: its
   * headers are judged by them too (HDR-PARAM-01/04). A tool whose annotations are invalid is one a
   * client must leave out (HDR-PARAM-03), not one whose headers it owes.
   */
  private headerTool(message: unknown): Record<string, unknown> | undefined {
    const params = isObject(message) && message.method === 'tools/call' && isObject(message.params) ? message.params : undefined;
    const tool = params && this.listedTool(params.name);
    return tool && checkXMcpHeaderSchema(tool.inputSchema).length === 0 ? tool : undefined;
  }

  /** Installs (or replaces) how a method is answered. */
  handle(method: string, handler: Handler): void {
    this.handlers.set(method, handler);
  }

  /** How a method is answered now (to wrap it); an unserved one is −32601. */
  handler(method: string): Handler {
    return this.handlers.get(method) ?? (() => ({ error: { code: -32601, message: `mcpcheck does not serve ${method}` } }));
  }

  /** The version mcpcheck answers initialize with, given what the client asked for; a scenario may replace it. */
  chooseVersion: (asked: unknown) => string = (asked) => (typeof asked === 'string' && isRevision(asked) ? asked : LATEST_REVISION);

  /** The client's requests for `method` so far (frames it sent), from index `since`. */
  requestsFor(method: string, since = 0): RecordedFrame[] {
    return this.peerFrames(since).filter((f) => isObject(f.message) && f.message.method === method && 'id' in f.message);
  }

  /** Waits for the client's next request or notification named `method`. */
  waitForMethod(method: string, timeoutMs: number, since = 0): Promise<RecordedFrame | undefined> {
    return this.waitForFrame((f) => isObject(f.message) && f.message.method === method, timeoutMs, since);
  }

  /** Answers a list request one page at a time; a cursor mcpcheck never handed out is −32602. */
  page(list: Paged, params: Record<string, unknown>, member: string): Outcome {
    let offset = 0;
    let page = 0;
    if (params.cursor !== undefined) {
      const known = typeof params.cursor === 'string' ? this.cursors.get(params.cursor) : undefined;
      if (!known || known.key !== list.key) return { error: { code: -32602, message: `unknown cursor for ${list.key}` } };
      ({ offset, page } = known);
    }
    const size = pageSize(list, page);
    const items = list.items.slice(offset, offset + size);
    const result: Record<string, unknown> = { [member]: items };
    if (offset + size < list.items.length) {
      // Opaque on purpose, with characters an encoder or a trim would change and text that looks
      // like JSON: a client that parses, escapes or alters it sends back something else (PAGE-04).
      const token = `mcpcheck~${list.key}~${this.nextCursor++} +/=%20{"offset":${offset + size}} ${Math.random().toString(36).slice(2, 10)}`;
      this.cursors.set(token, { key: list.key, offset: offset + size, page: page + 1 });
      result.nextCursor = token;
    }
    return { result };
  }

  /** Over HTTP a second opening request (initialize) starts a new MCP session (after a 404, say): its ids begin afresh. */
  protected override beforeValidating(message: unknown): void {
    if (this.opening === undefined || !isObject(message) || message.method !== this.opening || !('id' in message)) return;
    if (this.openingSeen && this.transport === 'http') this.newSession();
    this.openingSeen = true;
  }

  protected override async answer(request: Record<string, unknown>): Promise<void> {
    const method = String(request.method);
    const params = isObject(request.params) ? request.params : {};
    const serve = async () => this.handler(method)(params, request);
    const outcome = this.isModern(request) ? await this.answerModern(request, serve) : await this.answerStateful(request, serve);
    if ('hold' in outcome) return;
    await this.send({ jsonrpc: '2.0', id: request.id, ...outcome });
  }

  /**
   * Whether a request from the client is served in the stateless era (see `speaksModern`); such a
   * request is remembered by id, so that mcpcheck's answer is judged in the same era, and its
   * revision becomes the one checks are judged by.
   */
  private isModern(request: Record<string, unknown>): boolean {
    if (!this.speaksModern(request)) return false;
    this.modernIds.add(idKey(request.id));
    const asked = isObject(request.params) && isObject(request.params._meta) ? request.params._meta[META.protocolVersion] : undefined;
    this.modernRevision = isAnyRevision(asked) && eraOf(asked) === 'stateless' ? asked : LATEST_ANY_REVISION;
    return true;
  }

  /**
   * Whether a request from the client belongs to the stateless era: it carries the per-request
   * `_meta` fields, or it comes before any initialize (a modern request lacking them is malformed,
   * META-REQ-03, not a stateful one: a stateful client opens with initialize).
   */
  private speaksModern(request: Record<string, unknown>): boolean {
    return this.serveModern !== undefined && request.method !== this.opening && (carriesModernMeta(request.params) || !this.statefulOpened);
  }

  private async answerModern(request: Record<string, unknown>, serve: () => Promise<Outcome>): Promise<Outcome> {
    // An older server knows nothing of server/discover or `_meta`: it answers as its era does.
    if (this.serves === 'stateful') return STATELESS_ONLY.has(String(request.method)) ? { error: { code: this.refusesModernWith, message: `${String(request.method)} is not served: this server speaks the initialize era only` } } : serve();
    return this.serveModern!(request, serve);
  }

  private async answerStateful(request: Record<string, unknown>, serve: () => Promise<Outcome>): Promise<Outcome> {
    if (request.method !== this.opening) return serve();
    // A modern-only server rejects initialize, naming the versions it serves (VER-BC-05, VER-BC-06).
    if (this.serves === 'stateless') return { error: { code: -32602, message: `initialize is not served: this server speaks ${this.modernVersions.join(', ')} only`, data: { supported: [...this.modernVersions] } } };
    this.statefulOpened = true;
    return serve();
  }

  /**
   * The era a frame belongs to: the client's modern requests and mcpcheck's answers to them are
   * stateless. mcpcheck sends requests only in a stateful session, so a response of the client's
   * before any initialize answers nothing: it is a modern client sending one (BASE-DIR-01).
   */
  protected override eraOf(message: unknown, from: Side): Era {
    if (!isObject(message) || !('id' in message)) return this.statefulOpened ? 'stateful' : 'stateless';
    if (from === this.them && typeof message.method === 'string') return this.speaksModern(message) ? 'stateless' : 'stateful';
    if (from === this.them) return this.statefulOpened || this.serveModern === undefined ? 'stateful' : 'stateless';
    return this.modernIds.has(idKey(message.id)) ? 'stateless' : 'stateful';
  }

  /**
   * The revision checks are judged by: once the client sent a modern request, the modern revision
   * (the one it asked for, when mcpcheck knows it), whatever came of it (a dual-era client may fall
   * back to initialize: the rules of that switch are 2026-07-28's); else the stateful session's.
   */
  override get judgedIn(): Revision {
    return this.modernRevision ?? this.revision;
  }

  private listTools(params: Record<string, unknown>): Outcome {
    const outcome = this.page({ key: 'tools', items: this.tools, ...(this.toolsPageSize ? { pageSize: this.toolsPageSize } : {}) }, params, 'tools');
    if ('result' in outcome && Array.isArray(outcome.result.tools)) for (const tool of outcome.result.tools) if (isObject(tool) && typeof tool.name === 'string') this.shown.set(tool.name, tool);
    return outcome;
  }

  /** The definition of a tool the client may know: one of the current list, or one a listing showed it. */
  private listedTool(name: unknown): Record<string, unknown> | undefined {
    const current = this.tools.find((t): t is Record<string, unknown> => isObject(t) && t.name === name);
    return current ?? (typeof name === 'string' ? this.shown.get(name) : undefined);
  }

  /** A call of a tool mcpcheck lists is served (a client that calls what it was shown must not be told it is unknown); any other is −32602. */
  private callTool(params: Record<string, unknown>): Outcome {
    const tool = this.listedTool(params.name);
    if (!tool) return { error: { code: -32602, message: `unknown tool ${JSON.stringify(params.name)}` } };
    const args = isObject(params.arguments) ? params.arguments : {};
    if (tool === DEFAULT_TOOLS[0]) return { result: { content: [{ type: 'text', text: String(Number(args.a) + Number(args.b)) }] } };
    if (tool === DEFAULT_TOOLS[1]) return { result: { content: [{ type: 'text', text: typeof args.text === 'string' ? args.text : '' }] } };
    return listedToolResult(tool);
  }
}

function idKey(id: unknown): string {
  return JSON.stringify(id ?? null);
}

/**
 * What a tool mcpcheck lists only to be listed answers when called: a result whose
 * structuredContent fits the tool's outputSchema when it has one (TOOL-OUT-01), with its JSON as
 * the text (TOOL-OUT-03); a tool error when no value fitting that schema can be made.
 */
export function listedToolResult(tool: Record<string, unknown>): Outcome {
  const name = JSON.stringify(tool.name);
  if (!isObject(tool.outputSchema)) return { result: { content: [{ type: 'text', text: `mcpcheck lists ${name} only to show it; the call did nothing` }] } };
  const made = synthesizeArguments(tool.outputSchema);
  if (!made.complete) return { result: { content: [{ type: 'text', text: `mcpcheck could not make a result that fits the outputSchema of ${name}: ${made.why}` }], isError: true } };
  return { result: { content: [{ type: 'text', text: JSON.stringify(made.args) }], structuredContent: made.args } };
}
