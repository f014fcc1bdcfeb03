import type { Channel, IncomingFrame, SendResult } from '../transport/channel.js';
import { TargetUnreachable } from '../transport/http.js';
import type { Finding } from '../validate/finding.js';
import { eraOf, isStatefulRevision, LATEST_STATEFUL_REVISION as LATEST_REVISION, type Era, type Revision as AnyRevision, type StatefulRevision as Revision } from '../spec/revisions.js';
import { findingsIn, RulesInRevision } from '../validate/in-revision.js';
import { SessionValidator } from '../validate/session.js';
import { isObject } from '../json.js';
import type { Pace, Start } from './pace.js';

/** The part a side plays in MCP. */
export type Side = 'client' | 'server';

/** One frame of the session as recorded: what went out or came in, in order. */
export interface RecordedFrame {
  index: number;
  from: Side;
  message?: unknown;
  raw?: string;
  /** Milliseconds since the session opened. */
  at: number;
  via?: string;
  /** For HTTP: the POST or GET exchange that carried it; exchanges are numbered in the order they were opened. */
  exchange?: number;
  /** For HTTP: the id of the request whose POST response carried it (a transcript keeps it). */
  inResponseTo?: string | number;
}

export type Reply =
  | { kind: 'result'; result: Record<string, unknown>; frame: number; message: Record<string, unknown> }
  /** A response whose `result` is not an object (null, a string, …): kept exactly as it came, never passed off as `{}`. */
  | { kind: 'malformed-result'; value: unknown; frame: number; message: Record<string, unknown> }
  | { kind: 'error'; error: { code?: unknown; message?: unknown; data?: unknown }; frame: number; message: Record<string, unknown> }
  /**
   * No response with the request's id in time. `strays`: responses the target sent meanwhile that
   * answer no request (no id, a wrong id): then the target did answer, wrongly, and the verdict is
   * its own; without them the silence may be mcpcheck's timeout being too short for a slow or hung
   * target. `pingedAfter`: a ping sent after it went unanswered too.
   */
  | { kind: 'timeout'; waitedMs: number; strays: number[]; pingedAfter?: true; probe?: string }
  /**
   * No response within `waitedMs`, while a ping sent after it was answered (in `pingMs`), and no
   * response that answers nothing came meanwhile: a live target left the request unanswered.
   */
  | { kind: 'unanswered'; waitedMs: number; pingMs: number; probe?: string }
  /** HTTP: the POST got an error status and no JSON-RPC response with the request's id (`error`: the id-less one its body held). */
  | { kind: 'rejected'; status: number; body: string; error?: { code?: unknown; message?: unknown }; frame?: number }
  | { kind: 'closed'; detail: string };

export interface PeerSessionOptions<C extends Channel = Channel> {
  channel: C;
  transport: 'stdio' | 'http';
  /**
   * The revision the session is to speak (2025-11-25 by default): its era decides how its frames
   * are validated and how it tells a live target from a hung one (ping, or server/discover).
   */
  speaks?: AnyRevision;
  /** Per request, unless a call says otherwise. */
  requestTimeoutMs?: number;
  /**
   * Until the target has sent its first frame, every wait lasts at least this long: a freshly
   * started process (a Node app loading its dependencies on a busy machine) may need seconds
   * before it reads its input, and that start-up is no slowness of its answers.
   */
  startupMs?: number;
  /**
   * What the run measured of the target's pace: it stretches every request's wait, learns from this
   * session's pings and, when the session `startsProcess`, sets how long the start may take instead
   * of `startupMs`.
   */
  pace?: Pace;
  /** The session starts a process of its own (stdio): its start is waited for at the pace's measure. */
  startsProcess?: boolean;
  /** Frames are kept for evidence and transcripts; bounded so a chatty target cannot exhaust memory. */
  maxFrames?: number;
  /** Receives every live finding about the target, with the frame index set. */
  onFinding?: (finding: Finding) => void;
  /**
   * False: the session's frames are judged by nobody (an era probe), so no validator runs on them,
   * and its requests go out before any revision's schemas are loaded. Default true.
   */
  judged?: boolean;
}

