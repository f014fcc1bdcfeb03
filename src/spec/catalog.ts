import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';
import type { RequirementId } from './requirement-id.js';
import { isStatefulRevision, LATEST_STATEFUL_REVISION, type Revision, revisionAtLeast, STATEFUL_REVISIONS, type StatefulRevision } from './revisions.js';

/** Grading level: MUST NOT grades as MUST, SHOULD NOT as SHOULD (requirements.md, "How to read a row"). */
export type Level = 'MUST' | 'SHOULD' | 'MAY';

const STRENGTH: Record<Level, number> = { MAY: 0, SHOULD: 1, MUST: 2 };

function isLevel(value: unknown): value is Level {
  return value === 'MUST' || value === 'SHOULD' || value === 'MAY';
}

/** The weaker of two levels (a rule graded at a level a ruling lowered it to). */
export function weakerLevel(a: Level, b: Level): Level {
  return STRENGTH[a] <= STRENGTH[b] ? a : b;
}

/** The stronger of two levels. */
export function strongerLevel(a: Level, b: Level): Level {
  return STRENGTH[a] >= STRENGTH[b] ? a : b;
}

export interface Requirement {
  id: RequirementId;
  /** The BCP 14 keyword(s) exactly as catalogued, e.g. "MUST NOT" or "SHOULD/MUST". */
  keyword: string;
  level: Level;
  binds: string;
  area: string;
  source: string;
  url: string;
  title: string;
  requirement: string;
  blackbox: 'Y' | 'P' | 'N';
  /**
   * The first protocol revision that has this rule (src/spec/revisions.json, REVISIONS.md); a row
   * of the 2026-07-28 catalog carried over from 2025-11-25 keeps the carried rule's.
   */
  since: Revision;
  /** Stateful revisions after `since` that do not have it (JSON-RPC batches were legal in 2025-03-26 only). */
  notIn?: StatefulRevision[];
  /**
   * Where the rule's level changed between stateful revisions: revision → the level from it on
   * (LIFE-OP-01 was a SHOULD until 2025-06-18). `level` is the 2025-11-25 one; `levelIn` reads both.
   */
  levels?: Partial<Record<StatefulRevision, Level>>;
  /**
   * The extension whose catalog has the rule (`io.modelcontextprotocol/tasks`): it binds only where
   * the extension is in play, beside the rules of the revision it extends.
   */
  extension?: string;
  /**
   * The catalog mcpcheck wrote the row in (catalogs/), for a rule the revisions' catalogs of
   * ../shared/spec leave out: an extension's, or one of an older revision only.
   */
  writtenBy?: string;
}

/** A row of the 2025-11-25 catalog, which judges the stateful revisions: it begins in one of them. */
export type StatefulRequirement = Requirement & { since: StatefulRevision };

/** A row as a derived catalog file (src/spec/requirements*.json) holds it. */
export type CatalogRow = Omit<Requirement, 'since' | 'notIn' | 'levels' | 'extension' | 'writtenBy'>;

interface CatalogFile {
  spec: string;
  /** An extension's catalog names the extension. */
  extension?: string;
  /** A catalog of rules an older revision had and a later one dropped: the first revision without them. */
  until?: string;
  derivedFrom?: string;
  requirements: CatalogRow[];
}

/**
 * The catalogs of 2026-07-28: the revision's own, then those of the official extensions mcpcheck
 * judges. An extension may reuse an id the revision dropped, with the same meaning (TASK-ST-02:
 * §18 of the revision's catalog), never one the revision has.
 */
const STATELESS_CATALOGS = ['requirements-2026-07-28.json', 'requirements-ext-tasks-2026-07-28.json', 'requirements-ext-oauth-client-credentials.json'] as const;

/**
 * mcpcheck's own catalogs of the stateful era (catalogs/), each binding from its `spec` on (and
 * before its `until`): the authorization extensions, whose flows happen before either era's first
 * message, and the rules of 2025-03-26's authorization that 2025-06-18 dropped.
 */
const STATEFUL_WRITTEN_CATALOGS = ['requirements-ext-oauth-client-credentials.json', 'requirements-legacy-auth-2025-03-26.json'] as const;

interface RevisionsFile {
  rules: Record<string, { since: string; notIn?: string[]; clauses?: Record<string, string>; levels?: Record<string, string> }>;
}

let byId: Map<string, StatefulRequirement> | undefined;
/** The 2026-07-28 catalog (src/spec/requirements-2026-07-28.json): the stateless era's rules. */
let statelessById: Map<string, Requirement> | undefined;
/** `<id> <clause>` → the first revision that has a clause a rule gained after its `since`. */
let clauseRevisions: Map<string, StatefulRevision> | undefined;

/** What a derived file says of its rows' origin: the extension they belong to, and the catalog of mcpcheck's (catalogs/) they were written in. */
function originOf(file: CatalogFile): Pick<Requirement, 'extension' | 'writtenBy'> {
  return { ...(file.extension ? { extension: file.extension } : {}), ...(file.derivedFrom?.startsWith('catalogs/') ? { writtenBy: file.derivedFrom } : {}) };
}

