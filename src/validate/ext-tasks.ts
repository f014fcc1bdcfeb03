import type { ErrorObject } from 'ajv';
import { type Finding, show, violation } from './finding.js';
import type { RuleTable } from './rule-table.js';
import { describeErrors } from './schemas.js';
import { validateTasksExtension } from './ext-tasks-schema.js';
import { obj } from '../json.js';
import type { RequirementId } from '../spec/requirement-id.js';
import { ruling } from '../spec/rulings.js';

// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks, catalogs/ext-tasks-2026-07-28.json):
// what one message shows by itself. Pure, one predicate per rule, shared by live validation,
// `validate` and the scenarios; the rules across a session are in session/extension-tasks.ts.

/** The extension's identifier, in `capabilities.extensions` and `clientCapabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The `resultType` of a CreateTaskResult. */
export const TASK_RESULT_TYPE = 'task';

/** The methods whose answer may be a task handle in 2026-07-28 (supported-methods). */
export const TASK_SUPPORTED_METHODS: ReadonlySet<string> = new Set(['tools/call']);

/** The extension's requests, each with its definitions in the extension's schema. */
const EXTENSION_REQUESTS: ReadonlyMap<string, { request: string; result: string }> = new Map([
  ['tasks/get', { request: 'GetTaskRequest', result: 'GetTaskResult' }],
  ['tasks/update', { request: 'UpdateTaskRequest', result: 'UpdateTaskResult' }],
  ['tasks/cancel', { request: 'CancelTaskRequest', result: 'CancelTaskResult' }],
]);

/** The extension's requests, each naming a task. */
export const TASK_METHODS: readonly string[] = [...EXTENSION_REQUESTS.keys()];

/** The status notification a server may push. */
const TASK_STATUS_NOTIFICATION = 'notifications/tasks';

/** The member each status carries beside the Task (DetailedTask); working and cancelled carry none. */
const STATUS_PAYLOAD: ReadonlyMap<string, string> = new Map([
  ['input_required', 'inputRequests'],
  ['completed', 'result'],
  ['failed', 'error'],
]);

/** What the checks below mark exercised: the module's rule table. */
const MARKS = {
  shape: ['TASK-SCHEMA-01', 'TASK-TIME-01'],
  detailed: ['TASK-GET-01'],
  resultType: ['TASK-GET-02', 'TASK-RT-01'],
  handle: ['TASK-RT-01', 'TASK-RT-02', 'TASK-NEG-01'],
} as const satisfies Record<string, RuleTable>;

export const EXT_TASKS_RULES: RuleTable = [...new Set(Object.values(MARKS).flat())];

function mark(applied: Set<string> | undefined, ids: readonly string[]): void {
  if (applied) for (const id of ids) applied.add(id);
}

/** A request or notification of the extension: its own checks (none for another method). */
export function checkExtensionMessage(method: string, message: Record<string, unknown>, findings: Finding[], applied?: Set<string>): void {
  if (method === TASK_STATUS_NOTIFICATION) checkTaskNotification(message, findings, applied);
  else if (EXTENSION_REQUESTS.has(method)) checkExtensionRequest(method, message, findings, applied);
}

/** Whether a result is a task handle: a CreateTaskResult, by its `resultType`. */
export function isTaskHandle(result: Record<string, unknown>): boolean {
  return result.resultType === TASK_RESULT_TYPE;
}

/** Whether a result carries a task (a `taskId` and a `status`), whatever its `resultType` says. */
function carriesTask(result: Record<string, unknown>): boolean {
  return typeof result.taskId === 'string' && typeof result.status === 'string';
}

/**
 * Whether a result answering `method` is the extension's to judge rather than the method's own
 * schema's: a task handle, a result of the extension's requests, or a tools/call result that carries
 * a task without saying so (TASK-RT-01).
 */
export function isExtensionResult(method: string, result: Record<string, unknown>): boolean {
  return isTaskHandle(result) || EXTENSION_REQUESTS.has(method) || (TASK_SUPPORTED_METHODS.has(method) && carriesTask(result));
}

/** The extension's requests (tasks/get, tasks/update, tasks/cancel): their shape (TASK-SCHEMA-01). */
function checkExtensionRequest(method: string, message: Record<string, unknown>, findings: Finding[], applied?: Set<string>): void {
  const def = EXTENSION_REQUESTS.get(method)?.request;
  if (!def) return;
  mark(applied, ['TASK-SCHEMA-01']);
  const errors = validateTasksExtension(def, message);
  if (errors) findings.push(schemaViolation(errors, '', `a ${method} request`));
}

/** notifications/tasks: a complete DetailedTask (TASK-GET-01, TASK-SCHEMA-01, TASK-TIME-01). */
function checkTaskNotification(message: Record<string, unknown>, findings: Finding[], applied?: Set<string>): void {
  const params = obj(message.params);
  mark(applied, [...MARKS.shape, ...MARKS.detailed]);
  const missing = params && payloadProblem(params, '/params', 'notifications/tasks');
  if (missing) return void findings.push(missing);
  const errors = validateTasksExtension('TaskStatusNotification', message);
  if (errors) return void findings.push(schemaViolation(errors, '', 'a notifications/tasks'));
  if (params) timestamps(params, '/params', findings);
}

