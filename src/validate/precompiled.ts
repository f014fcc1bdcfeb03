import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import type { ValidateFunction } from 'ajv';
import { packageRoot } from '../paths.js';

/**
 * Validators `npm run build` generates ahead of time with Ajv's standalone code
 * (src/build/precompile-schemas.ts), so a run does not spend its start in Ajv's compiler. Each
 * module carries the fingerprint of what it was compiled from; a module that is missing or was
 * compiled from something else is not used, and the caller compiles at run time instead.
 */

const require = createRequire(import.meta.url);

/** The name under which a generated module exports its fingerprint (no definition name has a `$`). */
export const FINGERPRINT_EXPORT = '$fingerprint';

/** Changes whenever validators compiled from `inputs` (schema text, options …) by the installed Ajv would. */
export function fingerprintOf(inputs: unknown, text = ''): string {
  const versions = ['ajv', 'ajv-formats', 'ajv-draft-04'].map((name) => (require(`${name}/package.json`) as { version: string }).version);
  // A schema file's text is hashed as it is, after the JSON (which ends where its brackets close):
  // stringifying it into the JSON, escapes and all, cost more than hashing it.
  return createHash('sha256').update(JSON.stringify([inputs, versions])).update(text).digest('hex');
}

/** Where the build writes a generated module: `group` is mcp-schemas or meta-schemas. */
export function precompiledPath(group: string, name: string): string {
  return join(packageRoot(), 'dist/src/generated', group, `${name}.cjs`);
}

/** Where the build writes V8's code cache of a generated module. */
export function codeCachePath(modulePath: string): string {
  return `${modulePath}.v8-cache`;
}

/** A generated module's source as a script that returns its CommonJS function (the build caches its compiled code). */
export function moduleScript(modulePath: string, cachedData?: Buffer): Script {
  const bytes = readFileSync(modulePath);
  // The build writes ASCII: copied as one byte a character, not decoded as UTF-8.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  return new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: modulePath, ...(cachedData ? { cachedData } : {}) });
}

function readCodeCache(modulePath: string): Buffer | undefined {
  try {
    return readFileSync(codeCachePath(modulePath));
  } catch {
    return undefined;
  }
}

/**
 * Runs a generated module as CommonJS, with the code cache the build wrote beside it: parsing the
 * megabyte of generated code was most of what loading the 2025-11-25 validators cost. A cache
 * from another Node version is rejected by V8, and the module is then compiled from its source.
 * `modules` are served to the module's `require` before node_modules is searched.
 */
function runModule(modulePath: string, modules?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const run = moduleScript(modulePath, readCodeCache(modulePath)).runInThisContext() as ModuleFunction;
  return runModuleFunction(run, modulePath, modules);
}

/** The function a module script evaluates to: CommonJS's wrapper. */
export type ModuleFunction = (exports: unknown, require: NodeRequire, module: unknown, filename: string, dirname: string) => void;

/** Calls a module script's function as Node would call a CommonJS module; returns its exports. */
export function runModuleFunction(run: ModuleFunction, modulePath: string, modules?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  const fromNodeModules = createRequire(modulePath);
  const req = modules ? Object.assign((id: string) => (Object.hasOwn(modules, id) ? modules[id] : fromNodeModules(id)), fromNodeModules) : fromNodeModules;
  run(module.exports, req as NodeRequire, module, modulePath, dirname(modulePath));
  return module.exports;
}

/** The exports of the module at `modulePath`, if it exists and was generated from what `fingerprint` describes. */
export function loadModuleAt(modulePath: string, fingerprint: string, modules?: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  let mod: Record<string, unknown>;
  try {
    mod = runModule(modulePath, modules);
  } catch {
    return undefined;
  }
  return mod[FINGERPRINT_EXPORT] === fingerprint ? mod : undefined;
}

/** The generated module's validators, if it exists and was compiled from what `fingerprint` describes. */
export function loadPrecompiled(
  group: string,
  name: string,
  fingerprint: string,
  modules?: Readonly<Record<string, unknown>>,
): Record<string, ValidateFunction> | undefined {
  return loadModuleAt(precompiledPath(group, name), fingerprint, modules) as Record<string, ValidateFunction> | undefined;
}
