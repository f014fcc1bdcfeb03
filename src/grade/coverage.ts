import { FUZZ_RULES } from '../fuzz/rules.js';
import { TRANSPORT_RULES, VALIDATOR_RULES } from '../validate/coverage.js';
import { CATALOG_REVISIONS, eraOf, type Revision, STATEFUL_REVISIONS } from '../spec/revisions.js';
import { inEra, outsideRevisions, type RevisionSpan } from '../runner/scenario.js';
import { allRequirements, appliesIn, bindsRole, catalogOf, SPEC_REVISION, type Level, type Requirement, type Role } from '../spec/catalog.js';
import type { RunKind, UntestedContext } from './untested.js';

/**
 * The requirement matrix (`mcpcheck coverage`): for every catalog requirement, which of
 * mcpcheck's checks can judge it, for which role and over which transport. Pure: it reads the
 * catalog and what the suites declare (passed in, so the command need not load the suites).
 */

export type Transport = 'stdio' | 'http';
const TRANSPORTS: readonly Transport[] = ['stdio', 'http'];
const ROLES: readonly Role[] = ['server', 'client', 'AS'];

/** What a scenario declares: the requirement ids its checks cite, the transport it needs, the revisions and era it runs in. */
export interface ScenarioRef {
  id: string;
  requirements: readonly string[];
  transport?: Transport;
  revisions?: RevisionSpan;
  carriedOver?: true;
}

export interface CoverageSources {
  server: readonly ScenarioRef[];
  client: readonly ScenarioRef[];
  /** The scenarios of `mcpcheck authorization` (an authorization server under test; any era). */
  authorization?: readonly ScenarioRef[];
}

/**
 * Where a judgement comes from: a scenario of `mcpcheck server`, `mcpcheck client` or `mcpcheck
 * authorization`, live validation of a server or client run's traffic (`live.<ID>`), `mcpcheck
 * validate` on a transcript (`validate.<ID>`), or an oracle of `mcpcheck fuzz`.
 */
export type CovererKind = 'server-scenario' | 'client-scenario' | 'as-scenario' | 'live' | 'validate' | 'fuzz';

export interface Coverer {
  kind: CovererKind;
  /** The scenario, check or oracle id. */
  id: string;
  /** The roles of target it judges this requirement for (only roles the requirement binds). */
  roles: Role[];
  transports: Transport[];
}

export interface CoverageRow {
  id: string;
  level: Level;
  keyword: string;
  /** Who the rule binds, as catalogued: server, client, both, AS, proxy, … */
  binds: string;
  area: string;
  title: string;
  url: string;
  /**
   * The protocol revisions the rule exists in, among those the matrix's catalog is written for
   * (the 2025-11-25 catalog: every initialize-era revision; the 2026-07-28 one: itself).
   */
  revisions: Revision[];
  covered: boolean;
  /** The roles some check judges it for, and over which transports. */
  roles: Role[];
  transports: Transport[];
  coveredBy: Coverer[];
}

export interface Count {
  covered: number;
  total: number;
}

export type Totals = Record<Level | 'all', Count>;

export interface CoverageMatrix {
  /** The revision whose catalog the matrix lists. */
  spec: Revision;
  /** The filters applied (totals count every requirement they keep; `uncovered` only hides rows). */
  filter: Omit<CoverageFilter, 'revision'>;
  areas: Array<{ area: string; totals: Totals }>;
  totals: Totals;
  /** Of the requirements counted, those of each extension's catalog (2026-07-28: the tasks extension's). */
  extensions: Array<{ extension: string; total: number }>;
  rows: CoverageRow[];
}

export interface CoverageFilter {
  /** The catalog: 2025-11-25 (the initialize era's revisions) by default, or 2026-07-28. */
  revision?: Revision;
  /** Only rules binding this role, judged for it. */
  role?: Role;
  /** A catalog area (any part of its name, any case) or an id prefix (`AUTH`, `HTTP-SSE`). */
  area?: string;
  /** List only the requirements nothing covers. */
  uncovered?: boolean;
}

