import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
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
export function fingerprintOf(inputs: unknown): string {
  const versions = ['ajv', 'ajv-formats', 'ajv-draft-04'].map((name) => (require(`${name}/package.json`) as { version: string }).version);
  return createHash('sha256').update(JSON.stringify([inputs, versions])).digest('hex');
}

/** Where the build writes a generated module: `group` is mcp-schemas or meta-schemas. */
export function precompiledPath(group: string, name: string): string {
  return join(packageRoot(), 'dist/src/generated', group, `${name}.cjs`);
}

/** The generated module's validators, if it exists and was compiled from what `fingerprint` describes. */
export function loadPrecompiled(group: string, name: string, fingerprint: string): Record<string, ValidateFunction> | undefined {
  let mod: Record<string, unknown>;
  try {
    mod = require(precompiledPath(group, name)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  return mod[FINGERPRINT_EXPORT] === fingerprint ? (mod as Record<string, ValidateFunction>) : undefined;
}
