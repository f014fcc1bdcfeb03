/**
 * A fuzz run: generated cases (valid requests and their mutations, notifications) sent one at a
 * time to the target, each judged by the oracles. A failing case is shrunk by fast-check to the
 * smallest that still fails; the run then goes on, in a new round with the next seed, looking
 * for what the oracles not yet failed can find. A crashed or hung target gets a fresh session
 * (over stdio a fresh process) and the run goes on.
 */
import fc from 'fast-check';
import type { Pace } from '../harness/pace.js';
import type { RecordedFrame } from '../harness/peer-session.js';
import type { Target } from '../harness/target.js';
import { budgetOver, checkProperty } from '../property/check.js';
import type { ToolPolicy } from '../runner/scenario.js';
import { requestArbitrary, notificationArbitrary } from '../schema/index.js';
import { isObject } from '../json.js';
import { hasCapability } from '../runner/discovery.js';
import { eraOf, type Revision, type StatefulRevision } from '../spec/revisions.js';
import type { FuzzCase } from './case.js';
import { Lane } from './lane.js';
import { type BaseRequest, DEFAULT_MUTATION_OPTIONS, mutationsOf, notificationCases, type MutationOptions } from './mutate.js';
import { headerMutations, metaMutations, requestMetaArbitrary, withRequestMeta } from './meta.js';
import { oraclesFor, oraclesIn, type Oracle } from './oracles.js';
import { sendCase, type SendTimeouts } from './send.js';
import { callableTools } from './tool-args.js';
import type { RunControl } from '../runner/observer.js';

/** A run is watched (a case as it starts and ends) and stopped (Ctrl-C: no case starts any more) through its control. */
export interface FuzzRunOptions extends RunControl {
  target: Target;
  /** Generated cases (shrinking steps not counted). */
  runs: number;
  seed: number;
  /** No case starts after this time (performance.now()). */
  deadline: number;
  callTools: ToolPolicy;
  timeouts: SendTimeouts;
  requestTimeoutMs: number;
  /** The run's measure of the target's starts: restarts after a crash are waited for by it. */
  pace: Pace;
  mutation?: Partial<Omit<MutationOptions, 'transport'>>;
  /** Shrinking steps per failure, at most. */
  maxShrinks?: number;
  /** The revision the run speaks (its era decides the opening, the liveness probe and the cases). */
  speaks: Revision;
}

export interface FuzzFailure {
  oracle: Oracle;
  message: string;
  /** The minimal case, as sent. */
  input: FuzzCase;
  /** The seed and fast-check path of the round that found it. */
  seed: number;
  path: string;
  shrinks: number;
  /** The frames of a fresh session that was sent only this case (the transcript saved). */
  frames: RecordedFrame[];
  /** Whether the oracle failed again in that fresh session. */
  reproduced: boolean;
}

export interface FuzzRunOutcome {
  seed: number;
  /** Cases sent, shrinking steps included. */
  cases: number;
  generated: number;
  failures: FuzzFailure[];
  /** Per oracle id: cases that exercised it. */
  exercised: Map<string, number>;
  /** Per oracle id: why the last case that applied to it did not exercise it. */
  unexercised: Map<string, string>;
  /** The time budget ended the run before its cases were done. */
  cutShort: boolean;
  /** Something else ended it before its cases were done (cases that judged nothing stopped the generator): why. */
  unfinished?: string;
  restarts: number;
  notes: string[];
  protocolVersion?: string;
  serverInfo?: Record<string, unknown>;
  durationMs: number;
}

