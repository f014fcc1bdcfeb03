/**
 * The stateful part of a fuzz run: what the server offers (lists, subscribable resources,
 * logging, callable and slow tools) read once, then generated sequences of steps, each on a
 * fresh session, shrunk by fast-check to the fewest steps that still break an invariant. A saved
 * sequence is sent again step by step (`--replay`).
 */
import fc from 'fast-check';
import { isObject } from '../json.js';
import { checkProperty } from '../property/check.js';
import { hasCapability } from '../runner/discovery.js';
import type { ToolPolicy } from '../runner/scenario.js';
import type { RecordedFrame } from '../harness/peer-session.js';
import type { Lane } from './lane.js';
import { INVARIANTS, InvariantBroken, runStep, StepCommand, type Invariant, type Real } from './sequence.js';
import { allowed, stepArbitraries, type Model, type Step, type StepSources } from './steps.js';
import { callableTools } from './tool-args.js';
import { livenessProbe } from './send.js';
import type { RunControl } from '../runner/observer.js';

export interface StatefulOptions extends RunControl {
  sequences: number;
  seed: number;
  deadline: number;
  callTools: ToolPolicy;
  replyMs: number;
  /** Steps per sequence, at most. */
  maxSteps?: number;
  maxShrinks?: number;
}

export interface SequenceFailure {
  invariant: Invariant;
  message: string;
  /** The smallest failing sequence, as sent. */
  steps: Step[];
  seed: number;
  path: string;
  /** fast-check's replayPath of the command sequence (with seed and path it replays the sequence). */
  replayPath?: string;
  shrinks: number;
  /** The frames of the last run of that sequence. */
  frames: RecordedFrame[];
  /** Those of its second session, when it opened one. */
  secondFrames?: RecordedFrame[];
}

export interface StatefulOutcome {
  /** Sequences that were run to the end or to a broken invariant. */
  judged: number;
  /** Of those, the generated ones (shrinking steps not counted). */
  generated: number;
  exercised: Map<string, number>;
  failure?: SequenceFailure;
  cutShort: boolean;
  notes: string[];
  /** Invariant id → why no sequence could exercise it, where that is known before any runs. */
  unexercisable: Map<string, string>;
}

/** A sequence runs to about this long a slow call; it is cancelled after CANCEL_AFTER_MS. */
const SLOW_CALL_MS = 2_000;
/** Steps a generated sequence has at most (before the model drops the ones that make no sense). */
const MAX_STEPS = 15;

async function sources(lane: Lane, policy: ToolPolicy): Promise<StepSources> {
  const session = await lane.session();
  const caps = session.conversation?.capabilities ?? {};
  const listed = async (method: string, key: string) => {
    const reply = await session.request(method);
    return reply.kind === 'result' && Array.isArray(reply.result[key]) ? reply.result[key].filter(isObject) : [];
  };
  const tools = hasCapability(caps, 'tools') ? await listed('tools/list', 'tools') : [];
  const resources = isObject(caps.resources) && caps.resources.subscribe === true ? await listed('resources/list', 'resources') : [];
  const lists = [...(hasCapability(caps, 'tools') ? ['tools/list'] : []), ...(hasCapability(caps, 'resources') ? ['resources/list', 'resources/templates/list'] : []), ...(hasCapability(caps, 'prompts') ? ['prompts/list'] : [])];
  const callable = callableTools(tools, policy);
  // The stateless era has no sessions, no resources/subscribe and no logging/setLevel; it cancels with
  // notifications/cancelled over stdio only (over HTTP by closing the stream, cancellation.mdx).
  const modern = session.era === 'stateless';
  return {
    lists,
    subscribable: modern ? [] : resources.flatMap((r) => (typeof r.uri === 'string' ? [r.uri] : [])).slice(0, 5),
    logs: !modern && hasCapability(caps, 'logging'),
    sessions: !modern && lane.transport === 'http',
    calls: callable.map((t) => ({ tool: t.name, arguments: t.arguments })),
    slow: modern && lane.transport === 'http' ? [] : callable.flatMap((t) => {
      const args = t.slow(SLOW_CALL_MS);
      return args ? [{ tool: t.name, arguments: args }] : [];
    }),
    probe: livenessProbe(session).method,
    mrtr: modern,
    listen: modern && lane.transport === 'stdio',
  };
}

