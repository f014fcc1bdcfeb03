import { checksFromFindings } from '../checks.js';
import { grade, type Baseline } from '../grade/index.js';
import { untestedContext } from '../grade/coverage.js';
import type { CheckResult, Evidence, RunReport, SessionSection } from '../model.js';
import type { JudgedSession } from '../proxy/http-sessions.js';
import { requirement } from '../spec/catalog.js';
import type { Era } from '../spec/revisions.js';
import { validatorRulesOf } from '../validate/coverage.js';
import type { Finding } from '../validate/finding.js';
import { versionConsistency } from '../validate/versions.js';
import { toolInfo } from '../version.js';
import { WireLogs } from '../wire.js';
import { describeEras } from './validate.js';

/** What the report of a proxy run needs of its command line. */
export interface ReportContext {
  baseline?: Baseline;
  /** How reproduce lines name mcpcheck. */
  invokedAs?: string;
}

export interface ReportFrame {
  started: number;
  target: { kind: 'stdio' | 'http'; description: string };
  /** mcpcheck's own limits: what kept a session from being judged whole. */
  limits: string[];
  notes: string[];
  transcriptFlag: string | undefined;
}

/** One report over every session: the checks of all merged per requirement, a wire log and evidence per session. */
export function reportOf(o: ReportContext, sessions: readonly JudgedSession[], r: ReportFrame): RunReport {
  const wire = new WireLogs();
  const findings: Finding[] = [];
  const evidence = new Map<Finding, Evidence>();
  const sessionOf = new Map<Finding, { log: string; session: JudgedSession }>();
  const applied = new Set<string>();
  const eras = new Set<Era>();
  const several = sessions.length > 1;
  const logOf = new Map<JudgedSession, string>();
  for (const s of sessions) {
    const log = wire.mark(s.label, s.judged.frames);
    logOf.set(s, log);
    for (const id of s.judged.applied) applied.add(id);
    for (const era of s.judged.eras) eras.add(era);
    for (const f of s.judged.findings) {
      const e = s.judged.evidence.get(f) ?? {};
      evidence.set(f, several ? { ...e, location: `${s.label}, ${e.location ?? 'session'}` } : e);
      sessionOf.set(f, { log, session: s });
      findings.push(f);
    }
  }
  // LIFE-VER-03 across sessions, as validate judges it across transcripts.
  const negotiations = sessions.flatMap((s) => {
    const n = s.judged.negotiated;
    return n?.requested !== undefined && n.frame !== undefined ? [{ session: s, frame: n.frame, label: s.label, requested: n.requested, negotiated: n.version, server: `${String(n.server?.name)} ${String(n.server?.version)}` }] : [];
  });
  if (negotiations.length > 1) applied.add('LIFE-VER-03');
  for (const { index, finding } of versionConsistency(negotiations)) {
    const n = negotiations[index]!;
    evidence.set(finding, { frame: n.frame, location: `${n.label}, frame ${n.frame}`, pointer: finding.pointer });
    sessionOf.set(finding, { log: logOf.get(n.session)!, session: n.session });
    findings.push(finding);
  }
  const findingsOf = (s: JudgedSession): Finding[] => findings.filter((f) => sessionOf.get(f)?.session === s);
  const replayable = (s: JudgedSession): string | undefined => (s.transcript !== undefined && s.transcriptProblem === undefined ? s.transcript : undefined);
  const checks = checksFromFindings({
    idPrefix: 'proxy.',
    findings,
    applied,
    coverage: [...new Set([...eras].flatMap(validatorRulesOf))],
    eras: [...eras],
    evidence: (f) => evidence.get(f) ?? {},
    skipReason: 'not exercised by the traffic that passed',
    wire: (cited) => [...new Set(cited.flatMap((f) => sessionOf.get(f)?.log ?? []))],
    ...(r.transcriptFlag !== undefined
      ? {
          reproduce: (_id: string, cited: Finding[]) => {
            const file = cited.map((f) => sessionOf.get(f)?.session).find((s) => s !== undefined && replayable(s) !== undefined);
            return file ? `${o.invokedAs ?? 'mcpcheck'} validate ${JSON.stringify(replayable(file))}` : undefined;
          },
        }
      : {}),
  });
  const unkept = sessions.reduce((n, s) => n + s.judged.unkept, 0);
  const limits = [...r.limits, ...sessions.flatMap((s) => (s.judged.stopped !== undefined ? [`${several ? `${s.label}: ` : ''}${s.judged.stopped}`] : []))];
  const negotiated = sessions.map((s) => s.judged.negotiated).find((n) => n !== undefined);
  const notes = [
    ...r.notes,
    ...(unkept > 0 ? [`${unkept} findings beyond the first 200 of a rule were told as they arose but not kept (none changed a verdict)`] : []),
    ...sessions.flatMap((s) => (s.transcriptProblem !== undefined ? [`transcript of ${s.label} incomplete: ${s.transcriptProblem}`] : [])),
    ...(r.transcriptFlag === undefined ? ['no --transcript: failures have no reproduce line (record the traffic with --transcript; `mcpcheck validate` of it then reproduces them)'] : []),
  ];
  const report = grade({
    tool: toolInfo(),
    target: {
      kind: r.target.kind,
      description: `${r.target.description}${eras.size > 0 ? ` (${describeEras(eras)})` : ''}`,
      ...(negotiated ? { protocolVersion: negotiated.version, ...(negotiated.server ? { serverInfo: negotiated.server } : {}) } : {}),
    },
    startedAt: new Date(r.started).toISOString(),
    durationMs: Date.now() - r.started,
    checks: [...checks, ...(limits.length > 0 ? [couldNotJudge(limits.join('; '))] : [])],
    notes,
    untested: untestedContext('proxy'),
    wire: wire.build(checks),
    ...(o.baseline ? { baseline: o.baseline } : {}),
  });
  return { ...report, sessions: sessions.map((s) => sectionOf(s, findingsOf(s), report, logOf.get(s), replayable(s))) };
}

