import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import { isTaskAugmented, taskCapabilityPath, taskSupportOf } from '../tasks.js';
import { type Concern, type RequestHook, type Routes } from './concern.js';
import { declared, peerCapabilities } from './capabilities.js';
import type { SessionState } from './state.js';

/**
 * Where a requestor asks for a task (basic/utilities/tasks.mdx, capability and tool-level
 * negotiation): only on request types the receiver declared under tasks.requests; a tools/call
 * only for a tool whose taskSupport allows it; and always for a tool that requires it.
 */
export class TaskRequests implements Concern {
  static readonly rules: RuleTable = ['TASK-CAP-02', 'TASK-TOOL-01', 'TASK-TOOL-03'];

  constructor(private readonly s: SessionState) {}

  private readonly augmentable: RequestHook = (request, findings) => {
    const s = this.s;
    const path = taskCapabilityPath(request.method);
    if (!path || !s.negotiated) return;
    const receiver = peerCapabilities(s, s.side);
    const name = request.params?.name;
    const tool = request.method === 'tools/call' && typeof name === 'string' ? s.tools.get(name) : undefined;
    if (!isTaskAugmented(request.params)) {
      // A tool the server requires tasks for, called plainly (judged only where the tool was listed).
      if (!tool || taskSupportOf(tool) !== 'required' || !declared(receiver, path)) return;
      s.applied.add('TASK-TOOL-03');
      findings.push(violation('TASK-TOOL-03', `expected tools/call of ${show(tool.name)} as a task (its execution.taskSupport is "required"); it was called without params.task`, '/params'));
      return;
    }
    s.applied.add('TASK-CAP-02');
    if (!declared(receiver, path)) {
      findings.push(violation('TASK-CAP-02', `expected params.task on ${request.method} only when the ${s.side === 'client' ? 'server' : 'client'} declared ${path.join('.')}; it did not`, '/params/task'));
      return;
    }
    if (!tool) return;
    s.applied.add('TASK-TOOL-01');
    if (taskSupportOf(tool) === 'forbidden') {
      findings.push(violation('TASK-TOOL-01', `expected no task augmentation of tools/call for ${show(tool.name)}, whose execution.taskSupport is ${tool.taskSupport === undefined ? 'absent' : show(tool.taskSupport)} (forbidden)`, '/params/task'));
    }
  };

  readonly requests: Routes<RequestHook> = { 'tools/call': this.augmentable, 'sampling/createMessage': this.augmentable, 'elicitation/create': this.augmentable };
}