function readJson<T>(name: string): T {
  return JSON.parse(readFileSync(join(packageRoot(), 'src/spec', name), 'utf8')) as T;
}

function load(): Map<string, StatefulRequirement> {
  if (byId) return byId;
  const file = readJson<CatalogFile>('requirements.json');
  const { rules } = readJson<RevisionsFile>('revisions.json');
  const map = new Map<string, StatefulRequirement>();
  const clauses = new Map<string, StatefulRevision>();
  for (const r of file.requirements) {
    const rev = rules[r.id];
    // A rule without revision data would be judged in every revision: refuse to start instead.
    if (!rev || !isStatefulRevision(rev.since) || !(rev.notIn ?? []).every(isStatefulRevision)) throw new Error(`src/spec/revisions.json: no valid revision data for ${r.id}`);
    const levels = rev.levels ? levelsOf(r.id, r.level, rev.levels) : undefined;
    map.set(r.id, { ...r, since: rev.since, ...(rev.notIn ? { notIn: rev.notIn.filter(isStatefulRevision) } : {}), ...(levels ? { levels } : {}) });
    for (const [clause, since] of Object.entries(rev.clauses ?? {})) {
      if (!isStatefulRevision(since)) throw new Error(`src/spec/revisions.json: clause ${JSON.stringify(clause)} of ${r.id} names no revision`);
      clauses.set(`${r.id} ${clause}`, since);
    }
  }
  for (const name of STATEFUL_WRITTEN_CATALOGS) {
    const written = readJson<CatalogFile>(name);
    const { spec, until } = written;
    if (!isStatefulRevision(spec) || (until !== undefined && !isStatefulRevision(until))) throw new Error(`src/spec/${name}: spec ${JSON.stringify(spec)} or until ${JSON.stringify(until)} is no stateful revision`);
    const notIn = until !== undefined ? STATEFUL_REVISIONS.filter((r) => revisionAtLeast(r, until)) : undefined;
    for (const r of written.requirements) {
      if (map.has(r.id)) throw new Error(`src/spec/${name}: ${r.id} is a rule of the 2025-11-25 catalog already`);
      map.set(r.id, { ...r, since: spec, ...(notIn ? { notIn } : {}), ...originOf(written) });
    }
  }
  byId = map;
  clauseRevisions = clauses;
  return byId;
}

/**
 * A rule's `levels` (revisions.json): each key a revision, each value a level, and the level it
 * reaches in 2025-11-25 the catalog's own, so the two files cannot disagree unnoticed.
 */
function levelsOf(id: string, catalogued: Level, raw: Record<string, string>): Partial<Record<StatefulRevision, Level>> {
  const levels: Partial<Record<StatefulRevision, Level>> = {};
  for (const [revision, level] of Object.entries(raw)) {
    if (!isStatefulRevision(revision) || !isLevel(level)) throw new Error(`src/spec/revisions.json: levels of ${id} map ${JSON.stringify(revision)} to ${JSON.stringify(level)}, not a revision to a level`);
    levels[revision] = level;
  }
  const latest = levelFrom(levels, LATEST_STATEFUL_REVISION);
  if (latest !== undefined && latest !== catalogued) throw new Error(`src/spec/revisions.json: levels of ${id} end at ${latest}, the catalog says ${catalogued}`);
  return levels;
}

/** The level a `levels` map gives a revision: that of the latest listed revision not after it. */
function levelFrom(levels: Partial<Record<StatefulRevision, Level>>, revision: StatefulRevision): Level | undefined {
  let level: Level | undefined;
  for (const r of STATEFUL_REVISIONS) if (revisionAtLeast(revision, r) && levels[r] !== undefined) level = levels[r];
  return level;
}

export function allRequirements(): StatefulRequirement[] {
  return [...load().values()];
}

export function findRequirement(id: string): StatefulRequirement | undefined {
  return load().get(id);
}

/**
 * The 2025-11-25 catalog's requirement with this id (the initialize era's rules; `requirementIn`
 * answers for any revision); an unknown id is a programming error in a check, so it throws.
 */
export function requirement(id: RequirementId): StatefulRequirement {
  const r = load().get(id);
  if (!r) throw new Error(`unknown requirement id ${id}`);
  return r;
}

/** The rule as its newest catalog has it: the 2025-11-25 row, or for a rule new in 2026-07-28 the row of that catalog. */
export function requirementOfEither(id: RequirementId): Requirement {
  return load().get(id) ?? loadStateless().get(id) ?? requirement(id);
}

/** Whether an id from run-time data (a baseline, --only, a set validators filled) is in some catalog. */
export function isRequirementId(id: string): id is RequirementId {
  return load().has(id) || loadStateless().has(id);
}

/** An id from run-time data, checked: one no catalog has is a programming error, so it throws. */
export function requirementId(id: string): RequirementId {
  if (!isRequirementId(id)) throw new Error(`unknown requirement id ${id}`);
  return id;
}

