import { type CatalogRow, type Level, strongerLevel } from '../spec/catalog.js';

/**
 * How `src/spec/requirements*.json` are derived from the authoritative catalogs in `../shared/spec/`
 * (one per revision), and how `src/spec/requirement-id.ts` is written from them. Pure, so
 * tests/catalog.test.ts can hold the committed files to it; src/build/generate-spec.ts writes them.
 */

/** A row of `../shared/spec/requirements*.json` (generated there from the .md, which is authoritative). */
export interface SharedRow {
  id: string;
  level: string;
  binds: string;
  origin: string;
  source: string;
  requirement: string;
  test: string;
  blackbox: 'Y' | 'P' | 'N';
  area: string;
}

/** A derived row; its id is checked against the catalogs only once requirement-id.ts is regenerated. */
export type DerivedRow = Omit<CatalogRow, 'id'> & { id: string };

export interface CatalogSource {
  /** The revision the catalog is written for. */
  spec: string;
  /** Where it comes from, relative to the package root. */
  shared: string;
  /** Where the derived file is written, relative to the package root. */
  file: string;
  /**
   * Titles written by hand where the derived one read badly (2025-11-25: ROBUST-05 and ROBUST-06,
   * whose first sentence is too long to cut well). Every other title is derived.
   */
  titles?: Readonly<Record<string, string>>;
  /**
   * An extension's catalog, written by mcpcheck from the extension's specification (catalogs/): the
   * extension's identifier, and where its pages are published (a row's source is a page of it).
   * Its rules join the revision's when the extension is in play.
   */
  /** A catalog of rules an older revision had (its `spec`): the first revision without them. */
  until?: string;
  extension?: {
    id: string;
    urlBase: string;
    /** Its pages are files of a repository, whose URLs keep their names' `.mdx`. */
    files?: true;
  };
}

export const CATALOG_SOURCES: readonly CatalogSource[] = [
  {
    spec: '2025-11-25',
    shared: '../shared/spec/requirements.json',
    file: 'src/spec/requirements.json',
    titles: {
      'ROBUST-05': 'Hostile input (invalid UTF-8, 10 MB messages, 10 000-deep nesting, wrong types) yields an error or is dropped; the server survives and answers ping; a batch is no hostile input',
      'ROBUST-06': 'HTTP POSTs with a non-JSON Content-Type are refused with a 4xx (SDKs use 415) rather than processed or crashing; Accept binds the client',
    },
  },
  { spec: '2026-07-28', shared: '../shared/spec/requirements-2026-07-28.json', file: 'src/spec/requirements-2026-07-28.json' },
  {
    spec: '2026-07-28',
    shared: 'catalogs/ext-tasks-2026-07-28.json',
    file: 'src/spec/requirements-ext-tasks-2026-07-28.json',
    extension: { id: 'io.modelcontextprotocol/tasks', urlBase: 'https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28' },
  },
  {
    // Authorization's official extension for machine-to-machine clients: it binds in both eras (the flow happens before either's first message).
    spec: '2025-11-25',
    shared: 'catalogs/ext-oauth-client-credentials.json',
    file: 'src/spec/requirements-ext-oauth-client-credentials.json',
    titles: {
      'AUTH-CC-01': 'A client in the client credentials flow authenticates at the token endpoint with a JWT assertion (RFC 7523 §2.2) or with its client secret',
      'AUTH-CC-02': 'A client that can authenticate either way uses a JWT assertion (the RECOMMENDED method) where the authorization server supports it',
    },
    extension: { id: 'io.modelcontextprotocol/oauth-client-credentials', urlBase: 'https://github.com/modelcontextprotocol/ext-auth/blob/32375543bcedef7018c86de4fab9d1e7226cb25f/specification/draft', files: true },
  },
  {
    // What 2025-03-26's authorization asked of clients and 2025-06-18 replaced by Protected Resource Metadata (the official suite's back-compat scenarios).
    spec: '2025-03-26',
    until: '2025-06-18',
    shared: 'catalogs/legacy-auth-2025-03-26.json',
    file: 'src/spec/requirements-legacy-auth-2025-03-26.json',
    titles: {
      'AUTH-LEGACY-01': 'A client finds the authorization server by RFC 8414 metadata at the MCP server\'s origin (its path discarded) and uses the endpoints named there',
      'AUTH-LEGACY-02': 'For a server without authorization server metadata, a client uses the default endpoints /authorize, /token and /register at its origin',
    },
  },
];

/**
 * The grading level of a catalogued keyword: MUST NOT grades as MUST, SHOULD NOT as SHOULD
 * ("How to read a row"). A row joining keywords (`MUST NOT/SHOULD`, 2026-07-28) grades at its
 * strongest clause; a check of a weaker clause states that clause's level itself.
 */
