import { hasCapability, type HttpChannel, isObject, isTerminal, MODERN, timedArguments, probeTokenFlag, scenario, type Scenario, type ScenarioContext, show } from '../kit.js';
import { type ConversationReply, conversationWith, type ProbeConversation, probeToken, protectedResource } from './authorization-helpers.js';
import { describeProbe } from './http.js';
import { callAsTask, createdTaskId, firstTaskPlan, TOOL_TASKS } from './task-helpers.js';
import { callTaskTool, declaring, getTask, handleId, taskTools, withTasks } from './modern-task-helpers.js';

// Task isolation between authorization contexts: a task the run's token made is out of reach of
// another user, whose valid token the run is given (--other-user-token-env). 2025-11-25,
// basic/utilities/tasks.mdx "Task Isolation and Access Control" (TASK-SEC-01); the tasks extension
// of 2026-07-28, "Security Considerations" (TASK-SEC-06). The other user speaks as raw probes in a
// conversation of its own; a refusal is any JSON-RPC error or HTTP error status, since the spec
// names none (an unknown task's −32602 gives nothing away).

const FLAG = probeTokenFlag('otherUser');
const TASK_TTL_MS = 60_000;
/** How long the run's own task is asked to work: past the other user's get and cancel. */
const WORKING_MS = 3_000;

/** How the other user sends a request. */
type Send = NonNullable<ProbeConversation['send']>;

/** One request of the other user about the run's task. */
interface Attempt {
  key: string;
  method: string;
  params: Record<string, unknown>;
}

/** What the other user's attempt got: served (a result), refused, or nothing to judge. */
function outcomeOf(reply: ConversationReply): 'served' | 'refused' | undefined {
  if (reply.answer && 'result' in reply.answer) return 'served';
  if ((reply.answer && 'error' in reply.answer) || reply.res.status >= 400) return 'refused';
  return undefined;
}

/** What the other user speaks with: the channel to the protected server, and that user's token. */
interface OtherUser {
  channel: HttpChannel;
  token: string;
}

/**
 * The other user, once the server showed it is protected and the run has that user's token;
 * undefined once the skip saying why not is recorded. Nothing of it goes over the scenario's own
 * session, which opens only once there is something to judge.
 */
async function otherUserOf(ctx: ScenarioContext): Promise<OtherUser | undefined> {
  const found = await protectedResource(ctx);
  if (!found) return undefined;
  const token = probeToken(ctx, 'otherUser');
  return token === undefined ? undefined : { channel: found.channel, token };
}

/** The other user's conversation; undefined once the skip saying why there is none is recorded. */
async function otherUser(ctx: ScenarioContext, { channel, token }: OtherUser): Promise<Send | undefined> {
  const conversation = await conversationWith(channel, ctx.session, `Bearer ${token}`);
  if (conversation.send === undefined) ctx.check.skip(`not exercised: the other user's token (${FLAG}) was refused at the opening request (${describeProbe(conversation.opened)})`);
  return conversation.send;
}

/**
 * Each attempt of the other user on task `taskId` must be refused; a cancel also must leave the
 * task as it was for its owner (`ownStatus`, read after it), and is judged only while the task still
 * works (an ended task refuses anyone's cancel, TASK-CANCEL-01). Once a cancel got through, what
 * follows is about a task the other user ended, and is not judged. A task its owner cannot read
 * either shows nothing by refusing another user: then every attempt is a skip (and false returned).
 */
async function judgeAttempts(ctx: ScenarioContext, send: Send, taskId: string, attempts: Attempt[], ownStatus: () => Promise<unknown>, note: string): Promise<boolean> {
  if ((await ownStatus()) === undefined) {
    ctx.check.skipEach(`not exercised: tasks/get of task ${show(taskId)} with the run's own token got no task, so a refusal to another user would show nothing`, attempts.map((a) => ({ key: a.key })));
    return false;
  }
  let cancelled: string | undefined;
  for (const a of attempts) {
    if (cancelled) {
      ctx.check.skip(`not judged: ${cancelled}`, { key: a.key });
      continue;
    }
    const what = `${a.method} of task ${show(taskId)}, which the run's token made, sent with another user's token (${FLAG})`;
    const before = a.method === 'tasks/cancel' ? await ownStatus() : undefined;
    if (typeof before === 'string' && isTerminal(before)) {
      ctx.check.skip(`not exercised: task ${show(taskId)} had ended (status ${show(before)}) before ${what}, so a refusal would show nothing`, { key: a.key });
      continue;
    }
    const reply = await send(a.method, a.params);
    const outcome = outcomeOf(reply);
    if (outcome === undefined) {
      ctx.check.skip(`not exercised: ${what} got no answer to judge (${describeProbe(reply.res)})`, { key: a.key });
      continue;
    }
    const status = a.method === 'tasks/cancel' ? await ownStatus() : undefined;
    const undone = status === 'cancelled';
    if (a.method === 'tasks/cancel' && (outcome === 'served' || undone)) cancelled = `the other user's tasks/cancel of task ${show(taskId)} got through`;
    ctx.check.expect(outcome === 'refused' && !undone, {
      key: a.key,
      expected: `${what}: refused (a JSON-RPC error or an HTTP error status)${a.method === 'tasks/cancel' ? ', the task not cancelled for its owner' : ''} (${note})`,
      actual: outcome === 'served' ? `served: ${show(reply.answer?.result, 200)}` : `refused (${describeProbe(reply.res)}), yet tasks/get by the owner then shows it "cancelled"`,
    });
  }
  return true;
}

