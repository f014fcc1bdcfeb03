import { isAscii } from 'node:buffer';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../src/paths.js';
import { applySchemaPatches } from '../src/spec/rulings.js';
import { STATEFUL_REVISIONS as REVISIONS } from '../src/spec/revisions.js';
import { codeCachePath, FINGERPRINT_EXPORT, loadModuleAt, moduleScript, precompiledPath } from '../src/validate/precompiled.js';
import { SCHEMA_GROUP, schemaFor } from '../src/validate/schemas.js';
import { createAjv } from '../src/validate/dialects.js';
import { AJV_GROUP, ajvLibrary, ajvRuntimeModules, BUNDLE_NAME, newAjvInstance, RUNTIME_MODULES } from '../src/validate/ajv-classes.js';

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

    it(`${revision} uses no unevaluatedProperties/Items, which mcpcheck compiles it without`, () => {
      expect(readFileSync(join(packageRoot(), 'schemas/mcp', `${revision}.json`), 'utf8')).not.toMatch(/"unevaluated(Properties|Items)"/);
    });

    it(`${revision} uses no unevaluatedProperties/Items, which mcpcheck compiles it without`, () => {
      expect(readFileSync(join(packageRoot(), 'schemas/mcp', `${revision}.json`), 'utf8')).not.toMatch(/"unevaluated(Properties|Items)"/);
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

  it.each(REVISIONS)('%s: the module is all ASCII, so it is read as one byte a character', (revision) => {
    expect(isAscii(readFileSync(file(revision)))).toBe(true);
  });

  it('a module with text past ASCII is read as UTF-8', () => {
    const mod = join(mkdtempSync(join(tmpdir(), 'mcpcheck-precompiled-')), 'm.cjs');
    writeFileSync(mod, `exports.text = "em — dash, é";\nexports[${JSON.stringify(FINGERPRINT_EXPORT)}] = 'f';\n`);
    expect(loadModuleAt(mod, 'f')?.text).toBe('em — dash, é');
  });

  it('a module loads from its source when its cache is not for it, and not at all when stale', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-precompiled-'));
    const mod = join(dir, 'm.cjs');
    writeFileSync(mod, `exports.validate = (x) => x === 1;\nexports[${JSON.stringify(FINGERPRINT_EXPORT)}] = 'f1';\n`);
    // Another module's cache: V8 rejects it and compiles the source.
    copyFileSync(codeCachePath(file('2025-11-25')), codeCachePath(mod));
    expect(moduleScript(mod, readFileSync(codeCachePath(mod))).cachedDataRejected).toBe(true);
    expect((loadModuleAt(mod, 'f1')?.validate as ((x: unknown) => boolean) | undefined)?.(1)).toBe(true);
    expect(loadModuleAt(mod, 'f2')).toBeUndefined();
  });
});

// The build's bundle of Ajv (src/build/bundle-ajv.ts, src/validate/ajv-classes.ts).
describe('the bundled Ajv', () => {
  const bundle = precompiledPath(AJV_GROUP, BUNDLE_NAME);

  it('is what a run uses, with a code cache this Node accepts', () => {
    expect(moduleScript(bundle, readFileSync(codeCachePath(bundle))).cachedDataRejected).toBe(false);
    expect(Object.keys(ajvRuntimeModules() ?? {})).toEqual([...RUNTIME_MODULES]);
    // Not node_modules' class: the bundle has a copy of its own.
    expect(ajvLibrary().Ajv2020).not.toBe(Ajv2020);
  });

  it("serves run-time compiles, whatever their code options; only standalone generation gets node_modules' copy", () => {
    expect(createAjv('2020-12', { optimize: false })).toBeInstanceOf(ajvLibrary().Ajv2020);
    expect(createAjv('2020-12', { source: true })).toBeInstanceOf(Ajv2020);
  });

  it.each(['2020-12', '2019-09', 'draft-07', 'draft-06', 'draft-04'] as const)('%s: compiles with formats and asserts them', (flavour) => {
    const ajv = newAjvInstance(flavour, { strict: false, allErrors: true });
    const validate = ajv.compile({ type: 'object', properties: { u: { type: 'string', format: 'uri' } } });
    expect(validate({ u: 'https://example.com/x' })).toBe(true);
    expect(validate({ u: 'not a uri' })).toBe(false);
  });

  it('standalone generation (Ajv\'s code option) gets the installed Ajv, whose code snippets the caller passes', () => {
    expect(newAjvInstance('2020-12', { code: { source: true } })).toBeInstanceOf(Ajv2020);
  });
});
