import { type ArgumentContext, type CheckOptions, type CheckRecorder, type ClientSession, describeReply, type Discovery, isAbsoluteUri, isObject, parseUriTemplate, planToolCall, type RecordedFrame, type Reply, type RequirementId, ruling, stretched, timedArguments, type ToolPlan, type ToolPolicy } from '../kit.js';

import { EMPTY_RESULT, isEmptyResult, PING_LIMIT_MS, promptPing, timedPing } from '../common.js';

export { EMPTY_RESULT, isEmptyResult, PING_LIMIT_MS, promptPing, timedPing };


/**
 * Whether a list result (`listed`: its array member) offers nothing: an empty first page with no
 * cursor to a next one. A server answering so offers none of the feature.
 */
export function offersNothing(reply: Reply, listed: string): boolean {
  if (reply.kind !== 'result') return false;
  const items = reply.result[listed];
  return Array.isArray(items) && items.length === 0 && typeof reply.result.nextCursor !== 'string';
}

/**
 * An InputRequiredResult (2026-07-28): the request asks the client for input before it completes
 * (tools/call, prompts/get, resources/read may), which server.modern.mrtr.* judges; it is no final
 * result of its method to judge.
 */
export function asksForInput(reply: Reply): boolean {
  return reply.kind === 'result' && reply.result.resultType === 'input_required';
}

/** A response frame (result or error) that answers no request of ours still waiting. */
export function isResponse(frame: RecordedFrame): boolean {
  const m = frame.message;
  return isObject(m) && !('method' in m) && ('result' in m || 'error' in m);
}

/**
 * Responses among the server's frames since `mark` whose id is not in `ours`. The body of an HTTP
 * error status is no such response: it refuses the POST as a whole, which a server may do to a
 * notification it cannot accept (HTTP-POST-04, HTTP-POST-09 in 2026-07-28), its body "MAY" be an
 * error without id.
 */
export function strayResponses(session: ClientSession, mark: number, ours: ReadonlySet<unknown>): RecordedFrame[] {
  return session.peerFrames(mark).filter((f) => f.via !== 'post-error' && isResponse(f) && !ours.has((f.message as Record<string, unknown>).id));
}


/**
 * Ids of every request mcpcheck sent on the session: on a shared session a late answer to an
 * earlier scenario's request is still an answer to a request, never one to a notification.
 */
export function ourRequestIds(session: ClientSession): Set<unknown> {
  const ids = new Set<unknown>();
  for (const f of session.frames) {
    if (f.from === 'client' && isObject(f.message) && typeof f.message.method === 'string' && 'id' in f.message) ids.add(f.message.id);
  }
  return ids;
}

/**
 * How long the ping after a probe may take at the least. Generous: a loaded machine may need
 * seconds to carry and parse a 10 MB frame, and slowness is no failure to survive it; only silence
 * this long is.
 */
const STILL_ANSWERS_MS = 10_000;
/**
 * The ping after a probe may take as long again as the target took to read the probe in (a busy
 * machine slows both alike), when that is longer than STILL_ANSWERS_MS. More would make a server
 * that never answers again (the SDK's stdio reader after 10 MB) cost a minute per run.
 */
const PROBE_READ_SLACK = 1;

/**
 * Over Streamable HTTP, a server that issued no MCP-Session-Id at initialize (it MAY assign one,
 * transports page, session management): each POST stands alone, and no session state ties it to
 * an initialize before it. Over stdio the process is the session.
 */
export function sessionless(session: ClientSession): boolean {
  return session.channel.kind === 'http' && session.channel.sessionId === undefined;
}

/**
 * One defect, one finding: a call the target never answered has no error to judge, and its
 * `answeredKey` check (BASE-ID-04) holds the failure. Records the skip of the error check `o.key`.
 */
export function unansweredErrorSkip(check: CheckRecorder, what: string, answeredKey: string, o: CheckOptions): void {
  check.skip(`not judged: ${what} was never answered (a ping sent after it was), so there is no error to judge; the missing response fails ${answeredKey} (BASE-ID-04)`, o);
}

/**
 * One defect, one finding: a request the target never answered (while it answered a ping sent
 * after it) fails BASE-ID-04, judged live on the same frames; the rule that was to judge the
 * answer records this skip instead of a second failure.
 */
export function unansweredSkip(check: CheckRecorder, what: string, reply: Reply, o: CheckOptions = {}): void {
  check.skip(`not judged: ${what} was never answered (${describeReply(reply)}), so there is no answer to judge; the missing response fails BASE-ID-04 (live.BASE-ID-04)`, o);
}

/** What the message of a check of the catalog's "Derived robustness checks" (ROBUST-*) says it is. */
export const DERIVED = `derived robustness check, no spec keyword; ${ruling('derived-robustness').cite}`;

/**
 * ROBUST-05 and friends: after a probe, the target must still answer ping. `readMs`: how long the
 * target took to read the probe in (its send), which the wait for the ping scales with.
 */
