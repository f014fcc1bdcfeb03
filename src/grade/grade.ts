import type { AuthorizationServerSection, CheckResult, EraSection, RequirementVerdict, RunReport, Status, TargetInfo, WireLog } from '../model.js';
import { eraOf, isRevision } from '../spec/revisions.js';
import { bindsRole, findRequirement, type Role } from '../spec/catalog.js';
import { untestedAreas, type UntestedContext } from './untested.js';
import { applyBaseline, type Baseline } from './baseline.js';
import { headline, levelCounts } from './headline.js';
import { requirementVerdicts } from './verdicts.js';
import { groupDefects } from './defects.js';

export type { Baseline } from './baseline.js';

export interface GradeInput {
  tool: { name: string; version: string };
  target: TargetInfo;
  startedAt: string;
  durationMs: number;
  /** The seed of the run's generated cases, when it generated any. */
  seed?: number;
  checks: CheckResult[];
  notes?: string[];
  baseline?: Baseline;
  /** The role of the graded target: only rules that bind it are graded (none given: every rule, e.g. a transcript judged on both sides). */
  role?: Role;
  /** What the run could have tested: with it, the report lists the areas the run did not test. */
  untested?: UntestedContext;
  /** The run was stopped (Ctrl-C) before it finished: the report is partial, and says so. */
  interrupted?: boolean;
  /** Wire logs the checks refer to; those no graded check cites are left out. */
  wire?: WireLog[];
  /** Server runs: the protocol eras; each tested one is graded again over its own checks (those whose revision is of its era). */
  eras?: EraSection[];
}

/**
 * Keeps the requirement ids of a check that bind the role; a check left with none is about
 * another party (usually mcpcheck itself) and is no part of this target's report.
 */
function forRole(checks: readonly CheckResult[], role: Role | undefined): { kept: CheckResult[]; dropped: number } {
  if (role === undefined) return { kept: [...checks], dropped: 0 };
  const kept: CheckResult[] = [];
  let dropped = 0;
  for (const check of checks) {
    const requirements = check.requirements.filter((id) => {
      const r = findRequirement(id);
      return r === undefined || bindsRole(r, role);
    });
    if (requirements.length === 0) dropped++;
    else kept.push(requirements.length === check.requirements.length ? check : { ...check, requirements });
  }
  return { kept, dropped };
}

/** Turn a run's checks into the report every output format renders; nothing downstream recomputes. */
export function grade(input: GradeInput): RunReport {
  const { kept, dropped } = forRole(input.checks, input.role);
  const baselined = applyBaseline(kept, input.baseline);
  const { honoured, stale } = baselined;
  const checks = groupDefects(baselined.checks);
  const requirements = requirementVerdicts(checks);

  const { checks: perStatus, requirements: perRequirement, mustFailures, incomplete } = tally(checks, requirements);
  const notes = [...(input.notes ?? [])];
  if (dropped > 0) notes.push(`${dropped} check(s) cite only rules that do not bind a ${input.role}; they are not part of its report`);
  if (input.interrupted) notes.unshift('interrupted (Ctrl-C): this report is partial; what had not finished could not run');

  const cited = new Set(checks.flatMap((c) => c.wire ?? []));
  const wire = (input.wire ?? []).filter((log) => cited.has(log.id));

  return {
    tool: input.tool,
    target: input.role ? { ...input.target, role: input.role } : input.target,
    startedAt: input.startedAt,
    ...(input.seed !== undefined ? { seed: input.seed } : {}),
    summary: {
      headline: `${input.interrupted ? 'INTERRUPTED, partial: ' : ''}${headline(requirements)}`,
      checks: perStatus,
      requirements: perRequirement,
      levels: levelCounts(requirements),
      mustFailures,
      incomplete,
      expectedFailures: honoured.length,
      staleBaseline: stale,
      durationMs: input.durationMs,
      ...(input.interrupted ? { interrupted: true as const } : {}),
    },
    requirements,
    checks,
    notes,
    untested: input.untested ? untestedAreas(checks, input.role, input.untested) : [],
    ...(wire.length > 0 ? { wire } : {}),
    ...(input.eras ? { eras: input.eras.map((section) => (section.status === 'tested' ? { ...section, ...eraGrade(checks.filter((c) => inSection(c, section))) } : section)) } : {}),
  };
}

