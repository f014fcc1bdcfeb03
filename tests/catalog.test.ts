import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverScenarios } from '../suites/server/index.js';
import { allRequirements, findRequirement } from '../src/spec/catalog.js';
import { VALIDATOR_RULES } from '../src/validate/coverage.js';
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
