import { type CheckOptions, clientScenario, type ClientScenario, type ClientScenarioContext, DEFAULT_TOOLS, describeErrors, describeReply, hasCapability, isObject, isTerminal, type Outcome, type RecordedFrame, RELATED_TASK, type Reply, replyFrame, schemaFor, type ServerSession, show, sleep } from '../kit.js';
import { ASKED, callOf, clientCapabilities, conversing, expectCursorsUnchanged, methodOf, WAIT_MS, walked, whileAsking } from './helpers.js';
import { taskRequestFor } from './task-helpers.js';
import { createdTaskId, pollToEnd, UNKNOWN_ID_PROBES } from '../server/task-helpers.js';
import { isResponse } from '../server/helpers.js';

// Tasks (basic/utilities/tasks.mdx, 2025-11-25, experimental), the client as requestor: mcpcheck
// declares task support for tools/call and lists a tool that must be called as a task; it runs
// the task it is given (working for a few polls, then completed) and serves tasks/get and
// tasks/result, so a client that calls it as a task can finish.

/** A tool the client may only call as a task. */
const TASK_TOOL = {
  name: 'mcpcheck_batch',
  title: 'Batch job',
  description: 'A long job: call it as a task (execution.taskSupport "required"), then poll tasks/get and fetch the outcome with tasks/result.',
  inputSchema: { type: 'object', properties: {} },
  execution: { taskSupport: 'required' },
};

/** How often mcpcheck asks to be polled, and for how many polls a task stays working. */
const POLL_INTERVAL_MS = 200;
const WORKING_POLLS = 3;
const TASK_TTL_MS = 60_000;

interface ServedTask {
  taskId: string;
  createdAt: string;
  lastUpdatedAt: string;
  polls: number;
  /** A task that needs the client's input until mcpcheck has asked for it through tasks/result. */
  asking: boolean;
}

/** What a task that asks wants to know: a form any client that declared elicitation can fill in. */
const QUESTION = { message: 'Which batch should the job run?', requestedSchema: { type: 'object', properties: { batch: { type: 'string', title: 'Batch' } } } };

/**
 * The Task as mcpcheck shows it: working for WORKING_POLLS polls, completed after; a task that
 * asks is working when created (TASK-ST-01), input_required from the first poll until it has its answer.
 */
function view(task: ServedTask): Record<string, unknown> {
  const status = task.asking ? (task.polls === 0 ? 'working' : 'input_required') : task.polls > WORKING_POLLS ? 'completed' : 'working';
  return { taskId: task.taskId, status, createdAt: task.createdAt, lastUpdatedAt: task.lastUpdatedAt, ttl: TASK_TTL_MS, pollInterval: POLL_INTERVAL_MS };
}

/**
 * Declares tasks for tools/call, lists TASK_TOOL beside the defaults, and serves its task-augmented
 * calls, tasks/get and tasks/result. With `asking`, to a client that declared elicitation, the task
 * needs input: tasks/result asks for it (elicitation/create, tied to the task) before it answers.
 */
