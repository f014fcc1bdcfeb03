import { createRequire } from 'node:module';
import type { Ajv, Options } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type AjvDraft04Module from 'ajv-draft-04';

/**
 * Ajv's classes, each loaded when first used: the official schemas' validators are generated at
 * build time, so a run loads Ajv's compiler only once it meets a schema of the target's own, and
 * the class of a dialect only once it meets a schema in that dialect (loading them all cost
 * every run about 50 ms).
 */

const require = createRequire(import.meta.url);

type AjvDraft04Class = typeof AjvDraft04Module.default;
export type AjvDraft04 = InstanceType<AjvDraft04Class>;

export function newAjv(options: Options): Ajv {
  return new (require('ajv') as typeof import('ajv')).Ajv(options);
}

export function newAjv2019(options: Options): Ajv2019 {
  return new (require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019(options);
}

export function newAjv2020(options: Options): Ajv2020 {
  return new (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020(options);
}

export function newAjvDraft04(options: Options): AjvDraft04 {
  // CommonJS with `exports.default`.
  const mod = require('ajv-draft-04') as { default: AjvDraft04Class };
  return new mod.default(options);
}
