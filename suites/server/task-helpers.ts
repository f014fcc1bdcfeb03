import { type CheckRecorder, describeReply, hasCapability, isObject, isTerminal, planToolCall, type RecordedFrame, replyFrame, ruling, show, idEntropy, timedArguments, type ClientSession, type Discovery, type PeerSession, type Reply, type ScenarioContext, type ToolPlan, type ToolPolicy } from '../kit.js';
import { argumentContext, budget, quickArguments } from './helpers.js';

// What the task scenarios (basic/utilities/tasks.mdx, 2025-11-25) share: the tools they may call
// by taskSupport, a task-augmented call, and polling a task to its end.

/** The capability a server declares to take task-augmented tools/call. */
export const TOOL_TASKS = 'tasks.requests.tools.call';

type TaskSupport = 'forbidden' | 'optional' | 'required';

/** The tools that take tasks. */
const SUPPORTS_TASKS: readonly TaskSupport[] = ['optional', 'required'];

/** A listed tool's `execution.taskSupport` ("forbidden" when absent, the schema's default). */
export function taskSupport(tool: Record<string, unknown>): TaskSupport {
  const value = isObject(tool.execution) ? tool.execution.taskSupport : undefined;
  return value === 'optional' || value === 'required' ? value : 'forbidden';
}

/** The tools `--call-tools` lets mcpcheck call (as a task, or plainly for `forbidden`) whose taskSupport is one of `supports`, with their arguments. */
export function taskPlans(discovery: Discovery, policy: ToolPolicy, supports: readonly TaskSupport[] = SUPPORTS_TASKS): ToolPlan[] {
  const context = argumentContext(discovery);
  return discovery.tools.filter((t) => supports.includes(taskSupport(t))).map((t) => planToolCall(t, policy, context, 'task')).filter((p) => p.call);
}

/** Why no tool could be called with a taskSupport of `supports`, for a skip. */
export function noTaskTool(discovery: Discovery, policy: ToolPolicy, supports: readonly TaskSupport[] = SUPPORTS_TASKS): string {
  const listed = discovery.tools.filter((t) => supports.includes(taskSupport(t)));
  const which = supports.map((s) => `"${s}"`).join(' or ');
  if (listed.length === 0) return `not exercised: the server lists no tool whose execution.taskSupport is ${which}`;
  const plan = planToolCall(listed[0]!, policy, argumentContext(discovery), 'task');
  return `not exercised: no tool with execution.taskSupport ${which} may be called (${show(plan.name)}: ${plan.why})`;
}

/** Why a task scenario could not exercise its rule, and the frames that show it: the scenario's skip. */
export interface NotExercised {
  skip: string;
  frames?: Array<number | undefined>;
}

/** What the task scenarios are given of the run's options. */
type TaskOptions = Pick<ScenarioContext['options'], 'callTools' | 'requestTimeoutMs'>;

/** The first tool `--call-tools` lets mcpcheck call whose taskSupport is one of `supports`, or why there is none. */
export function firstTaskPlan(discovery: Discovery, policy: ToolPolicy, supports?: readonly TaskSupport[]): ToolPlan | NotExercised {
  return taskPlans(discovery, policy, supports)[0] ?? { skip: noTaskTool(discovery, policy, supports) };
}

/** The task `created` (the reply to a task-augmented call of `plan`) started, or why there is none. */
function taskOf(plan: ToolPlan, created: Reply): string | NotExercised {
  return createdTaskId(created) ?? { skip: `not exercised: the task-augmented call of ${show(plan.name)} created no task (${describeReply(created)})`, frames: [replyFrame(created)] };
}

/** Starts a task of the first tool that takes tasks: what was called and the task's id, or why there is none. */
export async function startedTask(session: ClientSession, discovery: Discovery, options: TaskOptions, task: Record<string, unknown> = {}): Promise<{ plan: ToolPlan; taskId: string } | NotExercised> {
  const plan = firstTaskPlan(discovery, options.callTools);
  if ('skip' in plan) return plan;
  const taskId = taskOf(plan, await callAsTask(session, plan, options.requestTimeoutMs, task));
  return typeof taskId === 'string' ? { plan, taskId } : taskId;
}

