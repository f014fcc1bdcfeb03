import { checkIcons } from './icons.js';
import { checkMeta } from './meta.js';
import { type Finding, ptr, show, violation } from './finding.js';
import type { RuleTable } from './rule-table.js';
import type { Era } from '../spec/revisions.js';
import { mayHoldMember } from '../json.js';

/**
 * Members whose values are application data, not MCP objects: an `icons` or `_meta` member in
 * there is the application's own (tool arguments, structured results, JSON Schemas, log data …).
 */
const OPAQUE = new Set(['arguments', 'structuredContent', 'inputSchema', 'outputSchema', 'requestedSchema', 'data', 'experimental', 'metadata', 'context']);

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Deeper than any real message; a hostile one is not walked further (and cannot overflow the stack). */
const MAX_DEPTH = 256;

/**
 * One pass over a whole message for the rules that apply wherever a member appears:
 * `_meta` objects at any depth (META-*) and `icons` arrays (ICON-*). The path is kept as a stack
 * and turned into a pointer only when there is something to report.
 */
const META_RULES: RuleTable = ['META-KEY-01', 'META-KEY-02', 'META-KEY-03', 'META-KEY-04', 'META-RSV-01', 'META-RSV-03'];
/** Rules a `_meta` object exercises only when it holds their keys (checkMeta marks them). */
const META_VALUE_RULES: RuleTable = ['META-RSV-04', 'META-OTEL-01'];
const ICON_RULES: RuleTable = ['ICON-FMT-01', 'ICON-FMT-02', 'ICON-FMT-03'];
/** Every rule the walk judges: _meta keys, icons, and resource annotations' timestamps. */
export const WALK_RULES: RuleTable = [...META_RULES, ...META_VALUE_RULES, ...ICON_RULES, 'RES-ANN-01'];

/** The findings of a check run with pointers relative to the member, placed at the member's path (built only when there are any). */
function placed(found: Finding[], path: ReadonlyArray<string | number>, findings: Finding[]): void {
  if (found.length === 0) return;
  const at = ptr(...path);
  for (const f of found) {
    f.pointer = at + f.pointer;
    findings.push(f);
  }
}

/** Whether JSON text can hold anything walkMessage judges (a member named `_meta`, `icons` or `lastModified`): most frames then need no walk. */
export function mayHoldWalked(text: string): boolean {
  return mayHoldMember(text, '_meta', 'icons', 'lastModified');
}

/** `era` picks the reserved `_meta` keys the spec defines (META-RSV-01). */
export function walkMessage(message: unknown, findings: Finding[], applied?: Set<string>, era: Era = 'stateful'): void {
  const path: Array<string | number> = [];
  // Each rule family is marked once a message, however many members it judged.
  let metaSeen = false;
  let iconsSeen = false;
  const visit = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object' || depth > MAX_DEPTH) return;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child = node[i];
        if (child !== null && typeof child === 'object') {
          path.push(i);
          visit(child, depth + 1);
          path.pop();
        }
      }
      return;
    }
    for (const key in node) {
      const child = (node as Record<string, unknown>)[key];
      if (key === '_meta') {
        // Only the keys are MCP's to judge; the values belong to whoever set them.
        if (applied && !metaSeen) for (const id of META_RULES) applied.add(id);
        metaSeen = true;
        path.push(key);
        placed(checkMeta(child, '', era, applied), path, findings);
        path.pop();
        continue;
      }
      // Most members are scalars: only objects and arrays hold more to judge.
      if (child === null || typeof child !== 'object') continue;
      if (OPAQUE.has(key) || (key === 'content' && 'action' in node && !Array.isArray(child))) continue;
      if (key === 'annotations' && 'lastModified' in child) {
        path.push(key, 'lastModified');
        applied?.add('RES-ANN-01');
        const stamp = (child as Record<string, unknown>).lastModified;
        if (typeof stamp === 'string' && !(ISO_8601.test(stamp) && !Number.isNaN(Date.parse(stamp)))) {
          findings.push(violation('RES-ANN-01', `expected annotations.lastModified to be an ISO 8601 timestamp (e.g. "2025-01-12T15:00:58Z"); got ${show(stamp)}`, ptr(...path), 'warn'));
        }
        path.pop();
        path.pop();
      }
      if (key === 'icons' && Array.isArray(child)) {
        if (applied && !iconsSeen) for (const id of ICON_RULES) applied.add(id);
        iconsSeen = true;
        path.push(key);
        placed(checkIcons(child, ''), path, findings);
        path.pop();
      }
      path.push(key);
      visit(child, depth + 1);
      path.pop();
    }
  };
  visit(message, 0);
}
