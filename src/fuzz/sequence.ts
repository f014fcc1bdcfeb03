/**
 * Stateful fuzzing: generated sequences of steps (list, walk a list's pages, call, subscribe and
 * unsubscribe, set the log level, cancel a running call, requests at once, on one session or on
 * two) on a fresh session each, run against a model of what the session has set up, with
 * fast-check's `fc.commands`. After every step the session's traffic is held to named
 * invariants; a broken one fails the sequence, which fast-check shrinks to the fewest steps that
 * still break it.
 */
import fc from 'fast-check';
import type { ClientSession } from '../harness/client-session.js';
import type { RecordedFrame, Reply } from '../harness/peer-session.js';
import { walkList, type ListMethod, type ListWalk } from '../runner/discovery.js';
import type { Finding } from '../validate/finding.js';
import { walkProblems } from '../validate/pagination.js';
import { isObject } from '../json.js';
import { describeReply } from '../harness/describe-reply.js';
import { mrtrRound } from './mrtr.js';
import { schemaViolation } from './oracles.js';
import { livenessProbe } from './send.js';
import { type FuzzRule, SEQUENCE_RULES } from './rules.js';
import { allowed, advance, describeStep, type Model, type Step } from './steps.js';
import { severityOf } from '../spec/log-levels.js';

/** A rule every step's traffic is held to. */
export type Invariant = FuzzRule;

export const INVARIANTS = SEQUENCE_RULES;

/**
 * Over HTTP, how long after unsubscribing or changing the level notifications already under way
 * are forgiven: they may travel on another stream than the answer. Over stdio one stream keeps
 * the order, so whatever follows the answer was sent after it; over HTTP so was whatever comes on
 * the stream of a request sent after that answer (a later exchange: the steps run one by one).
 */
const HTTP_GRACE_MS = 500;
/** How long a cancelled call runs before the cancel goes out. */
const CANCEL_AFTER_MS = 100;

export class InvariantBroken extends Error {
  constructor(
    readonly invariant: Invariant,
    message: string,
  ) {
    super(message);
  }
}

/** The session a sequence runs on, and what the judgement needs to remember across its steps. */
export interface Real {
  session: ClientSession;
  replyMs: number;
  /** Steps that ran (the model let them), in order: the sequence as sent. */
  ran: Step[];
  /** Invariant id → steps that exercised it. */
  exercised: Map<string, number>;
  /** Where the answer to the last unsubscribe of a URI (and to the last setLevel) stands in the session. */
  unsubscribedAt: Map<string, Since>;
  levelSetAt?: Since;
  /** Opens another session on the same server (HTTP). */
  openSecond?: () => Promise<ClientSession>;
  /** The second session, once a step opened it, and where its traffic not yet judged starts. */
  second?: { session: ClientSession; mark: number; findings: number };
  /** Why the server did not open a second session, when it did not. */
  secondRefused?: string;
  /** The walk of the paginate step being judged. */
  walk?: ListWalk;
  /** A multi round-trip rule the step being judged broke. */
  mrtrBroken?: InvariantBroken;
  /** Why the last multi round-trip step stopped before its altered retry. */
  mrtrStopped?: string;
  /** The listen step being judged was acknowledged: its requests went out beside an open subscription. */
  listening?: boolean;
}

/** A frame's index, time (ms since the session opened) and, over HTTP, exchange. */
interface Since {
  index: number;
  at: number;
  exchange?: number;
}

/** Whether a notification came after the answer `since` stood for, beyond doubt. */
function after(frame: RecordedFrame, since: Since, transport: 'stdio' | 'http'): boolean {
  if (frame.index <= since.index) return false;
  if (transport === 'stdio' || frame.at - since.at >= HTTP_GRACE_MS) return true;
  return frame.via === 'post-sse' && frame.exchange !== undefined && since.exchange !== undefined && frame.exchange > since.exchange;
}

function exercised(real: Real, invariant: Invariant): void {
  real.exercised.set(invariant.id, (real.exercised.get(invariant.id) ?? 0) + 1);
}

function isEmptyResult(reply: Reply): boolean {
  return reply.kind === 'result' && Object.keys(reply.result).every((k) => k === '_meta');
}

function notifications(frames: RecordedFrame[], method: string): Array<{ frame: RecordedFrame; params: Record<string, unknown> }> {
  return frames.flatMap((frame) => (isObject(frame.message) && frame.message.method === method && !('id' in frame.message) ? [{ frame, params: isObject(frame.message.params) ? frame.message.params : {} }] : []));
}

interface Answered {
  method: string;
  reply: Reply;
  /** Sent on the second session. */
  second?: true;
}