export function levelOfKeyword(keyword: string): Level {
  const levels = keyword.split('/').map((k): Level => {
    const word = k.trim().replace(/ NOT$/, '');
    if (word !== 'MUST' && word !== 'SHOULD' && word !== 'MAY') throw new Error(`not a BCP 14 keyword: ${JSON.stringify(keyword)}`);
    return word;
  });
  return levels.reduce(strongerLevel);
}

/**
 * The public URL of a row's first source ("How to read a row", Source): the page without `.mdx`
 * and a trailing `index`, plus its anchor; `schema.ts:Name` is the schema reference's entry for the
 * first name; `sbp` is the security best practices page of that revision.
 */
export function urlOf(source: string, spec: string, base = `https://modelcontextprotocol.io/specification/${spec}`): string {
  const first = source.split(';')[0]!.trim();
  if (first.startsWith('sbp')) {
    return spec === '2025-11-25' ? `${base}/basic/security_best_practices` : `https://modelcontextprotocol.io/docs/${spec}/tutorials/security/security_best_practices`;
  }
  const schema = /^schema\.ts:([^,\s]+)/.exec(first);
  if (schema) return `${base}/schema#${schema[1]!.toLowerCase()}`;
  const [page, anchor] = first.replace(/ \(intro\)$/, '').split('#') as [string, string | undefined];
  const path = page.replace(/\.mdx?$/, '').replace(/(^|\/)index$/, '');
  return `${base}${path ? `/${path}` : ''}${anchor ? `#${anchor}` : ''}`;
}

/** A trailing editorial note on a row's revision history ("(Revised 2026-12-03.)"): not part of the rule. */
const REVISION_NOTE = / \(Revised [^)]*\)$/;

export function requirementText(shared: string): string {
  return shared.replace(REVISION_NOTE, '');
}

/**
 * A row's title: the requirement's first sentence (after any "Replaces X." of its history) without code marks, cut to 150 characters at
 * most. A full stop ends the sentence only outside parentheses and not in "e.g."/"i.e." (which
 * count two characters toward the cut, as the 2025-11-25 catalog was first written).
 */
export function titleOf(requirement: string): string {
  const abbreviations: Array<[string, string]> = [['e.g.', '\u0001\u0001'], ['i.e.', '\u0002\u0002']];
  // "Replaces HTTP-SSE-07 (reversed)." is the row's history, not what it requires.
  let text = requirement.replaceAll('`', '').replace(/^(?:Replaces|Supersedes) [^.]*\.\s+/, '');
  for (const [word, mark] of abbreviations) text = text.replaceAll(word, mark);
  text = firstSentence(text).replace(/\.+$/, '');
  if (text.length > 150) text = `${text.slice(0, 147).trimEnd()}…`;
  for (const [word, mark] of abbreviations) text = text.replaceAll(mark, word);
  return text;
}

function firstSentence(text: string): string {
  for (const end of text.matchAll(/(?<=\S)\. (?=\S)/g)) {
    const before = text.slice(0, end.index);
    if (before.split('(').length === before.split(')').length) return before;
  }
  return text;
}

export function deriveRow(row: SharedRow, source: CatalogSource): DerivedRow {
  const requirement = requirementText(row.requirement);
  return {
    id: row.id,
    keyword: row.level,
    level: levelOfKeyword(row.level),
    binds: row.binds,
    area: row.area,
    source: row.source,
    url: source.extension?.files ? `${source.extension.urlBase}/${row.source.split(';')[0]!.trim()}` : urlOf(row.source, source.spec, source.extension?.urlBase),
    title: source.titles?.[row.id] ?? titleOf(requirement),
    requirement,
    blackbox: row.blackbox,
  };
}

/** The derived file's text, as committed. */
export function deriveCatalog(rows: readonly SharedRow[], source: CatalogSource): string {
  const file = { spec: source.spec, ...(source.until ? { until: source.until } : {}), ...(source.extension ? { extension: source.extension.id } : {}), derivedFrom: source.shared, requirements: rows.map((r) => deriveRow(r, source)) };
  return JSON.stringify(file, null, 1);
}

/** `src/spec/requirement-id.ts`: every id of every catalog, once, as a union type. */
export function requirementIdModule(catalogs: ReadonlyArray<{ file: string; ids: readonly string[] }>): string {
  const ids = [...new Set(catalogs.flatMap((c) => c.ids))].sort();
  return [
    '// Generated by src/build/generate-spec.ts from ' + catalogs.map((c) => c.file).join(' and ') + '; do not edit.',
    '// Regenerate after a catalog changes: `npm run build && node dist/src/build/generate-spec.js`',
    '// (tests/catalog.test.ts fails while this file is stale).',
    '',
    '/** A requirement id of some catalog (a typo in an id written in code fails the type check). */',
    'export type RequirementId =',
    ...ids.map((id, i) => `  | '${id}'${i === ids.length - 1 ? ';' : ''}`),
    '',
  ].join('\n');
}
