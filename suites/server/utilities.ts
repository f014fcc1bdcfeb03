import { type ClientSession, describeReply, isObject, ITEM_KEY, list, type ListMethod, type ListWalk, LOG_LEVELS, planToolCall, type RecordedFrame, type Reply, replyFrame, type RequirementId, ruling, scenario, type ScenarioContext, severityOf, show, type ToolPlan, walkList, walkProblems } from '../kit.js';
import { isAnswer } from '../common.js';
import { answerSlackMs, asksForInput, budget, completionTargets, type CompletionTarget, findProgressTool, findSlowTool, notificationParams, EMPTY_RESULT, isEmptyResult, isSlowTool, ourRequestIds, PING_LIMIT_MS, promptPing, timedPing, quickArguments, strayResponses } from './helpers.js';

const notification = notificationParams;

// ---- Ping --------------------------------------------------------------------------------------

export const ping = scenario({
  id: 'server.utilities.ping',
  title: 'ping is answered promptly with an empty result',
  requirements: ['PING-01'],
  isolation: 'shared',
  async run({ session, check }) {
    const { reply, ms, says } = await promptPing(session);
    check.expect(isEmptyResult(reply) && ms <= PING_LIMIT_MS, {
      expected: `ping answered with ${EMPTY_RESULT} within ${PING_LIMIT_MS} ms`,
      actual: `${describeReply(reply)} ${says}`,
      frames: [replyFrame(reply)],
      replies: [reply],
    });
  },
});

// ---- Pagination ----------------------------------------------------------------------------------

const LIST_CHANGED: Record<ListMethod, string> = {
  'tools/list': 'notifications/tools/list_changed',
  'resources/list': 'notifications/resources/list_changed',
  'resources/templates/list': 'notifications/resources/list_changed',
  'prompts/list': 'notifications/prompts/list_changed',
};

function keysOf(walk: ListWalk): string[] {
  const key = ITEM_KEY[walk.method as ListMethod];
  return walk.items.map((item) => show(item[key], 200));
}

export const pagination = scenario({
  id: 'server.utilities.pagination',
  title: 'Every list walks to its end with stable cursors: no loops, no duplicates, the same items twice',
  requirements: ['PAGE-01', 'PAGE-05'],
  isolation: 'shared',
  carriedOver: true,
  async run({ session, check, discovery }) {
    const methods = Object.keys(discovery.walks) as ListMethod[];
    if (methods.length === 0) return check.skip('the server declares none of tools, resources, prompts: nothing is paginated');
    const broken: string[] = [];
    const unstable: string[] = [];
    const frames: number[] = [];
    for (const method of methods) {
      const first = discovery.walks[method]!;
      const problems = walkProblems(first, describeReply);
      if (problems.broken) broken.push(problems.broken);
      unstable.push(...problems.unstable);
      if (first.end !== 'complete') continue;
      // Walked twice more in this one session (another session may be another process with other data).
      const mark = session.mark;
      const again = [await walkList(session, method), await walkList(session, method)];
      const before = unstable.length;
      const changed = session.peerFrames(mark).some((f) => notification(f, LIST_CHANGED[method]) !== undefined);
      const [a, b] = again.map((w) => [...keysOf(w)].sort()) as [string[], string[]];
      if (again.every((w) => w.end === 'complete') && !changed && JSON.stringify(a) !== JSON.stringify(b)) {
        const missing = a.filter((k) => !b.includes(k));
        const added = b.filter((k) => !a.includes(k));
        unstable.push(`${method}: two walks in a row gave different items (${again[0]!.pages}→${again[1]!.pages} pages; missing ${list(missing, 3) || 'none'}; new ${list(added, 3) || 'none'})`);
      } else if (again.some((w) => w.end !== 'complete')) {
        const w = again.find((x) => x.end !== 'complete')!;
        unstable.push(`${method}: a repeated walk ended with "${w.end}"${w.lastReply ? `: ${describeReply(w.lastReply)}` : ''}`);
      }
      if (unstable.length > before) frames.push(...again.flatMap((w) => w.frames));
    }
    // A list that never handed out a nextCursor exercised no cursor: only a broken page is a verdict then.
    const paginated = methods.filter((m) => discovery.walks[m]!.cursors.length > 0);
    if (paginated.length === 0 && broken.length === 0 && unstable.length === 0) {
      check.skip(`not exercised: no list (${methods.join(', ')}) returned a nextCursor, so no cursor was handed out or taken back`, { key: 'walk', requirements: ['PAGE-01'] });
      check.skip(`not exercised: no list (${methods.join(', ')}) returned a nextCursor, so cursor stability could not be observed`, { key: 'stable', requirements: ['PAGE-05'] });
      return;
    }
    check.expect(broken.length === 0, {
      key: 'walk',
      requirements: ['PAGE-01'],
      expected: `${methods.join(', ')}: every page a list, every nextCursor accepted back as params.cursor`,
      actual: list(broken),
    });
    check.expect(unstable.length === 0, {
      key: 'stable',
      requirements: ['PAGE-05'],
      expected: `${methods.join(', ')}: every walk ends, no item on two pages, and two walks in a row list the same items`,
      actual: list(unstable),
      frames,
    });
  },
});