type Waiter = {
  resolve: (reply: Reply) => void;
  timer: NodeJS.Timeout;
  /** The wait for the answer alone, by the pace. */
  answerMs: number;
  sentAt: number;
  /** From the send to the timeout, as armed. */
  plannedMs: number;
  /** Armed before the target was first heard: the wait covers its start (see `heardFirst`). */
  startup: boolean;
  expire: () => void;
};
type FrameWaiter = { match: (frame: RecordedFrame) => boolean; resolve: (frame: RecordedFrame | undefined) => void; timer: NodeJS.Timeout };

const MAX_RAW_KEPT = 64 * 1024;

/** Removes the items at the start of `list` for which `old` holds. */
function dropLeading<T>(list: T[], old: (item: T) => boolean): void {
  const kept = list.findIndex((item) => !old(item));
  list.splice(0, kept === -1 ? list.length : kept);
}

/**
 * A session with the target, whichever side mcpcheck plays (`role`): ids, correlation, timeouts,
 * the recorded frames, and live validation of every frame. What the target asks of mcpcheck is
 * the role's business (`answer`). Nothing a target does makes a method here throw: timeouts and
 * closed channels are replies.
 */
export abstract class PeerSession<C extends Channel = Channel> {
  readonly frames: RecordedFrame[] = [];
  private validator: SessionValidator;
  /** The validator of the other era, for a connection that carries both (made on the first frame of it). */
  private otherEra: SessionValidator | undefined;
  /** Rules exercised in sessions that ended before the current one (see `newSession`). */
  private readonly earlierApplied: Record<Side, Set<string>> = { client: new Set(), server: new Set() };
  /** Rules judged outside the message validator (on HTTP exchanges, say), for the session's revision. */
  private readonly judgedApart: Record<Side, Set<string>> = { client: new RulesInRevision(() => this.judgedIn), server: new RulesInRevision(() => this.judgedIn) };
  private nextId = 1;
  private readonly waiting = new Map<string, Waiter>();
  private readonly frameWaiters = new Set<FrameWaiter>();
  private readonly started = performance.now();
  protected closedDetail: string | undefined;
  /** The transport under the session, for transport-level probes (raw HTTP exchanges, the stdio process). */
  readonly channel: C;
  /** Every live finding about the target's frames in this session, in order; bounded. */
  readonly findings: Finding[] = [];
  /** What the transport itself reported for this session (stdout noise, framing, …), in order; bounded. */
  readonly transportFindings: Finding[] = [];
  private readonly timeoutMs: number;
  private readonly maxFrames: number;
  private frameCount = 0;
  /** Whether the target has sent anything yet (see `startupMs`). */
  private heard = false;
  /** Milliseconds from the session's opening to the target's first frame. */
  private heardAfter: number | undefined;
  /** Milliseconds from the session's opening to its end, when the target was never heard. */
  private unheardFor: number | undefined;
  /** This session's process's start, as the pace sees it, until the target is first heard. */
  private readonly start: Start | undefined;
  /** Waits on the target's pace rather than its answers (see `stalledMs`): how many now, since when, and the total of those over. */
  private readonly stall = { count: 0, since: 0, totalMs: 0 };
  /** Frames of responses from the target that matched no request waiting for one (bounded). */
  private readonly strayResponses: number[] = [];
  /** The side the target plays: its frames are the ones judged. */
  readonly them: Side;

  constructor(
    /** The side mcpcheck plays. */
    readonly role: Side,
    private readonly options: PeerSessionOptions<C>,
  ) {
    this.them = role === 'client' ? 'server' : 'client';
    this.channel = options.channel;
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.maxFrames = options.maxFrames ?? 20_000;
    this.validator = this.newValidator();
    if (options.startsProcess) this.start = options.pace?.starting();
    this.channel.onFrame((f) => this.receive(f));
    // The transport reports a problem just before it delivers the frame it concerns.
    this.channel.onFinding((f) => {
      const finding = { ...f, frame: this.frameCount };
      if (this.transportFindings.length < 1000) this.transportFindings.push(finding);
      this.report(finding);
    });
    // A detail says it all (a process's says how it exited and what its stderr said why).
    this.channel.onClose((info) => this.ended(info.detail ?? `${info.reason}${info.code !== undefined && info.code !== null ? ` (exit code ${info.code})` : ''}${info.signal ? ` (signal ${info.signal})` : ''}`));
  }