/** A task started as startedTask does, polled until it ended (within `withinMs`): with its last tasks/get reply, or why there is none. */
export async function finishedTask(session: ClientSession, discovery: Discovery, options: TaskOptions, withinMs: number): Promise<{ plan: ToolPlan; taskId: string; end: Reply } | NotExercised> {
  const started = await startedTask(session, discovery, options);
  if ('skip' in started) return started;
  const { reply, terminal } = await pollToEnd(session, started.taskId, withinMs, options.requestTimeoutMs);
  if (!terminal) return { skip: `not exercised: task ${show(started.taskId)} did not finish within ${withinMs} ms (${describeReply(reply)})`, frames: [replyFrame(reply)] };
  return { ...started, end: reply };
}

let progressTokens = 0;

/**
 * A tools/call asking to run as a task (`task` params, a ttl when given), with a progress token of
 * its own: a task's progress goes on under it until the task is terminal, and stops then (PROG-05,
 * judged live). `workMs`: how long the task is asked to work, where the tool's arguments allow (300 ms by default).
 */
export function callAsTask(session: ClientSession, plan: ToolPlan, timeoutMs: number, task: Record<string, unknown> = {}, workMs?: number): Promise<Reply> {
  return session.request('tools/call', { name: plan.name, arguments: quickArguments(plan, workMs), task, _meta: { progressToken: `mcpcheck-task-progress-${++progressTokens}` } }, timeoutMs);
}

/** Tasks asked for at once to compare their ids (the catalog's "≥ 5"). */
export const ID_TASKS = 5;

/** ID_TASKS task-augmented calls of `plan` sent at once (each task asked to live a minute): their replies, in the order sent. */
export function tasksAtOnce(session: ClientSession, plan: ToolPlan, timeoutMs: number): Promise<Reply[]> {
  return Promise.all(Array.from({ length: ID_TASKS }, () => callAsTask(session, plan, timeoutMs, { ttl: 60_000 })));
}

/**
 * Judges the ids of tasks made at once (TASK-SEC-02, TASK-SEC-05; ruling task-id-entropy): guessable
 * ones fail, `expected` saying what was asked for; others are a skip saying what was seen, since a
 * cryptographic source cannot be seen from outside.
 */
export function judgeIdEntropy(check: CheckRecorder, ids: readonly string[], replies: Reply[], expected: string): void {
  const cite = ruling('task-id-entropy').cite;
  const entropy = idEntropy(ids);
  if (!entropy.guessable) return check.skip(`not judged: ids ${show(ids)}: ${entropy.seen}, and whether they come from a cryptographic source cannot be seen from outside (${cite})`);
  check.expect(false, { expected: `${expected} (${cite})`, actual: `ids ${show(ids)}: ${entropy.why}`, frames: replies.map(replyFrame), replies });
}

/** The task a CreateTaskResult describes, when the reply is one. */
export function createdTask(reply: Reply): Record<string, unknown> | undefined {
  return reply.kind === 'result' && isObject(reply.result.task) ? reply.result.task : undefined;
}

/** The id of the task a reply created (undefined: it created none, or its id is no string). */
export function createdTaskId(reply: Reply): string | undefined {
  const id = createdTask(reply)?.taskId;
  return typeof id === 'string' ? id : undefined;
}

/** The shortest and longest gap between polls, whatever pollInterval the server suggests. */
const POLL_FLOOR_MS = 50;
const POLL_CEILING_MS = 1_000;

/** How long to wait before the next tasks/get of `task`: its pollInterval, bounded both ways and by the time `left`. */
function pollGap(task: Record<string, unknown>, left: number): number {
  const interval = typeof task.pollInterval === 'number' ? task.pollInterval : POLL_FLOOR_MS;
  return Math.min(POLL_CEILING_MS, Math.max(POLL_FLOOR_MS, interval), left);
}

/**
 * Polls tasks/get until the task is terminal or `withinMs` has passed, at the server's pollInterval
 * (bounded both ways): the last reply, and whether it showed a terminal status.
 */
export async function pollToEnd(session: PeerSession, taskId: string, withinMs: number, requestMs: number): Promise<{ reply: Reply; terminal: boolean }> {
  const time = budget(withinMs);
  for (;;) {
    const reply = await session.request('tasks/get', { taskId }, time.timeout(requestMs));
    const terminal = reply.kind === 'result' && isTerminal(reply.result.status);
    if (reply.kind !== 'result' || terminal || time.spent()) return { reply, terminal };
    await session.settle(pollGap(reply.result, time.left()));
  }
}

/** Whether the server declared task support for tools/call. */
export function declaresToolTasks(discovery: Discovery): boolean {
  return hasCapability(discovery.capabilities, TOOL_TASKS);
}