function serveTaskTool(session: ServerSession, asking = false): void {
  session.capabilities = { ...session.capabilities, tasks: { cancel: {}, requests: { tools: { call: {} } } } };
  session.tools = [...DEFAULT_TOOLS, TASK_TOOL];
  const tasks = new Map<string, ServedTask>();
  const plainCall = session.handler('tools/call');
  session.handle('tools/call', (params, request) => {
    if (params.name !== TASK_TOOL.name) return plainCall(params, request);
    // What the spec asks of a server: a required tool called plainly is −32601 (TASK-TOOL-04).
    if (!isObject(params.task)) return { error: { code: -32601, message: `${TASK_TOOL.name} must be called as a task (execution.taskSupport "required")` } };
    const now = new Date().toISOString();
    const task: ServedTask = { taskId: `mcpcheck-task-${tasks.size + 1}`, createdAt: now, lastUpdatedAt: now, polls: 0, asking: asking && declaresElicitation(session) };
    tasks.set(task.taskId, task);
    return { result: { task: view(task) } };
  });
  /** Serves a request about the task its taskId names; an id mcpcheck never issued is −32602. */
  const ofTask = (serve: (task: ServedTask) => Outcome | Promise<Outcome>) => (params: Record<string, unknown>): Outcome | Promise<Outcome> => {
    const task = tasks.get(String(params.taskId));
    return task ? serve(task) : { error: { code: -32602, message: `unknown task ${show(params.taskId)}` } };
  };
  session.handle(
    'tasks/get',
    ofTask((task) => {
      task.polls++;
      if (task.polls === WORKING_POLLS + 1) task.lastUpdatedAt = new Date().toISOString();
      return { result: view(task) };
    }),
  );
  session.handle(
    'tasks/result',
    ofTask(async (task) => {
      if (task.asking) {
        // Asked on this request's way (over HTTP its stream), as the spec has a receiver do; whatever the answer, the task then ends.
        await session.request('elicitation/create', { ...QUESTION, _meta: { [RELATED_TASK]: { taskId: task.taskId } } }, WAIT_MS);
        task.asking = false;
        task.lastUpdatedAt = new Date().toISOString();
      }
      // It ends once asked for its outcome: a client that waits on tasks/result is not kept waiting.
      task.polls = Math.max(task.polls, WORKING_POLLS + 1);
      return { result: { content: [{ type: 'text', text: 'The batch job is done.' }], _meta: { [RELATED_TASK]: { taskId: task.taskId } } } };
    }),
  );
}

function declaresElicitation(session: ServerSession): boolean {
  return 'elicitation' in clientCapabilities(session);
}

/** What the scenarios ask and serve: the client lists the tools and calls TASK_TOOL, served as a task. */
const TASK_CALL = { steps: [{ do: 'list-tools' as const }, { do: 'call-tool' as const, name: TASK_TOOL.name, arguments: {} }], serve: (session: ServerSession) => serveTaskTool(session) };

export const requiredAsTask = clientScenario({
  id: 'client.tasks.required',
  title: 'A client calls a tool whose taskSupport is "required" as a task (never as a plain call)',
  requirements: ['TASK-TOOL-03'],
  ...TASK_CALL,
  async run(ctx) {
    const { session, check } = ctx;
    if (!(await conversing(ctx))) return;
    const call = await session.waitForFrame(callOf(TASK_TOOL.name), WAIT_MS);
    if (!call || !isObject(call.message)) return check.skip(`not exercised: the client made no tools/call of ${TASK_TOOL.name} (it was asked to; a client may decline a tool it cannot call as a task)`);
    const params = isObject(call.message.params) ? call.message.params : {};
    check.expect(isObject(params.task), {
      expected: `the tools/call of ${TASK_TOOL.name} (execution.taskSupport "required", the server declared tasks.requests.tools.call) with params.task (tasks are experimental in 2025-11-25)`,
      actual: `a tools/call without params.task (params ${show(params, 160)})`,
      frames: [call.index],
    });
  },
});

/** Once the client is conversing, its task-augmented call of TASK_TOOL; a skip saying so when it never came. */
async function taskCall(ctx: ClientScenarioContext): Promise<RecordedFrame | undefined> {
  if (!(await conversing(ctx))) return undefined;
  const call = await ctx.session.waitForFrame((f) => callOf(TASK_TOOL.name)(f) && isObject(f.message) && isObject(f.message.params) && isObject(f.message.params.task), WAIT_MS);
  if (!call) ctx.check.skip(`not exercised: the client made no task-augmented tools/call of ${TASK_TOOL.name} (client.tasks.required judges that call)`);
  return call;
}

const TASK_FOLLOW_UPS: ReadonlySet<unknown> = new Set(['tasks/get', 'tasks/result']);