function loadStateless(): Map<string, Requirement> {
  if (statelessById) return statelessById;
  const carried = load();
  const map = new Map<string, Requirement>();
  for (const name of STATELESS_CATALOGS) {
    const file = readJson<CatalogFile>(name);
    for (const r of file.requirements) {
      if (map.has(r.id)) throw new Error(`src/spec/${name}: ${r.id} is a rule of another 2026-07-28 catalog already`);
      map.set(r.id, { ...r, since: carried.get(r.id)?.since ?? '2026-07-28', ...originOf(file) });
    }
  }
  statelessById = map;
  return statelessById;
}

/** The rules that judge a session of this revision (2026-07-28: with those of its extensions), each with its level, binds and URL there. */
export function catalogOf(revision: Revision): Requirement[] {
  if (!isStatefulRevision(revision)) return [...loadStateless().values()];
  return allRequirements().flatMap((r) => requirementIn(r.id, revision) ?? []);
}

/** The rule as the catalog of this revision has it (its level in that revision), or undefined when the revision lacks it. */
export function requirementIn(id: RequirementId, revision: Revision): Requirement | undefined {
  if (!isStatefulRevision(revision)) return loadStateless().get(id);
  const r = load().get(id);
  if (!r || !statefulApplies(r, revision)) return undefined;
  return r.levels ? { ...r, level: levelFrom(r.levels, revision) ?? r.level } : r;
}

function statefulApplies(r: StatefulRequirement, revision: StatefulRevision): boolean {
  return revisionAtLeast(revision, r.since) && !r.notIn?.includes(revision);
}

/**
 * Whether the rule exists in a protocol revision; sessions are judged by their negotiated
 * revision's rules. 2026-07-28 answers from its own catalog.
 */
export function appliesIn(id: RequirementId, revision: Revision): boolean {
  requirementId(id);
  if (!isStatefulRevision(revision)) return loadStateless().has(id);
  const r = load().get(id);
  return r !== undefined && statefulApplies(r, revision);
}

/**
 * The rule's level in a protocol revision: a session is graded by what its negotiated revision
 * says (LIFE-OP-01 on a 2024-11-05 session is a SHOULD, "Both parties SHOULD"). The catalog's
 * level where the rule's level never changed.
 */
export function levelIn(id: RequirementId, revision: Revision): Level {
  if (!isStatefulRevision(revision)) {
    const r = loadStateless().get(id);
    if (!r) throw new Error(`${id} is not a rule of revision ${revision}`);
    return r.level;
  }
  const r = requirement(id);
  return (r.levels && levelFrom(r.levels, revision)) ?? r.level;
}

/** Why a rule is not judged in a revision (a skip reason), or undefined when the revision has it. */
export function absentIn(id: RequirementId, revision: Revision): string | undefined {
  if (appliesIn(id, revision)) return undefined;
  // Every 2025-11-25 id missing from the 2026-07-28 catalog is in its §18 (tests/catalog.test.ts).
  if (!isStatefulRevision(revision)) return `${id} is not a rule of revision ${revision} (removed or superseded there)`;
  // A rule new in 2026-07-28 is in its catalog only (appliesIn threw for an id of none).
  const r = load().get(id) ?? loadStateless().get(id)!;
  return revisionAtLeast(revision, r.since)
    ? `${id} is not a rule of revision ${revision} (it holds from ${r.since} except in ${r.notIn!.join(', ')})`
    : `${id} is not a rule of revision ${revision} (new in ${r.since})`;
}

/**
 * The first revision that has a clause a rule gained later (revisions.json `clauses`): a check of
 * that clause judges it only on sessions of that revision or newer. An unknown clause is a
 * programming error in a check, so it throws.
 */
export function clauseSince(id: RequirementId, clause: string): StatefulRevision {
  load();
  const since = clauseRevisions!.get(`${id} ${clause}`);
  if (since === undefined) throw new Error(`src/spec/revisions.json: ${id} has no clause ${JSON.stringify(clause)}`);
  return since;
}

/** The revision the 2025-11-25 catalog (requirements.json, revisions.json) is written for. */
export const SPEC_REVISION: StatefulRevision = LATEST_STATEFUL_REVISION;

/** The role a target plays; a grade counts only the rules that bind it. AS: an OAuth authorization server (`mcpcheck authorization`). */
export type Role = 'server' | 'client' | 'AS';

/**
 * Whether a rule binds a target in this role. `both` (and the task forms `both (receiver)` /
 * `both (requestor)`) bind either side of MCP, and an authorization server where the rule is one
 * of authorization's; AS and proxy rules bind neither a plain server nor a client. Proxy rules (an
 * MCP proxy's consent before it sends a client on to a third-party authorization server) bind the
 * authorization server such a proxy is to its clients: `mcpcheck authorization` judges them of a
 * server it saw send authorizations on, and skips them for any other.
 */
export function bindsRole(r: Requirement, role: Role): boolean {
  if (r.binds === role || (role === 'AS' && r.binds === 'proxy')) return true;
  const both = r.binds === 'both' || r.binds.startsWith('both (');
  // An authorization server speaks no MCP: of the rules binding both sides, only authorization's reach it (AUTH-DCR-01: "clients and authorization servers").
  return both && (role !== 'AS' || r.id.startsWith('AUTH-'));
}