const CLIENT_NOTIFICATIONS = ['notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed'];
const LIST_METHODS: Array<[string, string]> = [
  ['tools/list', 'tools'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resources'],
  ['prompts/list', 'prompts'],
];

function paramsOf(revision: Revision, method: string): fc.Arbitrary<Record<string, unknown> | undefined> {
  const r = requestArbitrary(revision, method, { maxDepth: 2, maxItems: 2 });
  return r.ok ? r.arbitrary.map((m) => (isObject(m) && isObject(m.params) ? m.params : undefined)) : fc.constant(undefined);
}

/**
 * What the mutations start from: ping (in the stateless era server/discover), the lists the server
 * declared, and calls of the tools the policy permits. In the stateless era each carries a
 * generated per-request `_meta`.
 */
function basesFor(revision: Revision, capabilities: Record<string, unknown>, tools: Array<Record<string, unknown>>, policy: ToolPolicy, notes: string[]): BaseRequest[] {
  const bases: BaseRequest[] = [{ method: eraOf(revision) === 'stateless' ? 'server/discover' : 'ping', params: fc.constant(undefined) }];
  for (const [method, capability] of LIST_METHODS) if (hasCapability(capabilities, capability)) bases.push({ method, params: paramsOf(revision, method) });
  const callable = callableTools(tools, policy);
  for (const t of callable) {
    const output = t.outputSchema ? { outputSchema: t.outputSchema } : {};
    bases.push({ method: 'tools/call', params: t.arguments.map((a) => ({ name: t.name, arguments: a })), inputSchema: t.inputSchema, ...output, timeProperties: t.timeProperties });
  }
  notes.push(callable.length ? `tools called (${policy.mode}): ${callable.map((t) => t.name).join(', ')}` : `no tool called (--call-tools ${policy.mode}${tools.length ? '' : '; the server lists none'})`);
  if (eraOf(revision) === 'stateful') return bases;
  const meta = requestMetaArbitrary(revision as Exclude<Revision, StatefulRevision>);
  return bases.map((b) => withRequestMeta(b, meta));
}

function notificationsFor(revision: Revision): Array<fc.Arbitrary<unknown>> {
  return CLIENT_NOTIFICATIONS.flatMap((m) => {
    const n = notificationArbitrary(revision, m, { maxDepth: 2, maxItems: 2 });
    return n.ok ? [n.arbitrary] : [];
  });
}

/** The cases a run generates for a server that declared `capabilities` and listed `tools`; what it calls goes to `notes`. */
export function caseArbitrary(o: { revision: Revision; capabilities: Record<string, unknown>; tools: Array<Record<string, unknown>>; callTools: ToolPolicy; mutation: MutationOptions }, notes: string[]): fc.Arbitrary<FuzzCase> {
  const modern = eraOf(o.revision) === 'stateless';
  // The stateless era's own input: the per-request fields, and over HTTP the headers that mirror them.
  const modernCases = (b: BaseRequest) => (modern ? [...metaMutations(b), ...(o.mutation.transport === 'http' ? headerMutations(b) : [])] : []);
  // Tool calls weigh more: each tool is a handler of its own, the other methods are few.
  const bases = basesFor(o.revision, o.capabilities, o.tools, o.callTools, notes).map((b) => ({ arbitrary: mutationsOf(b, o.mutation, modernCases(b)), weight: b.inputSchema ? 3 : 1 }));
  return fc.oneof(...bases, { arbitrary: notificationCases(notificationsFor(o.revision)), weight: 1 });
}

/** A case Ctrl-C ended or kept from starting. */
const INTERRUPTED = { inconclusive: 'the interruption (Ctrl-C) ended the case in flight: not judged' };

/** The seed of round `k`: the run's seed, then the ones after it (kept in fast-check's 32-bit range). */
const roundSeed = (seed: number, k: number) => ((seed + k) | 0);

export async function fuzz(o: FuzzRunOptions): Promise<FuzzRunOutcome> {
  const started = performance.now();
  const lane = new Lane(o.target, o.requestTimeoutMs, o.pace, o.speaks);
  const first = await lane.session();
  const capabilities = first.conversation?.capabilities ?? {};
  const revision = first.speaks;
  const active = oraclesIn(revision);
  const tools: Array<Record<string, unknown>> = [];
  if (hasCapability(capabilities, 'tools')) {
    const reply = await first.request('tools/list');
    if (reply.kind === 'result' && Array.isArray(reply.result.tools)) tools.push(...reply.result.tools.filter(isObject));
  }
  const notes: string[] = [];
  const arbitrary = caseArbitrary({ revision, capabilities, tools, callTools: o.callTools, mutation: { ...DEFAULT_MUTATION_OPTIONS, ...o.mutation, transport: o.target.kind } }, notes);

  const outcome: FuzzRunOutcome = { seed: o.seed, cases: 0, generated: 0, failures: [], exercised: new Map(), unexercised: new Map(), cutShort: false, restarts: 0, notes, protocolVersion: revision, durationMs: 0 };
  if (first.conversation?.serverInfo) outcome.serverInfo = first.conversation.serverInfo;
  const found = new Set<string>();
  const maxShrinks = o.maxShrinks ?? 200;
  // Ctrl-C ends the case in flight at once (its session closed), not after the waits it was sent
  // with, which a loaded machine stretches; that case is not judged (INTERRUPTED).
  const endCase = () => void lane.discard();
  o.signal?.addEventListener('abort', endCase, { once: true });
  try {
    for (let round = 0; outcome.generated < o.runs && found.size < active.length; round++) {
      if (budgetOver(o)) {
        outcome.cutShort = true;
        break;
      }
      const seed = roundSeed(o.seed, round);
      let generatedHere = 0;
      let failing = false;
      let last: { input: FuzzCase; failed: Array<{ oracle: Oracle; message: string }> } | undefined;
      const remaining = o.runs - outcome.generated;
      const result = await checkProperty(arbitrary, seed, { cases: remaining, maxEvaluations: remaining + maxShrinks, deadline: o.deadline, signal: o.signal }, async (value) => {
        if (o.signal?.aborted) return INTERRUPTED;
        let session;
        try {
          session = await lane.session();
        } catch (e) {
          return { inconclusive: `the target could not be restarted: ${(e as Error).message}` };
        }
        // Each case is judged on its own frames; the run's transcript is a failure's fresh replay.
        session.forget(session.mark);
        const input = lane.freshen(value);
        const judging = oraclesFor(input, found, active);
        // The progress line counts generated cases; shrinking steps come on top of them.
        const shown = failing ? undefined : `${input.method} (${input.mutation})`;
        if (shown) o.observer?.started(shown);
        let observation;
        try {
          observation = await sendCase(session, input, { ...o.timeouts, awaitAnswer: judging.some((oracle) => oracle.readsResponse) }, lane.used);
        } catch (e) {
          // mcpcheck's own limit (its live validator could not take the frame in): the case is not judged, and the notes say so.
          await lane.discard();
          return { inconclusive: `mcpcheck could not send or judge a ${input.mutation} case of ${input.method} (a bug in mcpcheck, the case is not judged): ${(e as Error).message}` };
        } finally {
          if (shown) o.observer?.finished(shown, []);
        }
        if (o.signal?.aborted) return INTERRUPTED;
        outcome.cases++;
        if (!failing) generatedHere++;
        if (observation.ping.kind !== 'result') await lane.discard(true);
        const failed: Array<{ oracle: Oracle; message: string }> = [];
        for (const oracle of judging) {
          const verdict = oracle.judge(input, observation);
          if ('unexercised' in verdict) {
            outcome.unexercised.set(oracle.id, verdict.unexercised);
            continue;
          }
          outcome.exercised.set(oracle.id, (outcome.exercised.get(oracle.id) ?? 0) + 1);
          if ('failed' in verdict) failed.push({ oracle, message: verdict.failed });
        }
        if (failed.length === 0) return { held: true };
        failing = true;
        last = { input, failed };
        return { failed: failed.map((f) => `${f.oracle.id}: ${f.message}`).join('; ') };
      });
      outcome.generated += generatedHere;
      for (const reason of result.inconclusive) notes.push(reason);
      // Shrinking may stop at its own bound; only cases never sent make the run incomplete.
      if (result.outOfTime) outcome.cutShort = true;
      else if (result.cutShort) notes.push(`shrinking of the failure found with seed ${seed} stopped after ${maxShrinks} steps`);
      if (!result.failure || !last) break;
      const confirmed = await replayFresh(lane, last.input, o.timeouts);
      for (const f of last.failed) {
        found.add(f.oracle.id);
        outcome.failures.push({ oracle: f.oracle, message: f.message, input: last.input, seed, path: result.failure.path, shrinks: result.failure.shrinks, frames: confirmed.frames, reproduced: confirmed.failing.has(f.oracle.id) });
      }
      if (result.inconclusive.length) break;
    }
  } finally {
    o.signal?.removeEventListener('abort', endCase);
  }
  // Fewer cases than asked, and not because every oracle already failed: the run is incomplete, never a pass.
  if (outcome.generated < o.runs && found.size < active.length && !outcome.cutShort) {
    if (budgetOver(o)) outcome.cutShort = true;
    else outcome.unfinished = 'the cases left judged nothing and the generator stopped (the notes say why)';
  }
  outcome.restarts = lane.restarts;
  await lane.discard();
  outcome.durationMs = Math.round(performance.now() - started);
  return outcome;
}

/** Sends one case alone on a fresh session: its frames are the failure's transcript, its verdicts the confirmation. */
export async function replayFresh(lane: Lane, input: FuzzCase, timeouts: SendTimeouts): Promise<{ frames: RecordedFrame[]; failing: Set<string> }> {
  await lane.discard();
  let session;
  try {
    session = await lane.session();
  } catch {
    return { frames: [], failing: new Set() };
  }
  const observation = await sendCase(session, lane.freshen(input), { ...timeouts, awaitAnswer: true }, lane.used);
  const failing = new Set(oraclesFor(input, new Set(), oraclesIn(lane.speaks)).filter((oracle) => 'failed' in oracle.judge(input, observation)).map((oracle) => oracle.id));
  const frames = [...session.frames];
  await lane.discard();
  return { frames, failing };
}