/** The second session, opened on first use; undefined when the server refused one (it need not serve two at once). */
async function secondSession(real: Real): Promise<ClientSession | undefined> {
  if (real.second && !real.second.session.closed) return real.second.session;
  if (!real.openSecond) throw new Error('this sequence cannot open a second session');
  let session;
  try {
    session = await real.openSecond();
  } catch (e) {
    real.secondRefused = (e as Error).message;
    return undefined;
  }
  real.second = { session, mark: session.mark, findings: session.findings.length };
  return session;
}

/** Sends the step's requests; returns their replies (a cancelled call's is not awaited). */
async function send(step: Step, real: Real): Promise<Answered[]> {
  const { session, replyMs } = real;
  const one = async (method: string, params?: unknown): Promise<Answered> => ({ method, reply: await session.request(method, params, replyMs) });
  switch (step.kind) {
    case 'ping':
      return [await one(livenessProbe(session).method)];
    case 'list':
      return [await one(step.method)];
    case 'paginate': {
      // Judged after the ping (judgeWalk); the reply that ended the walk abnormally, if any, is the step's answer.
      real.walk = await walkList(session, step.method as ListMethod);
      return real.walk.lastReply ? [{ method: step.method, reply: real.walk.lastReply }] : [];
    }
    case 'call':
      return [await one('tools/call', { name: step.tool, arguments: step.arguments })];
    case 'subscribe':
      return [await one('resources/subscribe', { uri: step.uri })];
    case 'unsubscribe':
      return [await one('resources/unsubscribe', { uri: step.uri })];
    case 'set-level':
      return [await one('logging/setLevel', { level: step.level })];
    case 'concurrent':
      return Promise.all(step.methods.map((m) => one(m)));
    case 'second-session': {
      const second = await secondSession(real);
      if (!second) return [];
      const there = async (r: { method: string; params?: unknown }): Promise<Answered> => ({ method: r.method, reply: await second.request(r.method, r.params, replyMs), second: true });
      return Promise.all([...step.requests.map((r) => one(r.method, r.params)), ...step.requests.map(there)]);
    }
    case 'cancel-call': {
      const id = session.allocateId();
      // Answered or not, the call is the server's business once cancelled; only the session's health is judged.
      const meta = { progressToken: `mcpcheck-sequence-${id}`, ...(session.era === 'stateless' ? session.requestMeta() : {}) };
      void session.requestMessage({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: step.tool, arguments: step.arguments, _meta: meta } }, replyMs);
      await session.settle(CANCEL_AFTER_MS);
      await session.notify('notifications/cancelled', { requestId: id, reason: 'mcpcheck: stateful fuzzing cancels a running call' });
      return [];
    }
    case 'listen': {
      const id = session.allocateId();
      const mark = session.mark;
      const filter = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };
      await session.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: filter, _meta: session.requestMeta() } });
      const acked = await session.waitForFrame((f) => isObject(f.message) && f.message.method === 'notifications/subscriptions/acknowledged', replyMs, mark);
      real.listening = acked !== undefined;
      const replies = await Promise.all(step.during.map((m) => one(m)));
      await session.notify('notifications/cancelled', { requestId: id, reason: 'mcpcheck: stateful fuzzing ends the subscription' });
      return replies;
    }
    case 'mrtr': {
      const round = await mrtrRound(session, step, replyMs);
      for (const rule of round.exercised) exercised(real, INVARIANTS[rule]);
      if (round.broken) real.mrtrBroken = new InvariantBroken(INVARIANTS[round.broken.rule], round.broken.message);
      if (round.stopped) real.mrtrStopped = round.stopped;
      return round.replies;
    }
  }
}

/** Runs one step and holds its traffic to the invariants; throws InvariantBroken on the first broken. */
export async function runStep(step: Step, model: Model, real: Real): Promise<void> {
  const { session } = real;
  const mark = session.mark;
  const findingsMark = session.findings.length;
  const shown = describeStep(step);
  const replies = await send(step, real);
  // No more two-session steps in this sequence: the generated ones are dropped (the model says so).
  if (real.secondRefused) model.sessions = false;
  const probe = livenessProbe(session).method;
  const ping = await session.request(probe, undefined, real.replyMs);
  exercised(real, INVARIANTS.survives);
  if (ping.kind !== 'result') {
    const invariant = step.kind === 'cancel-call' ? INVARIANTS.cancelHealthy : INVARIANTS.survives;
    throw new InvariantBroken(invariant, `after ${shown}, ${probe} got ${describeReply(ping)}`);
  }
  if (step.kind === 'cancel-call') exercised(real, INVARIANTS.cancelHealthy);
  await session.settle(5);
  const frames = session.peerFrames(mark);
  // On two sessions at once, an answer lost on either side is the same behaviour: sessions kept apart.
  const invariant = step.kind === 'second-session' ? INVARIANTS.secondSession : real.listening ? INVARIANTS.listenInterleaved : INVARIANTS.oneResponse;
  real.listening = undefined;
  judgeAnswers(replies.filter((r) => !r.second), frames, session.findings.slice(findingsMark), { shown, on: '', invariant }, real);
  const mrtr = real.mrtrBroken;
  real.mrtrBroken = undefined;
  if (mrtr) throw mrtr;
  await judgeSecondSession(replies.filter((r) => r.second), frames, model, real, shown);
  judgeWalk(real, shown);

  const answer = replies[0]?.reply;
  judgeSetUp(step, answer, real);
  // The answer's place changes what the notifications before and after it may carry.
  const index = answer && 'frame' in answer ? answer.frame : undefined;
  const answerFrame = typeof index === 'number' ? session.frames.find((f) => f.index === index) : undefined;
  const since = typeof index === 'number' ? { index, at: answerFrame?.at ?? Number.POSITIVE_INFINITY, ...(answerFrame?.exchange !== undefined ? { exchange: answerFrame.exchange } : {}) } : undefined;
  judgeNotifications(frames, model, real, shown, step, since);
  advance(step, model);
  if (step.kind === 'unsubscribe' && since) real.unsubscribedAt.set(step.uri, since);
  if (step.kind === 'set-level' && since) real.levelSetAt = since;
}

