import { cannedCapabilities, describeReply, isObject, isTerminal, META, MODERN, MODERN_ERRORS, type Reply, replyFrame, REQUEST_SCOPED, ruling, scenario, type Scenario, show, TASKS_EXTENSION, timedArguments } from '../kit.js';
import { quickArguments } from './helpers.js';
import { listenDuring, listenOnce } from './modern-exchange.js';
import { ID_TASKS, judgeIdEntropy } from './task-helpers.js';
import { advertisesTasks, callTaskTool, declaring, expectEachError, getTask, handleId, handlesAtOnce, NOT_ADVERTISED, pollTask, taskTools, withTasks } from './modern-task-helpers.js';

// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks, catalogs/ext-tasks-2026-07-28.json):
// a server that advertises it answers a client that declared it with task handles, and its tasks/get,
// tasks/update and tasks/cancel; a client that did not declare it gets −32021. One rule each; the
// status machine, the DetailedTask shapes, resultType and inputRequests keys of all this traffic are
// judged by live validation (TASK-ST-02, TASK-GET-01/02, TASK-SCHEMA-01, TASK-KEY-01 …).

const INVALID_PARAMS = -32602;
/** How long a task mcpcheck started may take to end before it stops waiting. */
const TASK_END_MS = 10_000;
/** A task id no server issued. */
const UNKNOWN_TASK = 'mcpcheck-no-such-task-7f3a';
const ACK_MS = 3_000;
const extension = `the tasks extension (${TASKS_EXTENSION})`;

/** Whether an error is −32021 naming the extension in data.requiredCapabilities.extensions. */
function namesExtension(reply: Reply): boolean {
  if (reply.kind !== 'error' || reply.error.code !== MODERN_ERRORS.missingClientCapability) return false;
  const data = isObject(reply.error.data) ? reply.error.data : {};
  const extensions = isObject(data.requiredCapabilities) && isObject(data.requiredCapabilities.extensions) ? data.requiredCapabilities.extensions : {};
  return isObject(extensions[TASKS_EXTENSION]);
}

export const undeclaredTool = scenario({
  id: 'server.modern.tasks.undeclared-tool',
  title: 'A tool that answered with a task handle, called without the extension, is served without one or refused with −32021 naming the extension',
  requirements: ['TASK-NEG-02'],
  isolation: 'shared',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run(ctx) {
    const { session, check } = ctx;
    const tools = await taskTools(ctx);
    if (!tools) return;
    const first = tools[0]!;
    await pollTask(session, first.taskId, TASK_END_MS, { answer: true });
    const reply = await callTaskTool(session, first.plan, cannedCapabilities());
    // A handle anyway is TASK-NEG-01's failure (live validation); no refusal to judge here.
    if (handleId(reply) !== undefined) return check.skip(`not exercised: ${first.plan.name} answered with a task handle all the same (TASK-NEG-01 judges that)`, { frames: [replyFrame(reply)] });
    check.expect(reply.kind === 'result' || namesExtension(reply), {
      expected: `tools/call ${show(first.plan.name)} (a task handle when ${extension} was declared) without the extension: a result, or error ${MODERN_ERRORS.missingClientCapability} with data.requiredCapabilities.extensions naming it (${ruling('task-missing-capability-code').cite})`,
      actual: describeReply(reply),
      frames: [replyFrame(reply)],
      replies: [reply],
    });
  },
});

export const undeclaredMethods = scenario({
  id: 'server.modern.tasks.undeclared-methods',
  title: 'tasks/get, tasks/update and tasks/cancel of a client that did not declare the extension get −32021',
  requirements: ['TASK-NEG-03'],
  isolation: 'shared',
  revisions: MODERN,
  async run({ session, check, discovery }) {
    if (!advertisesTasks(discovery)) return check.skip(NOT_ADVERTISED);
    const params = { taskId: UNKNOWN_TASK, _meta: declaring({}) };
    const replies = [
      await session.request('tasks/get', params),
      await session.request('tasks/update', { ...params, inputResponses: {} }),
      await session.request('tasks/cancel', params),
    ];
    expectEachError(check, replies, MODERN_ERRORS.missingClientCapability, `tasks/get, tasks/update and tasks/cancel with clientCapabilities {} (${ruling('task-missing-capability-code').cite})`);
  },
});

