import type { RuleTable } from '../rule-table.js';
import { obj } from '../../json.js';
import type { Concern, JudgedRequest } from './concern.js';
import type { Pending } from './ledger.js';

/** Whether a result to `request` is a CreateTaskResult: the request asked to run as a task. */
export function createsTask(request: Pending): boolean {
  return obj(request.params?.task) !== undefined;
}

/** Task-augmented requests, so that a tasks/result payload is judged as the result of the request that made the task. */
export class Tasks implements Concern {
  static readonly rules: RuleTable = [];
  /** Task id → the task-augmented request. */
  private readonly tasks = new Map<string, JudgedRequest>();

  taskCreated(request: Pending, message: Record<string, unknown>): void {
    const taskId = obj(obj(message.result)?.task)?.taskId;
    if (typeof taskId === 'string') this.tasks.set(taskId, { method: request.method, ...(request.params ? { params: request.params } : {}) });
  }

  judgedAs(request: Pending): JudgedRequest | undefined {
    if (request.method !== 'tasks/result') return undefined;
    const taskId = request.params?.taskId;
    const original = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
    if (!original) return undefined;
    const { task: _task, ...params } = original.params ?? {};
    return { method: original.method, params };
  }
}
