import type { RuleTable } from '../rule-table.js';
import { type Finding, show, violation } from '../finding.js';
import { obj } from '../../json.js';
import { hasRelatedTask, isTerminal, RELATED_TASK, timestampProblem, ttlProblem } from '../tasks.js';
import { type AnswerHook, type Concern, type NotificationHook, type RequestHook, resultOf, type Routes } from './concern.js';
import type { Key, Pending } from './ledger.js';
import type { SessionState } from './state.js';

/** Where the task id is explicit already, so related-task metadata is left out (TASK-META-02). */
const ID_EXPLICIT_REQUESTS = ['tasks/get', 'tasks/result', 'tasks/cancel'] as const;

/**
 * Each task's status as its receiver shows it (CreateTaskResult, tasks/get, tasks/cancel,
 * tasks/list, notifications/tasks/status), basic/utilities/tasks.mdx: a new task starts in
 * `working` under an id none of the receiver's live tasks has; a terminal task never changes
 * status again, a cancelled one stays cancelled; a valid cancel answers `cancelled`, one of a
 * terminal task an error; timestamps are RFC 3339; tasks/get states the ttl; related-task
 * metadata is left out where the task id is explicit.
 */
export class TaskStatus implements Concern {
  static readonly rules: RuleTable = ['TASK-ST-01', 'TASK-ID-01', 'TASK-ST-02', 'TASK-CANCEL-01', 'TASK-CANCEL-02', 'TASK-CANCEL-03', 'TASK-TTL-01', 'TASK-TTL-02', 'TASK-META-02'];
  /** Task id → its last status seen (only tasks seen created or described). */
  private readonly status = new Map<string, unknown>();
  /** The ids of the tasks seen created (by a CreateTaskResult). */
  private readonly created = new Set<string>();
  /** tasks/cancel request id → the status its task had when the cancel was sent. */
  private readonly whenCancelled = new Map<Key, unknown>();

  constructor(private readonly s: SessionState) {}

  taskCreated(request: Pending, message: Record<string, unknown>, findings: Finding[]): void {
    const s = this.s;
    const task = obj(obj(message.result)?.task);
    if (!task) return;
    s.applied.add('TASK-ST-01');
    if (task.status !== 'working') findings.push(violation('TASK-ST-01', `expected a new task to start in "working"; got status ${show(task.status)}`, '/result/task/status'));
    this.timestamps(task, '/result/task', findings);
    const taskId = task.taskId;
    if (typeof taskId !== 'string') return;
    // Uniqueness is shown only beside another task the receiver created.
    if (this.created.size > 0) s.applied.add('TASK-ID-01');
    // Only a task created earlier counts: a status notification may name a task before its CreateTaskResult comes.
    if (this.created.has(taskId) && !isTerminal(this.status.get(taskId))) {
      findings.push(violation('TASK-ID-01', `expected a task id unique among the ${s.side}'s tasks; the task created for this ${request.method} got ${show(taskId)}, the id of a task it still holds (last seen ${show(this.status.get(taskId))})`, '/result/task/taskId'));
    }
    // A new task under the id: what came before was another task's.
    this.created.add(taskId);
    this.status.set(taskId, task.status);
  }

  /** One sighting of a task: its timestamps, and its status against the last one seen. */
  private sighting(task: Record<string, unknown>, pointer: string, findings: Finding[]): void {
    this.timestamps(task, pointer, findings);
    const { taskId, status } = task;
    if (typeof taskId !== 'string' || typeof status !== 'string') return;
    const before = this.status.get(taskId);
    this.status.set(taskId, status);
    if (before === undefined) return;
    const rule = before === 'cancelled' ? 'TASK-CANCEL-03' : 'TASK-ST-02';
    this.s.applied.add(rule);
    if (isTerminal(before) && status !== before) {
      findings.push(violation(rule, `expected task ${show(taskId)} to stay ${show(before)} (a terminal status never changes); it is now ${show(status)}`, `${pointer}/status`));
    }
  }

