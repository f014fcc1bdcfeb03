import { cannedCapabilities, type CheckOptions, describeReply, describeErrors, hasCapability, isObject, RELATED_TASK, type Reply, replyFrame, ruling, scenario, schemaFor, type Scenario, show } from '../kit.js';
import { askingTask, callAsTask, ID_TASKS, judgeIdEntropy, tasksAtOnce, createdTask, createdTaskId, declaresToolTasks, failingArguments, finishedTask, firstTaskPlan, INPUT_METHODS, inputTaskPlan, UNKNOWN_ID_PROBES, UNKNOWN_TASK, listedTaskIds, MAX_TASK_PAGES, noTaskTool, type NotExercised, pollToEnd, pollWhileInputRequired, runningTask, startedTask, TOOL_TASKS, taskPlans, taskSupport } from './task-helpers.js';
import { callablePlans, errorCodeOf, quickArguments, unansweredSkip } from './helpers.js';
import { describeProbe, httpScenario, mediaOf, probe, responseIn, rpc } from './http.js';

// Tasks (basic/utilities/tasks.mdx, 2025-11-25, experimental): task-augmented tools/call, and the
// tasks/get, tasks/result, tasks/cancel and tasks/list a server that declares tasks answers. One rule each;
// the status machine, timestamps and related-task metadata are judged on all of this traffic by
// live validation (TASK-ST-*, TASK-TTL-01, TASK-RES-03, TASK-META-02).

const TASKS_SINCE = { introduced: '2025-11-25' } as const;
/** How long a task mcpcheck started may take to finish before it stops waiting. */
const TASK_END_MS = 10_000;
/** How long a tool mcpcheck acts on while it works (cancels it, waits for its result) is asked to take. */
const CANCELLED_RUN_MS = 1_500;
/** How long after a cancel a task is read again: past the time its work was asked to take, had it gone on. */
const AFTER_CANCEL_MS = CANCELLED_RUN_MS + 300;
const METHOD_NOT_FOUND = -32601;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

const experimental = 'tasks are experimental in 2025-11-25';

export const requiredPlain = scenario({
  id: 'server.tasks.required-plain',
  title: 'A plain (non-task) call to a tool whose taskSupport is "required" gets -32601',
  requirements: ['TASK-TOOL-04'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, discovery, options }) {
    const plan = firstTaskPlan(discovery, options.callTools, ['required']);
    if ('skip' in plan) return check.skip(plan.skip);
    const reply = await session.request('tools/call', { name: plan.name, arguments: quickArguments(plan) }, options.requestTimeoutMs);
    const code = errorCodeOf(reply);
    const what = `a tools/call of ${show(plan.name)} without params.task (${experimental})`;
    if (code === INVALID_REQUEST) {
      check.note(`${ruling('required-task-missing-error').cite}: ${plan.name} answered -32600, the Error Handling section's MAY`);
      return void check.expect(true, { expected: `${what}: -32601 (or -32600)`, actual: describeReply(reply), frames: [replyFrame(reply)], replies: [reply] });
    }
    check.errorCode(reply, [METHOD_NOT_FOUND], { what });
  },
});

export const forbiddenAsTask = scenario({
  id: 'server.tasks.forbidden-task',
  title: 'A task-augmented call to a tool whose taskSupport is absent or "forbidden" gets -32601',
  requirements: ['TASK-TOOL-02'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, discovery, options }) {
    const plan = firstTaskPlan(discovery, options.callTools, ['forbidden']);
    if ('skip' in plan) return check.skip(plan.skip);
    const reply = await callAsTask(session, plan, options.requestTimeoutMs);
    check.errorCode(reply, [METHOD_NOT_FOUND], { what: `a tools/call of ${show(plan.name)} (taskSupport ${show(taskSupport(plan.tool))}) with params.task (${experimental})` });
  },
});