  /**
   * The target is gone although the channel may stay open (a client process that exited while
   * mcpcheck's HTTP endpoint still listens): nothing waited for can come any more.
   */
  peerGone(detail: string): void {
    if (!this.closedDetail) this.ended(detail);
  }

  private ended(detail: string): void {
    this.closedDetail = detail;
    this.start?.done();
    if (this.heardAfter === undefined) this.unheardFor ??= performance.now() - this.started;
    for (const [key, w] of this.waiting) {
      clearTimeout(w.timer);
      this.waiting.delete(key);
      w.resolve({ kind: 'closed', detail });
    }
    for (const w of this.frameWaiters) {
      clearTimeout(w.timer);
      w.resolve(undefined);
    }
    this.frameWaiters.clear();
  }

  /** The rules `side`'s frames gave a chance to fail, over every session this one carried. */
  appliedBy(side: Side): Set<string> {
    return new Set([...this.earlierApplied[side], ...this.judgedApart[side], ...this.validators.flatMap((v) => [...v.appliedBy[side]])]);
  }

  /** Takes in what a judge other than the message validator found about `side` (scoped to the session's revision). */
  protected judgedOutside(side: Side, applied: readonly string[], findings: Finding[]): void {
    for (const id of applied) this.judgedApart[side].add(id);
    for (const f of findingsIn(findings, this.judgedIn)) this.report(f);
  }

  /**
   * A new MCP session begins on the same connection (over HTTP, a fresh initialize after the old
   * session ended): ids, lifecycle and negotiation start again; what was exercised is kept.
   */
  protected newSession(): void {
    for (const v of this.validators) {
      for (const f of v.end()) this.report(f);
      for (const side of ['client', 'server'] as const) for (const id of v.appliedBy[side]) this.earlierApplied[side].add(id);
    }
    this.validator = this.newValidator();
    this.otherEra = undefined;
  }

  /** A validator of the session's era, or of another one whose frames come on the same connection. */
  private newValidator(era: Era = this.era): SessionValidator {
    return new SessionValidator({ transport: this.options.transport }, era);
  }

  /** The validators that judged the session: its own era's, and another era's once frames of it came. */
  private get validators(): SessionValidator[] {
    return this.otherEra ? [this.validator, this.otherEra] : [this.validator];
  }

  /** The liveness probe's name for a reply, when it is not the ping replies are read with by default. */
  private probeNamed(): { probe?: string } {
    return this.probeMethod === 'ping' ? {} : { probe: this.probeMethod };
  }

  /** The era the session speaks in. */
  get era(): Era {
    return eraOf(this.options.speaks ?? LATEST_REVISION);
  }

  /**
   * The revision the session speaks: in the stateful era the one its initialize negotiated, in the
   * stateless era the one every request carries. Checks are graded by its catalog.
   */
  get speaks(): AnyRevision {
    return this.era === 'stateless' ? (this.options.speaks ?? LATEST_REVISION) : this.revision;
  }

  /**
   * The request that shows a target is alive and has read what came before: ping in the stateful
   * era, server/discover in the stateless one (which has no ping). Scenarios carried into both eras
   * ask it, not `ping`, after a probe.
   */
  get probeMethod(): string {
    return this.era === 'stateless' ? 'server/discover' : 'ping';
  }

  /** Sees each message from the target before it is validated (a role may recognise a new session in it). */
  protected beforeValidating(_message: unknown): void {}

  /** Whether the session's frames are validated (see PeerSessionOptions.judged). */
  private get judged(): boolean {
    return this.options.judged !== false;
  }

  /** How long a request is waited for unless its caller says otherwise (--request-timeout). */
  get requestTimeoutMs(): number {
    return this.timeoutMs;
  }

  get transport(): 'stdio' | 'http' {
    return this.options.transport;
  }

  get closed(): string | undefined {
    return this.closedDetail;
  }

  get revision(): Revision {
    // The validator judges either era; this session speaks the stateful one (harness2026 widens it).
    const judged = this.validator.revision;
    return isStatefulRevision(judged) ? judged : LATEST_REVISION;
  }

