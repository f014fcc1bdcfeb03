/**
 * The verdicts a run or a validation gave, as sorted lines, for snapshots that pin them while
 * mcpcheck is restructured (issue 21, step 1: an era-neutral core with no verdict change on
 * 2025-11-25 targets). Messages are left out on purpose: they name ports, timings and process ids.
 */
import type { RunReport } from '../src/model.js';
import type { Finding } from '../src/validate/finding.js';

/**
 * Checks (and the requirement only they judge) that a busy machine can leave unexercised, a skip
 * instead of a pass: the snapshot holds `pass|skip` for them. Each says why.
 */
const RACES: ReadonlySet<string> = new Set([
  // The reference server closes the resumed stream early only while the dropped request still
  // runs; when the probe of the second request took longer than the first one's duration, there
  // was nothing left to poll.
  'server.http.resume/retry-before-close',
  'HTTP-SSE-03',
]);

function status(id: string, value: string): string {
  return RACES.has(id) && (value === 'pass' || value === 'skip') ? 'pass|skip' : value;
}

/**
 * Of a client that ends its session early (a broken one that crashes or quits): whether mcpcheck,
 * as its server, got to send a request before it went is a race, so the rule that every request is
 * answered is unexercised (a skip) or not listed at all. The snapshot leaves such a skip out.
 */
export const CLIENT_ENDS_EARLY: ReadonlySet<string> = new Set(['live.BASE-ID-04', 'BASE-ID-04']);

/** Each check as `status id`, then each requirement verdict as `status id level`; `unexercisedOrAbsent`: ids whose skip is left out. */
export function verdictLines(report: RunReport, unexercisedOrAbsent: ReadonlySet<string> = new Set()): string {
  const shown = (id: string, value: string) => !(value === 'skip' && unexercisedOrAbsent.has(id));
  const checks = report.checks.filter((c) => shown(c.id, c.status)).map((c) => `${status(c.id, c.status)} ${c.id}`).sort();
  const requirements = report.requirements.filter((r) => shown(r.id, r.status)).map((r) => `${status(r.id, r.status)} ${r.id} ${r.level}`).sort();
  return ['checks:', ...checks, 'requirements:', ...requirements].join('\n');
}

/** Each finding as `severity ids level @frame pointer`, then the rules each side's frames exercised. */
export function findingLines(findings: readonly Finding[], appliedBy: Readonly<Record<'client' | 'server', ReadonlySet<string>>>): string {
  const lines = findings.map((f) => `${f.severity} ${f.requirements.join('+')} ${f.level} @${f.frame ?? '-'}${f.pointer}${f.unjudged ? ' unjudged' : ''}`).sort();
  return ['findings:', ...lines, `client: ${[...appliedBy.client].sort().join(' ')}`, `server: ${[...appliedBy.server].sort().join(' ')}`].join('\n');
}