export const createsTask = scenario({
  id: 'server.tasks.create',
  title: 'A task-augmented call to a tool that supports tasks is answered with a CreateTaskResult, not the tool\'s result',
  requirements: ['TASK-CREATE-01'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, discovery, options }) {
    const plan = firstTaskPlan(discovery, options.callTools);
    if ('skip' in plan) return check.skip(plan.skip);
    const reply = await callAsTask(session, plan, options.requestTimeoutMs, { ttl: 60_000 });
    const task = createdTask(reply);
    check.expect(task !== undefined && !(reply.kind === 'result' && 'content' in reply.result), {
      expected: `a CreateTaskResult ({task}, without the tool's content) for the task-augmented tools/call of ${show(plan.name)} (${experimental})`,
      actual: describeReply(reply),
      frames: [replyFrame(reply)],
      replies: [reply],
    });
    const taskId = createdTaskId(reply);
    if (taskId) await pollToEnd(session, taskId, TASK_END_MS, options.requestTimeoutMs);
  },
});

export const distinctIds = scenario({
  id: 'server.tasks.ids',
  title: 'Task ids are strings, distinct among the tasks a server holds',
  requirements: ['TASK-ID-01'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, discovery, options }) {
    const plan = firstTaskPlan(discovery, options.callTools);
    if ('skip' in plan) return check.skip(plan.skip);
    const replies = await tasksAtOnce(session, plan, options.requestTimeoutMs);
    const ids = replies.map((r) => createdTask(r)?.taskId);
    if (ids.some((id) => id === undefined)) return check.skip(`not exercised: not every task-augmented call of ${show(plan.name)} created a task (server.tasks.create judges that)`, { frames: replies.map(replyFrame) });
    check.expect(ids.every((id) => typeof id === 'string') && new Set(ids).size === ids.length, {
      expected: `${ID_TASKS} distinct string task ids for ${ID_TASKS} task-augmented calls of ${show(plan.name)} (${experimental})`,
      actual: `ids ${show(ids)}`,
      frames: replies.map(replyFrame),
      replies,
    });
    for (const id of new Set(ids.filter((i): i is string => typeof i === 'string'))) await pollToEnd(session, id, TASK_END_MS, options.requestTimeoutMs);
  },
});

export const idEntropy = scenario({
  id: 'server.tasks.id-entropy',
  title: 'Without an authorization context, task ids cannot be guessed from one another',
  requirements: ['TASK-SEC-02'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, discovery, options, target }) {
    if (target.credentialed) return check.skip(`not judged: the run presents a credential, to which the server may bind its tasks (TASK-SEC-01); their ids then need not resist guessing (${ruling('task-id-entropy').cite})`);
    const plan = firstTaskPlan(discovery, options.callTools);
    if ('skip' in plan) return check.skip(plan.skip);
    const replies = await tasksAtOnce(session, plan, options.requestTimeoutMs);
    const made = [...new Set(replies.map(createdTaskId).filter((id): id is string => id !== undefined))];
    if (made.length < 2) return check.skip(`not exercised: ${ID_TASKS} task-augmented calls of ${show(plan.name)} made ${made.length} task(s) with a string id (server.tasks.create and server.tasks.ids judge that)`, { frames: replies.map(replyFrame) });
    judgeIdEntropy(check, made, replies, `task ids that cannot be guessed from one another for ${ID_TASKS} task-augmented calls of ${show(plan.name)} made at once, with no authorization context (${experimental})`);
    for (const id of made) await pollToEnd(session, id, TASK_END_MS, options.requestTimeoutMs);
  },
});

export const resultAsOriginal = scenario({
  id: 'server.tasks.result',
  title: 'tasks/result of a finished task returns what the call itself would have: a CallToolResult, or its JSON-RPC error',
  requirements: ['TASK-RES-01'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, discovery, options }) {
    const finished = await finishedTask(session, discovery, options, TASK_END_MS);
    if ('skip' in finished) return check.skip(finished.skip, { frames: finished.frames });
    const { plan, taskId, end } = finished;
    const reply = await session.request('tasks/result', { taskId }, options.requestTimeoutMs);
    if (reply.kind === 'unanswered') return unansweredSkip(check, `tasks/result of task ${show(taskId)}`, reply);
    // The schema's CallToolResult without the related-task _meta the result carries (TASK-RES-03 judges that).
    const errors = reply.kind === 'result' ? schemaFor('2025-11-25').validate('CallToolResult', reply.result) : null;
    check.expect(reply.kind === 'error' || (reply.kind === 'result' && errors === null), {
      expected: `tasks/result of task ${show(taskId)} (${show(end.kind === 'result' ? end.result.status : undefined)}) as the tools/call of ${show(plan.name)} would have answered: a CallToolResult or a JSON-RPC error (${experimental})`,
      actual: errors ? `a result that is no CallToolResult: ${describeErrors(errors, '/result')}` : describeReply(reply),
      frames: [replyFrame(reply)],
      replies: [reply],
    });
  },
});

