import type { RuleTable } from '../rule-table.js';
import { type Finding, show, violation } from '../finding.js';
import { obj } from '../../json.js';
import { isTaskAugmented, relatedTaskId, RELATED_TASK, taskCapabilityPath, taskSupportOf } from '../tasks.js';
import { type AnswerHook, type Concern, type JudgedRequest, resultOf, type Routes } from './concern.js';
import { declared, peerCapabilities } from './capabilities.js';
import { other, type Pending } from './ledger.js';
import type { ToolInfo } from '../tools.js';
import type { SessionState } from './state.js';

/**
 * Task-augmented requests and their results (basic/utilities/tasks.mdx): a receiver answers with a
 * CreateTaskResult where it declared tasks for the request type (and the tool allows them), and
 * only there; tasks/result carries the task's id in related-task metadata, and is judged as the
 * result of the request that made the task.
 */
export class Tasks implements Concern {
  static readonly rules: RuleTable = ['TASK-CREATE-01', 'TASK-SUP-01', 'TASK-CAP-01', 'TASK-RES-03'];
  /** Task id → the task-augmented request. */
  private readonly tasks = new Map<string, JudgedRequest>();

  constructor(private readonly s: SessionState) {}

  /**
   * Where a task-augmented request went, when the rules on its answer apply: whether the receiver
   * declared tasks for its type, and (for tools/call) whether the listed tool takes them. Undefined:
   * no task was asked for, the type cannot be a task, or no capabilities were negotiated.
   */
  private asked(request: Pending): { path: readonly string[]; declared: boolean; takesTasks: boolean; tool: ToolInfo | undefined } | undefined {
    const s = this.s;
    const path = taskCapabilityPath(request.method);
    if (!path || !s.negotiated || !isTaskAugmented(request.params)) return undefined;
    const name = request.params?.name;
    const tool = request.method === 'tools/call' && typeof name === 'string' ? s.tools.get(name) : undefined;
    // Whether a tools/call may run as a task is the tool's to say; a tool never listed cannot be told.
    const takesTasks = request.method !== 'tools/call' || (tool !== undefined && taskSupportOf(tool) !== 'forbidden');
    return { path, declared: declared(peerCapabilities(s, other(s.side)), path), takesTasks, tool };
  }

  taskCreated(request: Pending, message: Record<string, unknown>, findings: Finding[]): void {
    const s = this.s;
    const asked = this.asked(request);
    // A task made is a task-augmented request accepted: its type must be among those declared (TASK-CAP-01).
    if (asked) s.applied.add('TASK-CAP-01');
    if (asked && !asked.declared) {
      s.applied.add('TASK-SUP-01');
      findings.push(
        violation(['TASK-SUP-01', 'TASK-CAP-01'], `expected a plain ${request.method} result from a ${s.side} that did not declare ${asked.path.join('.')} (it ignores the task field, and a type it accepts as a task is declared); got a CreateTaskResult`, '/result/task'),
      );
    } else if (asked?.takesTasks) {
      s.applied.add('TASK-CREATE-01');
    }
    const taskId = obj(obj(message.result)?.task)?.taskId;
    if (typeof taskId === 'string') this.tasks.set(taskId, { method: request.method, ...(request.params ? { params: request.params } : {}) });
  }

  /** A task-augmented request answered with its own result: right from a receiver that did not declare tasks for it, wrong from one that did (where the tool takes them). */
  private readonly plainAnswer: AnswerHook = (request, kind, _message, findings) => {
    const s = this.s;
    const asked = kind === 'result' ? this.asked(request) : undefined;
    if (!asked) return;
    if (!asked.declared) {
      s.applied.add('TASK-SUP-01');
      return;
    }
    if (!asked.takesTasks) return;
    const { tool, path } = asked;
    s.applied.add('TASK-CREATE-01');
    findings.push(violation('TASK-CREATE-01', `expected a CreateTaskResult for the task-augmented ${request.method}${tool ? ` of ${show(tool.name)} (taskSupport ${show(taskSupportOf(tool))})` : ''}, as the ${s.side} declared ${path.join('.')}; got the plain result`, '/result'));
  };

  readonly answers: Routes<AnswerHook> = {
    'tools/call': this.plainAnswer,
    'sampling/createMessage': this.plainAnswer,
    'elicitation/create': this.plainAnswer,
    'tasks/result': (request, kind, message, findings) => {
      const result = resultOf(kind, message);
      const taskId = request.params?.taskId;
      if (!result || typeof taskId !== 'string') return;
      this.s.applied.add('TASK-RES-03');
      const related = relatedTaskId(result);
      if (related !== taskId) {
        findings.push(violation('TASK-RES-03', `expected the tasks/result response to carry _meta["${RELATED_TASK}"].taskId ${show(taskId)}; got ${related === undefined ? 'none' : show(related)}`, '/result/_meta'));
      }
    },
  };

  judgedAs(request: Pending): JudgedRequest | undefined {
    if (request.method !== 'tasks/result') return undefined;
    const taskId = request.params?.taskId;
    const original = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
    if (!original) return undefined;
    const { task: _task, ...params } = original.params ?? {};
    return { method: original.method, params };
  }
}
