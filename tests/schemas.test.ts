import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../src/paths.js';
import { applySchemaPatches } from '../src/spec/rulings.js';
import { REVISIONS } from '../src/validate/revisions.js';
import { codeCachePath, FINGERPRINT_EXPORT, loadModuleAt, moduleScript, precompiledPath } from '../src/validate/precompiled.js';
import { SCHEMA_GROUP, schemaFor } from '../src/validate/schemas.js';

// src/validate/schemas.ts skips Ajv's meta-schema check of the bundled schemas at run time; this is it.
describe('the bundled official MCP schemas', () => {
  for (const revision of REVISIONS) {
    it(`${revision}, with mcpcheck's patches, is valid against its meta-schema`, () => {
      const file = JSON.parse(readFileSync(join(packageRoot(), 'schemas/mcp', `${revision}.json`), 'utf8')) as Record<string, unknown>;
      const modern = file.$defs !== undefined;
      applySchemaPatches(revision, (file.$defs ?? file.definitions) as Record<string, unknown>);
      const ajv = modern ? new Ajv2020({ strict: false }) : new Ajv({ strict: false });
      expect(ajv.validateSchema(file), JSON.stringify(ajv.errors)).toBe(true);
      expect(schemaFor(revision).validate('JSONRPCMessage', { jsonrpc: '2.0', id: 1, method: 'ping' })).toBeNull();
    });
  }
});

// The build's validators and V8's code cache of them (src/validate/precompiled.ts).
describe('the precompiled validators', () => {
  const file = (name: string) => precompiledPath(SCHEMA_GROUP, name);

  it.each(REVISIONS)('%s: the code cache the build wrote is accepted by this Node', (revision) => {
    const script = moduleScript(file(revision), readFileSync(codeCachePath(file(revision))));
    expect(script.cachedDataRejected).toBe(false);
  });

  it('a module loads from its source when its cache is not for it, and not at all when stale', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-precompiled-'));
    const mod = join(dir, 'm.cjs');
    writeFileSync(mod, `exports.validate = (x) => x === 1;\nexports[${JSON.stringify(FINGERPRINT_EXPORT)}] = 'f1';\n`);
    // Another module's cache: V8 rejects it and compiles the source.
    copyFileSync(codeCachePath(file('2025-11-25')), codeCachePath(mod));
    expect(moduleScript(mod, readFileSync(codeCachePath(mod))).cachedDataRejected).toBe(true);
    expect(loadModuleAt(mod, 'f1')?.validate?.(1)).toBe(true);
    expect(loadModuleAt(mod, 'f2')).toBeUndefined();
  });
});