export const undeclaredListen = scenario({
  id: 'server.modern.tasks.undeclared-listen',
  title: 'subscriptions/listen asking for task status notifications without the extension gets −32021',
  requirements: ['TASK-NEG-04'],
  isolation: 'session',
  revisions: MODERN,
  async run({ session, check, connect, discovery }) {
    if (!advertisesTasks(discovery)) return check.skip(NOT_ADVERTISED);
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const outcome = await listenOnce(session, 'mcpcheck-task-listen', { taskIds: [UNKNOWN_TASK] }, ACK_MS);
    const first = outcome.messages[0];
    const error = first !== undefined && isObject(first.error) ? first.error : undefined;
    check.expect(error?.code === MODERN_ERRORS.missingClientCapability, {
      expected: `subscriptions/listen for taskIds with clientCapabilities {}: error ${MODERN_ERRORS.missingClientCapability} (${ruling('task-missing-capability-code').cite})`,
      actual: outcome.shown,
      frames: outcome.frames,
    });
  },
});

export const unknownTask = scenario({
  id: 'server.modern.tasks.unknown-task',
  title: 'tasks/get of a task id the server never issued gets −32602',
  requirements: ['TASK-GET-03'],
  isolation: 'shared',
  revisions: MODERN,
  async run({ session, check, discovery }) {
    if (!advertisesTasks(discovery)) return check.skip(NOT_ADVERTISED);
    const reply = await getTask(session, UNKNOWN_TASK);
    check.errorCode(reply, [INVALID_PARAMS], { what: `tasks/get of ${show(UNKNOWN_TASK)}, a task id the server never issued, declaring ${extension}` });
  },
});

export const unknownUpdateCancel = scenario({
  id: 'server.modern.tasks.unknown-update-cancel',
  title: 'tasks/update and tasks/cancel of a task id the server never issued get −32602',
  requirements: ['TASK-ERR-02'],
  isolation: 'shared',
  revisions: MODERN,
  async run({ session, check, discovery }) {
    if (!advertisesTasks(discovery)) return check.skip(NOT_ADVERTISED);
    const params = { taskId: UNKNOWN_TASK, _meta: declaring(withTasks()) };
    const replies = [await session.request('tasks/update', { ...params, inputResponses: {} }), await session.request('tasks/cancel', params)];
    expectEachError(check, replies, INVALID_PARAMS, `tasks/update and tasks/cancel of ${show(UNKNOWN_TASK)}, a task id the server never issued, declaring ${extension}`);
  },
});

export const durableHandle = scenario({
  id: 'server.modern.tasks.durable',
  title: 'A task handle comes only once the task exists: tasks/get of its id right after resolves',
  requirements: ['TASK-CREATE-02'],
  isolation: 'shared',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run(ctx) {
    const { session, check } = ctx;
    const tools = await taskTools(ctx);
    if (!tools) return;
    const first = tools[0]!;
    const handle = await callTaskTool(session, first.plan, withTasks());
    const taskId = handleId(handle);
    if (taskId === undefined) return check.skip(`not exercised: ${first.plan.name} answered this call without a task handle (${describeReply(handle)})`, { frames: [replyFrame(handle)] });
    const reply = await getTask(session, taskId);
    check.expect(reply.kind === 'result', {
      expected: `tasks/get of ${show(taskId)}, sent as soon as its handle came: the task`,
      actual: describeReply(reply),
      frames: [replyFrame(handle), replyFrame(reply)],
      replies: [reply],
    });
    await pollTask(session, taskId, TASK_END_MS, { answer: true });
  },
});

export const distinctIds = scenario({
  id: 'server.modern.tasks.ids',
  title: 'Task ids are strings, distinct among the tasks a server holds',
  requirements: ['TASK-ID-01'],
  isolation: 'shared',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run(ctx) {
    const { session, check } = ctx;
    const asked = await handlesAtOnce(ctx);
    if (!asked) return;
    const { plan, replies } = asked;
    const ids = replies.map(handleId);
    if (ids.some((id) => id === undefined)) return check.skip(`not exercised: not every call of ${plan.name} was answered with a task handle`, { frames: replies.map(replyFrame) });
    check.expect(new Set(ids).size === ids.length, {
      expected: `${ID_TASKS} distinct task ids for ${ID_TASKS} calls of ${show(plan.name)} declaring ${extension}`,
      actual: `ids ${show(ids)}`,
      frames: replies.map(replyFrame),
      replies,
    });
    for (const id of new Set(ids)) await pollTask(session, id!, TASK_END_MS, { answer: true });
  },
});

