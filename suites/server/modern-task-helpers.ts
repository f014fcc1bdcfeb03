import { cannedCapabilities, cannedInputResponses, type CheckRecorder, type ClientSession, describeReply, type Discovery, isObject, isTaskHandle, isTerminal, META, type Reply, replyFrame, type ScenarioContext, TASKS_EXTENSION, type ToolPlan } from '../kit.js';
import { budget, callablePlans, errorCodeOf, quickArguments } from './helpers.js';
import { ID_TASKS } from './task-helpers.js';

// What the scenarios of the tasks extension (2026-07-28, io.modelcontextprotocol/tasks) share: the
// client capabilities with and without the extension, the tools that answer with a task handle,
// and polling a task.

/** Every input kind, and the extension: what a client that takes tasks declares. */
export function withTasks(): Record<string, unknown> {
  return { ...cannedCapabilities(), extensions: { [TASKS_EXTENSION]: {} } };
}

/** The `_meta` of a request declaring `capabilities`. */
export function declaring(capabilities: Record<string, unknown>): Record<string, unknown> {
  return { [META.clientCapabilities]: capabilities };
}

/** Expects every reply to be error `code` (requests about a task, all refused alike). */
export function expectEachError(check: CheckRecorder, replies: Reply[], code: number, expected: string): void {
  check.expect(replies.every((r) => errorCodeOf(r) === code), {
    expected: `${expected}: error ${code} each`,
    actual: replies.map(describeReply).join('; '),
    frames: replies.map(replyFrame),
    replies,
  });
}

/** Whether the server's DiscoverResult advertises the extension. */
export function advertisesTasks(discovery: Discovery): boolean {
  const extensions = discovery.capabilities?.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** The skip of a task scenario against a server that does not advertise the extension. */
export const NOT_ADVERTISED = `not exercised: the server's DiscoverResult does not advertise ${TASKS_EXTENSION} in capabilities.extensions`;

/** A reply's task id, when it is a task handle. */
export function handleId(reply: Reply): string | undefined {
  return reply.kind === 'result' && isTaskHandle(reply.result) && typeof reply.result.taskId === 'string' ? reply.result.taskId : undefined;
}

/** A tools/call of `plan` with its quick arguments, declaring `capabilities`. */
export function callTaskTool(session: ClientSession, plan: ToolPlan, capabilities: Record<string, unknown>, workMs?: number): Promise<Reply> {
  return session.request('tools/call', { name: plan.name, arguments: quickArguments(plan, workMs), _meta: declaring(capabilities) });
}

/**
 * ID_TASKS calls of the first tool that runs as a task, declaring the extension, sent at once: the
 * tool and the replies, in the order sent (undefined: taskTools found none and recorded its skip).
 */
export async function handlesAtOnce(ctx: ScenarioContext): Promise<{ plan: ToolPlan; replies: Reply[] } | undefined> {
  const tools = await taskTools(ctx);
  if (!tools) return undefined;
  const plan = tools[0]!.plan;
  return { plan, replies: await Promise.all(Array.from({ length: ID_TASKS }, () => callTaskTool(ctx.session, plan, withTasks()))) };
}

/** Tools probed for a task handle: enough to find one, bounded. */
const MAX_TOOLS = 12;

export interface TaskTool {
  plan: ToolPlan;
  /** The handle its call declaring the extension got. */
  taskId: string;
}

/**
 * The tools that answer a call declaring the extension with a task handle, found by calling each
 * tool `--call-tools` allows once; the server decides per request, so a tool that answered with a
 * result is not one. In listing order, at least one; undefined once the skip saying why there is
 * none is recorded (the server does not advertise the extension, or no call got a handle).
 */
export async function taskTools({ session, check, discovery, options }: ScenarioContext): Promise<TaskTool[] | undefined> {
  if (!advertisesTasks(discovery)) return void check.skip(NOT_ADVERTISED);
  const plans = callablePlans(discovery, options.callTools).slice(0, MAX_TOOLS);
  const replies = await Promise.all(plans.map((plan) => callTaskTool(session, plan, withTasks())));
  const tools = plans.flatMap((plan, i) => {
    const taskId = handleId(replies[i]!);
    return taskId === undefined ? [] : [{ plan, taskId }];
  });
  if (tools.length > 0) return tools;
  const called = plans.map((p) => p.name).join(', ') || `none (--call-tools ${options.callTools.mode})`;
  check.skip(`not exercised: no tool called declaring ${TASKS_EXTENSION} (${called}) answered with a task handle`);
  return undefined;
}

/** The shortest and longest gap between polls, whatever pollIntervalMs the server suggests. */
const POLL_FLOOR_MS = 50;
const POLL_CEILING_MS = 1_000;

/** A tasks/get declaring the extension. */
export function getTask(session: ClientSession, taskId: string, timeoutMs?: number): Promise<Reply> {
  return session.request('tasks/get', { taskId, _meta: declaring(withTasks()) }, timeoutMs);
}

/**
 * Polls tasks/get until the task is terminal (or, with `until`, in that status) or `withinMs` has
 * passed, at the server's pollIntervalMs (bounded both ways); with `answer`, every input_required
 * is answered once per key by tasks/update (the replies collected). The last tasks/get reply.
 */
export async function pollTask(session: ClientSession, taskId: string, withinMs: number, o: { until?: string; answer?: boolean } = {}): Promise<{ last: Reply; updates: Reply[] }> {
  const time = budget(withinMs);
  const answered = new Set<string>();
  const updates: Reply[] = [];
  for (;;) {
    const last = await getTask(session, taskId, time.timeout(10_000));
    if (last.kind !== 'result' || isTerminal(last.result.status) || last.result.status === o.until || time.spent()) return { last, updates };
    const asked = last.result.status === 'input_required' && isObject(last.result.inputRequests) ? last.result.inputRequests : {};
    const fresh = Object.fromEntries(Object.entries(asked).filter(([key]) => !answered.has(key)));
    if (o.answer && Object.keys(fresh).length > 0) {
      for (const key of Object.keys(fresh)) answered.add(key);
      updates.push(await session.request('tasks/update', { taskId, inputResponses: cannedInputResponses(fresh), _meta: declaring(withTasks()) }, time.timeout(10_000)));
    }
    const interval = typeof last.result.pollIntervalMs === 'number' ? last.result.pollIntervalMs : POLL_FLOOR_MS;
    await session.settle(Math.min(POLL_CEILING_MS, Math.max(POLL_FLOOR_MS, interval), time.left()));
  }
}