export const invalidCursor = scenario({
  id: 'server.utilities.invalid-cursor',
  title: 'An invalid cursor gets −32602',
  requirements: ['PAGE-06'],
  isolation: 'shared',
  carriedOver: true,
  async run({ session, check, discovery }) {
    const methods = Object.keys(discovery.walks) as ListMethod[];
    if (methods.length === 0) return check.skip('the server declares none of tools, resources, prompts: nothing is paginated');
    const time = budget(20_000);
    for (const method of methods) {
      if (time.spent()) return check.error(`no time left for ${method} (the earlier requests were slow)`, { key: method });
      // Never longer than --request-timeout: a server whose errors match no request leaves each to its timeout.
      const reply = await session.request(method, { cursor: 'mcpcheck-invalid-cursor' }, time.timeout(Math.min(5_000, session.requestTimeoutMs)));
      check.errorCode(reply, [-32602], { key: method, what: `${method} with cursor "mcpcheck-invalid-cursor"` });
    }
  },
});

// ---- Logging -------------------------------------------------------------------------------------

const ERROR_LEVEL = severityOf('error');

export const logLevels = scenario({
  id: 'server.utilities.log-levels',
  title: 'logging/setLevel accepts each of the eight levels with {} and rejects an unknown one with −32602',
  requirements: ['LOG-SET-01', 'LOG-SET-03'],
  isolation: 'shared',
  needs: { capabilities: ['logging'] },
  async run({ session, check }) {
    const bad: Array<{ level: string; reply: Reply }> = [];
    const time = budget(20_000);
    for (const level of LOG_LEVELS) {
      const reply = await session.request('logging/setLevel', { level }, time.timeout(3_000));
      if (!isEmptyResult(reply)) bad.push({ level, reply });
    }
    check.expect(bad.length === 0, {
      key: 'levels',
      requirements: ['LOG-SET-01'],
      expected: `logging/setLevel answered with ${EMPTY_RESULT} for each of ${LOG_LEVELS.join(', ')}`,
      actual: list(bad.map((b) => `${b.level} → ${describeReply(b.reply)}`)),
      frames: bad.map((b) => replyFrame(b.reply)),
    });
    const verbose = await session.request('logging/setLevel', { level: 'verbose' }, time.timeout(3_000));
    check.errorCode(verbose, [-32602], { key: 'invalid', requirements: ['LOG-SET-03'], what: 'logging/setLevel {"level":"verbose"} (not an RFC 5424 level)' });
    // The session is shared: leave it at the most verbose level, which filters nothing out.
    await session.request('logging/setLevel', { level: 'debug' }, time.timeout(3_000));
  },
});