/**
 * Starts a task of a tool that supports tasks and has a time-like argument, asked to run about
 * `ms` (so that it is surely still working when mcpcheck acts on it): its id and what was called,
 * or why there is none.
 */
export async function runningTask(session: ClientSession, discovery: Discovery, options: TaskOptions, ms: number): Promise<{ taskId: string; plan: ToolPlan; args: Record<string, unknown> } | NotExercised> {
  const plans = taskPlans(discovery, options.callTools);
  if (plans.length === 0) return { skip: noTaskTool(discovery, options.callTools) };
  const timed = plans.map((plan) => ({ plan, args: timedArguments(plan.tool.inputSchema, plan.args, ms)?.args })).find((p) => p.args !== undefined);
  if (!timed?.args) return { skip: 'not exercised: no tool that supports tasks has a time-like argument, so none surely runs long enough to act on it while it works' };
  const taskId = taskOf(timed.plan, await session.request('tools/call', { name: timed.plan.name, arguments: timed.args, task: { ttl: 60_000 } }, options.requestTimeoutMs));
  return typeof taskId === 'string' ? { taskId, plan: timed.plan, args: timed.args } : taskId;
}

/** A value of another JSON type than `type`, so that a call with it fails the tool's input schema. */
const WRONG_TYPE: Readonly<Record<string, unknown>> = { string: 12345, integer: 'mcpcheck-not-a-number', number: 'mcpcheck-not-a-number', boolean: 'mcpcheck-not-a-boolean', array: 'mcpcheck-not-an-array', object: 'mcpcheck-not-an-object' };

/** The plan's arguments with one declared property of a single JSON type given a value of another (undefined: no such property). */
export function failingArguments(plan: ToolPlan): { args: Record<string, unknown>; property: string } | undefined {
  const schema = isObject(plan.tool.inputSchema) ? plan.tool.inputSchema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [property, definition] of Object.entries(properties)) {
    const type = isObject(definition) ? definition.type : undefined;
    if (typeof type === 'string' && type in WRONG_TYPE) return { args: { ...quickArguments(plan), [property]: WRONG_TYPE[type] }, property };
  }
  return undefined;
}

/** The most pages of tasks/list walked: a list that pages on past it is cut there. */
export const MAX_TASK_PAGES = 50;

/**
 * Walks tasks/list to its end, or to MAX_TASK_PAGES (then `cut`: the last page still named a next
 * one): the ids listed, and the reply that ended the walk when it was no last page.
 */
export async function listedTaskIds(session: ClientSession, requestMs: number): Promise<{ ids: Set<unknown>; pages: number; stoppedBy?: Reply; cut?: true }> {
  const ids = new Set<unknown>();
  let cursor: unknown;
  for (let pages = 0; pages < MAX_TASK_PAGES; ) {
    const reply = await session.request('tasks/list', cursor === undefined ? {} : { cursor }, requestMs);
    if (reply.kind !== 'result' || !Array.isArray(reply.result.tasks)) return { ids, pages, stoppedBy: reply };
    pages++;
    for (const t of reply.result.tasks) if (isObject(t)) ids.add(t.taskId);
    cursor = reply.result.nextCursor;
    if (typeof cursor !== 'string') return { ids, pages };
  }
  return { ids, pages: MAX_TASK_PAGES, cut: true };
}

/** The requests a task may send its requestor for input (basic/utilities/tasks.mdx, "Input Required Status"). */
export const INPUT_METHODS = ['elicitation/create', 'sampling/createMessage'] as const;