/** Each request answered once, and every answer valid. */
function judgeAnswers(replies: Answered[], frames: RecordedFrame[], findings: Finding[], where: { shown: string; on: string; invariant: Invariant }, real: Real): void {
  const { shown, on, invariant } = where;
  for (const { method, reply } of replies) {
    // Each request, a tool call too (its arguments ask for a quick one), had --case-timeout: a live server answers by then.
    if (reply.kind === 'unanswered') throw new InvariantBroken(invariant, `${method}${on} (step: ${shown}) got ${describeReply(reply)}`);
    if (reply.kind === 'timeout') throw new InvariantBroken(invariant, `${method}${on} (step: ${shown}) got no response within ${reply.waitedMs} ms, while the ping sent after the step was answered`);
  }
  const counts = new Map<unknown, number>();
  for (const f of frames) if (isObject(f.message) && !('method' in f.message) && 'id' in f.message) counts.set(f.message.id, (counts.get(f.message.id) ?? 0) + 1);
  const twice = [...counts].find(([, n]) => n > 1);
  if (twice) throw new InvariantBroken(invariant, `${twice[1]} responses with id ${JSON.stringify(twice[0])}${on} (step: ${shown})`);
  if (replies.some((r) => !silent(r.reply))) exercised(real, invariant);

  const bad = schemaViolation(findings);
  if (bad) throw new InvariantBroken(INVARIANTS.validates, `in answer to ${shown}${on}: ${bad.message}`);
  if (replies.some((r) => r.reply.kind === 'result' || r.reply.kind === 'error')) exercised(real, INVARIANTS.validates);
}

/**
 * The second session's traffic since it was last judged: its own requests answered there, once
 * each, and no update for a resource (it never subscribes to any; the first session may).
 */
async function judgeSecondSession(replies: Answered[], firstFrames: RecordedFrame[], model: Model, real: Real, shown: string): Promise<void> {
  const second = real.second;
  if (!second) return;
  if (replies.length) {
    const ping = await second.session.request('ping', undefined, real.replyMs);
    if (ping.kind === 'timeout') throw new InvariantBroken(INVARIANTS.secondSession, `after ${shown}, ping on the second session got no response, while the first session's ping was answered`);
    // A server may end a session whenever it likes (an HTTP 404 then): the next such step opens another.
    if (ping.kind !== 'result') {
      real.second = undefined;
      return;
    }
  }
  const on = ' on the second session';
  const frames = second.session.peerFrames(second.mark);
  judgeAnswers(replies, frames, second.session.findings.slice(second.findings), { shown, on, invariant: INVARIANTS.secondSession }, real);
  const leaked = notifications(frames, 'notifications/resources/updated');
  // Put to the test only while the second session had requests open (streams an update could come on) and updates were under way.
  if (leaked.length || (replies.length && notifications(firstFrames, 'notifications/resources/updated').length)) exercised(real, INVARIANTS.updatesOwnSession);
  const first = leaked[0];
  if (first) {
    const subscribed = model.subscribed.size ? `the first session is subscribed to ${[...model.subscribed].map((u) => JSON.stringify(u)).join(', ')}` : 'neither is the first session';
    throw new InvariantBroken(INVARIANTS.updatesOwnSession, `notifications/resources/updated for ${JSON.stringify(first.params.uri)}${on} (step: ${shown}), which subscribed to nothing; ${subscribed}`);
  }
  second.mark = second.session.mark;
  second.findings = second.session.findings.length;
}