/** The roles (server, client, authorization server) that a requirement binds. */
function boundRoles(r: Requirement): Role[] {
  return ROLES.filter((role) => bindsRole(r, role));
}

/** The transport a rule is about, from its id: stdio rules hold on stdio only, HTTP rules on HTTP only. */
function ruleTransports(id: string): Transport[] {
  if (id.startsWith('STDIO-')) return ['stdio'];
  if (id.startsWith('HTTP-')) return ['http'];
  return [...TRANSPORTS];
}

type Candidate = Omit<Coverer, 'roles'> & { role?: Role };

/** Whether a scenario runs in some of a catalog's revisions, by the runner's own rules (its era, then its span). */
function runsIn(s: ScenarioRef, revisions: readonly Revision[]): boolean {
  return revisions.some((rev) => inEra(s, rev) && outsideRevisions(s.revisions, rev) === undefined);
}

/** Every check of mcpcheck that can judge a requirement in the catalog's revisions, before the requirement's own binding is applied. */
function candidates(sources: CoverageSources, revisions: readonly Revision[]): Map<string, Candidate[]> {
  const byId = new Map<string, Candidate[]>();
  const add = (id: string, c: Candidate) => {
    const list = byId.get(id);
    if (list) list.push(c);
    else byId.set(id, [c]);
  };
  for (const [role, kind] of [['server', 'server-scenario'], ['client', 'client-scenario']] as const) {
    for (const s of sources[role]) {
      if (!runsIn(s, revisions)) continue;
      for (const id of new Set(s.requirements)) add(id, { kind, id: s.id, role, transports: s.transport ? [s.transport] : [...TRANSPORTS] });
    }
  }
  // An authorization server speaks no MCP era: its scenarios run under whichever catalog judges it.
  for (const s of sources.authorization ?? []) {
    if (!revisions.some((rev) => outsideRevisions(s.revisions, rev) === undefined)) continue;
    for (const id of new Set(s.requirements)) add(id, { kind: 'as-scenario', id: s.id, role: 'AS', transports: ['http'] });
  }
  for (const id of VALIDATOR_RULES) {
    add(id, { kind: 'live', id: `live.${id}`, transports: ruleTransports(id) });
    add(id, { kind: 'validate', id: `validate.${id}`, transports: ruleTransports(id) });
  }
  for (const transport of TRANSPORTS) for (const id of TRANSPORT_RULES[transport]) add(id, { kind: 'live', id: `live.${id}`, transports: [transport] });
  for (const oracle of FUZZ_RULES) for (const id of oracle.requirements) add(id, { kind: 'fuzz', id: oracle.id, role: 'server', transports: [...(oracle.transports ?? TRANSPORTS)] });
  return byId;
}

function matchesArea(r: Requirement, area: string): boolean {
  return r.area.toLowerCase().includes(area.toLowerCase()) || r.id.startsWith(area.toUpperCase());
}

function emptyTotals(): Totals {
  return { MUST: { covered: 0, total: 0 }, SHOULD: { covered: 0, total: 0 }, MAY: { covered: 0, total: 0 }, all: { covered: 0, total: 0 } };
}

function count(totals: Totals, row: CoverageRow): void {
  for (const key of [row.level, 'all'] as const) {
    totals[key].total++;
    if (row.covered) totals[key].covered++;
  }
}

/** The revisions a catalog is written for, and its requirements: 2025-11-25's spans the initialize era. */
function catalogFor(revision: Revision): { revisions: readonly Revision[]; requirements: Requirement[] } {
  return eraOf(revision) === 'stateful' ? { revisions: STATEFUL_REVISIONS, requirements: allRequirements() } : { revisions: [revision], requirements: catalogOf(revision) };
}