export const idEntropy = scenario({
  id: 'server.modern.tasks.id-entropy',
  title: 'Task ids cannot be guessed from one another',
  // A task id is a state handle (security best practices, "State handle hijacking").
  requirements: ['TASK-SEC-05', 'SEC-HANDLE-02'],
  isolation: 'shared',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run(ctx) {
    const { session, check } = ctx;
    const asked = await handlesAtOnce(ctx);
    if (!asked) return;
    const { plan, replies } = asked;
    const made = [...new Set(replies.map(handleId).filter((id): id is string => id !== undefined))];
    if (made.length < 2) return check.skip(`not exercised: ${ID_TASKS} calls of ${show(plan.name)} declaring ${extension} were answered with ${made.length} task handle(s) (server.modern.tasks.ids judges that)`, { frames: replies.map(replyFrame) });
    judgeIdEntropy(check, made, replies, `task ids a third party cannot guess from one another for ${ID_TASKS} calls of ${show(plan.name)} declaring ${extension} made at once`);
    for (const id of made) await pollTask(session, id, TASK_END_MS, { answer: true });
  },
});

export const acknowledged = scenario({
  id: 'server.modern.tasks.acknowledged',
  title: 'tasks/update answering what a task asks for, and tasks/cancel of a working task, are acknowledged with a result',
  requirements: ['TASK-UPD-05'],
  isolation: 'shared',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run(ctx) {
    const { session, check } = ctx;
    const tools = await taskTools(ctx);
    if (!tools) return;
    // Each task tool's task is followed to its end, its input answered: one of them may ask.
    const updates: Reply[] = [];
    for (const tool of tools) updates.push(...(await pollTask(session, tool.taskId, TASK_END_MS, { answer: true })).updates);
    if (updates.length === 0) check.skip(`not exercised: no task of ${tools.map((t) => t.plan.name).join(', ')} asked for input (input_required) within ${TASK_END_MS} ms`, { key: 'update' });
    else {
      check.expect(updates.every((r) => r.kind === 'result'), {
        key: 'update',
        expected: 'tasks/update answering each inputRequests key of an input_required task: a result (the acknowledgement)',
        actual: updates.map(describeReply).join('; '),
        frames: updates.map(replyFrame),
        replies: updates,
      });
    }
    const handle = await callTaskTool(session, tools[0]!.plan, withTasks());
    const taskId = handleId(handle);
    if (taskId === undefined) return check.skip(`not exercised: ${tools[0]!.plan.name} answered this call without a task handle`, { key: 'cancel', frames: [replyFrame(handle)] });
    const before = await getTask(session, taskId);
    if (before.kind !== 'result' || isTerminal(before.result.status)) return check.skip(`not exercised: task ${show(taskId)} was not running when mcpcheck would cancel it (${describeReply(before)})`, { key: 'cancel', frames: [replyFrame(before)] });
    const cancel = await session.request('tasks/cancel', { taskId, _meta: declaring(withTasks()) });
    check.expect(cancel.kind === 'result', {
      key: 'cancel',
      expected: `tasks/cancel of task ${show(taskId)}, ${show(before.result.status)}: a result (the acknowledgement)`,
      actual: describeReply(cancel),
      frames: [replyFrame(cancel)],
      replies: [cancel],
    });
    // Read twice more: the status machine of what follows is live validation's (TASK-ST-02).
    await getTask(session, taskId);
    await getTask(session, taskId);
  },
});

/** An inputRequests key no server asked for. */
const STRAY_KEY = 'mcpcheck-never-asked';

