import { type CaseVerdict, clientScenario, type ClientScenario, type ClientScenarioContext, isObject, loadPropertyCheck, loadServedTools, type RecordedFrame, type Schema, type ServerSession, show, waitUntil } from '../kit.js';
import { isAnswer, recordProperty, timedPing } from '../common.js';
import { answerTo, holdAnswers, WAIT_MS } from './helpers.js';

/** How long a client that declared nothing about list changes gets to list again after notifications/tools/list_changed. */
const RELIST_MS = 2_000;
/** Client processes a property may start, shrinking included (each costs a start-up). */
const MAX_LAUNCHES = 40;
/** Cases judged at most beyond the generated ones: shrinking stops there. */
const SHRINK_BUDGET = 60;
/**
 * How long a client that answered ping must stay up to count as having taken the list. Over HTTP
 * the ping may overtake the listing's answer (another stream), so the client gets longer there.
 */
const SETTLE_MS = { stdio: 200, http: 500 } as const;
/** On a busy machine the settle lasts this many times the ping's own round trip. */
const SETTLE_PINGS = 3;
/** What the property leaves of the scenario timeout for the last case and the report. */
const RESERVE_MS = 6_000;

/** Holds a session's first tools/list until the property has chosen what that client is served. */
const gates = new WeakMap<ServerSession, () => void>();

function gateFirstListing(session: ServerSession): void {
  gates.set(session, holdAnswers(session, 'tools/list'));
}

/** A client under test, and whether it has been served a case yet. */
interface Live {
  ctx: ClientScenarioContext;
  served: boolean;
}

const isToolsList = (f: RecordedFrame) => isObject(f.message) && f.message.method === 'tools/list' && 'id' in f.message;

/**
 * Serves `tools` to the client: a fresh one gets them at its own first listing, one already
 * served is told the list changed and must list again. Returns mcpcheck's answer to that
 * listing, once sent (undefined: the client did not list).
 */
async function serve(live: Live, tools: Schema[]): Promise<RecordedFrame | undefined> {
  const { session } = live.ctx;
  const since = session.frames.length;
  session.tools = tools;
  if (live.served) await session.notify('notifications/tools/list_changed');
  else gates.get(session)?.();
  const listing = await session.waitForFrame(isToolsList, live.served ? RELIST_MS : WAIT_MS, live.served ? since : 0);
  live.served = true;
  if (!listing) return undefined;
  await waitUntil(() => answerTo(session, listing) !== undefined, WAIT_MS);
  return answerTo(session, listing);
}

/** mcpcheck's answers, from frame `since` on, to tool calls of the client that were errors (a JSON-RPC error, or a result with isError). */
function failedCalls(session: ServerSession, since: number): RecordedFrame[] {
  return session
    .requestsFor('tools/call', since)
    .map((call) => answerTo(session, call))
    .filter((a): a is RecordedFrame => a !== undefined && isObject(a.message) && ('error' in a.message || (isObject(a.message.result) && a.message.result.isError === true)));
}

/**
 * After a listing (mcpcheck's answer to it at frame `listed`): a client that answers ping held;
 * one that went away cleanly judged nothing; one that crashed or went silent failed, unless a
 * call of a tool it was shown got an error from mcpcheck first (a tool mcpcheck could make no
 * fitting result for): what it did then was its reaction to that answer, not to the list.
 */
