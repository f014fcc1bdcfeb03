import type { CheckResult, UntestedArea } from '../model.js';
import { allRequirements, bindsRole, findRequirement, type Role } from '../spec/catalog.js';

/**
 * What a run did not test. Every report lists it, so a clean report is never read as "the whole
 * specification holds": it holds for what was tested.
 */

/** The commands that grade a run. */
export type RunKind = 'server' | 'client' | 'validate' | 'fuzz';

interface KnownGap extends UntestedArea {
  /** The runs whose reports it concerns (all when absent). */
  runs?: RunKind[];
}

/**
 * What mcpcheck does not test yet. An `area` that is a catalog area is listed (with this reason)
 * only by a run with no check in it; the others cut across areas and are always listed.
 */
export const UNTESTED_AREAS: readonly KnownGap[] = [
  { area: 'Authorization', why: 'no OAuth flow is exercised (AUTH-*); `--header` can pass a token, nothing checks how it was obtained or refused' },
  { area: 'Tasks — experimental', why: 'the tasks utility of 2025-11-25 (TASK-*) has no scenarios or validators yet' },
  { area: 'parts of the client suite', why: '`mcpcheck client` judges what a client fetches for icons (schemes, redirects, credentials) and whether hostile data: bytes harm it, not which image types it draws or how it sniffs them (ICON-MIME-*, ICON-SEC-03); nor how it reacts to tools/list_changed, which no client rule governs', runs: ['client'] },
  { area: 'revision 2026-07-28', why: 'mcpcheck negotiates 2025-11-25 and older through initialize; server/discover and stateless requests are not judged', runs: ['client', 'validate', 'fuzz'] },
  {
    area: 'revision 2026-07-28, in part',
    why: 'mcpcheck server judges discovery, version negotiation, the per-request _meta, logLevel, leftover legacy methods and the Streamable HTTP headers of 2026-07-28; live validation of its frames, multi round-trip requests, subscriptions/listen and the carried-over feature scenarios (tools, resources, prompts, completion, pagination) do not run in that era yet',
    runs: ['server'],
  },
  { area: 'fuzzing, in part', why: 'sequences send no completion/complete, prompts/get or resources/read, call only the tools --call-tools allows, and declare no client capability (the server\'s roots, sampling and elicitation requests are not exercised)', runs: ['fuzz'] },
];

/** What a run could have tested, beside the checks it reports. */
export interface UntestedContext {
  run: RunKind;
  /** The catalog areas some check of this command judges for the role (`coverableAreas`, src/grade/coverage.ts). */
  coverable: ReadonlySet<string>;
  /** --only/--skip left checks of the command out. */
  selected: boolean;
}

function whyUntested(area: string, context: UntestedContext): string {
  if (!context.coverable.has(area)) return `mcpcheck ${context.run} has no check for it`;
  if (context.selected) return 'no check of it was selected (--only/--skip)';
  return "no check of this run judged it: the target's traffic never exercised its rules";
}

/**
 * The catalog areas (binding the role) that no check of the run cites, in catalog order, then the
 * known gaps that cut across areas. An area whose checks all skipped is not in it: those checks and
 * their reasons are in the report already.
 */
export function untestedAreas(checks: readonly CheckResult[], role: Role | undefined, context: UntestedContext): UntestedArea[] {
  const tested = new Set(checks.flatMap((c) => c.requirements.map((id) => findRequirement(id)?.area)));
  const catalogAreas = new Set(allRequirements().map((r) => r.area));
  const bound = new Set(allRequirements().filter((r) => role === undefined || bindsRole(r, role)).map((r) => r.area));
  const known = new Map(UNTESTED_AREAS.map((g) => [g.area, g.why]));
  const untested = [...bound].filter((area) => !tested.has(area)).map((area) => ({ area, why: known.get(area) ?? whyUntested(area, context) }));
  for (const gap of UNTESTED_AREAS) {
    if (!catalogAreas.has(gap.area) && (gap.runs === undefined || gap.runs.includes(context.run))) untested.push({ area: gap.area, why: gap.why });
  }
  return untested;
}