export const cancelTerminal = scenario({
  id: 'server.tasks.cancel-terminal',
  title: 'Cancelling a task that has finished fails with -32602',
  requirements: ['TASK-CANCEL-01'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS, 'tasks.cancel'] },
  async run({ session, check, discovery, options }) {
    const finished = await finishedTask(session, discovery, options, TASK_END_MS);
    if ('skip' in finished) return check.skip(finished.skip, { frames: finished.frames });
    const { taskId, end } = finished;
    const status = end.kind === 'result' ? end.result.status : undefined;
    const reply = await session.request('tasks/cancel', { taskId }, options.requestTimeoutMs);
    check.errorCode(reply, [INVALID_PARAMS], { what: `tasks/cancel of task ${show(taskId)}, already ${show(status)} (${experimental})` });
  },
});

export const cancelShowsCancelled = scenario({
  id: 'server.tasks.cancel',
  title: 'Cancelling a working task answers it "cancelled" (the status is set before the reply)',
  requirements: ['TASK-CANCEL-02'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS, 'tasks.cancel'] },
  async run({ session, check, discovery, options }) {
    const running = await runningTask(session, discovery, options, CANCELLED_RUN_MS);
    if ('skip' in running) return check.skip(running.skip, { frames: running.frames });
    const reply = await session.request('tasks/cancel', { taskId: running.taskId }, options.requestTimeoutMs);
    if (errorCodeOf(reply) === INVALID_PARAMS) return check.skip(`not exercised: task ${show(running.taskId)} had ended before the cancel came (${describeReply(reply)})`, { frames: [replyFrame(reply)] });
    check.expect(reply.kind === 'result' && reply.result.status === 'cancelled', {
      expected: `the tasks/cancel result of working task ${show(running.taskId)} (${show(running.plan.name)} ${show(running.args)}) with status "cancelled" (${experimental})`,
      actual: reply.kind === 'result' ? `status ${show(reply.result.status)}` : describeReply(reply),
      frames: [replyFrame(reply)],
      replies: [reply],
    });
  },
});

export const staysCancelled = scenario({
  id: 'server.tasks.stays-cancelled',
  title: 'A cancelled task stays cancelled after its work would have ended',
  requirements: ['TASK-CANCEL-03'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS, 'tasks.cancel'] },
  async run({ session, check, discovery, options }) {
    const running = await runningTask(session, discovery, options, CANCELLED_RUN_MS);
    if ('skip' in running) return check.skip(running.skip, { frames: running.frames });
    const cancel = await session.request('tasks/cancel', { taskId: running.taskId }, options.requestTimeoutMs);
    if (cancel.kind !== 'result' || cancel.result.status !== 'cancelled') return check.skip(`not exercised: the cancel of task ${show(running.taskId)} did not answer "cancelled" (${describeReply(cancel)}; server.tasks.cancel judges that)`, { frames: [replyFrame(cancel)] });
    await session.settle(AFTER_CANCEL_MS);
    const after = await session.request('tasks/get', { taskId: running.taskId }, options.requestTimeoutMs);
    const status = after.kind === 'result' ? after.result.status : undefined;
    check.expect(status === 'cancelled' || errorCodeOf(after) === INVALID_PARAMS, {
      expected: `task ${show(running.taskId)} still "cancelled" (or deleted: -32602) ${AFTER_CANCEL_MS} ms after its cancel (${experimental})`,
      actual: after.kind === 'result' ? `status ${show(status)}` : describeReply(after),
      frames: [replyFrame(after)],
      replies: [after],
    });
  },
});

export const unknownTaskId = scenario({
  id: 'server.tasks.unknown-id',
  title: 'tasks/get, tasks/result and tasks/cancel of an unknown task id, and tasks/list with an invalid cursor, get -32602',
  requirements: ['TASK-ERR-01'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: ['tasks'] },
  async run({ session, check, discovery, options }) {
    for (const probe of UNKNOWN_ID_PROBES) {
      if (!hasCapability(discovery.capabilities, probe.capability)) {
        check.skip(`not exercised: the server did not declare ${probe.capability}`, { key: probe.key });
        continue;
      }
      const reply = await session.request(probe.method, probe.params, options.requestTimeoutMs);
      check.errorCode(reply, [INVALID_PARAMS], { key: probe.key, what: `${probe.method} with ${probe.what} (${experimental})` });
    }
  },
});