/** Says it asks the client's user or model for something before it can finish. */
const ASKS_INPUT = /elicit|input_required|clarif|ask(s|ing)? the (client'?s )?(user|llm|model)|user input/i;

function describes(value: unknown): string {
  return isObject(value) ? `${typeof value.title === 'string' ? value.title : ''} ${typeof value.description === 'string' ? value.description : ''}` : '';
}

/**
 * A tool that supports tasks and says it asks for input, with its quick arguments and every boolean
 * argument that says it brings the asking about set true (server-everything's simulate-research-query
 * asks only when `ambiguous`): what a task that needs input is started with, or why there is none.
 */
export function inputTaskPlan(discovery: Discovery, policy: ToolPolicy): { plan: ToolPlan; args: Record<string, unknown> } | NotExercised {
  const plans = taskPlans(discovery, policy);
  if (plans.length === 0) return { skip: noTaskTool(discovery, policy) };
  const plan = plans.find((p) => ASKS_INPUT.test(`${p.name} ${describes(p.tool)}`));
  if (!plan) return { skip: `not exercised: no tool that supports tasks says it asks the client for input (${show(plans.map((p) => p.name))})` };
  const schema = isObject(plan.tool.inputSchema) ? plan.tool.inputSchema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const switches = Object.entries(properties).filter(([, p]) => isObject(p) && p.type === 'boolean' && ASKS_INPUT.test(describes(p)));
  return { plan, args: { ...quickArguments(plan), ...Object.fromEntries(switches.map(([name]) => [name, true])) } };
}

/** A request of INPUT_METHODS from the server. */
export function isInputRequest(frame: RecordedFrame): boolean {
  const m = frame.message;
  return isObject(m) && 'id' in m && (INPUT_METHODS as readonly unknown[]).includes(m.method);
}

/** A task that asked for input: its id, the first request it sent for it, and the tasks/result sent on seeing input_required (if it was). */
export interface AskingTask {
  taskId: string;
  asked: RecordedFrame;
  result: Promise<Reply> | undefined;
}

/**
 * Starts the task and polls it (at its pollInterval, bounded) until the server sends a request for
 * input, calling tasks/result as soon as tasks/get shows input_required (the requestor's part, which
 * is where a server may send its requests). The answers to those requests are the caller's to hold.
 */
export async function askingTask(session: ClientSession, asking: { plan: ToolPlan; args: Record<string, unknown> }, withinMs: number, requestMs: number): Promise<AskingTask | NotExercised> {
  const mark = session.mark;
  const created = await session.request('tools/call', { name: asking.plan.name, arguments: asking.args, task: { ttl: 60_000 } }, requestMs);
  const taskId = taskOf(asking.plan, created);
  if (typeof taskId !== 'string') return taskId;
  const time = budget(withinMs);
  let result: Promise<Reply> | undefined;
  for (;;) {
    const asked = session.peerFrames(mark).find(isInputRequest);
    if (asked) return { taskId, asked, result };
    const reply = await session.request('tasks/get', { taskId }, time.timeout(requestMs));
    const status = reply.kind === 'result' ? reply.result.status : undefined;
    if (status === 'input_required' && !result) result = session.request('tasks/result', { taskId }, withinMs + requestMs);
    const what = `the task of ${show(asking.plan.name)} ${show(asking.args)} (${show(taskId)})`;
    if (reply.kind !== 'result' || isTerminal(status)) return { skip: `not exercised: ${what} asked the client for nothing before it ended (${describeReply(reply)})`, frames: [replyFrame(reply)] };
    if (time.spent()) return { skip: `not exercised: ${what} asked the client for nothing within ${withinMs} ms (last status ${show(status)})`, frames: [replyFrame(reply)] };
    await session.waitForFrame(isInputRequest, pollGap(reply.result, time.left()), mark);
  }
}

/** Polls tasks/get while the task shows input_required, for at most `withinMs`: the last reply. */
export async function pollWhileInputRequired(session: ClientSession, taskId: string, withinMs: number, requestMs: number): Promise<Reply> {
  const time = budget(withinMs);
  for (;;) {
    const reply = await session.request('tasks/get', { taskId }, time.timeout(requestMs));
    if (reply.kind !== 'result' || reply.result.status !== 'input_required' || time.spent()) return reply;
    await session.settle(pollGap(reply.result, time.left()));
  }
}

/** A task id no receiver issued. */
export const UNKNOWN_TASK = 'mcpcheck-no-such-task';

const NEVER_ISSUED = `task id ${show(UNKNOWN_TASK)}, which the receiver never issued`;

/** Requests naming a task (or cursor) the receiver never issued, each with the capability that lets a requestor send it (TASK-ERR-01). */
export const UNKNOWN_ID_PROBES = [
  { key: 'get', method: 'tasks/get', params: { taskId: UNKNOWN_TASK }, capability: 'tasks', what: NEVER_ISSUED },
  { key: 'result', method: 'tasks/result', params: { taskId: UNKNOWN_TASK }, capability: 'tasks', what: NEVER_ISSUED },
  { key: 'cancel', method: 'tasks/cancel', params: { taskId: UNKNOWN_TASK }, capability: 'tasks.cancel', what: NEVER_ISSUED },
  { key: 'list-cursor', method: 'tasks/list', params: { cursor: 'mcpcheck-invalid-cursor' }, capability: 'tasks.list', what: 'a cursor the receiver never handed out' },
] as const;