/** The invariants of two sessions at once: the ones the rules say need HTTP. */
const TWO_SESSIONS: readonly Invariant[] = Object.values(INVARIANTS).filter((inv: Invariant) => inv.transports !== undefined && !inv.transports.includes('stdio'));

function unexercisable(s: StepSources): Map<string, string> {
  const out = new Map<string, string>();
  if (s.mrtr && !s.calls.length) for (const inv of [INVARIANTS.mrtrTampered, INVARIANTS.mrtrMissing, INVARIANTS.mrtrExtra]) out.set(inv.id, 'no tool is called (--call-tools), so none can ask for input');
  if (s.probe === 'server/discover' && !s.slow.length) out.set(INVARIANTS.cancelHealthy.id, s.calls.length ? 'no cancellable call: in 2026-07-28 a client cancels over HTTP by closing the stream, not with notifications/cancelled, and over stdio only a called tool with a time argument runs long enough to cancel' : 'no tool is called');
  if (s.mrtr) {
    for (const inv of TWO_SESSIONS) out.set(inv.id, 'the 2026-07-28 era has no sessions');
    if (!s.listen) out.set(INVARIANTS.listenInterleaved.id, 'over HTTP a subscription is a stream of its own (closed to end it): mcpcheck opens none there yet');
    return out;
  }
  if (!s.sessions) for (const inv of TWO_SESSIONS) out.set(inv.id, 'over stdio every session is a process of its own: two sessions of one server need --url');
  else if (!s.subscribable.length) out.set(INVARIANTS.updatesOwnSession.id, 'the server offers no resource subscriptions');
  return out;
}

/** A server that serves one session at a time: later sequences keep to one (their model has no second). */
function refusedSecond(s: StepSources, outcome: StatefulOutcome, why: string): void {
  s.sessions = false;
  for (const inv of TWO_SESSIONS) if (!outcome.exercised.has(inv.id)) outcome.unexercisable.set(inv.id, `the server did not open a second session beside the first (it need not): ${why}`);
}

function freshModel(s: StepSources): Model {
  return { lists: s.lists, subscribable: s.subscribable, logs: s.logs, sessions: s.sessions, subscribed: new Set() };
}

/** Runs steps in order on a fresh session; a broken invariant comes back, anything else is thrown. */
async function onFreshSession(lane: Lane, o: { replyMs: number }, run: (model: Model, real: Real) => Promise<void>, s: StepSources, exercisedTotal: Map<string, number>): Promise<{ broken?: InvariantBroken; real: Real }> {
  await lane.discard();
  const session = await lane.session();
  const real: Real = { session, replyMs: o.replyMs, ran: [], exercised: new Map(), unsubscribedAt: new Map(), openSecond: () => lane.secondSession() };
  try {
    await run(freshModel(s), real);
    return { real };
  } catch (e) {
    if (!(e instanceof InvariantBroken)) throw e;
    // A target that stopped answering is started afresh (behind a URL too) for the next sequence.
    if (e.invariant === INVARIANTS.survives || e.invariant === INVARIANTS.cancelHealthy) await lane.discard(true);
    return { broken: e, real };
  } finally {
    for (const [id, n] of real.exercised) exercisedTotal.set(id, (exercisedTotal.get(id) ?? 0) + n);
    if (real.mrtrStopped) s.mrtrStopped = real.mrtrStopped;
  }
}

