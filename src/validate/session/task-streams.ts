import type { RuleTable } from '../rule-table.js';
import { ptr, show, violation } from '../finding.js';
import { obj } from '../../json.js';
import { META } from '../../spec/modern.js';
import { REQUEST_SCOPED } from '../modern.js';
import type { AnswerHook, Concern, NotificationHook, RequestHook, Routes } from './concern.js';
import { isKey, type Key } from './ledger.js';
import type { SessionState } from './state.js';


/**
 * The listen streams of tasks (the tasks extension, "Task Status Notifications"): a
 * subscriptions/listen whose filter names taskIds carries the server's notifications/tasks of those
 * tasks, and never a notifications/progress or notifications/message (TASK-NOTIF-04). The rule had
 * its chance once the server sent a task's status on such a stream.
 */
export class TaskStreams implements Concern {
  static readonly rules: RuleTable = ['TASK-NOTIF-04'];
  /** The open listen requests that asked for task status notifications. */
  private readonly open = new Set<Key>();

  constructor(private readonly s: SessionState) {}

  private readonly listen: RequestHook = (request) => {
    const taskIds = obj(request.params?.notifications)?.taskIds;
    if (this.s.side === 'client' && Array.isArray(taskIds) && taskIds.length > 0) this.open.add(request.id);
  };

  readonly requests: Routes<RequestHook> = { 'subscriptions/listen': this.listen };

  /** The listen result ends the stream. */
  readonly answers: Routes<AnswerHook> = {
    'subscriptions/listen': (request) => {
      this.open.delete(request.id);
    },
  };

  private streamOf(params: Record<string, unknown> | undefined): Key | undefined {
    const id = obj(params?._meta)?.[META.subscriptionId];
    return isKey(id) && this.open.has(id) ? id : undefined;
  }

  private readonly status: NotificationHook = (params) => {
    if (this.s.side === 'server' && this.streamOf(params) !== undefined) this.s.applied.add('TASK-NOTIF-04');
  };

  private readonly requestScoped: NotificationHook = (params, findings, method) => {
    const stream = this.s.side === 'server' ? this.streamOf(params) : undefined;
    if (stream === undefined) return;
    this.s.applied.add('TASK-NOTIF-04');
    findings.push(violation('TASK-NOTIF-04', `expected no ${method} on the subscriptions/listen stream of tasks ${show(stream)} (its filter names taskIds); this one carries its ${META.subscriptionId}`, `/params/_meta${ptr(META.subscriptionId)}`));
  };

  readonly notifications: Routes<NotificationHook> = { 'notifications/tasks': this.status, ...Object.fromEntries([...REQUEST_SCOPED].map((m) => [m, this.requestScoped])) };
}
