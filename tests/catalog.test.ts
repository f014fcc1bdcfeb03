import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverScenarios } from '../suites/server/index.js';
import { absentIn, allRequirements, appliesIn, findRequirement, requirement } from '../src/spec/catalog.js';
import { VALIDATOR_RULES } from '../src/validate/coverage.js';
import { allowsBatches } from '../src/validate/revisions.js';
import { STATEFUL_REVISIONS as REVISIONS, type StatefulRevision as Revision } from '../src/spec/revisions.js';
import { BREAKS } from './fixtures/reference/breaks.js';

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
    expect(ids.length).toBe(344);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of allRequirements()) {
      expect(['MUST', 'SHOULD', 'MAY']).toContain(r.level);
      expect(r.url).toMatch(/^https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25(\/|#|$)/);
      expect(r.title.length).toBeGreaterThan(10);
      // A title is the requirement's sentence, not a stub cut at the full stop of an "e.g.".
      expect(r.title, r.id).not.toMatch(/\b(e\.g|i\.e)$/);
      if (!r.title.endsWith('…')) expect(r.title.split('(').length, r.id).toBe(r.title.split(')').length);
    }
  });

  it('matches ../shared/spec/requirements.json where that is present', () => {
    const shared = join(ROOT, '../shared/spec/requirements.json');
    if (!existsSync(shared)) return;
    const rows = (JSON.parse(readFileSync(shared, 'utf8')) as { requirements: Array<{ id: string; level: string }> }).requirements;
    expect(rows.map((r) => [r.id, r.level])).toEqual(allRequirements().map((r) => [r.id, r.keyword]));
  });

  it('every requirement id written in src/ and suites/ is in the catalog', () => {
    const unknown: string[] = [];
    for (const file of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'suites'))]) {
      for (const m of readFileSync(file, 'utf8').matchAll(ID)) {
        if (!findRequirement(m[1]!)) unknown.push(`${file.slice(ROOT.length + 1)}: ${m[1]}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('every scenario cites known requirements and has a unique id', () => {
    const ids = serverScenarios.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of serverScenarios) {
      expect(s.requirements.length, s.id).toBeGreaterThan(0);
      for (const id of s.requirements) expect(findRequirement(id), `${s.id} cites ${id}`).toBeDefined();
      expect(s.id).toMatch(/^server\.[a-z]+\.[a-z0-9-]+$/);
    }
  });

  it('the passive validators and the broken fixtures cite known requirements', () => {
    for (const id of VALIDATOR_RULES) expect(findRequirement(id), id).toBeDefined();
    for (const b of BREAKS) expect(findRequirement(b.requirement), b.name).toBeDefined();
  });
});

describe('the revisions each rule exists in (src/spec/revisions.json)', () => {
  const data = JSON.parse(readFileSync(join(ROOT, 'src/spec/revisions.json'), 'utf8')) as {
    rules: Record<string, { since: string; notIn?: string[]; why?: string; note?: string }>;
  };
  const since = (prefix: string) => [...new Set(allRequirements().filter((r) => r.id.startsWith(prefix)).map((r) => r.since))];
  const revisionsOf = (id: string) => REVISIONS.filter((rev) => appliesIn(id, rev));

  it('has exactly the catalog ids, each with a known first revision', () => {
    expect(Object.keys(data.rules)).toEqual(allRequirements().map((r) => r.id));
    for (const r of allRequirements()) {
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
    for (const id of ['CANCEL-03', 'PROG-05', 'TOOL-EXEC-01', 'SAMP-TOOLS-01', 'SAMP-MSG-01', 'SAMP-CTX-01', 'ELIC-FORM-04', 'HTTP-RESUME-02', 'ROBUST-08', 'META-KEY-03']) {
      expect(requirement(id).since, id).toBe('2025-11-25');
    }
    expect(since('ELIC-').sort()).toEqual(['2025-06-18', '2025-11-25']);
    for (const id of ['ELIC-CAP-01', 'ELIC-FORM-02', 'ELIC-RESP-01', 'TOOL-OUT-01', 'TOOL-OUT-03', 'META-KEY-01', 'META-RSV-01', 'HTTP-POST-01', 'TOOL-ANN-03', 'COMP-REQ-02']) {
      expect(requirement(id).since, id).toBe('2025-06-18');
    }
    expect(since('HTTP-VER-')).toEqual(['2025-06-18']);
    for (const id of ['TOOL-ANN-01', 'TOOL-ANN-02', 'COMP-CAP-01', 'PROG-03', 'LIFE-TIME-01', 'AUTH-GEN-01', 'ROBUST-06']) expect(requirement(id).since, id).toBe('2025-03-26');
    expect(since('AUTH-').every((rev) => rev !== '2024-11-05')).toBe(true);
    // Streamable HTTP is 2025-03-26; only the two security rules were already in 2024-11-05's HTTP+SSE.
    for (const r of allRequirements().filter((x) => x.id.startsWith('HTTP-'))) {
      expect(r.since === '2024-11-05', r.id).toBe(r.id === 'HTTP-ORIGIN-01' || r.id === 'HTTP-BIND-01');
    }
    for (const id of ['BASE-MSG-01', 'BASE-ID-02', 'LIFE-INIT-01', 'LIFE-VER-04', 'STDIO-OUT-01', 'PING-01', 'CANCEL-02', 'PROG-01', 'RES-SUB-02', 'LOG-LVL-01', 'ROOTS-LIST-01', 'SAMP-REQ-01']) {
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