export async function fuzzSequences(lane: Lane, o: StatefulOptions): Promise<StatefulOutcome> {
  const s = await sources(lane, o.callTools);
  const outcome: StatefulOutcome = { judged: 0, generated: 0, exercised: new Map(), cutShort: false, notes: [], unexercisable: unexercisable(s) };
  const commands = fc.commands(stepArbitraries(s).map((a) => a.map((step) => new StepCommand(step))), { maxCommands: o.maxSteps ?? MAX_STEPS, size: 'max' });
  let last: { broken: InvariantBroken; steps: Step[]; frames: RecordedFrame[]; secondFrames?: RecordedFrame[] } | undefined;
  const result = await checkProperty(commands, o.seed, { cases: o.sequences, maxEvaluations: o.sequences + (o.maxShrinks ?? 60), deadline: o.deadline, signal: o.signal }, async (cmds) => {
    const shown = last ? undefined : `sequence ${outcome.generated + 1} of ${o.sequences}`;
    if (shown) o.observer?.started(shown);
    const { broken, real } = await onFreshSession(lane, o, (model, r) => fc.asyncModelRun(() => ({ model, real: r }), cmds), s, outcome.exercised);
    outcome.judged++;
    if (shown) o.observer?.finished(shown, []);
    if (!last) outcome.generated++;
    if (real.secondRefused && s.sessions) refusedSecond(s, outcome, real.secondRefused);
    if (!broken) return { held: true };
    last = { broken, steps: real.ran, frames: [...real.session.frames], ...(real.second ? { secondFrames: [...real.second.session.frames] } : {}) };
    return { failed: `${broken.invariant.id}: ${broken.message}` };
  });
  outcome.cutShort = result.outOfTime;
  const mrtr = [INVARIANTS.mrtrTampered, INVARIANTS.mrtrMissing, INVARIANTS.mrtrExtra];
  if (s.mrtrStopped) for (const inv of mrtr) if (!outcome.exercised.has(inv.id)) outcome.unexercisable.set(inv.id, `no multi round-trip step reached its retry (the last one: ${s.mrtrStopped})`);
  for (const reason of result.inconclusive) outcome.notes.push(reason);
  if (result.failure && last) {
    const replayPath = /replayPath="([^"]*)"/.exec(String(result.failure.counterexample))?.[1];
    outcome.failure = { invariant: last.broken.invariant, message: last.broken.message, steps: last.steps, seed: o.seed, path: result.failure.path, ...(replayPath !== undefined ? { replayPath } : {}), shrinks: result.failure.shrinks, frames: last.frames, ...(last.secondFrames ? { secondFrames: last.secondFrames } : {}) };
  }
  const offered = [s.lists.length ? 'lists' : '', s.calls.length ? `${s.calls.length} tool(s)` : '', s.subscribable.length ? 'subscriptions' : '', s.logs ? 'logging' : '', s.slow.length ? 'cancellable slow calls' : '', s.sessions ? 'a second session' : '', s.mrtr && s.calls.length ? 'multi round-trip retries (tampered, forged, missing and extra input)' : '', s.listen ? 'subscriptions/listen amid other requests' : ''].filter(Boolean);
  outcome.notes.push(`${outcome.judged} generated sequence(s) of up to ${o.maxSteps ?? MAX_STEPS} steps, each on a fresh session, over: ${s.probe}, ${offered.join(', ') || 'nothing else the server offers'}`);
  return outcome;
}

/** Sends a saved sequence again, step by step, on a fresh session. */
export async function replaySequence(lane: Lane, steps: Step[], o: { replyMs: number; callTools: ToolPolicy }): Promise<{ broken?: InvariantBroken; exercised: Map<string, number>; frames: RecordedFrame[] }> {
  const s = await sources(lane, o.callTools);
  const exercised = new Map<string, number>();
  const { broken, real } = await onFreshSession(lane, o, async (model, r) => {
    for (const step of steps) {
      if (!allowed(step, model)) continue;
      r.ran.push(step);
      await runStep(step, model, r);
    }
  }, { ...s, subscribable: [...new Set([...s.subscribable, ...steps.flatMap((x) => (x.kind === 'subscribe' ? [x.uri] : []))])] }, exercised);
  return { ...(broken ? { broken } : {}), exercised, frames: [...real.session.frames] };
}

export const SEQUENCE_INVARIANTS: readonly Invariant[] = Object.values(INVARIANTS);
