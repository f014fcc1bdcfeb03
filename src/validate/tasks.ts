import { obj } from '../json.js';
import { show } from './finding.js';

// What the rules of tasks (basic/utilities/tasks.mdx, 2025-11-25, experimental) read of a message:
// shared by live validation and the task scenarios, so a rule has one predicate.

/** The statuses a task never leaves (TASK-ST-02). */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** The _meta key that ties a message to a task. */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

export function isTerminal(status: unknown): boolean {
  return typeof status === 'string' && TERMINAL_STATUSES.has(status);
}

/** Whether a request asks to run as a task: its params carry a `task` object. */
export function isTaskAugmented(params: Record<string, unknown> | undefined): boolean {
  return obj(params?.task) !== undefined;
}

/**
 * Whether a result to a task-augmented request is a CreateTaskResult (it has `task`) rather than
 * the method's own result, which a receiver that did not declare tasks for the request type gives (TASK-SUP-01).
 */
export function isCreateTaskResult(params: Record<string, unknown> | undefined, result: Record<string, unknown>): boolean {
  return isTaskAugmented(params) && Object.hasOwn(result, 'task');
}

/** The taskId of the related-task _meta of a message part (params or result), if any. */
export function relatedTaskId(part: Record<string, unknown> | undefined): unknown {
  const related = obj(obj(part?._meta)?.[RELATED_TASK]);
  return related === undefined ? undefined : related.taskId;
}

/** Whether a message part carries related-task _meta at all. */
export function hasRelatedTask(part: Record<string, unknown> | undefined): boolean {
  return obj(part?._meta)?.[RELATED_TASK] !== undefined;
}

/** The capability path under which the receiver declares task support for a request type (TASK-CAP-01), undefined for a type that cannot be a task. */
export function taskCapabilityPath(method: string): readonly string[] | undefined {
  const path = AUGMENTABLE.get(method);
  return path && ['tasks', 'requests', ...path];
}

const AUGMENTABLE: ReadonlyMap<string, readonly [string, string]> = new Map([
  ['tools/call', ['tools', 'call']],
  ['sampling/createMessage', ['sampling', 'createMessage']],
  ['elicitation/create', ['elicitation', 'create']],
]);

/** A tool's `execution.taskSupport`, "forbidden" when absent (the schema's default). */
export function taskSupportOf(tool: { taskSupport?: unknown }): string {
  return typeof tool.taskSupport === 'string' ? tool.taskSupport : 'forbidden';
}

/** RFC 3339 date-time (the profile of ISO 8601 the schema's timestamps follow): full date, time, and a zone. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function isRfc3339(value: unknown): value is string {
  return typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
}

/**
 * Why a tasks/get result breaks TASK-TTL-02 (it states the task's actual retention: milliseconds,
 * or null for unlimited; a number, as schema.ts has it, ruling schema-ts-over-json); undefined when
 * it holds. The receiver may have overridden the ttl asked for, so any such value holds.
 */
export function ttlProblem(result: Record<string, unknown>): string | undefined {
  if (!Object.hasOwn(result, 'ttl')) return 'expected ttl: the task\'s actual retention in milliseconds, or null for unlimited; it is missing';
  const { ttl } = result;
  if (ttl === null || (typeof ttl === 'number' && Number.isFinite(ttl))) return undefined;
  return `expected ttl as a number of milliseconds, or null for unlimited; got ${show(ttl)}`;
}

/** Why a Task's timestamps break TASK-TTL-01 (both RFC 3339, lastUpdatedAt not before createdAt); undefined when they hold. */
export function timestampProblem(task: Record<string, unknown>): string | undefined {
  const { createdAt, lastUpdatedAt } = task;
  const bad = (['createdAt', 'lastUpdatedAt'] as const).filter((k) => task[k] !== undefined && !isRfc3339(task[k]));
  if (bad.length > 0) return `expected ${bad.join(' and ')} as RFC 3339 timestamps; got ${bad.map((k) => JSON.stringify(task[k])).join(' and ')}`;
  if (isRfc3339(createdAt) && isRfc3339(lastUpdatedAt) && Date.parse(lastUpdatedAt) < Date.parse(createdAt)) {
    return `expected lastUpdatedAt not before createdAt; got createdAt ${createdAt}, lastUpdatedAt ${lastUpdatedAt}`;
  }
  return undefined;
}
