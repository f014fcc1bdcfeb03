import { appliesIn, levelIn, weakerLevel } from '../spec/catalog.js';
import type { Finding } from './finding.js';
import { isStatefulRevision, LATEST_STATEFUL_REVISION, type Revision, type StatefulRevision } from '../spec/revisions.js';
import type { RequirementId } from '../spec/requirement-id.js';

/**
 * The revision a peer is judged by: the negotiated one, or 2025-11-25 while none is agreed (or when
 * it is one mcpcheck does not know, as SessionValidator does).
 */
export function judgedRevision(version: string | undefined): StatefulRevision {
  return isStatefulRevision(version) ? version : LATEST_STATEFUL_REVISION;
}

/**
 * The findings as a session on `revision` sees them: a rule the revision does not have yields no
 * finding (HTTP-SSE-01 on a 2025-06-18 session). A finding that also cites rules the revision has
 * keeps those. Its level is its leading rule's level in that revision (LIFE-OP-01 is a SHOULD on a
 * 2024-11-05 session), never above the level it was found at while that rule still leads (if the
 * leader went, the new leader's); a MUST failure whose level drops softens to warn (never the other
 * way: a softened heuristic stays soft).
 */
export function findingsIn(findings: Finding[], revision: Revision): Finding[] {
  if (findings.length === 0) return findings;
  const out: Finding[] = [];
  for (const f of findings) {
    const kept = f.requirements.filter((id) => appliesIn(id, revision));
    if (kept.length === 0) continue;
    const whole = kept.length === f.requirements.length;
    // A ruling may have graded the finding below its rule: the revision's level only lowers it further.
    const level = whole ? weakerLevel(f.level, levelIn(kept[0]!, revision)) : levelIn(kept[0]!, revision);
    if (whole && level === f.level) out.push(f);
    else out.push({ ...f, requirements: kept, level, severity: f.severity === 'fail' && level !== 'MUST' ? 'warn' : f.severity });
  }
  return out;
}

/**
 * The rules a session gave a chance to fail. add() keeps only rules of the session's revision at
 * that moment, so every validator that marks a rule applied is scoped without knowing it.
 */
export class RulesInRevision extends Set<RequirementId> {
  /** Ids marked while the session was in `outsideOf`, which that revision does not have. */
  private readonly outside = new Set<RequirementId>();
  private outsideOf: Revision | undefined;

  constructor(private readonly revision: () => Revision) {
    super();
  }

  override add(id: RequirementId): this {
    // Most ids are marked again on every frame, some of them (a walk's, an envelope's) in a
    // revision without them: only an id not seen in this revision needs the catalog.
    if (this.has(id)) return this;
    const revision = this.revision();
    if (revision !== this.outsideOf) {
      this.outside.clear();
      this.outsideOf = revision;
    }
    if (this.outside.has(id)) return this;
    if (appliesIn(id, revision)) super.add(id);
    else this.outside.add(id);
    return this;
  }
}