  /** The revision the session's checks are judged by (a role whose conversations may be of either era says which). */
  get judgedIn(): AnyRevision {
    return this.speaks;
  }

  /** The era a frame belongs to, for its live validation; a role that serves both eras on one connection tells its frames apart. */
  protected eraOf(_message: unknown, _from: Side): Era {
    return this.era;
  }

  /** The validator that judges a frame: the session's own, or the other era's for a frame of that era (a dual-era endpoint). */
  private validatorFor(message: unknown, from: Side): SessionValidator {
    const era = this.eraOf(message, from);
    if (era === this.validator.era) return this.validator;
    return (this.otherEra ??= this.newValidator(era));
  }

  /** Allocates the next request id (ids are never reused in a session). */
  allocateId(): number {
    return this.nextId++;
  }

  /** Sends a request and waits for its response, a timeout, or the end of the channel. */
  async request(method: string, params?: unknown, timeoutMs?: number): Promise<Reply> {
    const id = this.allocateId();
    const message: Record<string, unknown> = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    return this.requestMessage(message, timeoutMs);
  }

  /**
   * Milliseconds from the session's opening to the target's first frame (undefined: not heard yet):
   * for a session that started a process, how long the start took.
   */
  get startedAfterMs(): number | undefined {
    return this.heardAfter;
  }

  /**
   * Time this session waited on the target's own pace rather than on its answers: its start (until
   * it was first heard), sends it was slow to take in, pings (which cost a server nothing, so
   * a slow one is a busy target or machine), a request's wait past what it would be at an idle
   * pace, and the stretch of a quiet moment. A scenario's budget does not pay for it.
   */
  get stalledMs(): number {
    const ongoing = this.stall.count > 0 ? performance.now() - this.stall.since : 0;
    const starting = this.heardAfter ?? this.unheardFor ?? performance.now() - this.started;
    return this.stall.totalMs + ongoing + (this.options.startsProcess ? starting : 0);
  }

  /** Counts the time until `work` settles as stalled (overlapping stalls once). */
  private async stalledWhile<T>(work: Promise<T>): Promise<T> {
    if (this.stall.count++ === 0) this.stall.since = performance.now();
    try {
      return await work;
    } finally {
      if (--this.stall.count === 0) this.stall.totalMs += performance.now() - this.stall.since;
    }
  }

  /** How long the target may take to answer, by the run's pace, when `baseMs` is the wait at an idle one. */
  answerMs(baseMs: number): number {
    return this.options.pace?.requestMs(baseMs) ?? baseMs;
  }

  /** How long the target's process may take over its own stop, by the run's pace, when `baseMs` is the wait at an idle one. */
  processMs(baseMs: number): number {
    return this.options.pace?.processMs(baseMs) ?? baseMs;
  }

  /** Until the target is first heard, every wait lasts at least this long: it covers the start. */
  private startupMs(): number {
    if (this.heard) return 0;
    return this.start ? this.start.ms : (this.options.startupMs ?? 0);
  }

