/**
 * Where schema.json disagrees with schema.ts (the normative source), mcpcheck follows schema.ts
 * (requirements.md §15.14). These patches are applied to the official JSON before compiling, so
 * every validator sees the same ruling, and it can be revisited in this one place.
 */
export interface SchemaPatch {
  revision: string;
  /** Path from the definitions object to the member replaced. */
  path: Array<string | number>;
  value: unknown;
  why: string;
}

export const SCHEMA_PATCHES: readonly SchemaPatch[] = [
  {
    revision: '2025-06-18',
    path: ['ElicitResult', 'properties', 'content', 'additionalProperties', 'type'],
    value: ['string', 'number', 'boolean'],
    why: 'ElicitResult.content values may be any number (schema.ts), not only integers (§15.14, ELIC-RESP-01)',
  },
  {
    revision: '2025-11-25',
    path: ['ElicitResult', 'properties', 'content', 'additionalProperties', 'anyOf', 1, 'type'],
    value: ['string', 'number', 'boolean'],
    why: 'ElicitResult.content values may be any number (schema.ts), not only integers (§15.14, ELIC-RESP-01)',
  },
  {
    revision: '2025-11-25',
    path: ['TaskMetadata', 'properties', 'ttl', 'type'],
    value: 'number',
    why: 'TaskMetadata.ttl is a number in schema.ts (§15.14)',
  },
  {
    revision: '2025-11-25',
    path: ['Task', 'properties', 'pollInterval', 'type'],
    value: 'number',
    why: 'Task.pollInterval is a number in schema.ts (§15.14)',
  },
  {
    revision: '2025-11-25',
    path: ['Task', 'properties', 'ttl', 'type'],
    value: ['number', 'null'],
    why: 'Task.ttl is a number or null in schema.ts (§15.14)',
  },
];

/** Applies the patches of one revision to its definitions, in place; a patch that no longer fits throws. */
export function applySchemaPatches(revision: string, defs: Record<string, unknown>): void {
  for (const patch of SCHEMA_PATCHES) {
    if (patch.revision !== revision) continue;
    let node: unknown = defs;
    for (const step of patch.path.slice(0, -1)) {
      node = (node as Record<string | number, unknown> | undefined)?.[step];
    }
    const last = patch.path[patch.path.length - 1]!;
    if (node === null || typeof node !== 'object' || !(last in node)) {
      throw new Error(`schema patch for ${revision} no longer fits: ${patch.path.join('/')}`);
    }
    (node as Record<string | number, unknown>)[last] = patch.value;
  }
}