/** A session's part of the report: what it was, and the failing checks its findings went into. */
function sectionOf(s: JudgedSession, findings: readonly Finding[], report: RunReport, log: string | undefined, transcript: string | undefined): SessionSection {
  const cited = new Map<string, number>();
  for (const f of findings) if (f.severity !== 'info') for (const id of f.requirements) cited.set(id, (cited.get(id) ?? 0) + 1);
  const violations = report.checks.flatMap((c) => {
    const n = c.status === 'fail' || c.status === 'warn' ? c.requirements.reduce((sum, id) => sum + (cited.get(id) ?? 0), 0) : 0;
    return n > 0 ? [{ check: c.id, status: c.status, findings: n }] : [];
  });
  const n = s.judged.negotiated;
  return {
    label: s.label,
    frames: s.judged.frames.length,
    protocol: n?.version ?? (s.judged.eras.length > 0 ? describeEras(new Set(s.judged.eras)) : 'none (no message of either era passed)'),
    ...(n?.client ? { clientInfo: n.client } : {}),
    ...(n?.server ? { serverInfo: n.server } : {}),
    violations,
    ...(transcript !== undefined ? { transcript } : {}),
    ...(log !== undefined && report.wire?.some((w) => w.id === log) ? { wire: log } : {}),
    ...(s.judged.stopped !== undefined ? { stopped: s.judged.stopped } : {}),
  };
}

export const frames = (n: number): string => `${n} frame${n === 1 ? '' : 's'}`;

/** mcpcheck's own limit: the session was not judged to its end. */
function couldNotJudge(why: string): CheckResult {
  const req = requirement('BASE-MSG-01');
  return { id: 'proxy.session-judged', title: 'Every frame of the session judged', requirements: [req.id], level: req.level, status: 'error', message: why, area: req.area, evidence: [] };
}
