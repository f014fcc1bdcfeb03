import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { newMcpSchemaAjv } from './ajv-classes.js';
import { SCHEMA_OPTIONS } from './schemas.js';
import { packageRoot } from '../paths.js';

/**
 * The tasks extension's own schema (schemas/ext-tasks/2026-07-28.json, a JSON Schema 2020-12
 * document): one Ajv instance made, and each definition compiled, on first use, so that only a run
 * whose traffic uses the extension pays for it.
 */
const KEY = 'ext-tasks/2026-07-28';
let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function loaded(): Ajv {
  const file = JSON.parse(readFileSync(join(packageRoot(), 'schemas/ext-tasks/2026-07-28.json'), 'utf8')) as object;
  const instance = newMcpSchemaAjv(SCHEMA_OPTIONS);
  instance.addSchema(file, KEY);
  return instance;
}

/** Validates `data` against a definition of the extension's schema; null when valid. */
export function validateTasksExtension(def: string, data: unknown): ErrorObject[] | null {
  let fn = compiled.get(def);
  if (!fn) {
    fn = (ajv ??= loaded()).getSchema(`${KEY}#/$defs/${def}`);
    if (!fn) throw new Error(`the tasks extension's schema has no definition ${def}`);
    compiled.set(def, fn);
  }
  return fn(data) ? null : (fn.errors ?? []);
}