async function stillAnswers(ctx: ClientScenarioContext, listed: number): Promise<CaseVerdict> {
  const first = await timedPing(ctx.session);
  let ms = first.ms;
  // Any answer, even an error or a late one, shows a client still at work: how and how fast it
  // answers is client.utilities.ping's concern, and a loaded machine delays every answer.
  const answered = isAnswer(first.reply);
  // Over HTTP the ping and the listing's answer travel on different streams: the client may take
  // the ping first and only then choke on the list, so an answer counts once it is still there.
  // A crash right behind the answer shows as an exit only once the machine ran it: on a busy one,
  // a few times what this ping took.
  const settleMs = answered ? Math.max(SETTLE_MS[ctx.transport], SETTLE_PINGS * ms) : 500;
  let exit = ctx.client.exit ?? (await ctx.exited(settleMs));
  if (answered && !exit) {
    // What the client set off on taking the list (a callback, a promise) runs before it reads a
    // message sent later: a second ping answered rules out such a crash on a machine of any load,
    // where the settle alone bets on time.
    const second = await timedPing(ctx.session);
    if (isAnswer(second.reply)) return { held: true };
    ms = second.ms;
    exit = ctx.client.exit ?? (await ctx.exited(500));
  }
  if (exit && exit.code === 0 && !exit.signal) return { inconclusive: 'the client ended its session cleanly (exit 0) right after the listing' };
  const failed = failedCalls(ctx.session, listed);
  if (failed.length) return { inconclusive: `mcpcheck answered ${failed.length} of the client's tool calls with an error (${show(failed[0]!.message, 200)}), and what the client did next is its reaction to that` };
  if (exit) return { failed: `the client exited (${exit.signal ?? `code ${exit.code}`}) after it was served this tool list` };
  // Over HTTP a ping reaches the client only on a stream it keeps open: silence there shows nothing.
  if (ctx.transport === 'http') return { inconclusive: `no answer to ping within ${ms} ms, and over HTTP it reaches a client only on a stream the client keeps open` };
  return { failed: `the client, still running, did not answer ping within ${ms} ms after it was served this tool list` };
}

export const clientToolListsProperty = clientScenario({
  id: 'client.properties.tool-lists',
  title: 'A client tolerates any valid tool list (unknown members, icons, _meta keys, nested schemas, markup in text) and keeps answering',
  requirements: ['ROBUST-07'],
  // The wait keeps the client connected while it is served case after case; mcpcheck stops it when done.
  steps: [{ do: 'list-tools' }, { do: 'wait', ms: 15_000 }],
  serve: gateFirstListing,
  async run(ctx) {
    const { check } = ctx;
    if (ctx.cases === 0) return check.skip('the property tier is off (--properties 0)');
    let live: Live | undefined = { ctx, served: false };
    let launches = 1;
    const fresh = async (): Promise<Live | undefined> => {
      if (launches >= MAX_LAUNCHES) return undefined;
      launches++;
      const next = await ctx.relaunch();
      return next ? { ctx: next, served: false } : undefined;
    };
    // A client that shows nothing about its first case (it ends at once, or never lists) shows
    // nothing about the next either: the rest are not worth a process each. Once a case was judged,
    // an unjudged one is a mishap of that process (say, a loaded machine) and gets one fresh try,
    // so that shrinking, which stops at a candidate it cannot judge, goes the same way every run.
    let futile: string | undefined;
    let judgedOne = false;
    const judge = async (tools: Schema[]): Promise<CaseVerdict> => {
      if (futile) return { inconclusive: futile };
      let verdict = await judgeOnce(tools);
      if ('inconclusive' in verdict && judgedOne) {
        live = await fresh();
        verdict = await judgeOnce(tools);
      }
      if ('inconclusive' in verdict) {
        if (!judgedOne) futile = verdict.inconclusive;
      } else judgedOne = true;
      return verdict;
    };
    const judgeOnce = async (tools: Schema[]): Promise<CaseVerdict> => {
      if (live?.ctx.client.exit) live = await fresh();
      if (!live) return { inconclusive: `no client to serve the case to (${MAX_LAUNCHES} started at most)` };
      const relisting = live.served;
      let answered = await serve(live, tools);
      if (!answered && relisting) {
        // It did not list again on list_changed (nothing obliges it to): a fresh client gets the case.
        live = await fresh();
        if (!live) return { inconclusive: 'the client did not list again after notifications/tools/list_changed, and no further client may be started' };
        answered = await serve(live, tools);
      }
      return answered ? await stillAnswers(live.ctx, answered.index) : { inconclusive: 'the client did not list the tools' };
    };
    const [{ checkProperty }, { toolListArbitrary }] = await Promise.all([loadPropertyCheck(), loadServedTools()]);
    const outcome = await checkProperty(toolListArbitrary(), ctx.seed, { cases: ctx.cases, maxEvaluations: ctx.cases + SHRINK_BUDGET, deadline: performance.now() + ctx.timeLeft() - RESERVE_MS }, judge);
    recordProperty(check, outcome, { expected: 'the client keeps answering after every valid tool list it is served', asked: ctx.cases, what: 'tool list', show: (tools) => show(tools, 2_000) });
  },
});

export const clientProperties: ClientScenario[] = [clientToolListsProperty];
