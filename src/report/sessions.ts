import type { SessionSection } from '../model.js';

/** Violations named per session; the rest are counted (each check lists them all). */
const MAX_NAMED = 8;

/** A proxied session in words, for every format (each escapes the parts as it must). */
export interface SessionWords {
  label: string;
  frames: string;
  /** The revision or eras, and both sides' names. */
  who: string;
  violations: string;
  transcript?: string;
  stopped?: string;
}

export const SESSIONS_TITLE = 'Sessions (one report over all; each with the failing checks its traffic gave evidence to)';

export function sessionWords(s: SessionSection): SessionWords {
  const named = (role: string, info: SessionSection['clientInfo']) => (info ? [`${role} ${info.name ?? '(no name)'}${info.version !== undefined ? ` ${info.version}` : ''}`] : []);
  const listed = s.violations.slice(0, MAX_NAMED).map((v) => `${v.status.toUpperCase()} ${v.check}${v.findings > 1 ? ` ×${v.findings}` : ''}`);
  const more = s.violations.length - MAX_NAMED;
  return {
    label: s.label,
    frames: `${s.frames} frame${s.frames === 1 ? '' : 's'}`,
    who: [s.protocol, ...named('client', s.clientInfo), ...named('server', s.serverInfo)].join('; '),
    violations: listed.length === 0 ? 'no violation' : `${listed.join(', ')}${more > 0 ? `, … ${more} more` : ''}`,
    ...(s.transcript !== undefined ? { transcript: s.transcript } : {}),
    ...(s.stopped !== undefined ? { stopped: s.stopped } : {}),
  };
}

/** The session as one sentence (console, HTML). */
export function sessionText(section: SessionSection): string {
  const s = sessionWords(section);
  return `${s.label}: ${s.frames} (${s.who}) — ${s.violations}${s.transcript !== undefined ? `; transcript ${s.transcript}` : ''}${s.stopped !== undefined ? `; judging stopped: ${s.stopped}` : ''}`;
}