export function buildCoverage(sources: CoverageSources, filter: CoverageFilter = {}): CoverageMatrix {
  // The revision is the matrix's `spec`, not one of the filters it lists.
  const { revision, ...shown } = filter;
  const spec = revision ?? SPEC_REVISION;
  const catalog = catalogFor(spec);
  const byId = candidates(sources, catalog.revisions);
  const rows: CoverageRow[] = [];
  const kept: Requirement[] = [];
  for (const r of catalog.requirements) {
    if (filter.role && !bindsRole(r, filter.role)) continue;
    if (filter.area !== undefined && !matchesArea(r, filter.area)) continue;
    kept.push(r);
    // A check of a rule counts for a role only where the rule binds that role (a grade drops the rest).
    const judged = filter.role ? [filter.role] : boundRoles(r);
    const coveredBy: Coverer[] = [];
    for (const c of byId.get(r.id) ?? []) {
      const roles = judged.filter((role) => c.role === undefined || c.role === role);
      if (roles.length > 0) coveredBy.push({ kind: c.kind, id: c.id, roles, transports: c.transports });
    }
    rows.push({
      id: r.id,
      level: r.level,
      keyword: r.keyword,
      binds: r.binds,
      area: r.area,
      title: r.title,
      url: r.url,
      revisions: catalog.revisions.filter((rev) => appliesIn(r.id, rev)),
      covered: coveredBy.length > 0,
      roles: ROLES.filter((role) => coveredBy.some((c) => c.roles.includes(role))),
      transports: TRANSPORTS.filter((t) => coveredBy.some((c) => c.transports.includes(t))),
      coveredBy,
    });
  }
  const totals = emptyTotals();
  const areas = new Map<string, Totals>();
  for (const row of rows) {
    count(totals, row);
    let area = areas.get(row.area);
    if (!area) areas.set(row.area, (area = emptyTotals()));
    count(area, row);
  }
  const extensions = new Map<string, number>();
  for (const r of kept) if (r.extension !== undefined) extensions.set(r.extension, (extensions.get(r.extension) ?? 0) + 1);
  return {
    spec,
    filter: shown,
    areas: [...areas].map(([area, t]) => ({ area, totals: t })),
    totals,
    extensions: [...extensions].map(([extension, total]) => ({ extension, total })),
    rows: filter.uncovered ? rows.filter((row) => !row.covered) : rows,
  };
}

/** The checks each command reports: its scenarios and live validation, or the validators on transcripts, or the fuzz oracles. */
const RUN_COVERERS: Record<RunKind, readonly CovererKind[]> = { server: ['server-scenario', 'live'], client: ['client-scenario', 'live'], validate: ['validate'], proxy: ['validate'], fuzz: ['fuzz'] };

/**
 * What a run of one command could have tested at all: the catalog areas some check of it judges
 * for the role (from all its scenarios, not only those selected), for the report's untested list.
 */
export function untestedContext(run: RunKind, o: { scenarios?: readonly ScenarioRef[]; role?: Role; selected?: boolean } = {}): UntestedContext {
  const sources: CoverageSources = { server: run === 'server' ? (o.scenarios ?? []) : [], client: run === 'client' ? (o.scenarios ?? []) : [] };
  // Area names of both catalogs: a run lists the areas of the catalogs its checks were judged by.
  const rows = CATALOG_REVISIONS.flatMap((revision) => buildCoverage(sources, { revision, ...(o.role ? { role: o.role } : {}) }).rows);
  const coverable = new Set(rows.filter((row) => row.coveredBy.some((c) => RUN_COVERERS[run].includes(c.kind))).map((row) => row.area));
  return { run, coverable, selected: o.selected ?? false };
}

/** A scenario as the matrix sees it. */
export function scenarioRef(s: { id: string; requirements: readonly string[]; needs?: { transport?: Transport }; revisions?: RevisionSpan; carriedOver?: true }): ScenarioRef {
  return {
    id: s.id,
    requirements: s.requirements,
    ...(s.needs?.transport ? { transport: s.needs.transport } : {}),
    ...(s.revisions ? { revisions: s.revisions } : {}),
    ...(s.carriedOver ? { carriedOver: true } : {}),
  };
}