/** Tools that look as if they log: "log", "logs", "logging", "logger" as words (not "logo"). */
const LOG_WORDS = /(?:^|[^a-z])log(?:s|ging|gers?)?(?![a-z])/i;
const MAX_LOG_TOOLS = 10;

/** Calls the tools at once and returns the log messages (notifications/message) that arrived meanwhile. */
async function callForLogs(session: ClientSession, plans: ToolPlan[]): Promise<Array<{ level: string; frame: number }>> {
  const mark = session.mark;
  await Promise.all(plans.map((plan) => session.request('tools/call', { name: plan.name, arguments: quickArguments(plan) }, 5_000)));
  await session.barrier(3_000);
  return session
    .peerFrames(mark)
    .map((f) => ({ params: notification(f, 'notifications/message'), frame: f.index }))
    .filter((x) => x.params !== undefined)
    .map((x) => ({ level: String(x.params!.level), frame: x.frame }));
}

/** Calling it again repeats what it did (read-only or idempotent), unlike a toggle: two rounds compare. */
function repeatable(p: ToolPlan): boolean {
  return isObject(p.tool.annotations) && (p.tool.annotations.readOnlyHint === true || p.tool.annotations.idempotentHint === true);
}

export const logFilter = scenario({
  id: 'server.utilities.log-filter',
  title: 'After logging/setLevel error, no debug, info, notice or warning messages are sent',
  requirements: ['LOG-SET-02'],
  isolation: 'shared',
  needs: { capabilities: ['logging'] },
  async run({ session, check, discovery, options }) {
    // Slow tools only lengthen the rounds; what logs is the question.
    const permitted = discovery.tools.map((t) => planToolCall(t, options.callTools)).filter((p) => p.call && repeatable(p) && !isSlowTool(p.tool));
    const logging = permitted.filter((p) => LOG_WORDS.test(`${p.name} ${String(p.tool.description ?? '')}`));
    const plans = (logging.length ? logging : permitted).slice(0, MAX_LOG_TOOLS);
    const withheld = discovery.tools
      .map((t) => planToolCall(t, options.callTools))
      .filter((p) => !(p.call && repeatable(p)) && LOG_WORDS.test(`${p.name} ${String(p.tool.description ?? '')}`))
      .map((p) => `${p.name}: ${p.call ? 'neither read-only nor idempotent, so two calls are not comparable' : p.why}`);
    const unexercised = (why: string) => check.skip(`not exercised: ${why}${withheld.length ? ` (log-related tools not called: ${list(withheld, 3)})` : ''}`);
    if (plans.length === 0) return unexercised(`no read-only or idempotent tool may be called under --call-tools ${options.callTools.mode}, and nothing else makes a server log`);
    const below = (m: { level: string }) => severityOf(m.level) >= 0 && severityOf(m.level) < ERROR_LEVEL;
    const names = plans.map((p) => p.name).join(', ');
    // Level error first, so that what the calls do under the filter is seen before any state changes.
    const error = await session.request('logging/setLevel', { level: 'error' }, 3_000);
    if (!isEmptyResult(error)) return unexercised(`logging/setLevel error got ${describeReply(error)}`);
    const leaked = (await callForLogs(session, plans)).filter(below);
    if (leaked.length > 0) {
      check.expect(false, {
        expected: `after setLevel error, only messages at error or above while calling ${names}`,
        actual: `${leaked.length} message(s) below error: ${list(leaked.map((m) => m.level), 6)}`,
        frames: leaked.map((m) => m.frame),
      });
      return;
    }
    // Only if the same calls log below error at level debug does "none arrived" show the filter working.
    const debug = await session.request('logging/setLevel', { level: 'debug' }, 3_000);
    if (!isEmptyResult(debug)) return unexercised(`logging/setLevel debug got ${describeReply(debug)}`);
    const unfiltered = (await callForLogs(session, plans)).filter(below);
    if (unfiltered.length === 0) return unexercised(`calling ${names} sent no message below error at level debug either, so the filter was not observed`);
    check.expect(true, {
      expected: `after setLevel error, no message below error while calling ${names}, which sent ${unfiltered.length} such message(s) at level debug`,
      actual: 'none',
    });
  },
});

