import { checkEnvelope } from './envelope.js';
import { type Finding, note, show, violation } from './finding.js';
import { findingsIn, RulesInRevision } from './in-revision.js';
import { beyondParserLimits } from './parser-limits.js';
import { type MessageContext, type Side, validateEnvelope } from './message.js';
import { allowsBatches, hasCompletionsCapability } from './revisions.js';
// initialize negotiates only the stateful era's revisions: a 2026-07-28 answer is not one.
import { isStatefulRevision as isRevision, LATEST_STATEFUL_REVISION as LATEST_REVISION, type StatefulRevision as Revision } from '../spec/revisions.js';
import { RepeatedResults } from './repeats.js';
import { type ToolInfo, toolsOf } from './tools.js';
import { notAProtocolVersion, unsupportedVersionError } from './versions.js';
import { obj, table } from '../json.js';
import { ruling } from '../spec/rulings.js';

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * A request id or progress token as a ledger key. The value itself: Map and Set keep 1 and "1"
 * apart (and, as JSON does not, 0 and -0 together), and a number key costs no string per frame.
 */
type Key = string | number;

/** Every member is always set (undefined when absent): one object shape for every request. */
interface Pending {
  method: string;
  params: Record<string, unknown> | undefined;
  frame: number;
  cancelled: boolean;
  progressToken: Key | undefined;
  /** Not a valid Request object, but its id is readable: a call all the same (ruling invalid-request-answered). */
  malformed: boolean;
  /** The frame of the peer's answer to a ping sent after this request while it was still unanswered: evidence of a live peer's silence. */
  silentBefore: number | undefined;
}

interface Progress {
  owner: Key;
  last?: number;
  /** The request became a task: its token stays valid after the CreateTaskResult (PROG-05). */
  task?: boolean;
}

/** The per-direction ledger: one side's requests as the other side sees them. */
class Ledger {
  readonly used = new Set<Key>();
  readonly pending = new Map<Key, Pending>();
  readonly answered = new Set<Key>();
  /** Frames from this side that could not be read as requests: an error without id may answer them. */
  unreadable = 0;
  /** The request ids of each batch this side sent: an array of their answers, or one error without id refusing it whole, is the other side's reaction. */
  readonly batches: Array<Set<Key>> = [];
  readonly progress = new Map<Key, Progress>();
}