export const statusUnnotified = clientScenario({
  id: 'client.tasks.status-unnotified',
  title: 'A client whose task gets no status notifications still goes after its outcome, with tasks/get or tasks/result',
  requirements: ['TASK-NOTIF-02'],
  ...TASK_CALL,
  async run(ctx) {
    const { session, check } = ctx;
    const call = await taskCall(ctx);
    if (!call) return;
    const followUp = await session.waitForFrame((f) => isObject(f.message) && TASK_FOLLOW_UPS.has(f.message.method), WAIT_MS, call.index + 1);
    check.expect(followUp !== undefined, {
      expected: `tasks/get or tasks/result for the task its call of ${TASK_TOOL.name} created: mcpcheck sends no notifications/tasks/status, which a requestor must not depend on (tasks are experimental in 2025-11-25)`,
      actual: followUp && isObject(followUp.message) ? `${String(followUp.message.method)} sent` : `neither within ${WAIT_MS} ms of the call`,
      frames: [followUp?.index ?? call.index],
    });
  },
});

/** A poll this much sooner than asked is still on time (the gap is measured from mcpcheck sending its answer, so it only errs long). */
const POLL_SLACK = 0.9;

export const pollInterval = clientScenario({
  id: 'client.tasks.poll-interval',
  title: 'A client polling a task with tasks/get waits the pollInterval the server gave between polls',
  requirements: ['TASK-POLL-01'],
  ...TASK_CALL,
  async run(ctx) {
    const { session, check } = ctx;
    const call = await taskCall(ctx);
    if (!call) return;
    // Until the task ended (or the client fetched its result): every poll of it then is in.
    await session.waitForMethod('tasks/result', WAIT_MS + WORKING_POLLS * POLL_INTERVAL_MS, call.index);
    const polls = session.requestsFor('tasks/get', call.index);
    if (polls.length < 2) return check.skip(`not exercised: the client polled the task ${polls.length} time(s) with tasks/get (it may wait on tasks/result instead)`);
    // Each poll against the answer before it (the CreateTaskResult, then the previous poll's): responses only, not a notification between.
    const answers = session.frames.filter((f) => f.from === 'server' && f.index > call.index && isResponse(f));
    const gaps = polls.map((p) => Math.round(p.at - (answers.filter((a) => a.index < p.index).pop()?.at ?? p.at)));
    const soonest = Math.min(...gaps);
    check.expect(soonest >= POLL_SLACK * POLL_INTERVAL_MS, {
      expected: `each tasks/get at least the pollInterval of ${POLL_INTERVAL_MS} ms after the answer before it (tasks are experimental in 2025-11-25)`,
      actual: `${polls.length} polls, ${gaps.join(', ')} ms after the answers before them`,
      frames: polls.map((p) => p.index),
    });
  },
});

/** A response of mcpcheck's showing a task input_required. */
function showsInputRequired(frame: RecordedFrame): boolean {
  const m = frame.message;
  return frame.from === 'server' && isObject(m) && isObject(m.result) && m.result.status === 'input_required';
}

export const inputRequiredFetched = clientScenario({
  id: 'client.tasks.input-required',
  title: 'A client that sees its task "input_required" calls tasks/result right away (where the server asks for the input)',
  requirements: ['TASK-IR-03'],
  ...TASK_CALL,
  serve: (session) => serveTaskTool(session, true),
  async run(ctx) {
    const { session, check } = ctx;
    const call = await taskCall(ctx);
    if (!call) return;
    if (!declaresElicitation(session)) return check.skip('not exercised: the client declared no elicitation, so no task of its could need its input');
    // mcpcheck's answer that first showed the task input_required (its own frames are no client's to wait for).
    const shown = () => session.frames.find((f) => f.index > call.index && showsInputRequired(f));
    // The client's first follow-up after that answer, or its tasks/result if it came before any.
    const next = await session.waitForFrame((f) => TASK_FOLLOW_UPS.has(methodOf(f)) && (methodOf(f) === 'tasks/result' || (shown()?.index ?? Infinity) < f.index), WAIT_MS, call.index + 1);
    const seen = shown();
    if (!seen || (next && next.index < seen.index)) return check.skip('not exercised: no tasks/get of the client\'s was answered "input_required" before it called tasks/result');
    const method = methodOf(next);
    check.expect(method === 'tasks/result', {
      expected: `tasks/result next, once tasks/get answered the task of its call of ${TASK_TOOL.name} "input_required" (tasks are experimental in 2025-11-25)`,
      actual: method === undefined ? `neither tasks/get nor tasks/result within ${WAIT_MS} ms` : `${String(method)} next`,
      frames: [seen.index, next?.index],
    });
  },
});

