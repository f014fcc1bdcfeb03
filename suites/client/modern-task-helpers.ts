import { advertisesExtension, DEFAULT_TOOLS, isObject, type Outcome, type RecordedFrame, type ServerSession, TASKS_EXTENSION } from '../kit.js';
import { callOf, WAIT_MS } from './helpers.js';
import { FORM_REQUEST } from './modern-helpers.js';

// What the client scenarios of the tasks extension (2026-07-28, io.modelcontextprotocol/tasks)
// share: mcpcheck advertising the extension and serving one task, scripted poll by poll.

/** The tool mcpcheck answers with a task handle when the call declared the extension. */
export const TASK_TOOL = { name: 'mcpcheck_task', description: 'Runs as a task (tasks extension): answers with a task handle, then tasks/get shows its progress.', inputSchema: { type: 'object', properties: { topic: { type: 'string' } } } };

/** The one task mcpcheck serves in a run. */
export const TASK_ID = 'mcpcheck-task-7d41c2';

/** How the served task answers: the status of each tasks/get in turn (the last repeats), and its pollIntervalMs. */
export interface TaskScript {
  statuses: readonly ('working' | 'input_required' | 'completed')[];
  pollIntervalMs: number;
}

/** How many polls an input_required task asks for its input before it goes on without it. */
const MAX_ASKS = 5;

/** The key of the input the scripted task asks for. */
export const INPUT_KEY = 'mcpcheck_confirm';

/** Whether a request declared the extension in its clientCapabilities. */
export function declaresTasks(request: unknown): boolean {
  return advertisesExtension(isObject(request) ? request.params : undefined, TASKS_EXTENSION);
}

/** A Task as mcpcheck shows it: created and updated now. */
export function taskAs(taskId: string, status: string, pollIntervalMs: number): Record<string, unknown> {
  const now = new Date().toISOString();
  return { taskId, status, createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, pollIntervalMs };
}

function task(status: string, pollIntervalMs: number): Record<string, unknown> {
  return taskAs(TASK_ID, status, pollIntervalMs);
}

/** −32602 for a task id mcpcheck never issued. */
function unknownTask(params: Record<string, unknown>): Outcome {
  return { error: { code: -32602, message: `unknown task ${String(params.taskId)}` } };
}

/**
 * Advertises the extension and serves TASK_TOOL as a task: a call declaring the extension gets a
 * handle, one without it −32021 naming it; each tasks/get shows the next status of `script` (an
 * input_required one asks for INPUT_KEY and holds until a tasks/update answers it); the task ends
 * completed with a CallToolResult.
 */
export function serveTask(session: ServerSession, script: TaskScript): void {
  session.capabilities = { ...session.capabilities, extensions: { [TASKS_EXTENSION]: {} } };
  session.tools = [TASK_TOOL, ...DEFAULT_TOOLS];
  const call = session.handler('tools/call');
  let polls = 0;
  let asks = 0;
  let answered = false;
  session.handle('tools/call', (params, request) => {
    if (params.name !== TASK_TOOL.name) return call(params, request);
    if (!declaresTasks(request)) return { error: { code: -32021, message: `Missing required client capability: ${TASKS_EXTENSION}`, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } } };
    return { result: { resultType: 'task', ...task('working', script.pollIntervalMs) } };
  });
  session.handle('tasks/get', (params) => {
    if (params.taskId !== TASK_ID) return unknownTask(params);
    const status = script.statuses[Math.min(polls++, script.statuses.length - 1)]!;
    // A client that never answers is not kept polling: after a few asks the task goes on without the input.
    if (status === 'input_required' && !answered && asks++ < MAX_ASKS) return { result: { ...task(status, script.pollIntervalMs), inputRequests: { [INPUT_KEY]: FORM_REQUEST } } };
    if (status === 'completed' || status === 'input_required') return { result: { ...task('completed', script.pollIntervalMs), result: { content: [{ type: 'text', text: 'mcpcheck task done' }] } } };
    return { result: task(status, script.pollIntervalMs) };
  });
  session.handle('tasks/update', (params) => {
    if (params.taskId !== TASK_ID) return unknownTask(params);
    if (isObject(params.inputResponses) && INPUT_KEY in params.inputResponses) answered = true;
    return { result: {} };
  });
  session.handle('tasks/cancel', (params) => (params.taskId === TASK_ID ? { result: {} } : unknownTask(params)));
}

/** The client's call of TASK_TOOL that declared the extension (it then got a handle), or undefined. */
export async function handledCall(session: ServerSession): Promise<RecordedFrame | undefined> {
  const call = await session.waitForFrame(callOf(TASK_TOOL.name), WAIT_MS);
  return call && declaresTasks(call.message) ? call : undefined;
}

/** The client's tasks/get of the served task, in order. */
export function polls(session: ServerSession, since = 0): RecordedFrame[] {
  return session.requestsFor('tasks/get', since).filter((f) => isObject(f.message) && isObject(f.message.params) && f.message.params.taskId === TASK_ID);
}

/** Why a scenario has nothing to judge when the client called TASK_TOOL without the extension (or not at all). */
export function noHandle(session: ServerSession): string {
  return session.requestsFor('tools/call').some(callOf(TASK_TOOL.name))
    ? `not exercised: the client called ${TASK_TOOL.name} without declaring ${TASKS_EXTENSION} in its clientCapabilities (the extension is optional), so mcpcheck answered −32021, not with a task handle`
    : `the client never called ${TASK_TOOL.name}`;
}
