import { checkEnvelope } from './envelope.js';
import { type Finding, note } from './finding.js';
import { findingsIn } from './in-revision.js';
import { type MessageContext, type Side, validateEnvelope } from './message.js';
import { allowsBatches } from './revisions.js';
import type { Era, Revision } from '../spec/revisions.js';
import { RepeatedResults } from './repeats.js';
import type { RuleTable } from './rule-table.js';
import { type Concern, resultOf } from './session/concern.js';
import { Dispatcher } from './session/dispatch.js';
import { ERA_CONCERNS } from './session/eras.js';
import { checkFrameText, checkNotJson, FRAME_RULES } from './session/frames.js';
import { Ids } from './session/ids.js';
import { type Key, pending } from './session/ledger.js';
import { SessionState, type SessionValidatorOptions } from './session/state.js';
import { isCreateTaskResult } from './tasks.js';
import { isTaskHandle } from './ext-tasks.js';
import { obj } from '../json.js';
import { ruling } from '../spec/rulings.js';

export { mayRequestBeforeInitialized } from './session/lifecycle.js';
export type { SessionValidatorOptions } from './session/state.js';

/** What the dispatcher judges itself: an array of answers to a batch mcpcheck sent is no batch of the peer's. */
export const DISPATCH_RULES: RuleTable = ['BASE-MSG-05'];

/** Every rule a session judges, in any era: its own, what its frames' text shows, its ids, and every era's concerns. */
export const SESSION_RULES: RuleTable = [...DISPATCH_RULES, ...FRAME_RULES, ...Ids.rules, ...Object.values(ERA_CONCERNS).flatMap((kinds) => kinds.flatMap((k) => k.rules))];

/**
 * The rules that need a whole session, judged by small concerns (src/validate/session/: lifecycle,
 * ids, capabilities, cancellation, progress, logging …) chosen by the session's era, over one
 * shared SessionState. Each frame is judged by the message validator, then routed to the concerns
 * that want it. Feed it every frame in order; it does no I/O.
 */
export class SessionValidator {
  private readonly state: SessionState;
  private readonly ids: Ids;
  private readonly concerns: Dispatcher;
  private readonly repeats = new RepeatedResults();

  /**
   * `era` is the conversation's: 'stateful' opens with initialize and judges by the revision it
   * negotiates; 'stateless' judges each request by the revision its `_meta` names (2026-07-28's
   * rules for a version mcpcheck does not know).
   */
  constructor(options: SessionValidatorOptions = {}, readonly era: Era = 'stateful') {
    this.state = new SessionState(options, era);
    this.ids = new Ids(this.state);
    const concerns: Concern[] = [this.ids, ...ERA_CONCERNS[era].map((Kind) => new Kind(this.state))];
    this.concerns = new Dispatcher(concerns);
  }

  /**
   * Requirement ids each side's own frames gave a chance to fail: a pass means something only for
   * these, and only for that side (mcpcheck's frames exercise client rules, never the server's).
   */
  get appliedBy(): Readonly<Record<Side, Set<string>>> {
    return this.state.appliedBy;
  }

  get revision(): Revision {
    return this.state.revision;
  }

  get clientCapabilities(): Record<string, unknown> | undefined {
    return this.state.clientCapabilities;
  }

  get serverCapabilities(): Record<string, unknown> | undefined {
    return this.state.serverCapabilities;
  }

  get serverInfo(): Record<string, unknown> | undefined {
    return this.state.serverInfo;
  }

  get clientInfo(): Record<string, unknown> | undefined {
    return this.state.clientInfo;
  }

  get requestedVersion(): string | undefined {
    return this.state.requestedVersion;
  }

  get negotiatedVersion(): string | undefined {
    return this.state.negotiatedVersion;
  }

  /** The frame of the InitializeResult that settled the version. */
  get negotiationFrame(): number | undefined {
    return this.state.negotiationFrame;
  }