/** How long a task mcpcheck gave a client may take to end. */
const RECEIVED_TASK_END_MS = 10_000;
const experimental = 'tasks are experimental in 2025-11-25';

export const receivedTaskResult = clientScenario({
  id: 'client.tasks.receiver-result',
  title: 'A client that takes elicitation or sampling as a task answers tasks/result of one with what the request itself would have had',
  requirements: ['TASK-RES-01'],
  ...ASKED,
  async run(ctx) {
    const { session, check } = ctx;
    const needs = (caps: Record<string, unknown>) => {
      const asked = taskRequestFor(caps);
      return typeof asked === 'string' ? asked : undefined;
    };
    await whileAsking(ctx, needs, 'task-augmented request', async () => {
      const asked = taskRequestFor(clientCapabilities(session));
      if (typeof asked === 'string') return check.skip(asked);
      const created = await session.request(asked.method, { ...asked.params, task: { ttl: 60_000 } }, WAIT_MS);
      const taskId = createdTaskId(created);
      if (!taskId) return check.skip(`not exercised: the task-augmented ${asked.method} created no task (${describeReply(created)}; live validation judges whether it had to, TASK-CREATE-01)`, { frames: [replyFrame(created)] });
      const end = await pollToEnd(session, taskId, RECEIVED_TASK_END_MS, WAIT_MS);
      if (!end.terminal) return check.skip(`not exercised: task ${show(taskId)} did not end within ${RECEIVED_TASK_END_MS} ms (${describeReply(end.reply)})`, { frames: [replyFrame(end.reply)] });
      const outcome = await session.request('tasks/result', { taskId }, WAIT_MS);
      const errors = outcome.kind === 'result' ? schemaFor('2025-11-25').validate(asked.result, outcome.result) : null;
      check.expect(outcome.kind === 'error' || (outcome.kind === 'result' && errors === null), {
        expected: `tasks/result of task ${show(taskId)}, made by a task-augmented ${asked.method}, as that request would have been answered: ${asked.result.replace(/Result$/, '')} result or a JSON-RPC error (${experimental})`,
        actual: errors ? `a result that is no ${asked.result}: ${describeErrors(errors, '/result')}` : describeReply(outcome),
        frames: [replyFrame(created), replyFrame(outcome)],
        replies: [outcome],
      });
    });
  },
});

export const receivedTaskUnknownId = clientScenario({
  id: 'client.tasks.receiver-unknown-id',
  title: 'A client that takes tasks answers tasks/get, tasks/result and tasks/cancel of a task id it never issued with -32602',
  requirements: ['TASK-ERR-01'],
  ...ASKED,
  async run(ctx) {
    const { session, check } = ctx;
    await whileAsking(ctx, (caps) => (hasCapability(caps, 'tasks') ? undefined : 'the client declared no tasks'), 'tasks/* requests', async () => {
      const caps = clientCapabilities(session);
      for (const probe of UNKNOWN_ID_PROBES) {
        if (!hasCapability(caps, probe.capability)) {
          check.skip(`not exercised: the client did not declare ${probe.capability}`, { key: probe.key });
          continue;
        }
        const reply = await session.request(probe.method, probe.params, WAIT_MS);
        check.errorCode(reply, [-32602], { key: probe.key, what: `${probe.method} with ${probe.what} (${experimental})` });
      }
    });
  },
});

