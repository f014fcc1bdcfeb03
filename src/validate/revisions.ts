import { table } from '../json.js';
/** Protocol revisions mcpcheck knows, oldest first. */
export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type Revision = (typeof REVISIONS)[number];
export const LATEST_REVISION: Revision = '2025-11-25';

export function isRevision(value: unknown): value is Revision {
  return typeof value === 'string' && (REVISIONS as readonly string[]).includes(value);
}

/** Methods that exist only from a given revision on (LIFE-OP-01: keep to the negotiated version). */
export const METHOD_SINCE: ReadonlyMap<string, Revision> = table({
  'elicitation/create': '2025-06-18',
  'tasks/get': '2025-11-25',
  'tasks/result': '2025-11-25',
  'tasks/list': '2025-11-25',
  'tasks/cancel': '2025-11-25',
  'notifications/tasks/status': '2025-11-25',
  'notifications/elicitation/complete': '2025-11-25',
});

export function revisionAtLeast(rev: Revision, min: Revision): boolean {
  return REVISIONS.indexOf(rev) >= REVISIONS.indexOf(min);
}

/** Revisions whose JSON-RPC allowed batches (2025-03-26 added them, 2025-06-18 dropped them again). */
export function allowsBatches(rev: Revision): boolean {
  return rev === '2025-03-26';
}

/** Revisions that have the `completions` capability (added in 2025-03-26). */
export function hasCompletionsCapability(rev: Revision): boolean {
  return revisionAtLeast(rev, '2025-03-26');
}