export const strayInput = scenario({
  id: 'server.modern.tasks.stray-input',
  title: 'A tasks/update answering a key the task never asked for is ignored: acknowledged, the task still waiting for what it asked',
  requirements: ['TASK-UPD-04'],
  isolation: 'shared',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run(ctx) {
    const { session, check } = ctx;
    const tools = await taskTools(ctx);
    if (!tools) return;
    let waiting: { taskId: string; asked: Record<string, unknown> } | undefined;
    for (const tool of tools) {
      const { last } = await pollTask(session, tool.taskId, TASK_END_MS, { until: 'input_required' });
      if (last.kind === 'result' && last.result.status === 'input_required' && isObject(last.result.inputRequests)) {
        waiting = { taskId: tool.taskId, asked: last.result.inputRequests };
        break;
      }
    }
    if (!waiting) return check.skip(`not exercised: no task of ${tools.map((t) => t.plan.name).join(', ')} asked for input (input_required) within ${TASK_END_MS} ms`);
    const { taskId, asked } = waiting;
    const stray = await session.request('tasks/update', { taskId, inputResponses: { [STRAY_KEY]: { action: 'accept', content: {} } }, _meta: declaring(withTasks()) });
    const after = await getTask(session, taskId);
    const still = after.kind === 'result' && after.result.status === 'input_required';
    check.expect(stray.kind === 'result' && still, {
      expected: `tasks/update of task ${show(taskId)} answering only ${show(STRAY_KEY)}, a key it never asked for (it asked ${show(Object.keys(asked))}): acknowledged, the task still input_required`,
      actual: `${describeReply(stray)}; then tasks/get: ${describeReply(after)}`,
      frames: [replyFrame(stray), replyFrame(after)],
      replies: [stray, after],
    });
    await pollTask(session, taskId, TASK_END_MS, { answer: true });
  },
});

/** How long the watched task is asked to work: long enough that its stream opens while it works. */
const WATCHED_TASK_MS = 1_000;

export const taskStream = scenario({
  id: 'server.modern.tasks.listen-stream',
  title: 'A subscriptions/listen for a task\'s status carries no notifications/progress or notifications/message, while the task (called with a progressToken and logLevel debug) runs to its end',
  requirements: ['TASK-NOTIF-04'],
  isolation: 'session',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run(ctx) {
    const { session, check, connect } = ctx;
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const tools = await taskTools(ctx);
    if (!tools) return;
    // A task of the first task tool, asked (where its arguments tell time) to work a while, with what would make it talk.
    const { plan } = tools[0]!;
    const args = timedArguments(plan.tool.inputSchema, quickArguments(plan), WATCHED_TASK_MS)?.args ?? quickArguments(plan);
    const handle = await session.request('tools/call', { name: plan.name, arguments: args, _meta: { ...declaring(withTasks()), progressToken: 'mcpcheck-task-stream', [META.logLevel]: 'debug' } });
    const taskId = handleId(handle);
    if (taskId === undefined) return check.skip(`not exercised: ${plan.name} answered this call without a task handle`, { frames: [replyFrame(handle)] });
    const id = 'mcpcheck-task-stream';
    let end: Reply | undefined;
    const outcome = await listenDuring(session, id, { taskIds: [taskId] }, ACK_MS, async () => {
      end = (await pollTask(session, taskId, TASK_END_MS, { answer: true })).last;
      // The status notification of the end may trail the tasks/get that showed it.
      await session.settle(100);
    }, declaring(withTasks()));
    if (!outcome.ran) return check.skip(`not exercised: the subscription for task ${show(taskId)} was not acknowledged (${outcome.shown})`, { frames: outcome.frames });
    const ack = outcome.messages.find((m) => m.method === 'notifications/subscriptions/acknowledged');
    const agreed = isObject(ack?.params) && isObject(ack.params.notifications) && Array.isArray(ack.params.notifications.taskIds) && ack.params.notifications.taskIds.includes(taskId);
    if (!agreed) return check.skip(`not exercised: the server agreed to send no status notifications of task ${show(taskId)} (acknowledged ${show(ack?.params, 200)})`, { frames: outcome.frames });
    const leaked = outcome.messages.filter((m) => REQUEST_SCOPED.has(String(m.method)));
    const statuses = outcome.messages.filter((m) => m.method === 'notifications/tasks').length;
    const ran = `task ${show(taskId)} (${plan.name} ${show(args)}, with a progressToken and logLevel debug) ran to ${end?.kind === 'result' ? show(end.result.status) : describeReply(end!)}`;
    if (leaked.length === 0 && statuses === 0) return check.skip(`not exercised: no notifications/tasks came on the stream of task ${show(taskId)} while ${ran}`, { frames: outcome.frames });
    check.expect(leaked.length === 0, {
      expected: `no notifications/progress or notifications/message on subscription ${show(id)} (taskIds ${show([taskId])}) while ${ran} (${extension})`,
      actual: `${leaked.length} on it beside ${statuses} notifications/tasks, e.g. ${show(leaked[0], 200)}`,
      frames: outcome.frames,
    });
  },
});

export const modernTasks: Scenario[] = [undeclaredTool, undeclaredMethods, undeclaredListen, unknownTask, unknownUpdateCancel, durableHandle, distinctIds, idEntropy, acknowledged, strayInput, taskStream];
