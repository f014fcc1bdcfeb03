import { isObject } from '../json.js';
import { type ArgumentContext, synthesizeArguments } from '../schema/synthesize.js';
import type { ToolPolicy } from './scenario.js';

export interface ToolPlan {
  tool: Record<string, unknown>;
  name: string;
  /** Whether mcpcheck may call it (policy allows it and arguments could be synthesised). */
  call: boolean;
  /** Why it is (or is not) called, for the report's notes. */
  why: string;
  args: Record<string, unknown>;
}

/** Decides, for one listed tool, whether the policy lets mcpcheck call it (`as` a plain call or a task) and with which arguments. */
export function planToolCall(tool: Record<string, unknown>, policy: ToolPolicy, context: ArgumentContext = {}, as: 'plain' | 'task' = 'plain'): ToolPlan {
  const name = typeof tool.name === 'string' ? tool.name : String(tool.name);
  const no = (why: string): ToolPlan => ({ tool, name, call: false, why, args: {} });
  const annotations = isObject(tool.annotations) ? tool.annotations : {};
  let allowed: string;
  switch (policy.mode) {
    case 'none':
      return no('--call-tools none');
    case 'named':
      if (!(policy.names ?? []).includes(name)) return no('not named in --call-tools');
      allowed = 'named in --call-tools';
      break;
    case 'all':
      allowed = '--call-tools all';
      break;
    case 'readonly':
      if (annotations.readOnlyHint !== true) {
        return no(`not annotated read-only (readOnlyHint ${annotations.readOnlyHint === undefined ? 'absent' : JSON.stringify(annotations.readOnlyHint)}; --call-tools all or --call-tools ${name} to include it)`);
      }
      allowed = 'readOnlyHint: true';
      break;
  }
  const execution = isObject(tool.execution) ? tool.execution : {};
  if (execution.taskSupport === 'required' && as === 'plain') return no('needs task augmentation (execution.taskSupport "required")');
  const synthesized = synthesizeArguments(tool.inputSchema, context);
  if (!synthesized.complete) return no(`arguments could not be synthesised: ${synthesized.why ?? 'unknown reason'}`);
  return { tool, name, call: true, why: allowed, args: synthesized.args };
}