export const taskIdAuthoritative = scenario({
  id: 'server.tasks.id-authoritative',
  title: 'tasks/get describes the task its taskId names, whatever related-task metadata says',
  requirements: ['TASK-META-03'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, discovery, options }) {
    const started = await startedTask(session, discovery, options);
    if ('skip' in started) return check.skip(started.skip, { frames: started.frames });
    const { taskId } = started;
    const reply = await session.request('tasks/get', { taskId, _meta: { [RELATED_TASK]: { taskId: UNKNOWN_TASK } } }, options.requestTimeoutMs);
    // No answer shows nothing of which id the server went by: an unanswered request is BASE-ID-04's, judged live.
    if (reply.kind !== 'result' && reply.kind !== 'error') {
      check.skip(`not exercised: tasks/get {taskId: ${show(taskId)}} with related-task _meta naming ${show(UNKNOWN_TASK)} got ${describeReply(reply)}`, { frames: [replyFrame(reply)] });
    } else {
      check.expect(reply.kind === 'result' && reply.result.taskId === taskId, {
        expected: `tasks/get {taskId: ${show(taskId)}} with related-task _meta naming ${show(UNKNOWN_TASK)}: task ${show(taskId)} (the taskId parameter is authoritative; ${experimental})`,
        actual: reply.kind === 'result' ? `task ${show(reply.result.taskId)}` : describeReply(reply),
        frames: [replyFrame(reply)],
        replies: [reply],
      });
    }
    await pollToEnd(session, taskId, TASK_END_MS, options.requestTimeoutMs);
  },
});

export const taskFieldIgnored = scenario({
  id: 'server.tasks.undeclared',
  title: 'A server that does not declare task support for tools/call answers a task-augmented call as a plain one',
  requirements: ['TASK-SUP-01'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: ['tools'] },
  async run({ session, check, discovery, options }) {
    if (declaresToolTasks(discovery)) return check.skip(`not exercised: the server declares ${TOOL_TASKS} (the task field is its to honour)`);
    const plan = callablePlans(discovery, options.callTools)[0];
    if (!plan) return check.skip(`not exercised: no tool may be called (--call-tools ${options.callTools.mode})`);
    const reply = await callAsTask(session, plan, options.requestTimeoutMs, { ttl: 60_000 });
    // An error is the call's own when the same call without the task field gets it too.
    const plain = reply.kind === 'error' ? await session.request('tools/call', { name: plan.name, arguments: quickArguments(plan) }, options.requestTimeoutMs) : undefined;
    const processed = reply.kind === 'result' ? !('task' in reply.result) : reply.kind === 'error' && errorCodeOf(plain!) === reply.error.code;
    check.expect(processed, {
      expected: `the tools/call of ${show(plan.name)} with params.task processed as the plain call it is (a CallToolResult, or the error the call gets without the task field), not a CreateTaskResult`,
      actual: plain ? `${describeReply(reply)}; without the task field: ${describeReply(plain)}` : describeReply(reply),
      frames: [replyFrame(reply), plain && replyFrame(plain)],
      replies: plain ? [reply, plain] : [reply],
    });
  },
});

