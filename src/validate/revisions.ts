import { table } from '../json.js';
import { type Revision, revisionAtLeast } from '../spec/revisions.js';

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

/** Revisions whose JSON-RPC allowed batches (2025-03-26 added them, 2025-06-18 dropped them again). */
export function allowsBatches(rev: Revision): boolean {
  return rev === '2025-03-26';
}

/** Revisions that have the `completions` capability (added in 2025-03-26). */
export function hasCompletionsCapability(rev: Revision): boolean {
  return revisionAtLeast(rev, '2025-03-26');
}