// ---- Completion ----------------------------------------------------------------------------------

const MAX_COMPLETIONS = 40;

export const completionLimit = scenario({
  id: 'server.utilities.completion',
  title: 'Completing each prompt argument and template variable gives at most 100 values',
  requirements: ['COMP-RES-01'],
  isolation: 'shared',
  carriedOver: true,
  needs: { capabilities: ['completions'] },
  async run({ session, check, discovery }) {
    const targets = completionTargets(discovery);
    if (targets.length === 0) return check.skip('no prompt argument or resource-template variable to complete');
    const done: Array<{ t: CompletionTarget; reply: Reply }> = [];
    const time = budget(20_000);
    for (const t of targets.slice(0, MAX_COMPLETIONS)) {
      if (time.spent()) break;
      done.push({ t, reply: await session.request('completion/complete', { ref: t.ref, argument: { name: t.argument, value: '' } }, time.timeout(5_000)) });
    }
    // An InputRequiredResult to completion/complete is MRTR-SRV-02's defect (only three methods may ask for input): no CompleteResult to judge here.
    const askedForInput = done.filter((d) => asksForInput(d.reply));
    if (askedForInput.length) check.note(`answered with an InputRequiredResult, which completion/complete may not have (MRTR-SRV-02, judged live): ${list(askedForInput.map((d) => d.t.label), 5)}`);
    const refused = done.filter((d) => d.reply.kind !== 'result');
    const notFound = refused.filter((d) => d.reply.kind === 'error' && d.reply.error.code === -32601);
    check.expect(notFound.length === 0, {
      key: 'served',
      level: 'SHOULD',
      expected: `completion/complete served, since the server declared completions (${ruling('declared-capability-served').cite})`,
      actual: `−32601 (method not found) for ${list(notFound.map((d) => d.t.label), 3)}`,
      frames: notFound.map((d) => replyFrame(d.reply)),
    });
    if (refused.length) {
      check.note(`${refused.length} completion request(s) got no result: ${list(refused.map((d) => `${d.t.label} → ${describeReply(d.reply)}`), 5)}`);
    }
    const bad: Array<{ label: string; problem: string; frame: number }> = [];
    let most = 0;
    for (const d of done) {
      if (d.reply.kind !== 'result' || asksForInput(d.reply)) continue;
      const completion = d.reply.result.completion;
      const values = isObject(completion) ? completion.values : undefined;
      let problem: string | undefined;
      if (!isObject(completion) || !Array.isArray(values)) problem = `completion.values is ${show(values, 40)}, not an array`;
      else if (values.length > 100) problem = `${values.length} values`;
      else if (values.some((v) => typeof v !== 'string')) problem = 'a value that is not a string';
      else if ('total' in completion && !Number.isInteger(completion.total)) problem = `total ${show(completion.total, 30)} is not an integer`;
      else if ('hasMore' in completion && typeof completion.hasMore !== 'boolean') problem = `hasMore ${show(completion.hasMore, 30)} is not a boolean`;
      if (Array.isArray(values)) most = Math.max(most, values.length);
      if (problem) bad.push({ label: d.t.label, problem, frame: d.reply.frame });
    }
    const answered = done.length - refused.length - askedForInput.length;
    if (answered === 0) return askedForInput.length ? check.skip(`not exercised: every completion was answered with an InputRequiredResult (see the notes), so no CompleteResult came to judge`, { key: 'values' }) : undefined;
    check.expect(bad.length === 0, {
      key: 'values',
      expected: `at most 100 string values (optional integer total, boolean hasMore) for each of ${answered} completion(s) with value "" (most: ${most})`,
      actual: list(bad.map((b) => `${b.label}: ${b.problem}`)),
      frames: bad.map((b) => b.frame),
    });
  },
});

