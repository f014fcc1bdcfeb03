import { ruling } from '../spec/rulings.js';
import { type Finding, show, violation } from './finding.js';
import { isStatefulRevision as isRevision, LATEST_STATEFUL_REVISION as LATEST_REVISION, STATEFUL_REVISIONS as REVISIONS } from '../spec/revisions.js';
import type { RuleTable } from './rule-table.js';

/** The version rules judged here: a version the server supports (LIFE-VER-04), and the same answer in every session (LIFE-VER-03). */
export const VERSION_RULES: RuleTable = ['LIFE-VER-03', 'LIFE-VER-04'];

const DATE_SHAPED = /^\d{4}-\d{2}-\d{2}$/;

/** The shape every MCP protocol version has: a YYYY-MM-DD date. */
export function isDateShaped(version: string): boolean {
  return DATE_SHAPED.test(version);
}

/**
 * LIFE-VER-04: "the server MUST respond with another protocol version it supports". A version that
 * is no MCP revision at all cannot be one it supports: a string that is not date-shaped, or a date
 * up to the newest revision mcpcheck knows that is none of the revisions (all of those are known).
 * A later date may be a revision newer than mcpcheck, so it is not judged.
 * Returns why `answered` is no protocol version, or undefined.
 */
export function notAProtocolVersion(answered: string): string | undefined {
  if (!isDateShaped(answered)) return `${show(answered)} is not a protocol version (MCP versions are YYYY-MM-DD dates)`;
  if (!isRevision(answered) && answered < LATEST_REVISION) {
    return `${show(answered)} is no MCP revision (the revisions up to ${LATEST_REVISION} are ${REVISIONS.join(', ')})`;
  }
  return undefined;
}

/**
 * Ruling unsupported-version-error: an error answering an initialize whose version the server
 * does not support breaks LIFE-VER-04's MUST when that version is date-shaped; for a string that
 * is no version at all the error is arguably invalid params, so it is a SHOULD (warn).
 * Returns the level and the reason to give, with the citation.
 */
export function unsupportedVersionErrorRuling(requested: string): { level: 'MUST' | 'SHOULD'; why: string } {
  const cite = ruling('unsupported-version-error').cite;
  return isDateShaped(requested)
    ? { level: 'MUST', why: `the spec's example shows such an error, but its rule requires a result; ${cite}` }
    : { level: 'SHOULD', why: `${show(requested)} is no date-shaped version, so an error is arguably invalid params: a warning, not a failure; ${cite}` };
}

/** The LIFE-VER-04 finding for an error answering an unsupported version, under the ruling. */
export function unsupportedVersionError(requested: string, error: string, pointer = '/error'): Finding {
  const { level, why } = unsupportedVersionErrorRuling(requested);
  const finding = violation('LIFE-VER-04', `expected a result naming another supported version when the requested one (${show(requested)}) is unsupported; got ${error} (${why})`, pointer, level === 'MUST' ? 'fail' : 'warn');
  return { ...finding, level };
}

/** One session's negotiation, as LIFE-VER-03 across sessions needs it. */
export interface Negotiation {
  /** Which session (a transcript file, a scenario session), for messages. */
  label: string;
  /** serverInfo name and version: sessions of one server only are compared. */
  server: string;
  requested: string;
  negotiated: string;
  /** The frame in which the server chose: a finding about this negotiation cites it. */
  frame?: number;
}

/**
 * LIFE-VER-03 across sessions: a server that echoed a version in one session supports it, so it
 * must echo it whenever a client asks for it. Returns, per negotiation that broke it, its index
 * and the finding.
 */
export function versionConsistency(negotiations: readonly Negotiation[]): Array<{ index: number; finding: Finding }> {
  const out: Array<{ index: number; finding: Finding }> = [];
  negotiations.forEach((n, index) => {
    if (n.negotiated === n.requested) return;
    const proof = negotiations.find((o) => o.server === n.server && o.requested === n.requested && o.negotiated === n.requested);
    if (!proof) return;
    const message = `expected the server to answer ${n.requested}, a version it supports (it echoed it in ${proof.label}); it answered ${n.negotiated}`;
    const finding = violation('LIFE-VER-03', message, '/result/protocolVersion');
    if (n.frame !== undefined) finding.frame = n.frame;
    out.push({ index, finding });
  });
  return out;
}