  /** Sends a request message as given (any id) and waits for the response with that id. */
  async requestMessage(message: Record<string, unknown>, timeoutMs?: number): Promise<Reply> {
    const baseMs = timeoutMs ?? this.timeoutMs;
    const answerMs = this.answerMs(baseMs);
    const startupMs = this.startupMs();
    const key = idKey(message.id);
    const mark = this.frameCount;
    const sentAt = performance.now();
    // A ping costs a server nothing: waiting for one is waiting on its pace, which it measures once started.
    // (A "ping" with malformed params is a probe like any other, and its silence needs telling apart.)
    const ping = message.method === this.probeMethod && (message.params === undefined || isObject(message.params));
    const measured = ping && this.heard;
    const reply = new Promise<Reply>((resolve) => {
      if (this.closedDetail) return resolve({ kind: 'closed', detail: this.closedDetail });
      const waiter: Waiter = {
        resolve,
        answerMs,
        sentAt,
        plannedMs: Math.max(answerMs, startupMs),
        startup: startupMs > answerMs,
        expire: () => {
          // Processes that started meanwhile competed with this one's start: it may take longer.
          const startLeft = waiter.startup ? this.startupMs() - (performance.now() - sentAt) : 0;
          if (startLeft > 0) {
            waiter.plannedMs = this.startupMs();
            waiter.timer = setTimeout(() => waiter.expire(), startLeft);
            return;
          }
          waiter.startup = false;
          const waitedMs = Math.round(waiter.plannedMs);
          const strays = this.strayResponses.filter((i) => i >= mark);
          // A ping's own silence, or answers to nothing, need no ping to be told apart.
          if (!ping && strays.length === 0) {
            // Still waiting meanwhile: an answer that comes before the ping's still counts.
            // The ping may take as long as the request could, never longer than the session's usual wait.
            const pingWaitMs = Math.min(timeoutMs ?? this.timeoutMs, this.timeoutMs);
            void this.pingAfter(key, message.id, mark, () => waitedMs, pingWaitMs).then((settled) => {
              if (!settled) this.settleWaiting(key, { kind: 'timeout', waitedMs, strays: this.strayResponses.filter((i) => i >= mark), pingedAfter: true, ...this.probeNamed() });
            });
            return;
          }
          this.waiting.delete(key);
          resolve({ kind: 'timeout', waitedMs, strays });
        },
        timer: setTimeout(() => waiter.expire(), Math.max(answerMs, startupMs)),
      };
      this.waiting.set(key, waiter);
    });
    if (ping) void this.stalledWhile(reply);
    // Past its wait at an idle pace, a request waits on the target's pace (the pace stretched its
    // wait for that), which a scenario's budget does not pay for either.
    else if (answerMs > baseMs) {
      const paced = setTimeout(() => void this.stalledWhile(reply), baseMs);
      void reply.then(() => clearTimeout(paced));
    }
    if (measured && this.options.pace) {
      const pace = this.options.pace;
      void reply.then((r) => r.kind === 'result' && pace.roundTrip(performance.now() - sentAt));
    }
    // The reply's own timeout bounds the wait: a send still going then (an HTTP exchange whose
    // headers never come, say) is left to the channel's timeout.
    const sent = await Promise.race([this.send(message), reply.then(() => undefined)]);
    const status = sent?.status;
    // The request went nowhere: its answer cannot come, on any stream.
    if (sent?.lost && sent.error !== undefined) this.settleWaiting(key, { kind: 'closed', detail: sent.error });
    if (status !== undefined && status >= 400) {
      const body = this.frames.find((f) => f.index >= mark && f.via === 'post-error');
      const error = body && isObject(body.message) && isObject(body.message.error) ? body.message.error : undefined;
      this.settleWaiting(key, {
        kind: 'rejected',
        status,
        body: body ? JSON.stringify(body.message) : (sent?.body ?? ''),
        ...(error ? { error } : {}),
        ...(body ? { frame: body.index } : {}),
      });
    }
    return reply;
  }

  /**
   * Sends a ping after the request `key` (sent at frame `mark`) has waited its whole time. Only
   * then does an answered ping say anything: a ping sent early may be answered before an earlier
   * request whose handler takes longer, or on another HTTP stream (cortex-mcp answers a nameless
   * tools/call 30 ms after the ping sent behind it). Answered, it shows the target has read the request: with no response to anything else
   * meanwhile, the target left the request unanswered, which settles as `unanswered` (its failure,
   * BASE-ID-04, judged at the session's end unless the request is cancelled or answered late);
   * with such responses, it answered wrongly (a `timeout` with its strays). Either way this returns
   * true. Unanswered, the silence may be a slow or hung target, and the request is left as it was.
   */
  private async pingAfter(key: string, id: unknown, mark: number, waitedMs: () => number, timeoutMs?: number): Promise<boolean> {
    const pinged = performance.now();
    const pong = await this.request(this.probeMethod, undefined, timeoutMs);
    const pingMs = Math.round(performance.now() - pinged);
    // An answer sent before the ping's may still be on its way (over HTTP, on another stream).
    await this.settle(20);
    if (!this.waiting.has(key) || pong.kind !== 'result') return false;
    const strays = this.strayResponses.filter((i) => i >= mark);
    if (strays.length > 0) {
      this.settleWaiting(key, { kind: 'timeout', waitedMs: waitedMs(), strays });
      return true;
    }
    for (const v of this.validators) if (v.awaits(this.role, id)) v.leftUnanswered(this.role, id, pong.frame);
    this.settleWaiting(key, { kind: 'unanswered', waitedMs: waitedMs(), pingMs, ...this.probeNamed() });
    return true;
  }