export const completionErrors = scenario({
  id: 'server.utilities.completion-errors',
  title: 'Completing an argument of an unknown prompt gets −32602',
  requirements: ['COMP-ERR-01'],
  isolation: 'shared',
  carriedOver: true,
  needs: { capabilities: ['completions'] },
  async run({ session, check }) {
    const reply = await session.request('completion/complete', { ref: { type: 'ref/prompt', name: 'mcpcheck_no_such_prompt' }, argument: { name: 'x', value: '' } }, Math.min(5_000, session.requestTimeoutMs));
    if (reply.kind === 'error' && reply.error.code === -32601) {
      return check.skip('not exercised: completion/complete is not served at all (−32601) although completions is declared (see server.utilities.completion/served), so the unknown-prompt error is not observable', {
        frames: [reply.frame],
      });
    }
    if (asksForInput(reply)) {
      return check.skip('not exercised: completion/complete for an unknown prompt was answered with an InputRequiredResult, which completion/complete may not have (MRTR-SRV-02, judged live), so no error came to judge', { frames: [replyFrame(reply)] });
    }
    check.errorCode(reply, [-32602], { what: 'completion/complete for ref/prompt mcpcheck_no_such_prompt' });
  },
});

// ---- Progress and cancellation -------------------------------------------------------------------

function progressFrames(session: ClientSession, token: string | number, since: number): Array<{ frame: RecordedFrame; progress: unknown }> {
  return session
    .peerFrames(since)
    .map((frame) => ({ frame, params: notification(frame, 'notifications/progress') }))
    .filter((x) => x.params !== undefined && x.params.progressToken === token)
    .map((x) => ({ frame: x.frame, progress: x.params!.progress }));
}

export const progress = scenario({
  id: 'server.utilities.progress',
  title: 'Progress for a tool call carries the token, increases, and stops with the response',
  requirements: ['PROG-02', 'PROG-04'],
  isolation: 'shared',
  carriedOver: true,
  // A slow tool's duration, then a quiet moment after its response.
  waits: true,
  needs: { capabilities: ['tools'] },
  async run({ session, check, discovery, options }) {
    const found = findSlowTool(discovery.tools, options.callTools, 300);
    const slow = found && found.estimateMs <= 5_000 ? found : undefined;
    // Without a tool whose duration can be set, any permitted tool that reports progress will do.
    const probe = slow ? undefined : await findProgressTool(session, discovery.tools, options.callTools, PROGRESS_SEARCH_MS);
    const plan = slow?.plan ?? probe?.plan;
    if (!plan) {
      const permitted = discovery.tools.some((t) => planToolCall(t, options.callTools).call);
      return check.skip(permitted ? `not exercised: no permitted tool reported progress for a progress token (tried within ${PROGRESS_SEARCH_MS / 1000} s; progress is optional)` : `no tool may be called under --call-tools ${options.callTools.mode}`);
    }
    const args = slow?.args ?? probe?.args ?? {};
    const id = session.allocateId();
    const token = probe?.token ?? `mcpcheck-progress-${id}`;
    const mark = probe?.mark ?? session.mark;
    const reply = probe?.reply ?? (await session.requestMessage(session.compose(id, 'tools/call', { name: plan.name, arguments: args, _meta: { progressToken: token } })));
    await session.barrier(3_000);
    // The quiet moment after the response, stretched by the run's pace: a late notification sent
    // on a timer comes later on a busy machine, and must be seen there too.
    await session.quiet(150);
    const seen = progressFrames(session, token, mark);
    const foreign = session
      .peerFrames(mark)
      .filter((f) => {
        const p = notification(f, 'notifications/progress');
        return p !== undefined && p.progressToken !== token;
      });
    const what = `tools/call ${show(plan.name)} ${show(args, 80)} with progressToken ${show(token)}`;
    if (reply.kind !== 'result' && reply.kind !== 'error') return check.skip(`not exercised: ${what} got ${describeReply(reply)}`);
    // PROG-01 binds the requestor (mcpcheck here); what the server's progress shows is PROG-04's business.
    if (seen.length === 0 && foreign.length === 0) return check.skip(`not exercised: ${what} sent no progress notifications (progress is optional)`, { frames: [reply.frame] });
    check.expect(foreign.length === 0, {
      key: 'token',
      requirements: ['PROG-04'],
      expected: `progress notifications only with the token of the active request, unchanged (${show(token)})`,
      actual: `${foreign.length} with other tokens: ${show(foreign.map((f) => notification(f, 'notifications/progress')?.progressToken), 80)}`,
      frames: foreign.map((f) => f.index),
    });
    if (seen.length === 0) return check.skip(`not exercised: ${what} sent progress only with other tokens`, { key: 'increasing', frames: [reply.frame] });
    const values = seen.map((s) => s.progress);
    const decreasing = seen.filter((s, i) => i > 0 && !(typeof s.progress === 'number' && typeof seen[i - 1]!.progress === 'number' && s.progress > (seen[i - 1]!.progress as number)));
    check.expect(decreasing.length === 0 && values.every((v) => typeof v === 'number'), {
      key: 'increasing',
      requirements: ['PROG-02'],
      expected: `${what}: progress values increasing with every notification`,
      actual: `values ${show(values, 120)}`,
      frames: decreasing.map((s) => s.frame.index),
    });
    const late = seen.filter((s) => s.frame.index > reply.frame);
    check.expect(late.length === 0, {
      key: 'stops',
      requirements: ['PROG-04'],
      expected: `${what}: no progress after the response (frame ${reply.frame})`,
      actual: `${late.length} progress notification(s) after it`,
      frames: [reply.frame, ...late.map((s) => s.frame.index)],
    });
  },
});

