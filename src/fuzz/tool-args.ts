/**
 * The tools a fuzz run calls, as the tool-call policy of `mcpcheck server` allows, each with
 * generated arguments valid under its input schema. Time-like arguments (durations, delays) are
 * kept short: a fuzz case is not a wait.
 */
import fc from 'fast-check';
import { isObject } from '../json.js';
import type { ToolPolicy } from '../runner/scenario.js';
import { planToolCall } from '../runner/tool-plan.js';
import { schemaArbitrary, timedArguments } from '../schema/index.js';

/** How long a generated tool call should take at most, where its arguments say how long. */
const QUICK_CALL_MS = 50;

export interface CallableTool {
  name: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  arguments: fc.Arbitrary<Record<string, unknown>>;
  /** The arguments read as times (a duration, a delay): a value past their bounds may make the call run that long. */
  timeProperties: readonly string[];
  /** Arguments that make the call run for about `ms` (a tool with a time argument), for cancelling it mid-call. */
  slow(ms: number): Record<string, unknown> | undefined;
}

/**
 * The arguments a call's duration may follow: its time arguments and, beside them, every other
 * numeric one (a count of steps multiplies a step's time).
 */
function timeLike(schema: Record<string, unknown>, times: readonly string[]): string[] {
  if (times.length === 0 || !isObject(schema.properties)) return [...times];
  const numeric = Object.entries(schema.properties).filter(([, p]) => isObject(p) && (p.type === 'integer' || p.type === 'number')).map(([k]) => k);
  return [...new Set([...times, ...numeric])];
}

export function callableTools(tools: ReadonlyArray<Record<string, unknown>>, policy: ToolPolicy): CallableTool[] {
  return tools.flatMap((tool): CallableTool[] => {
    const plan = planToolCall(tool, policy);
    if (!plan.call) return [];
    const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
    const generated = schemaArbitrary(schema, { maxDepth: 3, maxItems: 4, maxLength: 40 });
    const args = generated.ok ? generated.arbitrary : fc.constant(plan.args);
    const quick = (a: Record<string, unknown>) => timedArguments(schema, a, QUICK_CALL_MS)?.args ?? a;
    return [{
      name: plan.name,
      inputSchema: schema,
      ...(isObject(tool.outputSchema) ? { outputSchema: tool.outputSchema } : {}),
      arguments: args.map((a) => quick(isObject(a) ? a : plan.args)),
      timeProperties: timeLike(schema, timedArguments(schema, plan.args, QUICK_CALL_MS)?.timeProperties ?? []),
      slow: (ms) => timedArguments(schema, plan.args, ms)?.args,
    }];
  });
}