export async function stillAnswers(session: ClientSession, check: CheckRecorder, after: string, key: string, requirements: RequirementId[] = ['ROBUST-05'], readMs = 0): Promise<boolean> {
  const reply = await session.request(session.probeMethod, undefined, stretched(STILL_ANSWERS_MS, readMs, PROBE_READ_SLACK));
  return check.expect(reply.kind === 'result', {
    key,
    requirements,
    expected: `the server still answers ${session.probeMethod} after ${after} (${DERIVED})`,
    actual: describeReply(reply),
    frames: [reply.kind === 'result' || reply.kind === 'error' ? reply.frame : undefined],
  });
}

export function errorCodeOf(reply: Reply): unknown {
  return reply.kind === 'error' ? reply.error.code : undefined;
}

/** The params of a frame that is a notification of `method` (`{}` when it has none), else undefined. */
export function notificationParams(frame: RecordedFrame, method: string): Record<string, unknown> | undefined {
  const m = frame.message;
  return isObject(m) && m.method === method && !('id' in m) ? (isObject(m.params) ? m.params : {}) : undefined;
}

/** The first object of a frame's message, or of its raw text when that parses. */
export function messageOf(frame: RecordedFrame | undefined): Record<string, unknown> | undefined {
  if (!frame) return undefined;
  if (isObject(frame.message)) return frame.message;
  return undefined;
}

// ---- Tool calls under the --call-tools policy (server.tools.*, server.utilities.*) ----------------

const MAX_CONTEXT_URIS = 5;

/**
 * What discovery learned that makes synthesised arguments realistic: URIs of listed resources,
 * then of listed templates whose simple `{name}` variables are filled with a placeholder.
 */
export function argumentContext(discovery: Discovery): ArgumentContext {
  const listed = discovery.resources.map((r) => r.uri);
  const templated = discovery.resourceTemplates.map((t) => (typeof t.uriTemplate === 'string' ? t.uriTemplate.replace(/\{[A-Za-z0-9_]+\}/g, 'mcpcheck') : undefined));
  const uris = [...listed, ...templated].filter((u): u is string => typeof u === 'string' && isAbsoluteUri(u));
  return { resourceUris: [...new Set(uris)].slice(0, MAX_CONTEXT_URIS) };
}

/** The plans of the listed tools `--call-tools` lets mcpcheck call, with arguments made from what discovery learned. */
export function callablePlans(discovery: Discovery, policy: ToolPolicy): ToolPlan[] {
  const context = argumentContext(discovery);
  return discovery.tools.map((t) => planToolCall(t, policy, context)).filter((p) => p.call);
}

const SLOW_WORDS = /slow|long|sleep|delay|wait|progress|duration/i;

/** Named or described as slow, long-running, sleeping, delaying, waiting or reporting progress. */
export function isSlowTool(tool: Record<string, unknown>): boolean {
  return SLOW_WORDS.test(`${String(tool.name)} ${typeof tool.description === 'string' ? tool.description : ''}`);
}

/** A permitted tool that looks slow (by name/description) and has time-like arguments to stretch. */
export function findSlowTool(tools: Array<Record<string, unknown>>, policy: ToolPolicy, targetMs: number): { plan: ToolPlan; args: Record<string, unknown>; estimateMs: number } | undefined {
  for (const tool of tools) {
    if (!isSlowTool(tool)) continue;
    const plan = planToolCall(tool, policy);
    if (!plan.call) continue;
    const timed = timedArguments(tool.inputSchema, plan.args, targetMs);
    if (timed) return { plan, args: timed.args, estimateMs: timed.estimateMs };
  }
  return undefined;
}

/** The least a response may come after a tool's nominal duration and still count as on time. */
const SLACK_MIN_MS = 300;

/**
 * Waits for a frame that matches (from index `since` on) for `minMs` at least, then for as long as
 * `lasting` has not settled, `maxMs` in all at most: a window for what may come by itself.
 */
export async function watchWhile(
  session: ClientSession,
  match: (f: RecordedFrame) => boolean,
  since: number,
  window: { minMs: number; maxMs: number; lasting: Promise<void> },
): Promise<RecordedFrame | undefined> {
  const early = await session.waitForFrame(match, window.minMs, since);
  if (early) return early;
  const over = window.lasting.then(() => undefined);
  return (await Promise.race([session.waitForFrame(match, window.maxMs - window.minMs, since), over])) ?? session.peerFrames(since).find(match);
}

/**
 * How long after a tool's nominal duration its response is still waited for, given how late this
 * server was when measured (a ping's round trip, or a timed call's lateness): a loaded machine
 * widens the window instead of turning a late answer into a missing one.
 */
export function answerSlackMs(measuredLatenessMs: number): number {
  return SLACK_MIN_MS + 4 * Math.max(0, Math.round(measuredLatenessMs));
}

