/**
 * Stateful fuzzing: generated sequences of steps (list, call, subscribe and unsubscribe, set the
 * log level, cancel a running call, requests at once) on a fresh session each, run against a
 * model of what the session has set up, with fast-check's `fc.commands`. After every step the
 * session's traffic is held to named invariants; a broken one fails the sequence, which
 * fast-check shrinks to the fewest steps that still break it.
 */
import fc from 'fast-check';
import type { ClientSession } from '../harness/client-session.js';
import type { RecordedFrame, Reply } from '../harness/peer-session.js';
import { isObject } from '../json.js';
import { describeReply } from '../runner/checks.js';
import { schemaViolation } from './oracles.js';
import { type FuzzRule, SEQUENCE_RULES } from './rules.js';
import { allowed, advance, describeStep, LOG_LEVELS, type LogLevel, type Model, type Step } from './steps.js';

/** A rule every step's traffic is held to. */
export type Invariant = FuzzRule;

export const INVARIANTS = SEQUENCE_RULES;

/**
 * Over HTTP, how long after unsubscribing or changing the level notifications already under way
 * are forgiven: they may travel on another stream than the answer. Over stdio one stream keeps
 * the order, so whatever follows the answer was sent after it.
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
}

/** A frame's index and time (ms since the session opened). */
interface Since {
  index: number;
  at: number;
}

/** Whether a notification came after the answer `since` stood for, beyond doubt. */
function after(frame: RecordedFrame, since: Since, transport: 'stdio' | 'http'): boolean {
  return frame.index > since.index && (transport === 'stdio' || frame.at - since.at >= HTTP_GRACE_MS);
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

/** Sends the step's requests; returns their replies (a cancelled call's is not awaited). */
async function send(step: Step, real: Real): Promise<Array<{ method: string; reply: Reply }>> {
  const { session, replyMs } = real;
  const one = async (method: string, params?: unknown) => ({ method, reply: await session.request(method, params, replyMs) });
  switch (step.kind) {
    case 'ping':
      return [await one('ping')];
    case 'list':
      return [await one(step.method)];
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
    case 'cancel-call': {
      const id = session.allocateId();
      // Answered or not, the call is the server's business once cancelled; only the session's health is judged.
      void session.requestMessage({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: step.tool, arguments: step.arguments, _meta: { progressToken: `mcpcheck-sequence-${id}` } } }, replyMs);
      await session.settle(CANCEL_AFTER_MS);
      await session.notify('notifications/cancelled', { requestId: id, reason: 'mcpcheck: stateful fuzzing cancels a running call' });
      return [];
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
  const ping = await session.request('ping', undefined, real.replyMs);
  exercised(real, INVARIANTS.survives);
  if (ping.kind !== 'result') {
    const invariant = step.kind === 'cancel-call' ? INVARIANTS.cancelHealthy : INVARIANTS.survives;
    throw new InvariantBroken(invariant, `after ${shown}, ping got ${describeReply(ping)}`);
  }
  if (step.kind === 'cancel-call') exercised(real, INVARIANTS.cancelHealthy);
  await session.settle(5);
  const frames = session.peerFrames(mark);

  for (const { method, reply } of replies) {
    // A tool may still be working when ping is answered; any other method is answered by then.
    if (reply.kind === 'timeout' && method !== 'tools/call') throw new InvariantBroken(INVARIANTS.oneResponse, `${method} (in ${shown}) got no response, while the ping sent after it was answered`);
  }
  const counts = new Map<unknown, number>();
  for (const f of frames) if (isObject(f.message) && !('method' in f.message) && 'id' in f.message) counts.set(f.message.id, (counts.get(f.message.id) ?? 0) + 1);
  const twice = [...counts].find(([, n]) => n > 1);
  if (twice) throw new InvariantBroken(INVARIANTS.oneResponse, `${twice[1]} responses with id ${JSON.stringify(twice[0])} (in ${shown})`);
  if (replies.some((r) => r.reply.kind !== 'timeout')) exercised(real, INVARIANTS.oneResponse);

  const bad = schemaViolation(session.findings.slice(findingsMark));
  if (bad) throw new InvariantBroken(INVARIANTS.validates, `in answer to ${shown}: ${bad.message}`);
  if (replies.some((r) => r.reply.kind === 'result' || r.reply.kind === 'error')) exercised(real, INVARIANTS.validates);

  const answer = replies[0]?.reply;
  judgeSetUp(step, answer, real);
  // The answer's place changes what the notifications before and after it may carry.
  const index = answer && 'frame' in answer ? answer.frame : undefined;
  const since = typeof index === 'number' ? { index, at: session.frames[index]?.at ?? Number.POSITIVE_INFINITY } : undefined;
  judgeNotifications(frames, model, real, shown, step, since);
  advance(step, model);
  if (step.kind === 'unsubscribe' && since) real.unsubscribedAt.set(step.uri, since);
  if (step.kind === 'set-level' && since) real.levelSetAt = since;
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
  const floor = LOG_LEVELS.indexOf(set.level);
  for (const { frame, params } of notifications(frames, 'notifications/message')) {
    const level = LOG_LEVELS.indexOf(params.level as LogLevel);
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