  /** Gives a request still waiting for its response this reply instead (a later response is then a stray). */
  private settleWaiting(key: string, reply: Reply): void {
    const waiter = this.waiting.get(key);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiting.delete(key);
    waiter.resolve(reply);
  }

  async notify(method: string, params?: unknown): Promise<void> {
    const message: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    await this.send(message);
  }

  /** Sends any JSON value as one frame (for malformed-message probes); it is recorded but not validated. */
  async send(message: unknown): Promise<SendResult | undefined> {
    this.record({ from: this.role, message });
    if (this.judged) this.validatorFor(message, this.role).message(this.role, message, this.frameCount - 1);
    if (this.closedDetail) return undefined;
    try {
      return await this.timedSend(() => this.channel.send(message));
    } catch (e) {
      // Nobody there at all is a setup problem; anything else shows up as a closed channel.
      if (e instanceof TargetUnreachable) throw e;
      return undefined;
    }
  }

  /** Sends bytes exactly as given (stdio: add the newline yourself). */
  /** `value`: what `bytes` parse to, when the caller has it (see FrameValue). */
  /** `headers` (HTTP): request headers set, or with null removed, over the ones the body calls for. */
  async sendRaw(bytes: string | Uint8Array, value?: FrameValue, headers?: Record<string, string | null>): Promise<SendResult | undefined> {
    // Bytes whose value the caller gave are decoded only when they are kept whole (a 10 MB probe's are not).
    const text = typeof bytes === 'string' ? bytes : value && bytes.length > MAX_RAW_KEPT ? undefined : Buffer.from(bytes).toString('utf8');
    let parsed: unknown;
    try {
      parsed = value ? ('elided' in value ? value.elided : value.parsed) : JSON.parse(text as string);
    } catch {
      parsed = undefined;
    }
    // A huge probe is kept as its structure with long strings cut, so its id stays readable;
    // anything else exactly as sent.
    const frame = this.record(
      text !== undefined && text.length <= MAX_RAW_KEPT
        ? { from: this.role, raw: text }
        : parsed !== undefined
          ? { from: this.role, message: value && 'elided' in value ? value.elided : elide(parsed, 0) }
          : { from: this.role, raw: (text ?? Buffer.from(bytes.slice(0, MAX_RAW_KEPT)).toString('utf8')).slice(0, MAX_RAW_KEPT) + '…' },
    );
    // Keep the ledger true to what the target saw, so its answers to our probes are judged fairly.
    if (this.judged) {
      if (parsed !== undefined) this.validatorFor(parsed, this.role).message(this.role, parsed, frame.index);
      else this.validator.unreadableFrame(this.role);
    }
    if (this.closedDetail) return undefined;
    try {
      return await this.timedSend(() => this.channel.sendRaw(bytes, headers));
    } catch (e) {
      if (e instanceof TargetUnreachable) throw e;
      return undefined;
    }
  }

  /** Over stdio a send lasts as long as the target takes to read it in, which `stalledMs` counts (over HTTP it carries the answer too). */
  private timedSend(send: () => Promise<SendResult>): Promise<SendResult> {
    return this.transport === 'stdio' ? this.stalledWhile(send()) : send();
  }

  /** Sends one frame of exact text: over stdio a newline ends it, over HTTP it is the POST body. */
  sendFrameText(text: string | Uint8Array, value?: FrameValue): Promise<SendResult | undefined> {
    if (this.transport === 'http') return this.sendRaw(text, value);
    if (typeof text === 'string') return this.sendRaw(text + '\n', value);
    return this.sendRaw(Buffer.concat([text, Buffer.from('\n')]), value);
  }

  /**
   * Waits until the target has processed everything sent so far, as far as a peer can tell:
   * a ping sent last is answered. Faster and surer than sleeping; peers answer in order.
   */
  async barrier(timeoutMs?: number): Promise<Reply> {
    const reply = await this.request(this.probeMethod, undefined, timeoutMs);
    await this.settle(20);
    return reply;
  }