export const taskIsolation = scenario({
  id: 'server.tasks.isolation',
  title: "Another user cannot read, wait on or cancel a task the run's token made, nor see it in tasks/list",
  requirements: ['TASK-SEC-01'],
  isolation: 'session',
  revisions: { introduced: '2025-11-25' },
  needs: { transport: 'http', capabilities: [TOOL_TASKS] },
  async run(ctx) {
    const { session, check, connect, discovery, options } = ctx;
    const other = await otherUserOf(ctx);
    if (!other) return;
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const send = await otherUser(ctx, other);
    if (!send) return;
    const plan = firstTaskPlan(discovery, options.callTools);
    if ('skip' in plan) return check.skip(plan.skip);
    // Long enough to be still working when the other user's cancel comes, at the run's pace.
    const created = await callAsTask(session, plan, options.requestTimeoutMs, { ttl: TASK_TTL_MS }, session.answerMs(WORKING_MS));
    const taskId = createdTaskId(created);
    if (!taskId) return check.skip(`not exercised: the task-augmented call of ${show(plan.name)} created no task`);
    // The cancel while the task works, before the wait on its result: a cancel that got through leaves nothing to wait on.
    const attempts: Attempt[] = ['get', 'cancel', 'result'].map((key) => ({ key, method: `tasks/${key}`, params: { taskId } }));
    const own = async () => {
      const reply = await session.request('tasks/get', { taskId }, options.requestTimeoutMs);
      return reply.kind === 'result' ? reply.result.status : undefined;
    };
    if (!(await judgeAttempts(ctx, send, taskId, attempts, own, 'tasks are experimental in 2025-11-25'))) return check.skip('not exercised: the run\'s own task could not be read', { key: 'list' });
    if (!hasCapability(discovery.capabilities, 'tasks.list')) return check.skip('not exercised: the server did not declare tasks.list', { key: 'list' });
    const listed = await send('tasks/list', {});
    const tasks = isObject(listed.answer?.result) && Array.isArray(listed.answer.result.tasks) ? listed.answer.result.tasks : undefined;
    if (tasks === undefined) return check.skip(`not exercised: tasks/list from the other user got no list (${describeProbe(listed.res)})`, { key: 'list' });
    // Its first page: a list of the other user's own tasks holds none of the run's on any page.
    check.expect(!tasks.some((t) => isObject(t) && t.taskId === taskId), {
      key: 'list',
      expected: `tasks/list sent with another user's token (${FLAG}) without task ${show(taskId)}, which the run's token made (tasks are experimental in 2025-11-25)`,
      actual: `its first page lists it: ${show(tasks, 200)}`,
    });
  },
});

export const modernTaskIsolation = scenario({
  id: 'server.modern.tasks.isolation',
  title: "Another user cannot read, update or cancel a task the run's token made (the tasks extension)",
  // A task id is a state handle, bound to its user (security best practices, "State handle hijacking").
  requirements: ['TASK-SEC-06', 'SEC-HANDLE-03'],
  isolation: 'session',
  revisions: MODERN,
  needs: { transport: 'http', capabilities: ['tools'] },
  async run(ctx) {
    const { session, check, connect } = ctx;
    const other = await otherUserOf(ctx);
    if (!other) return;
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const send = await otherUser(ctx, other);
    if (!send) return;
    const tools = await taskTools(ctx);
    if (!tools) return;
    // Where a task tool's arguments set how long it works, a task of it started now, to be still
    // working when the other user's cancel comes; else the first task found.
    const workMs = ctx.session.answerMs(WORKING_MS);
    const timed = tools.find((t) => timedArguments(t.plan.tool.inputSchema, t.plan.args, workMs) !== undefined);
    const taskId = (timed && handleId(await callTaskTool(ctx.session, timed.plan, withTasks(), workMs))) ?? tools[0]!.taskId;
    // The other user declares the extension too: a −32021 would refuse it for want of that, not for whose task it is.
    const meta = { _meta: declaring(withTasks()) };
    const attempts: Attempt[] = [
      { key: 'get', method: 'tasks/get', params: { taskId, ...meta } },
      { key: 'update', method: 'tasks/update', params: { taskId, inputResponses: {}, ...meta } },
      { key: 'cancel', method: 'tasks/cancel', params: { taskId, ...meta } },
    ];
    const own = async () => {
      const reply = await getTask(session, taskId);
      return reply.kind === 'result' ? reply.result.status : undefined;
    };
    await judgeAttempts(ctx, send, taskId, attempts, own, 'the tasks extension (io.modelcontextprotocol/tasks)');
  },
});

export const taskIsolationScenarios: Scenario[] = [taskIsolation, modernTaskIsolation];
