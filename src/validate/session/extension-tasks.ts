import type { RuleTable } from '../rule-table.js';
import { type Finding, ptr, show, violation } from '../finding.js';
import { describeErrors, schemaFor } from '../schemas.js';
import { mistypedResponses } from '../input-responses.js';
import { advertisesExtension } from '../modern.js';
import { TASK_METHODS, TASKS_EXTENSION } from '../ext-tasks.js';
import { isTerminal } from '../tasks.js';
import { obj, sameJson } from '../../json.js';
import { MODERN_ERRORS } from '../../spec/modern.js';
import { ruling } from '../../spec/rulings.js';
import { LATEST_REVISION } from '../../spec/revisions.js';
import type { AnswerHook, Concern, NotificationHook, RequestHook, Routes } from './concern.js';
import type { Key, Pending } from './ledger.js';
import type { SessionState } from './state.js';

/** What the server last showed of a task that asked for input: its requests by key, and those the client has answered since. */
interface Inputs {
  /** Every key the task has used, with the request it named (TASK-KEY-01). */
  named: Map<string, unknown>;
  /** The keys outstanding at the task's last sighting (its inputRequests then). */
  outstanding: Map<string, unknown>;
  /** Keys the client answered by tasks/update (acknowledged or not). */
  answered: Set<string>;
}

/** The result definition of each method a task may stand for (TASK-RT-02: tools/call in 2026-07-28). */
const RESULT_OF: ReadonlyMap<string, string> = new Map([['tools/call', 'CallToolResult']]);

/**
 * The tasks extension across a 2026-07-28 exchange (catalogs/ext-tasks-2026-07-28.json): each task
 * the server shows (its CreateTaskResult, tasks/get results, notifications/tasks) follows the
 * status machine under an id no live task of the server has; its inputRequests keys each name one
 * request for the task's whole life; the client's tasks/update answers keys outstanding, each with
 * the result its request calls for; a task is cancelled by tasks/cancel, never notifications/cancelled;
 * a server answers tasks requests only of clients that declared the extension.
 */
export class ExtensionTasks implements Concern {
  static readonly rules: RuleTable = ['TASK-ST-02', 'TASK-ID-01', 'TASK-KEY-01', 'TASK-UPD-02', 'TASK-UPD-03', 'TASK-CANCEL-04', 'TASK-ERR-03', 'TASK-ERR-04', 'TASK-NEG-03'];
  /** Task id → its last status seen. */
  private readonly status = new Map<string, string>();
  /** The ids of tasks seen created (by a CreateTaskResult). */
  private readonly created = new Set<string>();
  private readonly inputs = new Map<string, Inputs>();
  /** Requests answered with a task handle: a notifications/cancelled naming one cancels a task. */
  private readonly handled = new Map<Key, string>();
  /** Task id → the method of the request its handle answered (whose result a completed task holds). */
  private readonly methodOf = new Map<string, string>();

  constructor(private readonly s: SessionState) {}

  taskCreated(request: Pending, message: Record<string, unknown>, findings: Finding[]): void {
    const task = obj(message.result);
    const taskId = task?.taskId;
    if (!task || typeof taskId !== 'string') return;
    this.handled.set(request.id, taskId);
    this.methodOf.set(taskId, request.method);
    // Uniqueness is shown only beside another task the server created.
    if (this.created.size > 0) this.s.applied.add('TASK-ID-01');
    if (this.created.has(taskId) && !isTerminal(this.status.get(taskId))) {
      findings.push(violation('TASK-ID-01', `expected a task id unique among the server's tasks; the task handle answering this ${request.method} names ${show(taskId)}, a task it still holds (last seen ${show(this.status.get(taskId))})`, '/result/taskId'));
    }
    // A new task under the id: what came before was another task's.
    this.created.add(taskId);
    this.status.delete(taskId);
    this.inputs.delete(taskId);
    this.sighting(task, '/result', findings);
  }