/** A walk that needed cursors: each accepted, and the walk ends without listing an item twice. */
function judgeWalk(real: Real, shown: string): void {
  const walk = real.walk;
  real.walk = undefined;
  // A page that never came is the one-response invariant's (judged by then), not the cursor's.
  if (!walk || walk.cursors.length === 0 || (walk.lastReply && silent(walk.lastReply))) return;
  const problems = walkProblems(walk, describeReply);
  const at = `(after ${real.ran.length - 1} earlier step(s); step: ${shown})`;
  exercised(real, INVARIANTS.cursorAccepted);
  if (problems.broken) throw new InvariantBroken(INVARIANTS.cursorAccepted, `${problems.broken} ${at}`);
  exercised(real, INVARIANTS.pagesEnd);
  if (problems.unstable.length) throw new InvariantBroken(INVARIANTS.pagesEnd, `${problems.unstable.join('; ')} ${at}`);
}

/** Subscribing and setting the level: an empty result, whatever the session did before. */
function judgeSetUp(step: Step, reply: Reply | undefined, real: Real): void {
  const invariant = step.kind === 'subscribe' || step.kind === 'unsubscribe' ? INVARIANTS.subscribeResult : step.kind === 'set-level' ? INVARIANTS.setLevelResult : undefined;
  if (!invariant || !reply) return;
  exercised(real, invariant);
  if (!isEmptyResult(reply)) throw new InvariantBroken(invariant, `${describeStep(step)} (after ${real.ran.length - 1} earlier step(s)) got ${describeReply(reply)}, not an empty result`);
}

const beneath = (uri: string, s: string) => uri === s || uri.startsWith(s.endsWith('/') ? s : `${s}/`);

function judgeNotifications(frames: RecordedFrame[], model: Model, real: Real, shown: string, step: Step, since: Since | undefined): void {
  const transport = real.session.transport;
  // This step's own subscribe or unsubscribe takes effect at its answer; before it, the model before the step holds.
  const changed = (step.kind === 'subscribe' || step.kind === 'unsubscribe') && since ? step : undefined;
  const subscribedAt = (f: RecordedFrame) => {
    const set = new Set(model.subscribed);
    if (changed && f.index > since!.index) {
      if (changed.kind === 'subscribe') set.add(changed.uri);
      else set.delete(changed.uri);
    }
    return set;
  };
  const droppedAt = (uri: string): [string, Since] | undefined =>
    changed?.kind === 'unsubscribe' && beneath(uri, changed.uri) ? [changed.uri, since!] : [...real.unsubscribedAt].find(([s]) => beneath(uri, s));
  for (const { frame, params } of notifications(frames, 'notifications/resources/updated')) {
    const uri = typeof params.uri === 'string' ? params.uri : '';
    const now = subscribedAt(frame);
    if ([...now].some((s) => beneath(uri, s))) {
      exercised(real, INVARIANTS.updatesSubscribed);
      continue;
    }
    // A subscription may take effect before its answer is sent; an unsubscribe, only by its answer.
    if (changed?.kind === 'subscribe' && beneath(uri, changed.uri)) continue;
    const dropped = droppedAt(uri);
    if (dropped && !after(frame, dropped[1], transport)) continue;
    exercised(real, INVARIANTS.updatesSubscribed);
    throw new InvariantBroken(INVARIANTS.updatesSubscribed, `notifications/resources/updated for ${JSON.stringify(uri)} (during ${shown}) while the session is subscribed to ${now.size ? [...now].map((s) => JSON.stringify(s)).join(', ') : 'nothing'}${dropped ? ` (it unsubscribed from ${JSON.stringify(dropped[0])} earlier)` : ''}`);
  }
  const set = step.kind === 'set-level' && since ? { level: step.level, since } : model.level !== undefined && real.levelSetAt ? { level: model.level, since: real.levelSetAt } : undefined;
  if (!set) return;
  const floor = severityOf(set.level);
  for (const { frame, params } of notifications(frames, 'notifications/message')) {
    const level = severityOf(params.level);
    if (level < 0 || !after(frame, set.since, transport)) continue;
    exercised(real, INVARIANTS.levelRespected);
    if (level < floor) throw new InvariantBroken(INVARIANTS.levelRespected, `a ${String(params.level)} message (during ${shown}) after logging/setLevel ${set.level} was answered`);
  }
}

/** A step as a fast-check command: the model says when it may run; running it judges it. */
export class StepCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly step: Step) {}
  check(model: Readonly<Model>): boolean {
    return allowed(this.step, model as Model);
  }
  async run(model: Model, real: Real): Promise<void> {
    real.ran.push(this.step);
    await runStep(this.step, model, real);
  }
  toString(): string {
    return describeStep(this.step);
  }
}

/** No response came: the target left the request unanswered, or answered nothing at all in time. */
function silent(reply: Reply): boolean {
  return reply.kind === 'timeout' || reply.kind === 'unanswered';
}