/** Whether a check belongs to an era's section: judged on a session of that era (a check with no revision: of the stateful era, as before 2026-07-28). */
function inSection(check: CheckResult, section: EraSection): boolean {
  const era = check.revision !== undefined && isRevision(check.revision) ? eraOf(check.revision) : 'stateful';
  return era === section.era;
}

/** An era's own grade: its headline and counts, over its checks alone. */
function eraGrade(checks: CheckResult[]): Pick<EraSection, 'headline' | 'summary'> {
  const requirements = requirementVerdicts(checks);
  return { headline: headline(requirements), summary: tally(checks, requirements) };
}

/** Checks and verdicts per status, and what decides the exit code. */
function tally(checks: readonly CheckResult[], requirements: readonly RequirementVerdict[]): NonNullable<EraSection['summary']> {
  const perStatus: Record<Status, number> = { pass: 0, fail: 0, warn: 0, skip: 0, error: 0 };
  for (const c of checks) perStatus[c.status]++;
  const perRequirement: Record<Status, number> = { pass: 0, fail: 0, warn: 0, skip: 0, error: 0 };
  for (const v of requirements) perRequirement[v.status]++;
  return {
    checks: perStatus,
    requirements: perRequirement,
    // Only `fail` at MUST level breaks the build: `warn` is a SHOULD/heuristic, and `error` means the
    // harness could not test (reported as "could not run", not as the target's fault).
    mustFailures: checks.filter((c) => c.status === 'fail' && c.level === 'MUST' && !c.expected).length,
    incomplete: checks.filter((c) => c.status === 'error' && !c.expected).length,
  };
}

/** The documented exit codes of a graded run (2 and 4, setup and internal errors, belong to the CLI). */
export const EXIT = { graded: 0, failed: 1, incomplete: 3 } as const;

/** The authorization servers a server run graded apart, each with its issuer and report. */
export function gradedAuthorizationServers(report: RunReport): Array<{ issuer: string; report: RunReport }> {
  return (report.authorizationServers ?? []).flatMap((s) => (s.report ? [{ issuer: s.issuer, report: s.report }] : []));
}

/**
 * 1 on an unexpected MUST failure or a stale baseline entry (a baseline must be kept honest);
 * else 3 when some check could not run (the grade is incomplete, which CI must not take for a
 * pass); else 0.
 */
export function exitCode(report: RunReport): 0 | 1 | 3 {
  // The authorization servers a protected resource names are graded apart, and the run covers them too.
  const graded = [report, ...gradedAuthorizationServers(report).map((s) => s.report)];
  if (graded.some((r) => r.summary.mustFailures > 0) || report.summary.staleBaseline.length > 0) return EXIT.failed;
  return graded.some((r) => r.summary.incomplete > 0) ? EXIT.incomplete : EXIT.graded;
}

/**
 * A server's report with the authorization servers its metadata names, each graded apart. One
 * baseline served all of them: an entry is stale only when none of the reports matched it, and it
 * is told once, in the server's summary.
 */
export function withAuthorizationServers(report: RunReport, sections: AuthorizationServerSection[]): RunReport {
  if (sections.length === 0) return report;
  const nested = sections.flatMap((s) => (s.report ? [s.report] : []));
  const stale = report.summary.staleBaseline.filter((entry) => nested.every((r) => r.summary.staleBaseline.includes(entry)));
  return {
    ...report,
    summary: { ...report.summary, staleBaseline: stale },
    authorizationServers: sections.map((s) => (s.report ? { ...s, report: { ...s.report, summary: { ...s.report.summary, staleBaseline: [] } } } : s)),
  };
}

/** Every check of a report, those of the authorization servers it graded too (what a baseline update keeps). */
export function allChecks(report: RunReport): CheckResult[] {
  return [...report.checks, ...gradedAuthorizationServers(report).flatMap((s) => s.report.checks)];
}