/** The checks of client.tasks.receiver-cancel: an ended task's cancel refused, a working one's cancelled, and kept so. */
const CANCEL_ENDED: CheckOptions = { key: 'ended', requirements: ['TASK-CANCEL-01'] };
const CANCEL_WORKING: CheckOptions = { key: 'working', requirements: ['TASK-CANCEL-02'] };
const STAYS_CANCELLED: CheckOptions = { key: 'stays-cancelled', requirements: ['TASK-CANCEL-03'] };
/** The least wait before a cancelled task is read again, however fast the client's first task ended. */
const MIN_AFTER_CANCEL_MS = 300;
/** How many tasks are asked for, one after another, while each ends before its cancel arrives. */
const CANCEL_ATTEMPTS = 3;

export const receivedTaskCancel = clientScenario({
  id: 'client.tasks.receiver-cancel',
  title: 'A client that takes tasks and declares tasks.cancel refuses to cancel an ended task with -32602, answers the cancel of a working one with the task "cancelled", and keeps it cancelled',
  requirements: ['TASK-CANCEL-01', 'TASK-CANCEL-02', 'TASK-CANCEL-03'],
  ...ASKED,
  async run(ctx) {
    const { session, check } = ctx;
    const all = [CANCEL_ENDED, CANCEL_WORKING, STAYS_CANCELLED];
    await whileAsking(ctx, () => undefined, 'task-augmented request', async () => {
      const caps = clientCapabilities(session);
      const asked = taskRequestFor(caps);
      if (typeof asked === 'string') return check.skipEach(`not exercised: ${asked}`, all);
      if (!hasCapability(caps, 'tasks.cancel')) return check.skipEach('not exercised: the client did not declare tasks.cancel', all);
      const create = async (): Promise<{ taskId: string } | { skip: string; frame: number | undefined }> => {
        const created = await session.request(asked.method, { ...asked.params, task: { ttl: 60_000 } }, WAIT_MS);
        const taskId = createdTaskId(created);
        return taskId ? { taskId } : { skip: `not exercised: the task-augmented ${asked.method} created no task (${describeReply(created)}; live validation judges whether it had to, TASK-CREATE-01)`, frame: replyFrame(created) };
      };
      // An ended task first: how long its work took bounds the wait after the cancel below.
      const first = await create();
      if ('skip' in first) return check.skipEach(first.skip, all, { frames: [first.frame] });
      const started = performance.now();
      const end = await pollToEnd(session, first.taskId, RECEIVED_TASK_END_MS, WAIT_MS);
      const workedMs = performance.now() - started;
      if (!end.terminal) check.skip(`not exercised: task ${show(first.taskId)} did not end within ${RECEIVED_TASK_END_MS} ms (${describeReply(end.reply)})`, { ...CANCEL_ENDED, frames: [replyFrame(end.reply)] });
      else {
        const status = end.reply.kind === 'result' ? end.reply.result.status : undefined;
        const refused = await session.request('tasks/cancel', { taskId: first.taskId }, WAIT_MS);
        check.errorCode(refused, [-32602], { ...CANCEL_ENDED, what: `tasks/cancel of task ${show(first.taskId)}, already ${show(status)} (${experimental})` });
      }
      // A task may end before its cancel arrives (a quick task, a loaded machine): then the
      // refusal is right and nothing was cancelled, and another task is asked for.
      let taskId: string;
      let cancel: Reply;
      for (let attempt = 1; ; attempt++) {
        const next = await create();
        if ('skip' in next) return check.skipEach(next.skip, [CANCEL_WORKING, STAYS_CANCELLED], { frames: [next.frame] });
        taskId = next.taskId;
        cancel = await session.request('tasks/cancel', { taskId }, WAIT_MS);
        if (cancel.kind !== 'error') break;
        const now = await session.request('tasks/get', { taskId }, WAIT_MS);
        const status = now.kind === 'result' ? now.result.status : undefined;
        if (!isTerminal(status) || status === 'cancelled') break;
        if (attempt === CANCEL_ATTEMPTS) {
          return check.skipEach(`not exercised: each of ${CANCEL_ATTEMPTS} tasks had ended before its tasks/cancel arrived, which was refused (the last, ${show(taskId)}: ${show(status)}; ${describeReply(cancel)})`, [CANCEL_WORKING, STAYS_CANCELLED], { frames: [replyFrame(cancel), replyFrame(now)] });
        }
      }
      const cancelled = check.expect(cancel.kind === 'result' && cancel.result.status === 'cancelled', {
        ...CANCEL_WORKING,
        expected: `the tasks/cancel result of working task ${show(taskId)} with status "cancelled" (${experimental})`,
        actual: cancel.kind === 'result' ? `status ${show(cancel.result.status)}` : describeReply(cancel),
        frames: [replyFrame(cancel)],
        replies: [cancel],
      });
      if (!cancelled) return check.skip(`not exercised: task ${show(taskId)} was not cancelled`, STAYS_CANCELLED);
      // Twice the time the first task took to end: a cancel that did not stop the work shows by then.
      const waitMs = Math.max(Math.round(2 * workedMs), MIN_AFTER_CANCEL_MS);
      await sleep(waitMs);
      const after = await session.request('tasks/get', { taskId }, WAIT_MS);
      const forgotten = after.kind === 'error' && after.error.code === -32602;
      check.expect((after.kind === 'result' && after.result.status === 'cancelled') || forgotten, {
        ...STAYS_CANCELLED,
        expected: `task ${show(taskId)} still "cancelled" (or forgotten: -32602) ${waitMs} ms after its cancel, twice the time the first task took to end (${experimental})`,
        actual: after.kind === 'result' ? `status ${show(after.result.status)}` : describeReply(after),
        frames: [replyFrame(cancel), replyFrame(after)],
        replies: [after],
      });
    });
  },
});

