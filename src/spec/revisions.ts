/**
 * The MCP protocol revisions mcpcheck knows, oldest first, and the era each belongs to. This is
 * the one place they are defined; everything else (catalogs, schemas, negotiation) reads them here.
 */

/** The stateful era: a conversation starts with initialize, which negotiates one of these. */
export const STATEFUL_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type StatefulRevision = (typeof STATEFUL_REVISIONS)[number];

/** The stateless era: no initialize; server/discover, and every request carries its revision in `_meta`. */
export const STATELESS_REVISIONS = ['2026-07-28'] as const;
export type StatelessRevision = (typeof STATELESS_REVISIONS)[number];

export const REVISIONS = [...STATEFUL_REVISIONS, ...STATELESS_REVISIONS] as const;
export type Revision = (typeof REVISIONS)[number];

/** The newest revision of all (a literal type, so it cannot stand where a stateful revision is meant). */
export const LATEST_REVISION = '2026-07-28' satisfies Revision;
/** The newest revision initialize can negotiate: what mcpcheck offers, and what the 2025-11-25 catalog is written for. */
export const LATEST_STATEFUL_REVISION = '2025-11-25' satisfies StatefulRevision;

/**
 * The revisions with a catalog of their own, one per era: 2025-11-25's judges every initialize-era
 * revision (with each rule's level there), 2026-07-28's the stateless era. What `--spec-version` takes.
 */
export const CATALOG_REVISIONS = [LATEST_STATEFUL_REVISION, LATEST_REVISION] as const;

/** Whether a value names a revision initialize can negotiate (2026-07-28 is not one). */
export function isStatefulRevision(value: unknown): value is StatefulRevision {
  return typeof value === 'string' && (STATEFUL_REVISIONS as readonly string[]).includes(value);
}

/** Whether a value names any revision mcpcheck knows, of either era. */
export function isRevision(value: unknown): value is Revision {
  return typeof value === 'string' && (REVISIONS as readonly string[]).includes(value);
}

/**
 * The two protocol eras: 'stateful', where initialize opens a session that fixes the revision and
 * capabilities, and 'stateless' (2026-07-28 on), where every request carries them in its `_meta`.
 */
export type Era = 'stateful' | 'stateless';

export function eraOf(revision: Revision): Era {
  return isStatefulRevision(revision) ? 'stateful' : 'stateless';
}

export function revisionAtLeast(rev: Revision, min: Revision): boolean {
  return REVISIONS.indexOf(rev) >= REVISIONS.indexOf(min);
}