export interface ProgressProbe {
  plan: ToolPlan;
  args: Record<string, unknown>;
  token: string;
  /** The first frame after the call went out. */
  mark: number;
  reply: Reply;
  /** How long the call took. */
  estimateMs: number;
}

/**
 * Calls permitted tools (slow-looking ones first) with a progress token until one reports
 * progress for it, within `ms`: a tool may report progress without any duration-like argument.
 */
export async function findProgressTool(session: ClientSession, tools: Array<Record<string, unknown>>, policy: ToolPolicy, ms: number): Promise<ProgressProbe | undefined> {
  const time = budget(ms);
  const plans = tools.map((t) => planToolCall(t, policy)).filter((p) => p.call);
  for (const plan of [...plans.filter((p) => isSlowTool(p.tool)), ...plans.filter((p) => !isSlowTool(p.tool))]) {
    if (time.spent()) return undefined;
    const args = quickArguments(plan);
    const id = session.allocateId();
    const token = `mcpcheck-progress-${id}`;
    const mark = session.mark;
    const started = performance.now();
    const reply = await session.requestMessage(session.compose(id, 'tools/call', { name: plan.name, arguments: args, _meta: { progressToken: token } }), time.timeout(5_000));
    const estimateMs = Math.round(performance.now() - started);
    await session.barrier(time.timeout(2_000));
    if (session.peerFrames(mark).some((f) => notificationParams(f, 'notifications/progress')?.progressToken === token)) return { plan, args, token, mark, reply, estimateMs };
  }
  return undefined;
}

/** The arguments to call a tool with: synthesised, with any time-like arguments shortened to about `targetMs`. */
export function quickArguments(plan: ToolPlan, targetMs = 300): Record<string, unknown> {
  return timedArguments(plan.tool.inputSchema, plan.args, targetMs)?.args ?? plan.args;
}

/** A time budget for a loop of requests, so that a stalling server cannot push a scenario past its timeout. */
export function budget(ms: number): { left(): number; spent(): boolean; timeout(perRequest: number): number } {
  const end = performance.now() + ms;
  const left = () => Math.max(0, end - performance.now());
  return { left, spent: () => left() < 250, timeout: (perRequest) => Math.max(250, Math.min(perRequest, left())) };
}

/**
 * Calls a tool; a call that outlives `timeoutMs` (answered or not a ping sent after it) is cancelled,
 * so the server does not go on with it.
 */
export async function callTool(session: ClientSession, name: string, args: Record<string, unknown>, timeoutMs: number): Promise<Reply> {
  const id = session.allocateId();
  const reply = await session.requestMessage(session.compose(id, 'tools/call', { name, arguments: args }), timeoutMs);
  if (reply.kind === 'timeout' || reply.kind === 'unanswered') await session.notify('notifications/cancelled', { requestId: id, reason: 'mcpcheck: no response within the time limit' });
  return reply;
}

/** An argument completion/complete can be asked for: a prompt argument or a resource-template variable. */
export interface CompletionTarget {
  ref: Record<string, unknown>;
  argument: string;
  label: string;
}

/** Every prompt argument and template variable the server listed, in listing order. */
export function completionTargets(discovery: Discovery): CompletionTarget[] {
  const targets: CompletionTarget[] = [];
  for (const p of discovery.prompts) {
    if (typeof p.name !== 'string' || !Array.isArray(p.arguments)) continue;
    for (const a of p.arguments) {
      if (isObject(a) && typeof a.name === 'string') targets.push({ ref: { type: 'ref/prompt', name: p.name }, argument: a.name, label: `prompt ${p.name} argument ${a.name}` });
    }
  }
  for (const t of discovery.resourceTemplates) {
    if (typeof t.uriTemplate !== 'string') continue;
    const parsed = parseUriTemplate(t.uriTemplate);
    if (!parsed.ok) continue;
    for (const v of new Set(parsed.variables)) targets.push({ ref: { type: 'ref/resource', uri: t.uriTemplate }, argument: v, label: `template ${t.uriTemplate} variable ${v}` });
  }
  return targets;
}

/**
 * The arguments `args` of a tool with one free-form string argument (no enum, const, pattern or
 * format) changed to another value, or undefined when the tool has none: other arguments the tool
 * still accepts, for a request that must be told apart from the first (MRTR-SEC-02).
 */
export function otherArguments(plan: ToolPlan, args: Record<string, unknown>): Record<string, unknown> | undefined {
  const properties = isObject(plan.tool.inputSchema) && isObject(plan.tool.inputSchema.properties) ? plan.tool.inputSchema.properties : {};
  const free = Object.entries(properties).find(([, p]) => isObject(p) && p.type === 'string' && !('enum' in p) && !('const' in p) && !('pattern' in p) && !('format' in p));
  if (!free) return undefined;
  const [name] = free;
  const now = args[name];
  return { ...args, [name]: typeof now === 'string' && now !== '' ? `${now} (mcpcheck)` : 'mcpcheck' };
}