  private timestamps(task: Record<string, unknown>, pointer: string, findings: Finding[]): void {
    this.s.applied.add('TASK-TTL-01');
    const problem = timestampProblem(task);
    if (problem) findings.push(violation('TASK-TTL-01', problem, pointer));
  }

  private ttlStated(result: Record<string, unknown>, findings: Finding[]): void {
    this.s.applied.add('TASK-TTL-02');
    const problem = ttlProblem(result);
    if (problem) findings.push(violation('TASK-TTL-02', problem, '/result/ttl'));
  }

  private relatedMetaLeftOut(part: Record<string, unknown> | undefined, where: string, pointer: string, findings: Finding[]): void {
    this.s.applied.add('TASK-META-02');
    if (hasRelatedTask(part)) findings.push(violation('TASK-META-02', `expected no _meta["${RELATED_TASK}"] on ${where}, whose task id is explicit; got ${show(obj(part?._meta)?.[RELATED_TASK])}`, `${pointer}/_meta`));
  }

  private readonly described: AnswerHook = (request, kind, message, findings) => {
    const result = resultOf(kind, message);
    if (!result) return;
    this.relatedMetaLeftOut(result, `a ${request.method} result`, '/result', findings);
    if (request.method === 'tasks/cancel') this.cancelled(request, result, findings);
    if (request.method === 'tasks/get') this.ttlStated(result, findings);
    this.sighting(result, '/result', findings);
  };

  /** A tasks/cancel that got a result: of a live task it shows `cancelled`; of a terminal one it should have been an error. */
  private cancelled(request: Pending, result: Record<string, unknown>, findings: Finding[]): void {
    const taskId = request.params?.taskId;
    const before = this.whenCancelled.get(request.id);
    this.whenCancelled.delete(request.id);
    if (typeof taskId !== 'string' || before === undefined) return;
    if (isTerminal(before)) {
      this.s.applied.add('TASK-CANCEL-01');
      findings.push(violation('TASK-CANCEL-01', `expected an error (-32602) cancelling task ${show(taskId)}, already ${show(before)}; got a result with status ${show(result.status)}`, '/result'));
      return;
    }
    this.s.applied.add('TASK-CANCEL-02');
    if (result.status !== 'cancelled') findings.push(violation('TASK-CANCEL-02', `expected the tasks/cancel result to show task ${show(taskId)} "cancelled" (its status is set before the reply); got ${show(result.status)}`, '/result/status'));
  }

  readonly answers: Routes<AnswerHook> = {
    'tasks/get': this.described,
    'tasks/cancel': this.described,
    'tasks/list': (request, kind, message, findings) => {
      const result = resultOf(kind, message);
      if (!result) return;
      this.relatedMetaLeftOut(result, `a ${request.method} result`, '/result', findings);
      if (!Array.isArray(result.tasks)) return;
      result.tasks.forEach((t, i) => {
        const task = obj(t);
        if (task) this.sighting(task, `/result/tasks/${i}`, findings);
      });
    },
  };

  private readonly explicitRequest: RequestHook = (request, findings) => this.relatedMetaLeftOut(request.params, `a ${request.method} request`, '/params', findings);

  readonly requests: Routes<RequestHook> = {
    ...Object.fromEntries(ID_EXPLICIT_REQUESTS.map((m) => [m, this.explicitRequest])),
    'tasks/cancel': (request, findings) => {
      this.explicitRequest(request, findings);
      // The status the cancel met: a status notification may come between it and its reply.
      const taskId = request.params?.taskId;
      if (typeof taskId === 'string' && this.status.has(taskId)) this.whenCancelled.set(request.id, this.status.get(taskId));
    },
  };

  private readonly statusNotification: NotificationHook = (params, findings) => {
    if (!params) return;
    this.relatedMetaLeftOut(params, 'notifications/tasks/status', '/params', findings);
    this.sighting(params, '/params', findings);
  };

  readonly notifications: Routes<NotificationHook> = { 'notifications/tasks/status': this.statusNotification };
}