const CANCEL_TARGET_MS = 200;
/** The cancel goes out at the first progress notification, or at this share of the call's duration. */
const CANCEL_AT_SHARE = 0.5;
const CANCEL_AT_MAX_MS = 150;
/** The cancel scenario's attempts, each this many times the first one's target duration. */
const CANCEL_RETRY_SCALES = [1, 4, 16];
/** How long the progress and cancel scenarios may spend looking for a tool that reports progress. */
const PROGRESS_SEARCH_MS = 6_000;

/** The body of server.utilities.cancel in either era; `silence` is the rule that the cancelled call's silence is judged by. */
async function cancelSlowCall({ session, connect, check, discovery, options }: ScenarioContext, silence: RequirementId): Promise<void> {
  const init = await connect(session);
  if (!init.ok) return check.error(`${init.opening} failed: ${describeReply(init.reply)}`);
  // Else a permitted tool that reports progress, with the duration its first call took.
  const first = findSlowTool(discovery.tools, options.callTools, CANCEL_TARGET_MS) ?? (await findProgressTool(session, discovery.tools, options.callTools, PROGRESS_SEARCH_MS));
  // The tool must outlast the cancel yet finish soon enough that a server ignoring the cancel is seen answering.
  if (!first || first.estimateMs < CANCEL_TARGET_MS || first.estimateMs > 6_000) {
    return check.skip(
      `no slow tool may be called under --call-tools ${options.callTools.mode} (looked for a permitted tool named or described as slow/long/sleep/delay/wait/progress whose duration-like argument allows about ${CANCEL_TARGET_MS / 1000} s, or one that reports progress and takes ${CANCEL_TARGET_MS / 1000}–6 s${first ? `; ${first.plan.name} took ${first.estimateMs} ms` : ''})`,
    );
  }
  // A call that ends before the server reads the cancel is a race the spec allows, and a busy
  // machine loses it more often: it is run again, longer where the tool's arguments allow.
  const races: string[] = [];
  for (const longer of CANCEL_RETRY_SCALES) {
    const slow = (longer > 1 ? findSlowTool(discovery.tools, options.callTools, CANCEL_TARGET_MS * longer) : undefined) ?? first;
    const { plan, args, estimateMs } = slow;
    // Wait long enough that a server ignoring the cancel would have answered, at its measured pace.
    const rtt = await timedPing(session);
    const waitMs = Math.min(8_000, estimateMs + answerSlackMs(rtt.ms));
    const id = session.allocateId();
    const token = `mcpcheck-cancel-${id}`;
    const mark = session.mark;
    const started = performance.now();
    const pending = session.requestMessage(session.compose(id, 'tools/call', { name: plan.name, arguments: args, _meta: { progressToken: token } }), waitMs);
    const early: { reply?: Reply } = {};
    void pending.then((r) => (early.reply = r));
    // Cancel after the first progress notification, or half-way through the call, whichever comes first.
    await session.waitForFrame((f) => notification(f, 'notifications/progress')?.progressToken === token, Math.min(CANCEL_AT_MAX_MS * longer, estimateMs * CANCEL_AT_SHARE), mark);
    if (early.reply) {
      races.push(`${plan.name} ${show(args, 80)} finished before mcpcheck could cancel it (${describeReply(early.reply)})`);
      continue;
    }
    const cancelIndex = session.mark;
    await session.notify('notifications/cancelled', { requestId: id, reason: 'mcpcheck: cancellation test' });
    const cancelAt = session.frames.find((f) => f.index === cancelIndex)?.at ?? 0;
    const cancelMs = Math.round(performance.now() - started);
    // A cancel that left once the call's whole duration was over (mcpcheck's own process was slow
    // to get to it) tests nothing: the call may be done, its frames still on their way.
    if (cancelMs >= estimateMs) {
      races.push(`mcpcheck sent the cancel for ${plan.name} ${show(args, 80)} at ${cancelMs} ms, when its ${estimateMs} ms of work were over`);
      await pending;
      continue;
    }
    // Progress the server sent before it read the cancel is a race the spec allows. Its answer to a
    // ping sent after the cancel shows it has read it (messages are read in order); without that
    // answer, 200 ms after the cancel stands in.
    const seen = await session.barrier(2_000);
    const sentAfterCancel = seen.kind === 'result' ? (p: { frame: RecordedFrame }) => p.frame.index > seen.frame : (p: { frame: RecordedFrame }) => p.frame.at - cancelAt > 200;
    // Progress sent after the server showed it had read the cancel settles the verdict (frames of a
    // request come in order, so no response can have crossed the cancel any more): the response is
    // then not waited for to the end.
    const unheeded = seen.kind === 'result' ? session.waitForFrame((f) => f.index > seen.frame && notification(f, 'notifications/progress')?.progressToken === token, waitMs, cancelIndex) : Promise.resolve(undefined);
    const outcome = await Promise.race([pending.then((r) => ({ reply: r })), unheeded.then(async (frame) => (frame ? { settledAt: Math.round(performance.now() - started) } : { reply: await pending }))]);
    const reply = 'reply' in outcome ? outcome.reply : undefined;
    // An answer may have progress right behind it; a call that went unanswered was watched to its end.
    // (Unanswered, a ping sent after it was answered: the cancel did its work.)
    const silent = reply === undefined || reply.kind === 'timeout' || reply.kind === 'unanswered';
    if (!silent) await session.settle(100);
    // A response sent before the server showed it had read the cancel may have crossed it: the spec allows that race.
    if (reply !== undefined && isAnswer(reply) && seen.kind === 'result' && reply.frame < seen.frame) {
      races.push(`${plan.name} ${show(args, 80)} answered before the server showed it had read the cancel (sent at ${cancelMs} ms)`);
      continue;
    }
    const progressAfter = progressFrames(session, token, cancelIndex).filter(sentAfterCancel);
    check.expect(silent && progressAfter.length === 0, {
      key: 'no-response',
      requirements: [silence],
      expected: `no response to tools/call ${show(plan.name)} ${show(args, 80)} (about ${Math.round(estimateMs / 100) / 10} s of work) after cancelling it at ${cancelMs} ms, and no more progress (watched up to ${waitMs / 1000} s; ping took ${rtt.ms} ms${races.length > 0 ? `; attempt ${races.length + 1}, as ${races.join('; ')}` : ''})`,
      actual: `${'settledAt' in outcome ? `no response in the ${outcome.settledAt} ms watched (the progress after the cancel had settled the verdict)` : silent ? 'no response' : describeReply(reply!)}; ${progressAfter.length} progress notification(s) after the server had read the cancel`,
      frames: [...(reply ? [replyFrame(reply)] : []), ...progressAfter.map((p) => p.frame.index)],
    });
    const alive = await session.request(session.probeMethod, undefined, 3_000);
    check.expect(alive.kind === 'result', { key: 'alive', requirements: ['CANCEL-05'], expected: `${session.probeMethod} answered after the cancellation`, actual: describeReply(alive), frames: [replyFrame(alive)], replies: [alive] });
    return;
  }
  check.skip(`not exercised in ${races.length} attempt(s), a race the spec allows: ${races.join('; ')}`);
}

