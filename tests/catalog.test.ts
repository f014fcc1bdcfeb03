import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverScenarios } from '../suites/server/index.js';
import { absentIn, allRequirements, appliesIn, catalogOf, findRequirement, isRequirementId, levelIn, requirement, requirementIn } from '../src/spec/catalog.js';
import { CATALOG_SOURCES, deriveCatalog, levelOfKeyword, requirementIdModule, type SharedRow, titleOf, urlOf } from '../src/build/spec-catalogs.js';
import { VALIDATOR_RULES } from '../src/validate/coverage.js';
import { allowsBatches } from '../src/validate/revisions.js';
import { STATEFUL_REVISIONS as REVISIONS, type StatefulRevision as Revision } from '../src/spec/revisions.js';
import { BREAKS } from './fixtures/reference/breaks.js';
import type { RequirementId } from '../src/spec/requirement-id.js';

const ROOT = join(import.meta.dirname, '..');
const ID = /['"`]([A-Z]+(?:-[A-Z]+)*-\d{2})['"`]/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('the requirement catalog and the checks agree', () => {
  it('holds every row of the spec catalog with its level', () => {
    const ids = allRequirements().map((r) => r.id);
    expect(ids.length).toBe(344 + 3 + 3);
    expect(new Set(ids).size).toBe(ids.length);
    // mcpcheck's own catalogs (catalogs/): the client credentials extension's rows, and 2025-03-26's alone.
    expect(allRequirements().filter((r) => r.extension !== undefined).map((r) => r.id)).toEqual(['AUTH-CC-01', 'AUTH-CC-02', 'AUTH-CC-03']);
    expect(allRequirements().filter((r) => r.writtenBy !== undefined && r.extension === undefined).map((r) => `${r.id} ${r.since} ${r.notIn?.join()}`)).toEqual(['AUTH-LEGACY-01 2025-03-26 2025-06-18,2025-11-25', 'AUTH-LEGACY-02 2025-03-26 2025-06-18,2025-11-25', 'AUTH-LEGACY-03 2025-03-26 2025-06-18,2025-11-25']);
    for (const r of allRequirements().filter((r) => r.writtenBy === undefined)) {
      expect(['MUST', 'SHOULD', 'MAY']).toContain(r.level);
      expect(r.url).toMatch(/^https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25(\/|#|$)/);
      expect(r.title.length).toBeGreaterThan(10);
      // A title is the requirement's sentence, not a stub cut at the full stop of an "e.g.".
      expect(r.title, r.id).not.toMatch(/\b(e\.g|i\.e)$/);
      if (!r.title.endsWith('…')) expect(r.title.split('(').length, r.id).toBe(r.title.split(')').length);
    }
  });

  it('every requirement id written in src/ and suites/ is in the catalog', () => {
    const unknown: string[] = [];
    // src/spec/requirement-id.ts is the ids of both catalogs, generated from them (tested below).
    for (const file of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'suites'))].filter((f) => !f.endsWith('src/spec/requirement-id.ts'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(ID)) {
        // Either catalog: checks of the stateless era cite 2026-07-28 ids.
        if (!isRequirementId(m[1]!)) unknown.push(`${file.slice(ROOT.length + 1)}: ${m[1]}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('every scenario cites known requirements and has a unique id', () => {
    const ids = serverScenarios.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of serverScenarios) {
      expect(s.requirements.length, s.id).toBeGreaterThan(0);
      // A scenario of the stateless era cites the 2026-07-28 catalog, and says its era in its id.
      const modern = s.revisions?.introduced === '2026-07-28';
      for (const id of s.requirements) expect(modern ? appliesIn(id, '2026-07-28') : findRequirement(id) !== undefined, `${s.id} cites ${id}`).toBe(true);
      expect(s.id).toMatch(modern ? /^server\.modern\.[a-z]+\.[a-z0-9-]+$/ : /^server\.[a-z]+\.[a-z0-9-]+$/);
    }
  });

  it('the passive validators and the broken fixtures cite known requirements', () => {
    for (const id of VALIDATOR_RULES) expect(isRequirementId(id), id).toBe(true);
    for (const b of BREAKS) expect(findRequirement(b.requirement), b.name).toBeDefined();
  });
});

describe('the revisions each rule exists in (src/spec/revisions.json)', () => {
  const data = JSON.parse(readFileSync(join(ROOT, 'src/spec/revisions.json'), 'utf8')) as {
    rules: Record<string, { since: string; notIn?: string[]; why?: string; note?: string }>;
  };
  const since = (prefix: string) => [...new Set(allRequirements().filter((r) => r.id.startsWith(prefix)).map((r) => r.since))];
  const revisionsOf = (id: RequirementId) => REVISIONS.filter((rev) => appliesIn(id, rev));

  it('has exactly the catalog ids, each with a known first revision', () => {
    expect(Object.keys(data.rules)).toEqual(allRequirements().filter((r) => r.writtenBy === undefined).map((r) => r.id));
    for (const r of allRequirements().filter((r) => r.writtenBy === undefined)) {
      expect(REVISIONS, r.id).toContain(r.since);
      expect(appliesIn(r.id, '2025-11-25'), `${r.id}: the catalog is written for 2025-11-25`).toBe(true);
      for (const rev of r.notIn ?? []) expect(REVISIONS.indexOf(rev), r.id).toBeGreaterThan(REVISIONS.indexOf(r.since));
    }
  });

  it('says why for every rule that is not in all four revisions', () => {
    for (const [id, row] of Object.entries(data.rules)) {
      if (row.since !== '2024-11-05' || row.notIn) expect(row.why?.length ?? 0, id).toBeGreaterThan(20);
    }
  });

  it('holds known facts from the schemas and changelogs', () => {
    expect(requirement('HTTP-SSE-01').since).toBe('2025-11-25');
    expect(revisionsOf('HTTP-SSE-01')).toEqual(['2025-11-25']);
    for (const prefix of ['ICON-', 'TASK-', 'JSCH-', 'TOOL-NAME-', 'ELIC-URL-', 'ELIC-URLSAFE-', 'ELIC-CMPL-', 'AUTH-CIMD-', 'AUTH-STEP-']) expect(since(prefix), prefix).toEqual(['2025-11-25']);
    for (const id of ['CANCEL-03', 'PROG-05', 'TOOL-EXEC-01', 'SAMP-TOOLS-01', 'SAMP-MSG-01', 'SAMP-CTX-01', 'ELIC-FORM-04', 'HTTP-RESUME-02', 'ROBUST-08', 'META-KEY-03'] satisfies RequirementId[]) {
      expect(requirement(id).since, id).toBe('2025-11-25');
    }
    expect(since('ELIC-').sort()).toEqual(['2025-06-18', '2025-11-25']);
    for (const id of ['ELIC-CAP-01', 'ELIC-FORM-02', 'ELIC-RESP-01', 'TOOL-OUT-01', 'TOOL-OUT-03', 'META-KEY-01', 'META-RSV-01', 'HTTP-POST-01', 'TOOL-ANN-03', 'COMP-REQ-02'] satisfies RequirementId[]) {
      expect(requirement(id).since, id).toBe('2025-06-18');
    }
    expect(since('HTTP-VER-')).toEqual(['2025-06-18']);
    for (const id of ['TOOL-ANN-01', 'TOOL-ANN-02', 'COMP-CAP-01', 'PROG-03', 'LIFE-TIME-01', 'AUTH-GEN-01', 'ROBUST-06'] satisfies RequirementId[]) expect(requirement(id).since, id).toBe('2025-03-26');
    expect(since('AUTH-').every((rev) => rev !== '2024-11-05')).toBe(true);
    // Streamable HTTP is 2025-03-26; only the two security rules were already in 2024-11-05's HTTP+SSE.
    for (const r of allRequirements().filter((x) => x.id.startsWith('HTTP-'))) {
      expect(r.since === '2024-11-05', r.id).toBe(r.id === 'HTTP-ORIGIN-01' || r.id === 'HTTP-BIND-01');
    }
    for (const id of ['BASE-MSG-01', 'BASE-ID-02', 'LIFE-INIT-01', 'LIFE-VER-04', 'STDIO-OUT-01', 'PING-01', 'CANCEL-02', 'PROG-01', 'RES-SUB-02', 'LOG-LVL-01', 'ROOTS-LIST-01', 'SAMP-REQ-01'] satisfies RequirementId[]) {
      expect(revisionsOf(id), id).toEqual([...REVISIONS]);
    }
  });

  it('agrees with the batch rule the validators use: no-batch rules hold exactly where batches were not allowed', () => {
    expect(revisionsOf('BASE-MSG-05')).toEqual(REVISIONS.filter((rev: Revision) => !allowsBatches(rev)));
    expect(revisionsOf('HTTP-POST-01')).toEqual(['2025-06-18', '2025-11-25']);
  });

  it('explains an absent rule in one line, naming the revision it is new in', () => {
    expect(absentIn('HTTP-SSE-01', '2025-11-25')).toBeUndefined();
    expect(absentIn('HTTP-SSE-01', '2025-06-18')).toBe('HTTP-SSE-01 is not a rule of revision 2025-06-18 (new in 2025-11-25)');
    expect(absentIn('BASE-MSG-05', '2025-03-26')).toBe('BASE-MSG-05 is not a rule of revision 2025-03-26 (it holds from 2024-11-05 except in 2025-03-26)');
  });
});

describe('one catalog per revision, derived from ../shared/spec', () => {
  const committed = (file: string) => readFileSync(join(ROOT, file), 'utf8');
  const rowsOf = (file: string) => (JSON.parse(committed(file)) as { spec: string; requirements: Array<{ id: string; keyword: string; level: string; url: string; title: string; source: string; requirement: string }> });

  // The sources lie outside the repository: where they are absent, these are reported skipped, not passed.
  const sourcesPresent = CATALOG_SOURCES.every((s) => existsSync(join(ROOT, s.shared)));
  it.skipIf(!sourcesPresent).each(CATALOG_SOURCES.map((s) => [s.file, s] as const))('%s is what src/build/spec-catalogs.ts derives from its source', (_file, source) => {
    const shared = join(ROOT, source.shared);
    const rows = (JSON.parse(readFileSync(shared, 'utf8')) as { spec: string; requirements: SharedRow[] });
    expect(rows.spec).toBe(source.spec);
    expect(committed(source.file)).toBe(deriveCatalog(rows.requirements, source));
  });

  it.each(CATALOG_SOURCES.map((s) => [s.file, s] as const))('%s: every level is its keyword\'s grading level, every url is built from the source for its revision, every title from the requirement', (_file, source) => {
    const file = rowsOf(source.file);
    expect(file.spec).toBe(source.spec);
    for (const r of file.requirements) {
      expect(r.level, r.id).toBe(levelOfKeyword(r.keyword));
      expect(r.url, r.id).toBe(source.extension?.files ? `${source.extension.urlBase}/${r.source.split(';')[0]!.trim()}` : urlOf(r.source, source.spec, source.extension?.urlBase));
      const published = source.extension ? source.extension.urlBase.replaceAll('.', '\\.') : `https://modelcontextprotocol\\.io/(specification|docs)/${source.spec}`;
      expect(r.url, r.id).toMatch(new RegExp(`^${published}(/|#|$)`));
      expect(r.title, r.id).toBe(source.titles?.[r.id] ?? titleOf(r.requirement));
    }
  });

  it('maps keywords to levels as "How to read a row" says, a joined row at its strongest clause', () => {
    expect(['MUST', 'MUST NOT', 'SHOULD', 'SHOULD NOT', 'MAY'].map(levelOfKeyword)).toEqual(['MUST', 'MUST', 'SHOULD', 'SHOULD', 'MAY']);
    expect(['MUST NOT/SHOULD', 'SHOULD/MUST', 'SHOULD NOT/SHOULD', 'MAY/MUST'].map(levelOfKeyword)).toEqual(['MUST', 'MUST', 'SHOULD', 'MUST']);
    expect(() => levelOfKeyword('OPTIONAL')).toThrow(/not a BCP 14 keyword/);
  });

  it('builds urls and titles the way the 2025-11-25 catalog was written', () => {
    expect(urlOf('basic/index.mdx#messages', '2026-07-28')).toBe('https://modelcontextprotocol.io/specification/2026-07-28/basic#messages');
    expect(urlOf('index.mdx#extensions; changelog.mdx#major-changes', '2026-07-28')).toBe('https://modelcontextprotocol.io/specification/2026-07-28#extensions');
    expect(urlOf('basic/patterns/mrtr.mdx (intro)', '2026-07-28')).toBe('https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr');
    expect(urlOf('schema.ts:ServerResult; schema.ts:*ResultResponse', '2026-07-28')).toBe('https://modelcontextprotocol.io/specification/2026-07-28/schema#serverresult');
    expect(urlOf('sbp#state-handle-hijacking', '2026-07-28')).toBe('https://modelcontextprotocol.io/docs/2026-07-28/tutorials/security/security_best_practices');
    expect(urlOf('sbp#session-hijacking', '2025-11-25')).toBe('https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices');
    expect(titleOf('Use `x` here (e.g. a. b). Then more.')).toBe('Use x here (e.g. a. b)');
    expect(titleOf('a'.repeat(200))).toBe(`${'a'.repeat(147)}…`);
  });

  it('the 2026-07-28 catalog holds every row of its source and of the tasks extension\'s, each id once', () => {
    const stateless = catalogOf('2026-07-28');
    expect(stateless.filter((r) => r.extension === undefined).length).toBe(417);
    expect(stateless.filter((r) => r.extension === 'io.modelcontextprotocol/tasks').length).toBe(rowsOf('src/spec/requirements-ext-tasks-2026-07-28.json').requirements.length);
    expect(new Set(stateless.map((r) => r.id)).size).toBe(stateless.length);
  });

  it('the tasks extension reuses a 2025-11-25 id only where 2026-07-28 dropped it (§18), and only TASK-* ids', () => {
    const extension = catalogOf('2026-07-28').filter((r) => r.extension === 'io.modelcontextprotocol/tasks');
    const reused = extension.filter((r) => findRequirement(r.id) !== undefined).map((r) => r.id);
    expect(reused).toEqual(['TASK-ID-01', 'TASK-ST-02']);
    for (const r of extension) expect(r.id, r.id).toMatch(/^TASK-/);
    expect(requirementIn('TASK-ST-02', '2026-07-28')!.url).toBe('https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks#task-status');
    expect(requirementIn('TASK-ST-02', '2025-11-25')!.url).toBe('https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-status-lifecycle');
  });

  const md = join(ROOT, '../shared/spec/requirements-2026-07-28.md');
  it.skipIf(!existsSync(md))('each 2025-11-25 id is carried into 2026-07-28 or listed as not applying (§18), never both', () => {
    const ids = new Set(catalogOf('2026-07-28').filter((r) => r.extension === undefined).map((r) => r.id));
    const text = readFileSync(md, 'utf8');
    const dropped = new Set([...text.slice(text.indexOf('## 18.'), text.indexOf('## 19.')).matchAll(/^\| `([A-Z]+(?:-[A-Z]+)*-\d{2})`/gm)].map((m) => m[1]!));
    expect(dropped.size).toBe(132);
    for (const r of allRequirements().filter((r) => r.writtenBy === undefined)) expect(ids.has(r.id) !== dropped.has(r.id), r.id).toBe(true);
  });

  it('answers per revision: the 2026-07-28 row with its own binds and URL, carried ids keeping their id and first revision', () => {
    expect(appliesIn('LIFE-INIT-01', '2026-07-28')).toBe(false);
    expect(absentIn('LIFE-INIT-01', '2026-07-28')).toBe('LIFE-INIT-01 is not a rule of revision 2026-07-28 (removed or superseded there)');
    expect(appliesIn('DISC-RES-01', '2026-07-28')).toBe(true);
    expect(appliesIn('DISC-RES-01', '2025-11-25')).toBe(false);
    expect(absentIn('DISC-RES-01', '2025-11-25')).toBe('DISC-RES-01 is not a rule of revision 2025-11-25 (new in 2026-07-28)');
    expect(() => appliesIn('NOPE-01' as string as RequirementId, '2026-07-28')).toThrow(/unknown requirement id NOPE-01/);
    const carried = requirementIn('BASE-ID-01', '2026-07-28')!;
    expect([carried.binds, carried.since, carried.url]).toEqual(['client', '2024-11-05', 'https://modelcontextprotocol.io/specification/2026-07-28/basic#requests']);
    expect(requirement('BASE-ID-01').binds).toBe('both');
    expect(requirementIn('BASE-ID-01', '2025-11-25')).toBe(requirement('BASE-ID-01'));
    expect(levelIn('BASE-ERR-06', '2026-07-28')).toBe('MUST');
    expect(requirementIn('LIFE-OP-01', '2024-11-05')!.level).toBe(levelIn('LIFE-OP-01', '2024-11-05'));
    for (const rev of REVISIONS) expect(catalogOf(rev).map((r) => r.id), rev).toEqual(allRequirements().filter((r) => appliesIn(r.id, rev)).map((r) => r.id));
  });

  it('src/spec/requirement-id.ts is the union of both catalogs\' ids, as src/build/generate-spec.ts writes it', () => {
    const catalogs = CATALOG_SOURCES.map((s) => ({ file: s.file, ids: rowsOf(s.file).requirements.map((r) => r.id) }));
    expect(committed('src/spec/requirement-id.ts'), 'stale: run `npm run build && node dist/src/build/generate-spec.js`').toBe(requirementIdModule(catalogs));
  });
});