function isKey(v: unknown): v is Key {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

function other(side: Side): Side {
  return side === 'client' ? 'server' : 'client';
}

/** Which capability a client→server request needs from the server (LIFE-OP-02). */
function serverCapabilityFor(method: string): string[] | undefined {
  if (method.startsWith('tools/')) return ['tools'];
  if (method === 'resources/subscribe' || method === 'resources/unsubscribe') return ['resources', 'subscribe'];
  if (method.startsWith('resources/')) return ['resources'];
  if (method.startsWith('prompts/')) return ['prompts'];
  if (method === 'logging/setLevel') return ['logging'];
  if (method === 'completion/complete') return ['completions'];
  return undefined;
}

function clientCapabilityFor(method: string): string[] | undefined {
  if (method === 'sampling/createMessage') return ['sampling'];
  if (method === 'roots/list') return ['roots'];
  if (method === 'elicitation/create') return ['elicitation'];
  return undefined;
}

const LIST_CHANGED: ReadonlyMap<string, [Side, string[]]> = table({
  'notifications/tools/list_changed': ['server', ['tools', 'listChanged']],
  'notifications/resources/list_changed': ['server', ['resources', 'listChanged']],
  'notifications/prompts/list_changed': ['server', ['prompts', 'listChanged']],
  'notifications/resources/updated': ['server', ['resources', 'subscribe']],
  'notifications/roots/list_changed': ['client', ['roots', 'listChanged']],
});

function declared(caps: Record<string, unknown> | undefined, path: string[]): boolean {
  let node: unknown = caps;
  for (const p of path) {
    const v = obj(node)?.[p];
    if (v === false || v === undefined || v === null) return false;
    node = v;
  }
  return true;
}

/**
 * The pages of one pagination walk, to tell a page served again from a new one. A page can only
 * repeat an earlier one if one of its names was seen already, so the pages' text is only built
 * (once each) when a name recurs; a walk without repeats never serialises a page.
 */
class Pages {
  private readonly pages: Array<{ items: unknown; text?: string | undefined }> = [];

  /** Records the page; true when the same page came earlier in the walk. */
  seenBefore(items: unknown, nameRecurs: boolean): boolean {
    const entry: { items: unknown; text?: string | undefined } = { items };
    if (nameRecurs) {
      entry.text = JSON.stringify(items);
      for (const p of this.pages) {
        if (!('text' in p)) p.text = JSON.stringify(p.items);
        if (p.text === entry.text) return true;
      }
    }
    this.pages.push(entry);
    return false;
  }
}

/** LIFE-INIT-05: until notifications/initialized, the one request a server should send is ping. */
export function mayRequestBeforeInitialized(method: string): boolean {
  return method === 'ping';
}

export interface SessionValidatorOptions {
  transport?: 'stdio' | 'http';
  /**
   * HTTP traffic recorded without status codes: an error without id may be the body of an HTTP
   * error status (HTTP-POST-04 allows that), so it is noted rather than failed.
   */
  httpStatusUnknown?: boolean;
}

/**
 * The rules that need a whole session: lifecycle order, version negotiation, id bookkeeping
 * per direction (client and server id spaces overlap legally), capabilities honoured both ways,
 * cancellation, progress and log levels. Feed it every frame in order; it does no I/O.
 */
export class SessionValidator {
  /**
   * Requirement ids each side's own frames gave a chance to fail: a pass means something only for
   * these, and only for that side (mcpcheck's frames exercise client rules, never the server's).
   * Rules the session's revision lacks are never added, as its findings are filtered where they are returned.
   */
  readonly appliedBy: Readonly<Record<Side, Set<string>>> = { client: new RulesInRevision(() => this.revision), server: new RulesInRevision(() => this.revision) };
  /** Who sent the frame being judged. */
  private currentSide: Side = 'client';
  revision: Revision = LATEST_REVISION;
  clientCapabilities?: Record<string, unknown>;
  serverCapabilities?: Record<string, unknown>;
  serverInfo?: Record<string, unknown>;
  requestedVersion?: string;
  negotiatedVersion?: string;
  /** The frame of the InitializeResult that settled the version. */
  negotiationFrame?: number;
  private currentFrame = 0;
  private readonly clientLedger = new Ledger();
  private readonly serverLedger = new Ledger();
  private readonly tools = new Map<string, ToolInfo>();
  private readonly repeats = new RepeatedResults();
  /** Task id → the task-augmented request, so tasks/result payloads are judged as its result. */
  private readonly tasks = new Map<string, { method: string; params?: Record<string, unknown> }>();
  private toolWalk = new Set<string>();
  private toolPages = new Pages();
  /** elicitationIds of URL-mode elicitations the server sent (ELIC-CMPL-01). */
  private readonly elicitations = new Set<string>();
  /** URIs the client subscribed to (and the server accepted), for RES-SUB-02. */
  private readonly subscriptions = new Set<string>();
  private clientSpoke = false;
  private initId?: Key;
  private initAnswered = false;
  private initialized = false;
  private logLevel?: number;

  constructor(private readonly options: SessionValidatorOptions = {}) {}

  /** The ids the frame being judged exercises go to its sender's set. */
  private get applied(): Set<string> {
    return this.currentSide === 'client' ? this.appliedBy.client : this.appliedBy.server;
  }

  /** A side's ledger (a conditional, not a lookup by the side's name, on every frame). */
  private ledger(side: Side): Ledger {
    return side === 'client' ? this.clientLedger : this.serverLedger;
  }

  /**
   * A frame whose JSON parsed: `raw` is its exact text when its bytes matter, `source` any text
   * that holds its JSON (a transcript line), which spares judging the message what its text shows it lacks.
   */
  message(from: Side, message: unknown, frame: number, raw?: string, source?: string): Finding[] {
    this.currentFrame = frame;
    this.currentSide = from;
    if (Array.isArray(message) && message.length > 0 && allowsBatches(this.revision)) {
      const findings: Finding[] = [];
      if (raw !== undefined) this.checkRawText(from, raw, findings);
      for (const f of findings) f.frame = frame;
      message.forEach((m, i) => findings.push(...this.message(from, m, frame).map((f) => ({ ...f, pointer: `/${i}${f.pointer}` }))));
      this.ledger(from).batches.push(new Set(message.map((m) => obj(m)?.id).filter(isKey)));
      return findingsIn(findings, this.revision);
    }
    if (Array.isArray(message) && this.batchAnswered(from, message)) {
      const findings: Finding[] = [note('BASE-MSG-05', `an array of ${message.length} response(s) answering the batch mcpcheck sent, each request once: the server's reaction to a batch, judged under ROBUST-05, not a batch of its own (${ruling('batch-reaction').cite})`)];
      findings[0]!.frame = frame;
      message.forEach((m, i) => findings.push(...this.message(from, m, frame).map((f) => ({ ...f, pointer: `/${i}${f.pointer}` }))));
      return findingsIn(findings, this.revision);
    }
    const env = checkEnvelope(message);
    const mine = this.ledger(from);
    const theirs = this.ledger(other(from));
    let answered: Pending | undefined;
    if ((env.kind === 'result' || env.kind === 'error') && env.id !== undefined) answered = theirs.pending.get(env.id);
    const request = answered ? this.judgedAs(answered) : undefined;
    const ctx: MessageContext = { from, revision: this.revision, request, tools: this.tools, applied: this.applied, source: source ?? raw };
    const repeat = env.kind === 'result' ? this.repeats.repeated(from, this.revision, request, env.msg!, ctx.source) : undefined;
    let findings: Finding[];
    if (repeat) {
      findings = env.findings;
      findings.push(...repeat.findings);
    } else {
      const own = env.findings.length;
      findings = validateEnvelope(env, message, ctx);
      if (env.kind === 'result') this.repeats.remember(from, this.revision, request, env.msg!, findings.slice(own), ctx.source);
    }
    if (raw !== undefined) {
      // What the text itself shows comes first, as it came first on the wire.
      const text: Finding[] = [];
      this.checkRawText(from, raw, text);
      if (text.length > 0) findings.unshift(...text);
    }
    switch (env.kind) {
      case 'request':
        this.onRequest(from, env.method!, env.id!, obj(env.msg!.params), frame, findings);
        break;
      case 'notification':
        this.onNotification(from, env.method!, obj(env.msg!.params), findings);
        break;
      case 'result':
      case 'error':
        // A repeat is kept as the response it repeats: what the session holds of it (listed tools,
        // their schemas) is then what was judged and cached before.
        this.onResponse(from, env.kind, env.id, repeat?.message ?? env.msg!, findings);
        break;
      case 'invalid': {
        // The peer may answer a malformed request with an error without id, or with the id it could read.
        mine.unreadable++;
        // A lenient peer may even run the requests inside a batch; their answers then carry those ids.
        if (Array.isArray(message)) {
          for (const m of message) this.expectAnswer(mine, obj(m)?.id, frame);
          mine.batches.push(new Set(message.map((m) => obj(m)?.id).filter(isKey)));
        }
        this.expectAnswer(mine, env.msg?.id, frame);
        break;
      }
    }
    for (const f of findings) f.frame = frame;
    return findingsIn(findings, this.revision);
  }

  /**
   * Whether `message`, an array from `from`, is made of exactly one response to each request of a
   * batch the other side sent (ruling batch-reaction); that batch is then answered.
   */
  private batchAnswered(from: Side, message: unknown[]): boolean {
    const batches = this.ledger(other(from)).batches;
    const ids = message.map((m) => obj(m)).map((m) => (m && !('method' in m) && ('result' in m || 'error' in m) && isKey(m.id) ? m.id : undefined));
    const i = batches.findIndex((b) => ids.length === b.size && ids.every((id) => id !== undefined && b.has(id)) && new Set(ids).size === ids.length);
    if (i < 0) return false;
    batches.splice(i, 1);
    return true;
  }

  /** Records a malformed request's readable id so an answer to it is not taken for a stray response. */
  private expectAnswer(ledger: Ledger, id: unknown, frame: number): void {
    if (isKey(id)) {
      ledger.pending.set(id, { method: '(malformed request)', params: undefined, frame, cancelled: false, progressToken: undefined, malformed: true, silentBefore: undefined });
    }
  }

  /**
   * An error without id may answer a pending request that a parser may refuse (ruling
   * parser-limits): the oldest such request counts as answered, with a note saying why.
   */
  private answersUnparsable(requester: Ledger, findings: Finding[]): boolean {
    for (const [id, p] of requester.pending) {
      const beyond = beyondParserLimits(p.params);
      if (beyond === undefined) continue;
      requester.pending.delete(id);
      requester.answered.add(id);
      findings.push(note('BASE-ERR-01', `an error without id answering request ${show(id)} (frame ${p.frame}), ${beyond}: a message the server could not parse, whose error has no id to carry (${ruling('parser-limits').cite})`, '/id'));
      return true;
    }
    return false;
  }

  /**
   * An error without id may refuse a whole batch none of whose requests was answered: JSON-RPC 2.0
   * §6 answers a batch the server cannot take as one with a single Response, whose id it cannot
   * know. Whether the batch should have been processed is ROBUST-05's to judge (ruling batch-reaction).
   */
  private refusesBatch(requester: Ledger, findings: Finding[]): boolean {
    const i = requester.batches.findIndex((b) => b.size > 0 && [...b].every((id) => requester.pending.has(id)));
    if (i < 0) return false;
    const [batch] = requester.batches.splice(i, 1);
    for (const id of batch!) {
      requester.pending.delete(id);
      requester.answered.add(id);
    }
    findings.push(note('BASE-ERR-01', `an error without id refusing the batch of ${batch!.size} request(s) as a whole, as JSON-RPC 2.0 §6 answers a batch it cannot take: no id to carry; whether the batch should have been processed is judged under ROBUST-05 (${ruling('batch-reaction').cite})`, '/id'));
    return true;
  }

  /** The request whose result a response is: for tasks/result, the task-augmented request itself. */
  private judgedAs(p: Pending): { method: string; params?: Record<string, unknown> } {
    if (p.method === 'tasks/result') {
      const taskId = p.params?.taskId;
      const original = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
      if (original) {
        const { task: _task, ...params } = original.params ?? {};
        return { method: original.method, params };
      }
    }
    return p;
  }

  /** A frame that is not JSON at all (kept raw in a transcript, or seen raw on the wire). */
  raw(from: Side, text: string, frame: number): Finding[] {
    this.currentSide = from;
    const findings: Finding[] = [];
    this.checkRawText(from, text, findings);
    this.applied.add('BASE-MSG-01');
    const rule = this.options.transport === 'stdio' ? (from === 'server' ? 'STDIO-OUT-01' : 'STDIO-IN-01') : 'BASE-MSG-01';
    this.applied.add(rule);
    findings.push(violation(rule, `expected a JSON-RPC message; got a frame that is not JSON: ${show(text, 200)}`));
    this.ledger(from).unreadable++;
    for (const f of findings) f.frame = frame;
    return findingsIn(findings, this.revision);
  }

  /** A frame the transport already reported as unreadable: only the bookkeeping, no second finding. */
  unreadableFrame(from: Side): void {
    this.ledger(from).unreadable++;
  }

  /**
   * `requester`'s request `id` had no response when the peer answered a ping sent after it (in frame
   * `pingAnswer`): the peer was alive and left it unanswered. Judged at the end, as a late answer
   * or a cancellation may still come.
   */
  leftUnanswered(requester: Side, id: unknown, pingAnswer: number): void {
    const pending = isKey(id) ? this.ledger(requester).pending.get(id) : undefined;
    if (pending && pending.silentBefore === undefined) pending.silentBefore = pingAnswer;
  }

  /** Findings that only the end of the session shows. */
  end(): Finding[] {
    const findings: Finding[] = [];
    for (const side of ['client', 'server'] as const) {
      const open = [...this.ledger(side).pending.values()].filter((p) => !p.cancelled);
      const silent = open.filter((p) => p.silentBefore !== undefined);
      if (silent.length > 0) findings.push(this.leftSilent(side, silent));
      // A malformed message no ping showed unanswered may have been answered by an error without id.
      const unproven = open.filter((p) => p.silentBefore === undefined && !p.malformed);
      if (unproven.length > 0) {
        findings.push(note('BASE-ID-04', `${unproven.length} ${side} request(s) never answered before the session ended: ${listed(unproven)}`));
      }
    }
    if (this.initAnswered && !this.initialized) {
      findings.push(note('LIFE-INIT-03', 'the session ended without notifications/initialized from the client'));
    }
    return findingsIn(findings, this.revision);
  }

  /** BASE-ID-04 for the requests `requester` sent that the other side, alive, never answered nor saw cancelled. */
  private leftSilent(requester: Side, silent: Pending[]): Finding {
    const peer = other(requester);
    this.appliedBy[peer].add('BASE-ID-04');
    const malformed = silent.some((p) => p.malformed) ? ` (a message with a readable id is a call even when it is no valid Request object: ${ruling('invalid-request-answered').cite})` : '';
    const finding = violation(
      'BASE-ID-04',
      `expected exactly one response to every request that was not cancelled; the ${peer} never answered ${silent.length} ${requester} request(s), though it answered a ping sent after each: ${listed(silent)}${malformed}`,
    );
    // The evidence is the peer's own frame: its answer to the ping the request went unanswered before.
    finding.frame = silent[0]!.silentBefore;
    return finding;
  }

  private checkRawText(from: Side, raw: string, findings: Finding[]): void {
    if (this.options.transport === 'stdio') {
      this.applied.add('STDIO-FRAME-01');
      if (/[\r\n]/.test(raw.replace(/\r$/, ''))) {
        findings.push(violation('STDIO-FRAME-01', `expected one message per line with no embedded newline; the ${from}'s frame spans several lines: ${show(raw, 120)}`));
      }
    }
    this.applied.add('BASE-MSG-02');
    if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(raw)) {
      findings.push(violation('BASE-MSG-02', 'expected UTF-8 text; the frame holds a lone surrogate, which no UTF-8 byte sequence encodes'));
    }
  }

  private onRequest(from: Side, method: string, id: string | number, params: Record<string, unknown> | undefined, frame: number, findings: Finding[]): void {
    const ledger = this.ledger(from);
    this.applied.add('BASE-ID-03');
    if (ledger.used.has(id)) {
      findings.push(violation('BASE-ID-03', `expected the ${from} never to reuse a request id in a session; id ${show(id)} was used before`, '/id'));
    }
    ledger.used.add(id);
    if (from === 'client') this.onClientRequestOrder(method, params, id, findings);
    else {
      this.applied.add('LIFE-INIT-05');
      if (!this.initialized && !mayRequestBeforeInitialized(method)) {
        findings.push(violation('LIFE-INIT-05', `expected the server to send no request other than ping before notifications/initialized; it sent ${show(method)}`, '/method'));
      }
    }
    this.checkCapabilityUse(from, method, params, findings);
    const pending: Pending = { method, params, frame, cancelled: false, progressToken: undefined, malformed: false, silentBefore: undefined };
    const token = obj(params?._meta)?.progressToken;
    if (typeof token === 'string' || typeof token === 'number') {
      this.applied.add('PROG-01');
      const current = ledger.progress.get(token);
      if (current && ledger.pending.has(current.owner)) {
        findings.push(violation('PROG-01', `expected progress tokens unique across the ${from}'s active requests; ${show(token)} is already in use`, '/params/_meta/progressToken'));
      }
      ledger.progress.set(token, { owner: id });
      pending.progressToken = token;
    }
    ledger.pending.set(id, pending);
  }

  private onClientRequestOrder(method: string, params: Record<string, unknown> | undefined, id: Key, findings: Finding[]): void {
    if (!this.clientSpoke) {
      this.applied.add('LIFE-INIT-01');
      if (method !== 'initialize') {
        findings.push(violation('LIFE-INIT-01', `expected initialize as the client's first message; got ${show(method)}`, '/method'));
      }
    }
    this.clientSpoke = true;
    if (method === 'initialize') {
      if (this.initId === undefined) {
        this.initId = id;
        const v = params?.protocolVersion;
        if (typeof v === 'string') {
          this.requestedVersion = v;
          this.applied.add('LIFE-VER-01');
          if (isRevision(v)) this.revision = v;
          else findings.push(note('LIFE-VER-01', `the client asked for protocol version ${show(v)}, which mcpcheck does not know; validating with ${this.revision}`, '/params/protocolVersion'));
        }
        this.clientCapabilities = obj(params?.capabilities);
      }
      return;
    }
    if (method === 'ping') return;
    this.applied.add('LIFE-INIT-04');
    if (!this.initAnswered) {
      findings.push(violation('LIFE-INIT-04', `expected no request other than ping before the initialize response; the client sent ${show(method)}`, '/method'));
    } else if (!this.initialized) {
      this.applied.add('LIFE-INIT-03');
      findings.push(violation('LIFE-INIT-03', `expected notifications/initialized after the initialize response and before other requests; the client sent ${show(method)} first`, '/method'));
    }
  }

  /** LIFE-OP-02 and the feature rules that name a capability. */
  private checkCapabilityUse(from: Side, method: string, params: Record<string, unknown> | undefined, findings: Finding[]): void {
    if (!this.initAnswered) return;
    const peer = from === 'client' ? this.serverCapabilities : this.clientCapabilities;
    const needed = from === 'client' ? serverCapabilityFor(method) : clientCapabilityFor(method);
    if (method.startsWith('tasks/')) {
      this.applied.add('LIFE-OP-02');
      const sub = method === 'tasks/list' ? ['tasks', 'list'] : method === 'tasks/cancel' ? ['tasks', 'cancel'] : ['tasks'];
      if (!declared(peer, sub)) findings.push(violation('LIFE-OP-02', `expected ${method} only towards a peer that declared ${sub.join('.')}; the ${other(from)} did not`, '/method'));
      return;
    }
    if (!needed) return;
    // 2024-11-05 had completion/complete but no capability to declare it.
    if (needed[0] === 'completions' && !hasCompletionsCapability(this.revision)) return;
    this.applied.add('LIFE-OP-02');
    if (!declared(peer, needed)) {
      findings.push(violation('LIFE-OP-02', `expected ${show(method)} only when the ${other(from)} declared the ${needed.join('.')} capability; it did not`, '/method'));
      return;
    }
    if (method === 'sampling/createMessage' && params) {
      const context = params.includeContext;
      if (context === 'thisServer' || context === 'allServers') {
        this.applied.add('SAMP-CTX-01');
        findings.push(
          declared(peer, ['sampling', 'context'])
            ? note('SAMP-CTX-01', `includeContext ${show(context)} is soft-deprecated; servers avoid it`, '/params/includeContext')
            : violation('SAMP-CTX-01', `expected no includeContext ${show(context)} towards a client without sampling.context`, '/params/includeContext'),
        );
      }
      this.applied.add('SAMP-TOOLS-01');
      if (('tools' in params || 'toolChoice' in params) && !declared(peer, ['sampling', 'tools'])) {
        findings.push(violation('SAMP-TOOLS-01', 'expected no tools or toolChoice in a sampling request to a client without sampling.tools; the request has them', '/params'));
      }
    }
    if (method === 'elicitation/create' && params) {
      if (params.mode === 'url' && typeof params.elicitationId === 'string') this.elicitations.add(params.elicitationId);
      this.applied.add('ELIC-CAP-02');
      const elicitation = obj(peer?.elicitation) ?? {};
      const formOnly = Object.keys(elicitation).length === 0;
      const mode = params.mode === 'url' ? 'url' : 'form';
      if (!(mode in elicitation) && !(formOnly && mode === 'form')) {
        findings.push(violation('ELIC-CAP-02', `expected only elicitation modes the client declared; got a ${mode}-mode request, the client declared ${show(Object.keys(elicitation))}${formOnly ? ' (empty = form only)' : ''}`, '/params/mode'));
      }
    }
  }

  private onNotification(from: Side, method: string, params: Record<string, unknown> | undefined, findings: Finding[]): void {
    switch (method) {
      case 'notifications/initialized':
        if (from === 'client') {
          this.applied.add('LIFE-INIT-03');
          if (!this.initAnswered) findings.push(violation('LIFE-INIT-03', 'expected notifications/initialized only after a successful initialize response; it came before', '/method'));
          this.initialized = true;
        }
        return;
      case 'notifications/cancelled':
        this.onCancel(from, params, findings);
        return;
      case 'notifications/progress':
        this.onProgress(from, params, findings);
        return;
      case 'notifications/message':
        if (from === 'server') this.onLog(params, findings);
        return;
      case 'notifications/resources/updated':
        if (from === 'server') this.onResourceUpdated(params, findings);
        break;
      case 'notifications/elicitation/complete': {
        const id = params?.elicitationId;
        if (from !== 'server' || typeof id !== 'string') return;
        this.applied.add('ELIC-CMPL-01');
        if (!this.elicitations.has(id)) {
          findings.push(violation('ELIC-CMPL-01', `expected elicitation/complete only for a URL-mode elicitation sent in this session; ${show(id)} is none of them`, '/params/elicitationId'));
        }
        return;
      }
    }
    const rule = LIST_CHANGED.get(method);
    if (rule && rule[0] === from && this.initAnswered) {
      this.applied.add('LIFE-OP-02');
      const caps = from === 'server' ? this.serverCapabilities : this.clientCapabilities;
      if (!declared(caps, rule[1])) {
        findings.push(violation('LIFE-OP-02', `expected ${method} only from a ${from} that declared ${rule[1].join('.')}; it did not`, '/method'));
      }
    }
  }

  /** RES-SUB-02: updates only for subscribed URIs (or resources beneath one). */
  private onResourceUpdated(params: Record<string, unknown> | undefined, findings: Finding[]): void {
    const uri = params?.uri;
    // Without the subscribe capability the update is LIFE-OP-02's to judge: no one could subscribe.
    if (typeof uri !== 'string' || !declared(this.serverCapabilities, ['resources', 'subscribe'])) return;
    this.applied.add('RES-SUB-02');
    const covered = [...this.subscriptions].some((s) => uri === s || uri.startsWith(s.endsWith('/') ? s : s + '/'));
    if (!covered) {
      findings.push(violation('RES-SUB-02', `expected resources/updated only for resources the client subscribed to; ${show(uri)} was never subscribed${this.subscriptions.size ? ` (subscribed: ${show([...this.subscriptions].slice(0, 5))})` : ''}`, '/params/uri'));
    }
  }

  private onCancel(from: Side, params: Record<string, unknown> | undefined, findings: Finding[]): void {
    const id = params?.requestId;
    this.applied.add('CANCEL-04');
    if (id === undefined) {
      findings.push(violation('CANCEL-04', 'expected requestId when cancelling an ordinary request; notifications/cancelled has none', '/params'));
      return;
    }
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const ledger = this.ledger(from);
    this.applied.add('CANCEL-01');
    if (!ledger.used.has(id)) {
      findings.push(violation('CANCEL-01', `expected notifications/cancelled to name one of the ${from}'s own earlier requests; ${show(id)} is not one`, '/params/requestId'));
    } else if (ledger.answered.has(id)) {
      findings.push(note('CANCEL-01', `cancelled request ${show(id)} had already been answered (a race the spec allows)`, '/params/requestId'));
    }
    if (from === 'client') {
      this.applied.add('CANCEL-02');
      if (id === this.initId) findings.push(violation('CANCEL-02', 'expected the client never to cancel initialize; it did', '/params/requestId'));
    }
    const pending = ledger.pending.get(id);
    if (pending) pending.cancelled = true;
  }

  private onProgress(from: Side, params: Record<string, unknown> | undefined, findings: Finding[]): void {
    const token = params?.progressToken;
    if (typeof token !== 'string' && typeof token !== 'number') return;
    const requester = this.ledger(other(from));
    const entry = requester.progress.get(token);
    this.applied.add('PROG-04');
    const request = entry ? requester.pending.get(entry.owner) : undefined;
    if (!entry || (!request && !entry.task)) {
      const why = entry ? 'its request has already been answered' : `no ${other(from)} request carries that token`;
      findings.push(violation('PROG-04', `expected progress only for an active request; token ${show(token)}: ${why}`, '/params/progressToken'));
      return;
    }
    const progress = params?.progress;
    if (typeof progress !== 'number') return;
    this.applied.add('PROG-02');
    if (entry.last !== undefined && !(progress > entry.last)) {
      findings.push(violation('PROG-02', `expected progress to increase with every notification; token ${show(token)} went from ${entry.last} to ${progress}`, '/params/progress'));
    }
    entry.last = progress;
  }

  private onLog(params: Record<string, unknown> | undefined, findings: Finding[]): void {
    this.applied.add('LOG-CAP-01');
    if (this.initAnswered && !declared(this.serverCapabilities, ['logging'])) {
      findings.push(violation('LOG-CAP-01', 'expected notifications/message only from a server that declared the logging capability; it did not', '/method'));
    }
    const level = LOG_LEVELS.indexOf(String(params?.level));
    if (this.logLevel !== undefined && level >= 0) {
      this.applied.add('LOG-SET-02');
      if (level < this.logLevel) {
        findings.push(violation('LOG-SET-02', `expected only messages at ${LOG_LEVELS[this.logLevel]} or more severe after logging/setLevel; got ${show(params?.level)}`, '/params/level'));
      }
    }
  }

  private onResponse(from: Side, kind: 'result' | 'error', id: string | number | undefined, msg: Record<string, unknown>, findings: Finding[]): void {
    const requester = this.ledger(other(from));
    const rule = kind === 'error' ? 'BASE-ERR-01' : 'BASE-RES-01';
    this.applied.add(rule);
    if (id === undefined) {
      if (kind === 'error') {
        if (requester.unreadable > 0) requester.unreadable--;
        else if (this.answersUnparsable(requester, findings)) return;
        else if (this.refusesBatch(requester, findings)) return;
        else if (this.options.httpStatusUnknown) findings.push(note('BASE-ERR-01', 'an error response without id: over HTTP it may be the body of an error status (HTTP-POST-04), which a transcript does not record, so it is not judged', '/id'));
        else findings.push(violation('BASE-ERR-01', 'expected the error response to carry the id of the failed request; it has none, and no unreadable request is waiting for an answer', '/id'));
      }
      return;
    }
    const pending = requester.pending.get(id);
    this.applied.add('BASE-ID-04');
    if (!pending) {
      if (requester.answered.has(id)) findings.push(violation('BASE-ID-04', `expected exactly one response per request; request ${show(id)} was already answered`, '/id'));
      else findings.push(violation(rule, `expected a response to repeat the id of an outstanding ${other(from)} request; no ${other(from)} request has id ${show(id)}`, '/id'));
      return;
    }
    requester.pending.delete(id);
    requester.answered.add(id);
    const becameTask = kind === 'result' && obj(pending.params?.task) !== undefined;
    if (pending.progressToken !== undefined) {
      const entry = requester.progress.get(pending.progressToken);
      if (becameTask && entry) entry.task = true;
      else requester.progress.delete(pending.progressToken);
    }
    if (becameTask) {
      const taskId = obj(obj(msg.result)?.task)?.taskId;
      if (typeof taskId === 'string') this.tasks.set(taskId, { method: pending.method, ...(pending.params ? { params: pending.params } : {}) });
      return;
    }
    if (kind === 'result') this.onResult(pending, obj(msg.result), findings);
    else if (pending.method === 'initialize' && id === this.initId) this.onInitializeError(msg, findings);
  }

  private onResult(request: Pending, result: Record<string, unknown> | undefined, findings: Finding[]): void {
    if (!result) return;
    switch (request.method) {
      case 'initialize':
        if (!this.initAnswered) this.onInitializeResult(result, findings);
        break;
      case 'tools/list': {
        this.applied.add('TOOL-NAME-03');
        if (!request.params?.cursor) {
          this.toolWalk = new Set();
          this.toolPages = new Pages();
        }
        const tools = toolsOf(result);
        // A page seen before in this walk is a pagination loop (PAGE-05), not a duplicate name.
        if (this.toolPages.seenBefore(result.tools, tools.some((t) => this.toolWalk.has(t.name)))) break;
        for (const tool of tools) {
          if (this.toolWalk.has(tool.name) && !findings.some((f) => f.requirements[0] === 'TOOL-NAME-03')) {
            findings.push(violation('TOOL-NAME-03', `expected unique tool names across all pages; ${show(tool.name)} was listed on an earlier page`, '/result/tools'));
          }
          this.toolWalk.add(tool.name);
          this.tools.set(tool.name, tool);
        }
        break;
      }
      case 'tools/call': {
        const embedded = Array.isArray(result.content) && result.content.some((b) => obj(b)?.type === 'resource');
        if (!embedded) break;
        this.applied.add('TOOL-CONT-02');
        if (!declared(this.serverCapabilities, ['resources'])) {
          findings.push(violation('TOOL-CONT-02', 'expected a server that returns embedded resources to declare the resources capability; this one did not', '/result/content'));
        }
        break;
      }
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const uri = request.params?.uri;
        if (typeof uri !== 'string') break;
        if (request.method === 'resources/subscribe') this.subscriptions.add(uri);
        else this.subscriptions.delete(uri);
        break;
      }
      case 'logging/setLevel': {
        const level = LOG_LEVELS.indexOf(String(request.params?.level));
        if (level >= 0) this.logLevel = level;
        break;
      }
    }
  }

  private onInitializeResult(result: Record<string, unknown>, findings: Finding[]): void {
    this.initAnswered = true;
    this.serverCapabilities = obj(result.capabilities);
    this.serverInfo = obj(result.serverInfo);
    const v = result.protocolVersion;
    if (typeof v !== 'string') return;
    this.negotiatedVersion = v;
    this.negotiationFrame = this.currentFrame;
    // An answer that differs from the request says the requested version is unsupported (LIFE-VER-04);
    // one that is no protocol version at all cannot be a version the server supports, whatever was asked.
    const problem = notAProtocolVersion(v);
    if (v !== this.requestedVersion || problem !== undefined) this.applied.add('LIFE-VER-04');
    if (problem !== undefined) {
      findings.push(violation('LIFE-VER-04', `expected the server to answer with a protocol version it supports${this.requestedVersion !== undefined ? ` (asked for ${show(this.requestedVersion)})` : ''}; ${problem}`, '/result/protocolVersion'));
    }
    if (isRevision(v)) this.revision = v;
    else findings.push(note('LIFE-OP-01', `the server chose protocol version ${show(v)}, which mcpcheck does not know; validating with ${this.revision}`, '/result/protocolVersion'));
  }

  private onInitializeError(msg: Record<string, unknown>, findings: Finding[]): void {
    const requested = this.requestedVersion;
    const error = obj(msg.error);
    const aboutVersion = /version/i.test(String(error?.message ?? '')) || obj(error?.data)?.supported !== undefined;
    if (requested !== undefined && (!isRevision(requested) || aboutVersion)) {
      this.applied.add('LIFE-VER-04');
      findings.push(unsupportedVersionError(requested, `error ${show(error?.code)} ${show(error?.message)}`));
    }
  }
}

/** Up to five requests, each with its frame, for a message. */
function listed(requests: Pending[]): string {
  return requests.slice(0, 5).map((p) => `${p.method} (frame ${p.frame})`).join(', ') + (requests.length > 5 ? ', …' : '');
}
