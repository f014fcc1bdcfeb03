import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';

/** Grading level: MUST NOT grades as MUST, SHOULD NOT as SHOULD (requirements.md, "How to read a row"). */
export type Level = 'MUST' | 'SHOULD' | 'MAY';

export interface Requirement {
  id: string;
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
}

interface CatalogFile {
  spec: string;
  requirements: Requirement[];
}

let byId: Map<string, Requirement> | undefined;

function load(): Map<string, Requirement> {
  if (byId) return byId;
  const file = JSON.parse(readFileSync(join(packageRoot(), 'src/spec/requirements.json'), 'utf8')) as CatalogFile;
  byId = new Map(file.requirements.map((r) => [r.id, r]));
  return byId;
}

export function allRequirements(): Requirement[] {
  return [...load().values()];
}

export function findRequirement(id: string): Requirement | undefined {
  return load().get(id);
}

/** The requirement with this id; an unknown id is a programming error in a check, so it throws. */
export function requirement(id: string): Requirement {
  const r = load().get(id);
  if (!r) throw new Error(`unknown requirement id ${id}`);
  return r;
}

export const SPEC_REVISION = '2025-11-25';

/** The role a target plays; a grade counts only the rules that bind it. */
export type Role = 'server' | 'client';

/**
 * Whether a rule binds a target in this role. `both` (and the task forms `both (receiver)` /
 * `both (requestor)`) bind either; AS and proxy rules bind neither a plain server nor a client.
 */
export function bindsRole(r: Requirement, role: Role): boolean {
  return r.binds === role || r.binds === 'both' || r.binds.startsWith('both (');
}