/** The tasks mcpcheck lists, one per page: each page but the last carries a cursor to send back. */
const LISTED_TASKS = Array.from({ length: 3 }, (_, i) => {
  const at = new Date(Date.UTC(2025, 10, 25, 12, i)).toISOString();
  return { taskId: `mcpcheck-listed-task-${i + 1}`, status: 'completed', createdAt: at, lastUpdatedAt: at, ttl: TASK_TTL_MS };
});

export const taskCursorsOpaque = clientScenario({
  id: 'client.tasks.list-cursors',
  title: 'A client walking tasks/list sends each cursor back exactly as it got it',
  requirements: ['TASK-LIST-02'],
  steps: [{ do: 'list-tasks' }],
  serve(session) {
    session.capabilities = { ...session.capabilities, tasks: { list: {} } };
    session.handle('tasks/list', (params) => session.page({ key: 'tasks', items: LISTED_TASKS, pageSize: 1 }, params, 'tasks'));
  },
  async run(ctx) {
    const { check } = ctx;
    const sent = await walked(ctx, LISTED_TASKS.length, 'tasks/list');
    if (!sent) return;
    if (sent.length === 0) return check.skip('not exercised: the client sent no tasks/list cursor (it listed only the first page, or no tasks at all)');
    expectCursorsUnchanged(check, sent, { expected: `every tasks/list cursor sent back exactly as mcpcheck handed it out (${experimental})` });
  },
});

export const clientTasks: ClientScenario[] = [requiredAsTask, statusUnnotified, pollInterval, inputRequiredFetched, receivedTaskResult, receivedTaskUnknownId, receivedTaskCancel, taskCursorsOpaque];
