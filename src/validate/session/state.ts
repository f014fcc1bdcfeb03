import { RulesInRevision } from '../in-revision.js';
import type { Side } from '../message.js';
import { type Era, LATEST_REVISION, LATEST_STATEFUL_REVISION, type Revision } from '../../spec/revisions.js';
import type { ToolInfo } from '../tools.js';
import { type Key, Ledger } from './ledger.js';

export interface SessionValidatorOptions {
  transport?: 'stdio' | 'http';
  /**
   * HTTP traffic recorded without status codes: an error without id may be the body of an HTTP
   * error status (HTTP-POST-04 allows that), so it is noted rather than failed.
   */
  httpStatusUnknown?: boolean;
}

/**
 * What the concerns of a session share: the frame being judged and its sender, the negotiated
 * revision and capabilities, the per-direction request ledgers, and the rules each side's frames
 * exercised. Everything else a concern learns stays its own.
 */
export class SessionState {
  /**
   * Requirement ids each side's own frames gave a chance to fail: a pass means something only for
   * these, and only for that side (mcpcheck's frames exercise client rules, never the server's).
   * Rules the session's revision lacks are never added, as its findings are filtered where they are returned.
   */
  readonly appliedBy: Readonly<Record<Side, Set<string>>> = { client: new RulesInRevision(() => this.revision), server: new RulesInRevision(() => this.revision) };
  /** Who sent the frame being judged. */
  side: Side = 'client';
  /** The index of the frame being judged. */
  frame = 0;
  /** Text that holds the frame's JSON, when there is one: a rule may see there that the frame has nothing for it. */
  source?: string | undefined;
  /** HTTP: the id of the request whose response (its JSON body or SSE stream) carried the frame, when the transport says. */
  inResponseTo?: string | number | undefined;
  /** The revision frames are judged by: the negotiated one (stateful), or the one the request names (stateless). */
  revision: Revision;
  requestedVersion?: string;
  negotiatedVersion?: string;
  /** The frame of the InitializeResult that settled the version. */
  negotiationFrame?: number;
  clientCapabilities?: Record<string, unknown>;
  serverCapabilities?: Record<string, unknown>;
  serverInfo?: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** The initialize response came: the version and both sides' capabilities are settled, and capability rules apply. */
  negotiated = false;
  /** The id of the client's first initialize request. */
  initializeId?: Key;
  /** Tools listed so far, for the rules on their calls' results (TOOL-OUT-01). */
  readonly tools = new Map<string, ToolInfo>();
  private readonly clientLedger = new Ledger();
  private readonly serverLedger = new Ledger();

  constructor(readonly options: SessionValidatorOptions, readonly era: Era = 'stateful') {
    this.revision = era === 'stateful' ? LATEST_STATEFUL_REVISION : LATEST_REVISION;
  }

  /** The ids the frame being judged exercises go to its sender's set. */
  get applied(): Set<string> {
    return this.side === 'client' ? this.appliedBy.client : this.appliedBy.server;
  }

  /** A side's ledger (a conditional, not a lookup by the side's name, on every frame). */
  ledger(side: Side): Ledger {
    return side === 'client' ? this.clientLedger : this.serverLedger;
  }
}
