import type { Evidence, Status } from '../model.js';

/** Words the human-readable reports (console, HTML) use for the model's values; each escapes them its own way. */
export const STATUS_LABEL: Record<Status, string> = { fail: 'FAIL', error: 'ERROR', warn: 'WARN', pass: 'PASS', skip: 'SKIP' };

/** Where a piece of evidence is: frame, direction, pointer, location (target text included: escape it). */
export function evidenceWhere(ev: Evidence): string {
  const where: string[] = [];
  if (ev.frame !== undefined) where.push(`frame #${ev.frame}`);
  if (ev.from !== undefined) where.push(ev.from === 'client' ? 'client→server' : 'server→client');
  if (ev.pointer !== undefined) where.push(`at ${ev.pointer === '' ? '(whole message)' : ev.pointer}`);
  if (ev.location !== undefined) where.push(`(${ev.location})`);
  return where.join(' ') || 'evidence';
}
