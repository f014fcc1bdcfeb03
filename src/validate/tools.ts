import { checkContentList } from './content.js';
import { checkSchema, validateWithSchema } from './dialects.js';
import { type Finding, ptr, show, violation } from './finding.js';
import type { RuleTable } from './rule-table.js';
import { obj } from '../json.js';

/** The rules the tool checks judge a tools/list page and a tools/call result by. */
export const TOOL_RULES: RuleTable = ['TOOL-SCHEMA-01', 'TOOL-NAME-01', 'TOOL-NAME-03', 'TOOL-CONT-01', 'TOOL-OUT-01', 'TOOL-OUT-03'];

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** What the session remembers of a listed tool. */
export interface ToolInfo {
  name: string;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  inputSchema?: unknown;
  /** Its `execution.taskSupport`, as listed (the task rules read it). */
  taskSupport?: unknown;
}

function checkRootObjectSchema(schema: unknown, pointer: string, what: string): Finding[] {
  const s = obj(schema);
  if (!s) return [violation('TOOL-SCHEMA-01', `expected ${what} to be a JSON Schema object; got ${show(schema)}`, pointer)];
  if (s.type !== 'object') {
    return [violation('TOOL-SCHEMA-01', `expected ${what} to have "type": "object" at its root; got "type": ${show(s.type)}`, pointer + '/type')];
  }
  return [];
}

/**
 * Rules on one page of a tools/list result that the page alone shows. `known` holds the tools
 * listed before (their schemas, judged then, usually come again unchanged).
 */
export function checkToolList(result: Record<string, unknown>, known?: ReadonlyMap<string, ToolInfo>): Finding[] {
  const tools = result.tools;
  if (!Array.isArray(tools)) return [];
  const findings: Finding[] = [];
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    const t = obj(tool);
    if (!t) return;
    const base = ptr('result', 'tools', i);
    const before = typeof t.name === 'string' ? known?.get(t.name) : undefined;
    if (typeof t.name === 'string') {
      if (!TOOL_NAME.test(t.name)) {
        findings.push(violation('TOOL-NAME-01', `expected a tool name of 1–128 ASCII letters, digits, "_", "-" or "."; got ${show(t.name)}`, base + '/name'));
      }
      if (seen.has(t.name)) findings.push(violation('TOOL-NAME-03', `expected unique tool names; ${show(t.name)} appears twice on this page`, base + '/name'));
      seen.add(t.name);
    }
    if ('inputSchema' in t) {
      findings.push(...checkRootObjectSchema(t.inputSchema, base + '/inputSchema', 'inputSchema'));
      if (obj(t.inputSchema)) findings.push(...checkSchema(t.inputSchema, base + '/inputSchema', before?.inputSchema));
    }
    if ('outputSchema' in t) {
      findings.push(...checkRootObjectSchema(t.outputSchema, base + '/outputSchema', 'outputSchema'));
      if (obj(t.outputSchema)) findings.push(...checkSchema(t.outputSchema, base + '/outputSchema', before?.outputSchema));
    }
  });
  return findings;
}

/** Tool definitions of a tools/list page, for checking later calls. */
export function toolsOf(result: unknown): ToolInfo[] {
  const tools = obj(result)?.tools;
  if (!Array.isArray(tools)) return [];
  const out: ToolInfo[] = [];
  for (const tool of tools) {
    const t = obj(tool);
    if (t && typeof t.name === 'string') {
      const taskSupport = obj(t.execution)?.taskSupport;
      out.push({ name: t.name, outputSchema: t.outputSchema, inputSchema: t.inputSchema, ...(obj(t.annotations) ? { annotations: obj(t.annotations)! } : {}), ...(taskSupport !== undefined ? { taskSupport } : {}) });
    }
  }
  return out;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A CallToolResult: content blocks, structuredContent against the tool's outputSchema, text mirror. */
export function checkCallToolResult(result: Record<string, unknown>, tool: ToolInfo | undefined): Finding[] {
  const findings = checkContentList(result.content, '/result/content', 'TOOL-CONT-01');
  const isError = result.isError === true;
  const structured = result.structuredContent;
  if (tool && obj(tool.outputSchema)) {
    if (isError) {
      // Ruling structured-content-on-errors: structuredContent is not required on isError results.
    } else if (structured === undefined) {
      findings.push(violation('TOOL-OUT-01', `expected structuredContent, because tool ${show(tool.name)} declares an outputSchema; the result has none`, '/result'));
    } else {
      const v = validateWithSchema(tool.outputSchema, structured);
      if (v.status === 'invalid') {
        findings.push(violation('TOOL-OUT-01', `expected structuredContent to conform to the outputSchema of tool ${show(tool.name)}; ${v.errors.slice(0, 3).join('; ')}`, '/result/structuredContent'));
      }
    }
  }
  if (structured !== undefined && Array.isArray(result.content)) {
    // Servers mostly mirror structuredContent as JSON.stringify writes it: that text is compared
    // as it is, and only another text is parsed (parsing it gives back what was stringified).
    let written: string | undefined;
    const mirrored = result.content.some((b) => {
      const block = obj(b);
      if (!block || block.type !== 'text' || typeof block.text !== 'string') return false;
      try {
        return block.text === (written ??= JSON.stringify(structured)) || deepEqual(JSON.parse(block.text), structured);
      } catch {
        return false;
      }
    });
    if (!mirrored) {
      findings.push(violation('TOOL-OUT-03', 'expected a text content block holding the same JSON as structuredContent (for clients that do not read structuredContent); none matches', '/result/content'));
    }
  }
  return findings;
}