  /** Waits for a frame from the target that matches, looking at frames from index `since` on. */
  waitForFrame(match: (frame: RecordedFrame) => boolean, timeoutMs: number, since = 0): Promise<RecordedFrame | undefined> {
    const earlier = this.frames.find((f) => f.index >= since && f.from === this.them && match(f));
    if (earlier) return Promise.resolve(earlier);
    if (this.closedDetail) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: FrameWaiter = {
        match,
        resolve,
        timer: setTimeout(() => {
          this.frameWaiters.delete(waiter);
          resolve(undefined);
        }, timeoutMs),
      };
      this.frameWaiters.add(waiter);
    });
  }

  /** Frames from the target from index `since` on. */
  peerFrames(since = 0): RecordedFrame[] {
    return this.frames.filter((f) => f.index >= since && f.from === this.them);
  }

  /**
   * Drops the recorded frames, and the live findings about them, before frame index `before`. A
   * session that lives for thousands of steps (a fuzz lane) needs only its current step's: memory
   * and look-ups stay bounded, and the caps are never reached, which would leave later steps with
   * nothing to judge.
   */
  forget(before: number): void {
    dropLeading(this.frames, (f) => f.index < before);
    dropLeading(this.findings, (f) => (f.frame ?? 0) < before);
  }

  /** The index the next frame will get: take it before a step to look only at what follows. */
  get mark(): number {
    return this.frameCount;
  }

  /** Lets frames in flight arrive (for "nothing comes back" checks); 0: only what was already read in. */
  settle(ms: number): Promise<void> {
    return new Promise((r) => (ms > 0 ? setTimeout(r, ms) : setImmediate(r)));
  }

  /**
   * A quiet moment of `baseMs` at an idle pace, stretched as the wait for an answer is (what the
   * target sends late comes later on a busy machine). The stretch is a wait on the target's pace,
   * which a scenario's budget does not pay for (`stalledMs`): a run 20 pings slow must not cut
   * the scenario short for its quiet moments.
   */
  async quiet(baseMs: number): Promise<void> {
    const ms = this.answerMs(baseMs);
    await this.settle(baseMs);
    if (ms > baseMs) await this.stalledWhile(this.settle(ms - baseMs));
  }

  async close(): Promise<void> {
    for (const w of this.waiting.values()) clearTimeout(w.timer);
    for (const w of this.frameWaiters) clearTimeout(w.timer);
    await this.channel.close();
  }

  /** Findings the end of the session shows (unanswered requests …). */
  end(): void {
    for (const v of this.validators) for (const f of v.end()) this.report(f);
  }

  private record(frame: Omit<RecordedFrame, 'index' | 'at'>): RecordedFrame {
    const full: RecordedFrame = { index: this.frameCount++, at: Math.round(performance.now() - this.started), ...frame };
    if (this.frames.length < this.maxFrames) this.frames.push(full);
    return full;
  }

  private report(finding: Finding): void {
    if (this.findings.length < 5_000) this.findings.push(finding);
    this.options.onFinding?.(finding);
  }

  private receive(incoming: IncomingFrame): void {
    if (!this.heard) this.heardFirst();
    const carrier = { ...(incoming.exchange !== undefined ? { exchange: incoming.exchange } : {}), ...(incoming.inResponseTo !== undefined ? { inResponseTo: incoming.inResponseTo } : {}) };
    const frame = this.record(
      incoming.message !== undefined || incoming.parseError === undefined
        ? { from: this.them, message: incoming.message, via: incoming.via, ...carrier }
        : { from: this.them, raw: incoming.raw.length > MAX_RAW_KEPT ? incoming.raw.slice(0, MAX_RAW_KEPT) + '…' : incoming.raw, via: incoming.via, ...carrier },
    );
    if (this.judged) this.judge(incoming, frame);
    for (const w of this.frameWaiters) {
      if (w.match(frame)) {
        clearTimeout(w.timer);
        this.frameWaiters.delete(w);
        w.resolve(frame);
      }
    }
    const msg = incoming.message;
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return;
    const m = msg as Record<string, unknown>;
    if (typeof m.method === 'string') {
      if ('id' in m && m.id !== null && !m.method.startsWith('notifications/')) void this.answer(m);
      return;
    }
    if ('result' in m || 'error' in m) {
      const waiter = 'id' in m ? this.waiting.get(idKey(m.id)) : undefined;
      if (!waiter) {
        if (this.strayResponses.length < 1000) this.strayResponses.push(frame.index);
        return;
      }
      clearTimeout(waiter.timer);
      this.waiting.delete(idKey(m.id));
      // A response with both members is broken (BASE-MSG-04, judged live); the error is what it reports.
      if ('error' in m) {
        const error = (m.error !== null && typeof m.error === 'object' ? m.error : { message: m.error }) as Record<string, unknown>;
        waiter.resolve({ kind: 'error', error, frame: frame.index, message: m });
      } else if (isObject(m.result)) {
        waiter.resolve({ kind: 'result', result: m.result, frame: frame.index, message: m });
      } else {
        waiter.resolve({ kind: 'malformed-result', value: m.result, frame: frame.index, message: m });
      }
    }
  }

  /** Validates a frame from the target live, reporting what it finds. */
  private judge(incoming: IncomingFrame, frame: RecordedFrame): void {
    // An HTTP error status may carry a JSON-RPC error without id (HTTP-POST-04): the refusal is of
    // the POST as a whole, so the error answers it the way it would answer an unreadable request.
    const m0 = incoming.message as Record<string, unknown> | undefined;
    if (incoming.via === 'post-error' && m0 && typeof m0 === 'object' && 'error' in m0 && (!('id' in m0) || m0.id === null)) {
      this.validator.unreadableFrame(this.role);
    }
    if (frame.raw !== undefined) this.validator.unreadableFrame(this.them);
    else {
      this.beforeValidating(incoming.message);
      for (const f of this.validatorFor(incoming.message, this.them).message(this.them, incoming.message, frame.index, undefined, undefined, incoming.inResponseTo)) this.report(f);
    }
  }

  /**
   * The target has started: a wait armed to cover its start now lasts only as long as an answer
   * may take, from now (a target that writes noise at once is not waited for as if it were starting).
   */
  private heardFirst(): void {
    this.heard = true;
    this.heardAfter = performance.now() - this.started;
    this.start?.done();
    for (const w of this.waiting.values()) {
      if (!w.startup) continue;
      w.startup = false;
      clearTimeout(w.timer);
      w.plannedMs = performance.now() - w.sentAt + w.answerMs;
      w.timer = setTimeout(() => w.expire(), w.answerMs);
    }
  }

  /** Answers a request from the target (every request gets exactly one response). */
  protected abstract answer(request: Record<string, unknown>): Promise<void>;
}