export const cancelInFlight = scenario({
  id: 'server.utilities.cancel',
  title: 'A cancelled tool call gets no response and no more progress; the server keeps answering',
  requirements: ['CANCEL-05'],
  isolation: 'session',
  // 2026-07-28 grades the silence after a cancel by the transport (STDIO-CANCEL-02; on HTTP closing the stream cancels, HTTP-CANCEL-01).
  revisions: { removed: '2026-07-28' },
  waits: true,
  needs: { capabilities: ['tools'] },
  run: (ctx) => cancelSlowCall(ctx, 'CANCEL-05'),
});

/**
 * The same over stdio in 2026-07-28, where nothing further may come for a cancelled request
 * (STDIO-CANCEL-02, MUST NOT: the transport page is more specific than CANCEL-05's SHOULD, §19.9).
 */
export const modernCancelInFlight = scenario({
  id: 'server.modern.utilities.cancel',
  title: 'A tool call cancelled with notifications/cancelled gets no response and no more progress; the server keeps answering',
  requirements: ['STDIO-CANCEL-02', 'CANCEL-05'],
  isolation: 'session',
  revisions: { introduced: '2026-07-28' },
  waits: true,
  needs: { capabilities: ['tools'], transport: 'stdio' },
  run: (ctx) => cancelSlowCall(ctx, 'STDIO-CANCEL-02'),
});