/**
 * A result the extension judges (isExtensionResult): a task handle, or the answer to one of its
 * requests. `advertised`: the request's clientCapabilities.extensions named the extension (a
 * handle without it is the core rule's finding, and TASK-NEG-01's, marked there).
 */
export function checkExtensionResult(method: string, result: Record<string, unknown>, advertised: boolean, findings: Finding[], applied?: Set<string>): void {
  const own = EXTENSION_REQUESTS.get(method);
  if (own) return checkAnswer(method, own.result, result, findings, applied);
  // Without the extension there is no task handle to judge: the resultType alone is wrong (checkModernResult).
  if (!advertised) return;
  mark(applied, MARKS.handle);
  if (!isTaskHandle(result)) {
    findings.push(violation('TASK-RT-01', `expected resultType "task" on a result that carries a task (taskId ${show(result.taskId)}, status ${show(result.status)}); got ${result.resultType === undefined ? 'none' : show(result.resultType)}`, '/result/resultType'));
    return;
  }
  if (!TASK_SUPPORTED_METHODS.has(method)) {
    findings.push(violation('TASK-RT-02', `expected a CreateTaskResult only in answer to ${[...TASK_SUPPORTED_METHODS].join(', ')} (${ruling('unsupported-task-handle').cite}); ${show(method)} was answered with resultType "task"`, '/result/resultType'));
    return;
  }
  mark(applied, MARKS.shape);
  const errors = validateTasksExtension('CreateTaskResult', result);
  if (errors) return void findings.push(schemaViolation(errors, '/result', `the CreateTaskResult answering ${method}`));
  timestamps(result, '/result', findings);
}

/** A result of tasks/get, tasks/update or tasks/cancel: resultType "complete", the status's payload, the schema. */
function checkAnswer(method: string, def: string, result: Record<string, unknown>, findings: Finding[], applied?: Set<string>): void {
  mark(applied, MARKS.resultType);
  const type = result.resultType;
  if (typeof type === 'string' && type !== 'complete') {
    // "task" is no result type of these requests (TASK-RT-01 says where else it may not go).
    const ids: RequirementId[] = type === TASK_RESULT_TYPE ? ['TASK-GET-02', 'TASK-RT-01'] : ['TASK-GET-02'];
    findings.push(violation(ids, `expected resultType "complete" on a ${method} result (${ruling('task-answers-complete').cite}); got ${show(type)}`, '/result/resultType'));
  }
  const detailed = method === 'tasks/get';
  mark(applied, detailed ? [...MARKS.shape, ...MARKS.detailed] : ['TASK-SCHEMA-01']);
  const missing = detailed ? payloadProblem(result, '/result', 'a tasks/get result') : undefined;
  if (missing) return void findings.push(missing);
  // The resultType was judged above: the schema is asked about the rest.
  const errors = validateTasksExtension(def, typeof type === 'string' ? { ...result, resultType: 'complete' } : result);
  if (errors) return void findings.push(schemaViolation(errors, '/result', `a ${method} result`));
  if (detailed) timestamps(result, '/result', findings);
}

/** TASK-GET-01: the member a DetailedTask's status calls for. */
function payloadProblem(task: Record<string, unknown>, pointer: string, what: string): Finding | undefined {
  const member = typeof task.status === 'string' ? STATUS_PAYLOAD.get(task.status) : undefined;
  if (member === undefined || obj(task[member]) !== undefined) return undefined;
  return violation('TASK-GET-01', `expected ${what} with status ${show(task.status)} to carry ${member} (an object); ${task[member] === undefined ? 'it is missing' : `got ${show(task[member], 60)}`}`, `${pointer}/${member}`);
}

function schemaViolation(errors: ErrorObject[], pointer: string, what: string): Finding {
  return violation('TASK-SCHEMA-01', `expected ${what} to match the tasks extension's schema (2026-07-28); ${describeErrors(errors, pointer)}`, pointer);
}

/** ISO 8601 date-time: a calendar date and a time, a zone optional (the Task definition's words; RFC 3339 is a profile of it). */
const ISO_8601_DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** Why a Task's timestamps break TASK-TIME-01; undefined when both are ISO 8601 date-times. */
export function taskTimestampProblem(task: Record<string, unknown>): string | undefined {
  const bad = (['createdAt', 'lastUpdatedAt'] as const).filter((k) => typeof task[k] === 'string' && !(ISO_8601_DATE_TIME.test(task[k]) && !Number.isNaN(Date.parse(task[k]))));
  if (bad.length === 0) return undefined;
  return `expected ${bad.length === 1 ? `${bad[0]} to be an ISO 8601 timestamp` : `${bad.join(' and ')} to be ISO 8601 timestamps`}; got ${bad.map((k) => show(task[k], 60)).join(' and ')}`;
}

function timestamps(task: Record<string, unknown>, pointer: string, findings: Finding[]): void {
  const problem = taskTimestampProblem(task);
  if (problem) findings.push(violation('TASK-TIME-01', `${problem} (${ruling('task-timestamps-typed').cite})`, pointer));
}
