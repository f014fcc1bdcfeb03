import type { CheckResult, Evidence, Status } from './model.js';
import { requirementId, requirementIn, requirementOfEither, strongerLevel, weakerLevel, type Level } from './spec/catalog.js';
import { type Era, LATEST_REVISION } from './spec/revisions.js';
import type { Finding } from './validate/finding.js';
import type { RequirementId } from './spec/requirement-id.js';

const MAX_EVIDENCE = 10;
const MAX_LISTED = 5;

export interface FindingChecksInput {
  /** Check ids are `<prefix><REQUIREMENT-ID>`. */
  idPrefix: string;
  findings: Finding[];
  /** Requirement ids that the traffic gave a chance to fail. */
  applied: ReadonlySet<string>;
  /** Requirement ids to report even when not applied (they become skips). */
  coverage: readonly RequirementId[];
  /** Turns a finding into the frame evidence a reader needs. */
  evidence: (finding: Finding) => Evidence;
  skipReason: string;
  /** The command that reproduces a failing check, or a function of its requirement and findings (undefined: none does). */
  reproduce?: string | ((id: string, findings: Finding[]) => string | undefined);
  /** The wire logs (ids) of the traffic the findings a check rests on arose in. */
  wire?: (findings: Finding[]) => string[];
  /**
   * The eras the traffic was judged in. Traffic of the stateless era alone is reported by the rows
   * of 2026-07-28's catalogs (an id the tasks extension reuses is the extension's rule there).
   */
  eras?: readonly Era[];
}

function statusOf(findings: Finding[], level: string): Status | undefined {
  let status: Status | undefined;
  for (const f of findings) {
    if (f.severity === 'info') continue;
    if (f.severity === 'fail' && level === 'MUST') return 'fail';
    status = 'warn';
  }
  return status;
}

/**
 * The level of a warning: the highest its findings give the rule. A finding a ruling softened
 * carries the lower level (a non-version string answered with an error is a SHOULD under
 * LIFE-VER-04), and the check is graded there; a heuristic's warning keeps the rule's level.
 */
function warnLevel(findings: readonly Finding[], ruleLevel: Level): Level {
  const levels = findings.map((f) => weakerLevel(f.level, ruleLevel));
  return levels.length > 0 ? levels.reduce(strongerLevel) : ruleLevel;
}

/** `frame 4: `, `frames 4 (×7), 18, 32: ` (in the order seen), or nothing for findings of no frame. */
function framesText(frames: ReadonlyArray<number | undefined>): string {
  const counts = new Map<number, number>();
  for (const f of frames) if (f !== undefined) counts.set(f, (counts.get(f) ?? 0) + 1);
  if (counts.size === 0) return '';
  if (frames.length === 1) return `frame ${frames[0]}: `;
  return `frames ${[...counts].map(([f, n]) => (n > 1 ? `${f} (×${n})` : String(f))).join(', ')}: `;
}

/** One check per requirement, judged by the findings that cite it (a finding may cite several). */
export function checksFromFindings(input: FindingChecksInput): CheckResult[] {
  const byId = new Map<string, Finding[]>();
  for (const f of input.findings) {
    for (const id of f.requirements) {
      let list = byId.get(id);
      if (!list) byId.set(id, (list = []));
      list.push(f);
    }
  }
  const ids = [...new Set([...input.coverage, ...input.applied, ...byId.keys()])];
  const stateless = input.eras !== undefined && input.eras.length > 0 && input.eras.every((e) => e === 'stateless');
  return ids.map((id) => {
    // A rule new in 2026-07-28 (a modern exchange's) is read from that catalog.
    const req = (stateless ? requirementIn(requirementId(id), LATEST_REVISION) : undefined) ?? requirementOfEither(requirementId(id));
    const findings = byId.get(id) ?? [];
    const broken = statusOf(findings, req.level);
    const notes = findings.filter((f) => f.severity === 'info');
    const relevant = broken ? findings.filter((f) => f.severity !== 'info') : notes;
    let status: Status;
    let message: string;
    if (broken) {
      status = broken;
      // One sentence per kind of violation, with the frames it was seen in: the same defect in every
      // session's tools/list is one sentence, not one per frame.
      const kinds = new Map<string, Array<number | undefined>>();
      for (const f of relevant) {
        const frames = kinds.get(f.message) ?? [];
        frames.push(f.frame);
        kinds.set(f.message, frames);
      }
      const listed = [...kinds].slice(0, MAX_LISTED).map(([text, frames]) => `${framesText(frames)}${text}`);
      const more = kinds.size - MAX_LISTED;
      message = `${relevant.length} violation(s): ${listed.join(' | ')}${more > 0 ? ` | … ${more} more kind(s)` : ''}`;
    } else if (input.applied.has(id)) {
      // Notes alone are no evidence: a rule passes only where the judged traffic exercised it.
      status = 'pass';
      message = notes.length > 0 ? `no violation; note: ${notes.slice(0, MAX_LISTED).map((f) => f.message).join(' | ')}` : 'no violation';
    } else {
      // Notes only (values the rule could not be judged on, remarks): no evidence either way.
      status = 'skip';
      message = notes.length > 0 ? `${input.skipReason}; note: ${notes.slice(0, MAX_LISTED).map((f) => f.message).join(' | ')}` : input.skipReason;
    }
    const check: CheckResult = {
      id: input.idPrefix + id,
      title: req.title,
      requirements: [id],
      level: status === 'warn' ? warnLevel(relevant, req.level) : req.level,
      status,
      message,
      area: req.area,
      evidence: relevant.slice(0, MAX_EVIDENCE).map(input.evidence),
    };
    const wire = input.wire?.(relevant.slice(0, MAX_EVIDENCE)) ?? [];
    if (wire.length > 0) check.wire = wire;
    if (input.reproduce && (status === 'fail' || status === 'warn')) {
      const line = typeof input.reproduce === 'string' ? input.reproduce : input.reproduce(id, relevant);
      if (line !== undefined) check.reproduce = line;
    }
    return check;
  });
}
