import { findRequirement, type Level, levelIn } from '../spec/catalog.js';
import { LATEST_REVISION } from '../spec/revisions.js';
import type { RequirementId } from '../spec/requirement-id.js';

/** fail: a MUST is broken; warn: a SHOULD is broken, or a heuristic suspects a MUST; info: a note. */
export type Severity = 'fail' | 'warn' | 'info';

export interface Finding {
  requirements: RequirementId[];
  level: Level;
  severity: Severity;
  /** What was expected and what came instead. */
  message: string;
  /** JSON pointer into the message the finding is about ("" = the whole message). */
  pointer: string;
  /** Index of the frame in the session or transcript, when known. */
  frame?: number;
  /**
   * On a note: the rule could not be judged on this value (the message says why, e.g. it echoes
   * what the client passed), so the note is no evidence that the rule held.
   */
  unjudged?: true;
}

/**
 * A rule's level as found: the 2025-11-25 catalog's, or for a rule new in 2026-07-28 that
 * catalog's. A session re-grades it by its own revision (findingsIn).
 */
function foundLevel(id: RequirementId): Level {
  return findRequirement(id)?.level ?? levelIn(id, LATEST_REVISION);
}

/**
 * A broken rule. The severity follows the level of the first requirement: MUST → fail,
 * SHOULD/MAY → warn. Pass `severity` only to soften a heuristic.
 */
export function violation(ids: RequirementId | RequirementId[], message: string, pointer = '', severity?: Severity): Finding {
  const list = Array.isArray(ids) ? ids : [ids];
  const level = foundLevel(list[0]!);
  return { requirements: list, level, severity: severity ?? (level === 'MUST' ? 'fail' : 'warn'), message, pointer };
}

/** An observation that breaks nothing but is worth reporting (a compatibility note, a ruling applied). */
export function note(ids: RequirementId | RequirementId[], message: string, pointer = ''): Finding {
  const list = Array.isArray(ids) ? ids : [ids];
  return { requirements: list, level: foundLevel(list[0]!), severity: 'info', message, pointer };
}

/** A value the rule cannot be judged on, reported instead of the violation it seemed to be. */
export function unjudged(ids: RequirementId | RequirementId[], message: string, pointer = ''): Finding {
  return { ...note(ids, message, pointer), unjudged: true };
}

/** JSON pointer escaping (RFC 6901). */
export function ptr(...parts: Array<string | number>): string {
  let out = '';
  for (const p of parts) {
    const s = String(p);
    // Most parts need no escape: skip the two regex passes, which every walked message paid for.
    out += '/' + (s.includes('~') || s.includes('/') ? s.replace(/~/g, '~0').replace(/\//g, '~1') : s);
  }
  return out;
}

/** Up to `max` items joined for a message, with a count of the rest. */
export function list(items: string[], max = 8): string {
  const shown = items.slice(0, max).join('; ');
  return items.length > max ? `${shown}; …and ${items.length - max} more` : shown;
}

/** A short, escaped rendering of a value a target sent, safe for any report. */
export function show(value: unknown, max = 120): string {
  let s: string | undefined;
  try {
    s = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    s = undefined;
  }
  if (s === undefined) {
    // Deeply nested arrays overflow String() too, and prototype-less objects have no toString.
    try {
      s = String(value);
    } catch {
      s = `[unprintable ${Array.isArray(value) ? 'array' : typeof value}]`;
    }
  }
  return s.length > max ? s.slice(0, max) + `…(${s.length} chars)` : s;
}