export const cancelAfterResponse = scenario({
  id: 'server.utilities.cancel-after-response',
  title: 'Cancelling a request that was already answered is ignored',
  requirements: ['CANCEL-07', 'CANCEL-08'],
  isolation: 'shared',
  carriedOver: true,
  async run({ session, check }) {
    const id = session.allocateId();
    const first = await session.requestMessage(session.compose(id, session.probeMethod), 5_000);
    const mark = session.mark;
    await session.notify('notifications/cancelled', { requestId: id, reason: 'mcpcheck: already answered' });
    const barrier = await session.barrier(3_000);
    // A response naming one of our requests (e.g. a duplicate answer) is BASE-ID-04's business, not an answer to the notification.
    const stray = strayResponses(session, mark, ourRequestIds(session));
    check.expect(stray.length === 0 && barrier.kind === 'result' && first.kind === 'result', {
      expected: `no response to notifications/cancelled for the already answered request ${id}, and ${session.probeMethod} still answered`,
      actual: `${stray.length} response frame(s) to the notification; then ping: ${describeReply(barrier)}`,
      frames: [...stray.map((f) => f.index), replyFrame(barrier)],
    });
  },
});

export const utilities = [
  ping,
  pagination,
  invalidCursor,
  logLevels,
  logFilter,
  completionLimit,
  completionErrors,
  progress,
  cancelInFlight,
  modernCancelInFlight,
  cancelAfterResponse,
];