export const failedTask = scenario({
  id: 'server.tasks.failed',
  title: 'A task whose call fails ends "failed", with a statusMessage that says why',
  requirements: ['TASK-EXEC-01'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, discovery, options }) {
    const plans = taskPlans(discovery, options.callTools);
    if (plans.length === 0) return check.skip(noTaskTool(discovery, options.callTools));
    const failing = plans.map((plan) => ({ plan, failing: failingArguments(plan) })).find((p) => p.failing !== undefined);
    if (!failing?.failing) return check.skip('not exercised: no tool that supports tasks declares a property of one JSON type, so no call of one surely fails');
    const { plan, failing: { args, property } } = failing;
    const created = await session.request('tools/call', { name: plan.name, arguments: args, task: { ttl: 60_000 } }, options.requestTimeoutMs);
    const taskId = createdTaskId(created);
    if (!taskId) return check.skip(`not exercised: the call of ${show(plan.name)} with ${property} of the wrong type was refused before any task ran (${describeReply(created)})`, { frames: [replyFrame(created)] });
    const end = await pollToEnd(session, taskId, TASK_END_MS, options.requestTimeoutMs);
    if (!end.terminal) return check.skip(`not exercised: task ${show(taskId)} did not finish within ${TASK_END_MS} ms`, { frames: [replyFrame(end.reply)] });
    const outcome = await session.request('tasks/result', { taskId }, options.requestTimeoutMs);
    const failed = outcome.kind === 'error' || (outcome.kind === 'result' && outcome.result.isError === true);
    if (!failed) return check.skip(`not exercised: the call of ${show(plan.name)} with ${property} of the wrong type (${show(args[property])}) did not fail (${describeReply(outcome)})`, { frames: [replyFrame(outcome)] });
    const task = end.reply.kind === 'result' ? end.reply.result : {};
    check.expect(task.status === 'failed' && typeof task.statusMessage === 'string' && task.statusMessage.trim() !== '', {
      expected: `task ${show(taskId)}, whose tools/call of ${show(plan.name)} failed (${describeReply(outcome)}), "failed" with a statusMessage saying why (${experimental})`,
      actual: `status ${show(task.status)}, statusMessage ${show(task.statusMessage)}`,
      frames: [replyFrame(end.reply), replyFrame(outcome)],
      replies: [end.reply, outcome],
    });
  },
});

export const resultBlocks = scenario({
  id: 'server.tasks.result-blocks',
  title: 'tasks/result of a working task answers only once the task has ended',
  requirements: ['TASK-RES-02'],
  isolation: 'shared',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, discovery, options }) {
    const running = await runningTask(session, discovery, options, CANCELLED_RUN_MS);
    if ('skip' in running) return check.skip(running.skip, { frames: running.frames });
    const outcome = await session.request('tasks/result', { taskId: running.taskId }, options.requestTimeoutMs + CANCELLED_RUN_MS);
    if (outcome.kind === 'unanswered') return unansweredSkip(check, `tasks/result of task ${show(running.taskId)}`, outcome);
    if (outcome.kind !== 'result' && outcome.kind !== 'error') return void check.expect(false, { expected: `an answer to tasks/result of task ${show(running.taskId)} once it ended`, actual: describeReply(outcome), replies: [outcome] });
    const after = await session.request('tasks/get', { taskId: running.taskId }, options.requestTimeoutMs);
    const status = after.kind === 'result' ? after.result.status : undefined;
    check.expect(status === 'completed' || status === 'failed' || status === 'cancelled', {
      expected: `tasks/result of task ${show(running.taskId)} (${show(running.plan.name)} ${show(running.args)}, asked while it worked) answered only once the task had ended: tasks/get right after it shows a terminal status (${experimental})`,
      actual: `tasks/result answered ${describeReply(outcome)}; tasks/get then: ${after.kind === 'result' ? `status ${show(status)}` : describeReply(after)}`,
      frames: [replyFrame(outcome), replyFrame(after)],
      replies: [outcome, after],
    });
  },
});

export const taskGetAsJson = httpScenario({
  id: 'server.tasks.get-not-streamed',
  title: 'Over Streamable HTTP, tasks/get is answered with a JSON body, not an SSE stream (the client polls)',
  requirements: ['TASK-HTTP-01'],
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  unexercised: ({ discovery, options }) => {
    const plan = firstTaskPlan(discovery, options.callTools);
    return 'skip' in plan ? plan.skip : undefined;
  },
  async run({ session, check, discovery, options }, channel) {
    const started = await startedTask(session, discovery, options);
    if ('skip' in started) return check.skip(started.skip, { frames: started.frames });
    const { taskId } = started;
    const { id, body } = rpc('tasks/get', { taskId });
    const res = await probe(channel, { method: 'POST', body });
    const answered = responseIn(res, id);
    if (!answered) return check.skip(`not exercised: the POSTed tasks/get of task ${show(taskId)} got no response to read (${describeProbe(res)})`);
    check.expect(mediaOf(res.contentType) === 'application/json', {
      expected: `tasks/get of task ${show(taskId)} answered with Content-Type application/json (servers avoid an SSE stream for a poll where possible; ${experimental})`,
      actual: describeProbe(res),
    });
    await pollToEnd(session, taskId, TASK_END_MS, options.requestTimeoutMs);
  },
});

