import type { CheckResult } from '../model.js';
import type { RequirementId } from '../spec/requirement-id.js';
import { evidenceLog } from '../wire.js';

/**
 * Rules whose breach necessarily breaks another, where no one finding cites both (one that does
 * declares the link itself): two failing checks of such a pair, on the same frame of a session or
 * judged in the same scenario, report one defect.
 */
export const CONSEQUENCES: ReadonlyArray<{ rule: RequirementId; implies: RequirementId; why: string }> = [
  {
    rule: 'SUBS-END-02',
    implies: 'SUBS-END-01',
    why: 'a subscription torn down with neither notifications/cancelled nor its result also lacks the result SUBS-END-01 prefers',
  },
  {
    rule: 'TASK-LIST-03',
    implies: 'TASK-LIST-01',
    why: 'a tasks/list that ends without a task it must hold ended with no nextCursor while that task remained (ruling task-list-ends-early)',
  },
];

/**
 * One defect, reported once. Several checks often see the same thing a target did wrong: a
 * scenario and the live rule it breaks on the same frame, one violation cited under several rules
 * (a result off the negotiated revision is LIFE-OP-01, BASE-RES-03 and the method's rule at once),
 * the probes of one scenario that all find the same missing check (every Origin probe of
 * HTTP-ORIGIN-01). Such failing (or warning) checks are grouped: the first of a group reports the
 * defect and lists the others in `also`; each other names it in `defectOf`. Nothing else changes:
 * every check keeps its status, the requirement verdicts and the exit code are what they were, and
 * a baseline matches each id as before (a baselined check is grouped only with baselined ones).
 *
 * Two failing checks are the same defect when
 *  - they point at the same place of the same frame (one finding under several rule ids), or
 *  - they share a rule and a frame of the same session, or
 *  - one is a scenario's verdict that cites no frame of its own (a whole tools/list walk) and the
 *    other the live check of one of its rules, which cites the frames that broke it, or
 *  - they share a rule and the scenario they were judged in (its probes, seen one by one), or
 *  - one breaks a rule and the other its declared consequence (CONSEQUENCES), on the same frame or
 *    in the same scenario.
 */
export function groupDefects(checks: readonly CheckResult[]): CheckResult[] {
  const failing = checks.map((c, i) => ({ c, i })).filter(({ c }) => c.status === 'fail' || c.status === 'warn');
  const parent = failing.map((_, k) => k);
  const find = (k: number): number => (parent[k] === k ? k : (parent[k] = find(parent[k]!)));
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };

  /** Checks per key: any two under one key are linked. */
  const byKey = new Map<string, number[]>();
  const link = (key: string, k: number) => {
    const list = byKey.get(key);
    if (list) union(list[0]!, k);
    else byKey.set(key, [k]);
  };
  /** The live check of each rule (it cites frames), and the frameless scenario verdicts, to meet. */
  const liveOf = new Map<string, number>();
  const frameless: Array<{ key: string; k: number }> = [];
  failing.forEach(({ c }, k) => {
    // A baselined failure is grouped only with baselined ones: what a run newly breaks stays apart.
    const side = c.expected === true ? 'expected' : 'new';
    const framed = c.evidence.filter((e) => e.frame !== undefined);
    // Each framed evidence entry as the place it names: its session's log and the frame.
    const placed = framed.flatMap((e) => {
      const log = evidenceLog(e, c);
      return log === undefined ? [] : [{ e, at: `${log}|${e.frame}` }];
    });
    // A check made of findings (live, validate) cites each finding's spot; the whole message when it names no member.
    const ofFindings = c.id.startsWith('live.') || c.id.startsWith('validate.');
    for (const { e, at } of placed) {
      if (e.pointer !== undefined || ofFindings) link(`${side}|spot|${at}|${e.pointer ?? ''}`, k);
      for (const r of c.requirements) link(`${side}|frame|${r}|${at}`, k);
    }
    CONSEQUENCES.forEach(({ rule, implies }, i) => {
      if (!c.requirements.includes(rule) && !c.requirements.includes(implies)) return;
      if (c.scenario !== undefined) link(`${side}|consequence|${i}|${c.scenario}`, k);
      for (const { at } of placed) link(`${side}|consequence|${i}|${at}`, k);
    });
    for (const r of c.requirements) {
      if (c.scenario !== undefined) link(`${side}|scenario|${r}|${c.scenario}`, k);
      if (c.id.startsWith('live.') && framed.length > 0) liveOf.set(`${side}|${r}`, k);
      else if (framed.length === 0) frameless.push({ key: `${side}|${r}`, k });
    }
  });
  // A scenario's verdict with no frame of its own (a whole tools/list walk) and the live rule that
  // saw the frames break it: the live check of a rule is one per run, and repeated pages are judged
  // once, so the frames it cites need not be in the scenario's own session.
  for (const { key, k } of frameless) {
    const live = liveOf.get(key);
    if (live !== undefined) union(k, live);
  }

  const groups = new Map<number, number[]>();
  failing.forEach((_, k) => {
    const root = find(k);
    const list = groups.get(root) ?? [];
    list.push(k);
    groups.set(root, list);
  });
  const out = [...checks];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const ordered = members.map((k) => failing[k]!).sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i);
    const [head, ...rest] = ordered;
    out[head!.i] = { ...head!.c, also: rest.sort((a, b) => a.i - b.i).map(({ c }) => c.id) };
    for (const { c, i } of rest) out[i] = { ...c, defectOf: head!.c.id };
  }
  return out;
}

/** Which check of a group reports it: a failure before a warning, a scenario's verdict before a live rule's, a cause before its consequence. */
function rank(c: CheckResult): number {
  const consequence = CONSEQUENCES.some(({ implies }) => c.requirements.includes(implies)) ? 0.5 : 0;
  return (c.status === 'fail' ? 0 : 2) + (c.id.startsWith('live.') ? 1 : 0) + consequence;
}