  /**
   * A frame whose JSON parsed: `raw` is its exact text when its bytes matter, `source` any text
   * that holds its JSON (a transcript line), which spares judging the message what its text shows it lacks.
   */
  message(from: Side, message: unknown, frame: number, raw?: string, source?: string, inResponseTo?: string | number): Finding[] {
    const s = this.state;
    s.frame = frame;
    s.side = from;
    s.source = source ?? raw;
    s.inResponseTo = inResponseTo;
    if (Array.isArray(message) && message.length > 0 && allowsBatches(s.revision)) {
      const findings: Finding[] = [];
      if (raw !== undefined) checkFrameText(s, raw, findings);
      for (const f of findings) f.frame = frame;
      message.forEach((m, i) => findings.push(...this.message(from, m, frame).map((f) => ({ ...f, pointer: `/${i}${f.pointer}` }))));
      this.ids.batchSent(from, message);
      return findingsIn(findings, s.revision);
    }
    if (Array.isArray(message) && this.ids.batchAnswered(from, message)) {
      const findings: Finding[] = [note('BASE-MSG-05', `an array of ${message.length} response(s) answering the batch mcpcheck sent, each request once: the server's reaction to a batch, judged under ROBUST-05, not a batch of its own (${ruling('batch-reaction').cite})`)];
      findings[0]!.frame = frame;
      message.forEach((m, i) => findings.push(...this.message(from, m, frame).map((f) => ({ ...f, pointer: `/${i}${f.pointer}` }))));
      return findingsIn(findings, s.revision);
    }
    const env = checkEnvelope(message);
    const answered = env.kind === 'result' || env.kind === 'error' ? this.ids.outstanding(from, env.id) : undefined;
    const request = answered ? this.concerns.judgedAs(answered) : undefined;
    const ctx: MessageContext = { from, revision: s.revision, request, tools: s.tools, applied: s.applied, source: s.source, transport: s.options.transport };
    const repeat = env.kind === 'result' ? this.repeats.repeated(from, s.revision, request, env.msg!, ctx.source) : undefined;
    let findings: Finding[];
    if (repeat) {
      findings = env.findings;
      findings.push(...repeat.findings);
    } else {
      const own = env.findings.length;
      findings = validateEnvelope(env, message, ctx);
      if (env.kind === 'result') this.repeats.remember(from, s.revision, request, env.msg!, findings.slice(own), ctx.source);
    }
    if (raw !== undefined) {
      // What the text itself shows comes first, as it came first on the wire.
      const text: Finding[] = [];
      checkFrameText(s, raw, text);
      if (text.length > 0) findings.unshift(...text);
    }
    switch (env.kind) {
      case 'request': {
        const sent = pending(env.id!, env.method!, obj(env.msg!.params), frame);
        this.concerns.request(sent, findings);
        // Pending only once every concern has judged it (a progress token is checked against the requests before it).
        s.ledger(from).pending.set(sent.id, sent);
        break;
      }
      case 'notification':
        this.concerns.notification(env.method!, obj(env.msg!.params), findings);
        // A notification with an id (BASE-NOTIF-01) is a request to JSON-RPC: the peer may answer it,
        // with that id or, an Invalid Request, without; it may also leave it unanswered.
        if ('id' in env.msg!) this.ids.invalidSent(message, env.msg!.id, frame);
        break;
      case 'result':
      case 'error':
        // A repeat is kept as the response it repeats: what the session holds of it (listed tools,
        // their schemas) is then what was judged and cached before.
        this.response(env.kind, env.id, repeat?.message ?? env.msg!, findings);
        break;
      case 'invalid':
        this.ids.invalidSent(message, env.msg?.id, frame);
        break;
    }
    for (const f of findings) f.frame = frame;
    return findingsIn(findings, s.revision);
  }

  private response(kind: 'result' | 'error', id: Key | undefined, message: Record<string, unknown>, findings: Finding[]): void {
    const request = this.ids.answer(kind, id, findings);
    if (!request) return;
    const result = resultOf(kind, message);
    // A task handle answers the request for now: its own result comes later (tasks/result; a 2026-07-28 task's tasks/get).
    if (result && (this.era === 'stateless' ? isTaskHandle(result) : isCreateTaskResult(request.params, result))) this.concerns.taskCreated(request, message, findings);
    else this.concerns.answer(request, kind, message, findings);
  }

  /** A frame that is not JSON at all (kept raw in a transcript, or seen raw on the wire). */
  raw(from: Side, text: string, frame: number): Finding[] {
    const s = this.state;
    s.side = from;
    const findings: Finding[] = [];
    checkFrameText(s, text, findings);
    checkNotJson(s, text, findings);
    this.ids.unreadable(from);
    for (const f of findings) f.frame = frame;
    return findingsIn(findings, s.revision);
  }

  /** A frame the transport already reported as unreadable: only the bookkeeping, no second finding. */
  unreadableFrame(from: Side): void {
    this.ids.unreadable(from);
  }

  /**
   * `requester`'s request `id` had no response when the peer answered a ping sent after it (in frame
   * `pingAnswer`): the peer was alive and left it unanswered. Judged at the end, as a late answer
   * or a cancellation may still come.
   */
  leftUnanswered(requester: Side, id: unknown, pingAnswer: number): void {
    this.ids.leftUnanswered(requester, id, pingAnswer);
  }

  /** Whether `requester` has a request with this id still awaiting its response. */
  awaits(requester: Side, id: unknown): boolean {
    return (typeof id === 'string' || typeof id === 'number') && this.state.ledger(requester).pending.has(id);
  }

  /** Findings that only the end of the session shows. */
  end(): Finding[] {
    const findings: Finding[] = [];
    this.concerns.end(findings);
    return findingsIn(findings, this.state.revision);
  }
}