  /** One sighting of a task: its status against the last one seen, and the input it asks for. */
  private sighting(task: Record<string, unknown>, pointer: string, findings: Finding[]): void {
    const { taskId, status } = task;
    if (typeof taskId !== 'string' || typeof status !== 'string') return;
    const before = this.status.get(taskId);
    this.status.set(taskId, status);
    if (before !== undefined) {
      this.s.applied.add('TASK-ST-02');
      if (isTerminal(before) && status !== before) {
        findings.push(violation('TASK-ST-02', `expected task ${show(taskId)} to stay ${show(before)} (a terminal status never changes); it is now ${show(status)}`, `${pointer}/status`));
      }
    }
    if (status === 'completed') this.completedWith(taskId, task.result, `${pointer}/result`, findings);
    const requests = status === 'input_required' ? obj(task.inputRequests) : undefined;
    const inputs = this.inputsOf(taskId);
    inputs.outstanding = new Map(Object.entries(requests ?? {}));
    for (const [key, request] of inputs.outstanding) this.keyUsed(taskId, inputs, key, request, `${pointer}/inputRequests`, findings);
  }

  /** TASK-ERR-04: a completed task holds the result its request would have had (a CallToolResult for tools/call), not something else. */
  private completedWith(taskId: string, result: unknown, pointer: string, findings: Finding[]): void {
    const def = RESULT_OF.get(this.methodOf.get(taskId) ?? '');
    // Without its result the task breaks TASK-GET-01 (the message validator's).
    if (def === undefined || obj(result) === undefined) return;
    this.s.applied.add('TASK-ERR-04');
    // The extension's own examples hold the result without resultType: one it leaves out is not asked for.
    const held = obj(result)!;
    const errors = schemaFor(LATEST_REVISION).validate(def, 'resultType' in held ? held : { ...held, resultType: 'complete' });
    if (errors) findings.push(violation('TASK-ERR-04', `expected completed task ${show(taskId)} to hold the ${def} its ${this.methodOf.get(taskId)} would have returned (${ruling('task-result-type-optional').cite}); ${describeErrors(errors, pointer)}`, pointer));
  }

  private inputsOf(taskId: string): Inputs {
    let inputs = this.inputs.get(taskId);
    if (!inputs) this.inputs.set(taskId, (inputs = { named: new Map(), outstanding: new Map(), answered: new Set() }));
    return inputs;
  }

  /** TASK-KEY-01: a key names one request over the task's life (shown again unchanged until the server takes its answer). */
  private keyUsed(taskId: string, inputs: Inputs, key: string, request: unknown, pointer: string, findings: Finding[]): void {
    if (!inputs.named.has(key)) return void inputs.named.set(key, request);
    this.s.applied.add('TASK-KEY-01');
    if (!sameJson(inputs.named.get(key), request)) {
      findings.push(violation('TASK-KEY-01', `expected inputRequests key ${show(key)} of task ${show(taskId)} to name one request over the task's life; it named ${show(inputs.named.get(key), 80)} before and now ${show(request, 80)}`, pointer + ptr(key)));
      // One reuse, one finding: the polls that show it again are not new ones.
      inputs.named.set(key, request);
    }
  }

  /** The client's tasks/update: each key outstanding and not answered yet (TASK-UPD-02), each response the result its request calls for (TASK-UPD-03). */
  private readonly update: RequestHook = (request, findings) => {
    const taskId = request.params?.taskId;
    const responses = obj(request.params?.inputResponses);
    const inputs = typeof taskId === 'string' ? this.inputs.get(taskId) : undefined;
    // Only a task mcpcheck saw ask for input: a transcript may begin after it did.
    if (this.s.side !== 'client' || !responses || !inputs || inputs.named.size === 0) return;
    this.s.applied.add('TASK-UPD-02');
    for (const key of Object.keys(responses)) {
      const at = ptr('params', 'inputResponses', key);
      const again = inputs.answered.has(key) ? ', and was answered already' : '';
      if (!inputs.outstanding.has(key)) {
        findings.push(violation('TASK-UPD-02', `expected tasks/update to answer only keys outstanding for task ${show(taskId)} (${show([...inputs.outstanding.keys()])} at its last sighting); ${show(key)} is not one${again}`, at));
      } else if (again) {
        // Still shown outstanding (the server may not have taken the first answer yet): only the SHOULD to track keys is broken.
        findings.push({ ...violation('TASK-UPD-02', `expected a client to track inputRequests keys so as not to answer one twice (SHOULD); ${show(key)} of task ${show(taskId)} was answered already`, at, 'warn'), level: 'SHOULD' });
      }
    }
    this.s.applied.add('TASK-UPD-03');
    for (const { key, def, method, errors } of mistypedResponses(Object.fromEntries(inputs.outstanding), responses)) {
      const at = ptr('params', 'inputResponses', key);
      findings.push(violation('TASK-UPD-03', `expected inputResponses ${show(key)} to be the ${def} answering ${method}, as the standalone request's result would be; ${describeErrors(errors, at)}`, at));
    }
    for (const key of Object.keys(responses)) inputs.answered.add(key);
  };