const ELIDE_STRING = 4096;
const ELIDE_DEPTH = 200;

/**
 * What a raw frame's bytes parse to, when the caller has it: `parsed`, the value itself (parsing a
 * 10 MB probe again cost tens of ms), or `elided`, the value with its long strings already cut as a
 * frame's record cuts them (see elidedString), for a probe whose whole value costs more to build
 * than its bytes (a 10 MB string is another 30 ms of fresh memory): the record and the live
 * validation take that.
 */
export type FrameValue = { parsed: unknown } | { elided: unknown };

/** A string of `length` characters as a frame's record keeps it: its first ones (`first(n)` gives n of them), then how many more there were. */
export function elidedString(length: number, first: (count: number) => string): string {
  return length > ELIDE_STRING ? `${first(ELIDE_STRING)}…(${length - ELIDE_STRING} more characters)` : first(length);
}

/** A copy of a probe fit for a transcript: long strings cut, very deep nesting summarised. */
function elide(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return elidedString(value.length, (n) => value.slice(0, n));
  if (value === null || typeof value !== 'object') return value;
  if (depth >= ELIDE_DEPTH) return `…(nested deeper than ${ELIDE_DEPTH} levels)`;
  if (Array.isArray(value)) return value.map((v) => elide(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, elide(v, depth + 1)]));
}

function idKey(id: unknown): string {
  return typeof id === 'string' ? `s${id}` : `n${String(id)}`;
}
