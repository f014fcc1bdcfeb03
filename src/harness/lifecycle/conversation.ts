import type { Reply } from '../peer-session.js';
import type { Revision } from '../../spec/revisions.js';

/**
 * What a conversation with a server began with, whichever era it runs in: the revision both sides
 * work under and what the server declared about itself. Code above the harness reads these, never
 * the answer of one era's opening request.
 */
export interface Conversation {
  /** The revision the server stated for the conversation. */
  revision: string;
  /** The server's capabilities, as it declared them. */
  capabilities: Record<string, unknown>;
  serverInfo?: Record<string, unknown>;
  instructions?: string;
}

/** What a client starting a conversation says about itself, and how long it waits for the start. */
export interface ConnectOptions {
  /** The revision to speak (the session's, `speaks`, by default): its era picks how the conversation starts. */
  revision?: Revision;
  /** The client capabilities mcpcheck declares (none by default). */
  capabilities?: Record<string, unknown>;
  /** The wait for the server's answer to the opening request (the session's usual wait by default). */
  timeoutMs?: number;
}

export type Diagnosis = 'not-mcp' | 'lacks-discover';

/**
 * How an attempt to start a conversation ended: either way with the server's answer to the
 * opening request, named for messages ("initialize got …"). Once it began, the session given to
 * `connect()` is the one to send on: it carries what the era needs on every message (over HTTP
 * in the stateful era, the session id and MCP-Protocol-Version).
 */
export type ConnectOutcome =
  | { ok: true; opening: string; reply: Extract<Reply, { kind: 'result' }>; conversation: Conversation }
  | {
      ok: false;
      opening: string;
      reply: Reply;
      /**
       * Why no conversation began, as a sentence that follows the target's name ("is not an MCP
       * server: …"): what the run reports when its first conversation cannot start.
       */
      why: string;
      /**
       * What the answer shows beyond "this era is not served", as data: 'not-mcp', the peer is no
       * MCP server at all (noise where JSON-RPC belongs, a result of no known shape);
       * 'lacks-discover', it serves 2026-07-28 requests but not server/discover (DISC-IMPL-01).
       */
      diagnosis?: Diagnosis;
    };

/**
 * A conversation a client began with mcpcheck playing the server, whichever era: what the client
 * declared, and the revision mcpcheck answered with.
 */
export interface AcceptedConversation {
  revision: string;
  /** The client's capabilities, as it declared them. */
  capabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
}