/** Tasks created for the listing to hold: more than one page of a server that pages by two. */
const LISTED_TASKS = 3;
/** The checks of server.tasks.listed: every readable task listed, and a next page named while tasks remain. */
const COMPLETE: CheckOptions = { key: 'complete', requirements: ['TASK-LIST-03'] };
const NEXT_CURSOR: CheckOptions = { key: 'next-cursor', requirements: ['TASK-LIST-01'] };

export const listsEveryTask = scenario({
  id: 'server.tasks.listed',
  title: 'tasks/list, walked to its end, lists every task tasks/get can read, naming a next page while tasks remain',
  requirements: ['TASK-LIST-03', 'TASK-LIST-01'],
  isolation: 'session',
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS, 'tasks.list'] },
  async run({ session, check, connect, discovery, options }) {
    // Known from discovery alone: without a task tool the session is not even opened.
    const plan = firstTaskPlan(discovery, options.callTools);
    if ('skip' in plan) return check.skipEach(plan.skip, [COMPLETE, NEXT_CURSOR]);
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const created: string[] = [];
    for (let i = 0; i < LISTED_TASKS; i++) {
      const taskId = createdTaskId(await callAsTask(session, plan, options.requestTimeoutMs, { ttl: 60_000 }));
      if (taskId) created.push(taskId);
    }
    if (created.length === 0) return check.skipEach(`not exercised: no task-augmented call of ${show(plan.name)} created a task`, [COMPLETE, NEXT_CURSOR]);
    // Finished tasks are still readable: the list must hold them as well.
    for (const taskId of created) await pollToEnd(session, taskId, TASK_END_MS, options.requestTimeoutMs);
    const readable: string[] = [];
    for (const taskId of created) if ((await session.request('tasks/get', { taskId }, options.requestTimeoutMs)).kind === 'result') readable.push(taskId);
    if (readable.length === 0) return check.skipEach('not exercised: none of the tasks mcpcheck created could be read with tasks/get any more', [COMPLETE, NEXT_CURSOR]);
    const walk = await listedTaskIds(session, options.requestTimeoutMs);
    const missing = readable.filter((id) => !walk.ids.has(id));
    const bound = `mcpcheck's bound of ${MAX_TASK_PAGES} pages, the last still naming a next page`;
    // Past the bound the list may yet hold what it has not shown: mcpcheck's limit, not the server's fault.
    if (walk.cut && missing.length > 0) return check.couldNotRun(`tasks/list walked to ${bound}: ${walk.ids.size} task(s) listed, ${show(missing)} not among them yet`);
    const walked = walk.stoppedBy ? `the walk stopped after ${walk.pages} page(s): ${describeReply(walk.stoppedBy)}` : `${walk.pages} page(s) of ${walk.ids.size} task(s), without ${show(missing)}`;
    check.expect(walk.stoppedBy === undefined && missing.length === 0, {
      ...COMPLETE,
      expected: `every task tasks/get reads (${show(readable)}) in tasks/list, walked ${walk.cut ? `to ${bound}` : 'to its last page'} (${experimental})`,
      actual: walked,
      ...(walk.stoppedBy ? { replies: [walk.stoppedBy] } : {}),
    });
    // A list that ends while a task it holds is still unlisted gave no nextCursor where more tasks
    // remained: the same walk, seen from the page that ended it (ruling task-list-ends-early).
    if (walk.stoppedBy) return check.skip(`not exercised: ${walked}`, NEXT_CURSOR);
    if (missing.length === 0 && walk.pages < 2) return check.skip(`not exercised: one page held all ${walk.ids.size} task(s), so no page had tasks after it`, NEXT_CURSOR);
    check.expect(missing.length === 0, {
      ...NEXT_CURSOR,
      expected: `each page of tasks/list followed by a nextCursor while tasks remain to be listed (${show(readable)} are readable; ${experimental}; ${ruling('task-list-ends-early').cite})`,
      actual: missing.length === 0 ? `${walk.pages} page(s), every readable task listed` : `the list ended after ${walk.pages} page(s) of ${walk.ids.size} task(s) with no nextCursor, ${show(missing)} never listed`,
    });
  },
});