  /** TASK-NEG-03: a tasks request of a client that did not declare the extension gets −32021, not an answer. */
  private undeclared(request: Pending, kind: 'result' | 'error', message: Record<string, unknown>, findings: Finding[]): void {
    if (advertisesExtension(request.params, TASKS_EXTENSION)) return;
    this.s.applied.add('TASK-NEG-03');
    const code = kind === 'error' ? obj(message.error)?.code : undefined;
    if (code === MODERN_ERRORS.missingClientCapability) return;
    findings.push(violation('TASK-NEG-03', `expected error ${MODERN_ERRORS.missingClientCapability} (Missing Required Client Capability; ${ruling('task-missing-capability-code').cite}) for a ${request.method} whose clientCapabilities.extensions lack ${TASKS_EXTENSION}; got ${kind === 'error' ? `error ${show(code)}` : 'a result'}`, kind === 'error' ? '/error/code' : '/result'));
  }

  private readonly answered: AnswerHook = (request, kind, message, findings) => {
    this.undeclared(request, kind, message, findings);
    const result = kind === 'result' ? obj(message.result) : undefined;
    if (!result || request.method !== 'tasks/get') return;
    if (result.status === 'failed') {
      this.s.applied.add('TASK-ERR-03');
      if (typeof result.statusMessage !== 'string') findings.push(violation('TASK-ERR-03', `expected the tasks/get answer of failed task ${show(result.taskId)} to carry a statusMessage with diagnostic information; it has none`, '/result'));
    }
    this.sighting(result, '/result', findings);
  };

  readonly answers: Routes<AnswerHook> = Object.fromEntries(TASK_METHODS.map((m) => [m, this.answered]));

  /** A client that cancels a task it was handed by tasks/cancel has kept TASK-CANCEL-04. */
  private readonly cancel: RequestHook = (request) => {
    const taskId = request.params?.taskId;
    if (this.s.side === 'client' && typeof taskId === 'string' && this.created.has(taskId)) this.s.applied.add('TASK-CANCEL-04');
  };

  readonly requests: Routes<RequestHook> = { 'tasks/update': this.update, 'tasks/cancel': this.cancel };

  private readonly statusNotification: NotificationHook = (params, findings) => {
    if (params && this.s.side === 'server') this.sighting(params, '/params', findings);
  };

  /** TASK-CANCEL-04: a request the server answered with a task handle is over; cancelling it by notification cancels the task, which the extension forbids. */
  private readonly cancelled: NotificationHook = (params, findings) => {
    const id = params?.requestId;
    if (this.s.side !== 'client' || (typeof id !== 'string' && typeof id !== 'number')) return;
    const taskId = this.handled.get(id);
    if (taskId === undefined) return;
    this.s.applied.add('TASK-CANCEL-04');
    findings.push(violation('TASK-CANCEL-04', `expected tasks/cancel, not notifications/cancelled, to cancel task ${show(taskId)}; this notification names request ${show(id)}, answered with that task's handle`, '/params/requestId'));
  };

  readonly notifications: Routes<NotificationHook> = { 'notifications/tasks': this.statusNotification, 'notifications/cancelled': this.cancelled };
}