/** How long a task that asks for input gets to ask, and then to leave input_required once answered. */
const ASK_MS = 15_000;
const LEAVE_INPUT_MS = 5_000;
/** The checks of server.tasks.input-required: the task's status, and the request's tie to the task. */
const STATUS: CheckOptions = { key: 'status', requirements: ['TASK-IR-01'] };
// TASK-META-01 names this very request as its example: "an elicitation serving a task-augmented tool call shares its id".
const RELATED: CheckOptions = { key: 'related-task', requirements: ['TASK-IR-02', 'TASK-META-01'] };

export const inputRequired = scenario({
  id: 'server.tasks.input-required',
  title: 'A task that needs the client\'s input is "input_required" while it waits for it, leaves that status once answered, and asks with related-task metadata',
  requirements: ['TASK-IR-01', 'TASK-IR-02', 'TASK-META-01'],
  isolation: 'session',
  waits: true,
  revisions: TASKS_SINCE,
  needs: { capabilities: [TOOL_TASKS] },
  async run({ session, check, connect, discovery, options }) {
    const skipBoth = (why: NotExercised) => check.skipEach(why.skip, [STATUS, RELATED], { frames: why.frames });
    const asking = inputTaskPlan(discovery, options.callTools);
    if ('skip' in asking) return skipBoth(asking);
    // Declaring elicitation and sampling, so that the server may ask (LIFE-OP-02).
    const opened = await connect(session, { capabilities: cannedCapabilities() });
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    await session.listen();
    // Its requests stay unanswered until the server has been seen waiting for the answer.
    const release = session.holdAnswers(INPUT_METHODS);
    let taskId: string | undefined;
    let result: Promise<Reply> | undefined;
    try {
      const task = await askingTask(session, asking, ASK_MS, options.requestTimeoutMs);
      if ('skip' in task) return skipBoth(task);
      ({ taskId, result } = task);
      const asked = task.asked.message as Record<string, unknown>;
      const meta = isObject(asked.params) && isObject(asked.params._meta) ? asked.params._meta[RELATED_TASK] : undefined;
      check.expect(isObject(meta) && meta.taskId === taskId, {
        ...RELATED,
        expected: `the ${show(asked.method)} the server sent while task ${show(taskId)} ran (the only task of this session) with _meta ${show({ [RELATED_TASK]: { taskId } })} (${experimental})`,
        actual: meta === undefined ? `no ${RELATED_TASK} in its _meta` : `${RELATED_TASK} ${show(meta)}`,
        frames: [task.asked.index],
      });
      const waiting = await session.request('tasks/get', { taskId }, options.requestTimeoutMs);
      release();
      const left = await pollWhileInputRequired(session, taskId, LEAVE_INPUT_MS, options.requestTimeoutMs);
      const statusOf = (r: Reply) => (r.kind === 'result' ? r.result.status : undefined);
      check.expect(statusOf(waiting) === 'input_required' && left.kind === 'result' && typeof statusOf(left) === 'string' && statusOf(left) !== 'input_required', {
        ...STATUS,
        expected: `task ${show(taskId)} "input_required" while its ${show(asked.method)} waited for mcpcheck's answer, and another status within ${LEAVE_INPUT_MS} ms of the answer (${experimental})`,
        actual: `while unanswered: ${waiting.kind === 'result' ? `status ${show(statusOf(waiting))}` : describeReply(waiting)}; once answered: ${left.kind === 'result' ? `status ${show(statusOf(left))}` : describeReply(left)}`,
        frames: [task.asked.index, replyFrame(waiting), replyFrame(left)],
        replies: [waiting, left],
      });
    } finally {
      release();
    }
    await result;
    if (taskId) await pollToEnd(session, taskId, TASK_END_MS, options.requestTimeoutMs);
  },
});

export const tasks: Scenario[] = [requiredPlain, forbiddenAsTask, createsTask, distinctIds, idEntropy, resultAsOriginal, cancelTerminal, cancelShowsCancelled, staysCancelled, unknownTaskId, taskIdAuthoritative, taskFieldIgnored, failedTask, resultBlocks, taskGetAsJson, listsEveryTask, inputRequired];
