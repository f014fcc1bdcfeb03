import type { CodeOptions, ErrorObject, Options, ValidateFunction } from 'ajv';
import { ajvRuntimeModules, type AnyAjv, newAjvInstance } from './ajv-classes.js';
import { note, show, violation, type Finding } from './finding.js';
import { fingerprintOf, loadPrecompiled } from './precompiled.js';
import { hasProtoKey, standInData, standInSchema, unStandIn } from './proto-keys.js';
import type { RuleTable } from './rule-table.js';
import { isObject, sameJson } from '../json.js';
import { ruling } from '../spec/rulings.js';

export const DIALECTS = ['2020-12', '2019-09', 'draft-07', 'draft-06', 'draft-04'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** The `$schema` each Ajv class registers for its meta-schema (Ajv strips a trailing `#`). */
const CANONICAL: Record<Dialect, string> = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  'draft-06': 'http://json-schema.org/draft-06/schema#',
  'draft-04': 'http://json-schema.org/draft-04/schema#',
};

/** The `$schema` URI of each supported dialect, as Ajv registers it. */
export const DIALECT_URIS: Readonly<Record<Dialect, string>> = CANONICAL;

/** The 2025-11-25 tag's search-and-replace slip (ruling slipped-dialect-uri). */
const SLIPPED_2020_12 = 'https://json-schema.org/2025-11-25/2020-12/schema';

/** Keyed by the URI with `https:` scheme and no trailing `#`, so all four spellings match. */
const BY_URI = new Map<string, Dialect>([
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
  ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
  ['https://json-schema.org/draft-07/schema', 'draft-07'],
  ['https://json-schema.org/draft-06/schema', 'draft-06'],
  ['https://json-schema.org/draft-04/schema', 'draft-04'],
  [SLIPPED_2020_12, '2020-12'],
]);

type Detected = { dialect: Dialect; declared: string | undefined; slipped: boolean } | { unsupported: unknown };

export function detectDialect(schema: Record<string, unknown>): Detected {
  if (!Object.hasOwn(schema, '$schema')) return { dialect: '2020-12', declared: undefined, slipped: false };
  const declared = schema.$schema;
  if (typeof declared !== 'string') return { unsupported: declared };
  const key = declared.replace(/^http:/, 'https:').replace(/#$/, '');
  const dialect = BY_URI.get(key);
  if (!dialect) return { unsupported: declared };
  return { dialect, declared, slipped: key === SLIPPED_2020_12 };
}

// ---- Ajv instances -------------------------------------------------------------------------

const OPTIONS: Options = {
  strict: false,
  allErrors: true,
  // Meta-schema validation is done explicitly, so its errors can be reported.
  validateSchema: false,
  // A target's schema must not make the checker print anything (unknown formats, ignored keywords).
  logger: false,
  // A member is what the data holds, not what Object.prototype lends it: without this, a
  // `properties: {toString: …}` judged Object's method and `required: ["toString"]` held for `{}`.
  ownProperties: true,
};

/** An Ajv instance for one dialect; `code` is Ajv's code option (standalone generation at build time). */
export function createAjv(dialect: Dialect, code?: CodeOptions): AnyAjv {
  return newAjvInstance(dialect, { ...OPTIONS, ...(code ? { code } : {}) });
}

/**
 * Ajv keeps every compiled root schema alive in its code-generation scope, so an instance that
 * compiled many untrusted schemas is retired and a fresh one created; validators it compiled
 * keep working.
 */
const COMPILES_PER_INSTANCE = 2000;
/**
 * A target's schemas are compiled at run time without Ajv's optimisation pass (unused names,
 * constant conditions): it was about 40% of each compile, and the code it saves runs a few times.
 */
const RUNTIME_CODE: CodeOptions = { optimize: false };
const instances = new Map<Dialect, { ajv: AnyAjv; compiles: number }>();

function instance(dialect: Dialect): { ajv: AnyAjv; compiles: number } {
  let inst = instances.get(dialect);
  if (!inst || inst.compiles >= COMPILES_PER_INSTANCE) {
    inst = { ajv: createAjv(dialect, RUNTIME_CODE), compiles: 0 };
    instances.set(dialect, inst);
  }
  return inst;
}

// ---- Meta-schemas ------------------------------------------------------------------------------

export const META_GROUP = 'meta-schemas';

/** What the build's meta-schema validator of a dialect is compiled from. */
export function metaFingerprint(dialect: Dialect): string {
  return fingerprintOf([dialect, CANONICAL[dialect], OPTIONS]);
}

/** The meta-schema each dialect's instance validates against; `$schema` of the input is always this one or absent. */
export function metaSchemaRef(dialect: Dialect): string {
  return CANONICAL[dialect];
}

const metaValidators = new Map<Dialect, ValidateFunction>();

/**
 * Validates a schema against its dialect's meta-schema, as `ajv.validateSchema` does, with the
 * validator the build generated (compiling the 2020-12 meta-schema was most of the first tool
 * schema's cost), or one Ajv compiles when that is missing or stale. Errors are on `.errors`.
 */
function metaValidator(dialect: Dialect): ValidateFunction {
  let fn = metaValidators.get(dialect);
  if (!fn) {
    fn = loadPrecompiled(META_GROUP, dialect, metaFingerprint(dialect), ajvRuntimeModules())?.validate ?? instance(dialect).ajv.getSchema(metaSchemaRef(dialect));
    if (!fn) throw new Error(`mcpcheck: no meta-schema for JSON Schema ${dialect}`);
    metaValidators.set(dialect, fn);
  }
  return fn;
}

// ---- Preparing (meta-validation + compilation), cached ---------------------------------------

interface Compiled {
  validate?: ValidateFunction;
  /** Why the schema could not be compiled. */
  problem?: string;
  /** The checker itself gave up (stack exhausted on absurd nesting): not a verdict on the schema. */
  gaveUp?: boolean;
}

interface Prepared extends Compiled {
  /** Meta-schema errors, empty when the schema is valid for its dialect. */
  metaErrors: string[];
  /** Pointer (relative to the schema) of the first meta-schema error. */
  metaPointer: string;
}

/**
 * A bounded cache that forgets what was not used lately: two generations, so a hit costs one
 * lookup and no reordering; an entry still used when its generation is retired moves forward.
 */
class Lru<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();
  /** At most `2 × generation` entries are kept. */
  constructor(private readonly generation: number) {}

  get(key: string): V | undefined {
    const hit = this.current.get(key);
    if (hit !== undefined) return hit;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    this.current.set(key, value);
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Map();
    }
  }
}

const CACHE_GENERATION = 250;
/** Bigger schemas are prepared every time rather than pinned in memory as cache keys. */
const MAX_KEY_CHARS = 256 * 1024;
/** By the schema's own text: the same tool schema arrives again in every tools/list response. */
const preparedCache = new Lru<Prepared>(CACHE_GENERATION);
/** By the text of the schema without annotations: tools often differ only in their descriptions. */
const compiledCache = new Lru<Compiled>(CACHE_GENERATION);

function textOf(schema: unknown): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined; // BigInt or cycles: not JSON, never cached
  }
}

/**
 * By identity first: a session keeps a listed tool's outputSchema and validates every call's
 * structuredContent with it, and stringifying it each time was the larger part of a call's cost.
 * Schemas come from parsed messages, which no validator changes.
 */
const byIdentity = new WeakMap<Record<string, unknown>, Prepared>();

function prepared(schema: Record<string, unknown>, dialect: Dialect, sameAs?: unknown): Prepared {
  let hit = byIdentity.get(schema);
  if (!hit) {
    const earlier = isObject(sameAs) ? byIdentity.get(sameAs) : undefined;
    hit = earlier !== undefined && sameJson(schema, sameAs) ? earlier : preparedByText(schema, dialect);
    byIdentity.set(schema, hit);
  }
  return hit;
}

function preparedByText(schema: Record<string, unknown>, dialect: Dialect): Prepared {
  const text = textOf(schema);
  const key = text === undefined ? undefined : dialect + '\n' + text;
  const hit = key === undefined ? undefined : preparedCache.get(key);
  if (hit) return hit;
  const result = prepare(schema, dialect);
  if (key !== undefined && key.length <= MAX_KEY_CHARS) preparedCache.set(key, result);
  return result;
}

function prepare(schema: Record<string, unknown>, dialect: Dialect): Prepared {
  // Give Ajv the spelling of `$schema` it registered, so every accepted variant finds its meta-schema.
  const input = Object.hasOwn(schema, '$schema') ? { ...schema, $schema: CANONICAL[dialect] } : schema;
  const meta = metaValidator(dialect);
  try {
    if (!meta(input)) {
      const errors = meta.errors ?? [];
      return {
        metaErrors: errors.length ? errors.slice(0, 5).map((e) => describe(e)) : ['invalid'],
        metaPointer: errors[0]?.instancePath ?? '',
        problem: 'schema is not valid against its dialect meta-schema',
      };
    }
  } catch (e) {
    return { metaErrors: [], metaPointer: '', problem: `meta-schema validation failed: ${errorText(e)}`, gaveUp: e instanceof RangeError };
  }
  return { metaErrors: [], metaPointer: '', ...compiledFor(input, dialect) };
}

function compiledFor(input: Record<string, unknown>, dialect: Dialect): Compiled {
  const bare = withoutAnnotations(input);
  const text = bare === undefined ? undefined : textOf(bare);
  const key = text === undefined ? undefined : dialect + '\n' + text;
  const hit = key === undefined ? undefined : compiledCache.get(key);
  if (hit) return hit;
  const result = compile(bare ?? input, dialect);
  if (key !== undefined && key.length <= MAX_KEY_CHARS) compiledCache.set(key, result);
  return result;
}

function compile(input: Record<string, unknown>, dialect: Dialect): Compiled {
  const inst = instance(dialect);
  const { ajv } = inst;
  // Ajv registers the schema's `$id` (and nested ids) instance-wide; roll that back after
  // compiling so two unrelated schemas with the same `$id` never clash or resolve into each other.
  const schemas = { ...ajv.schemas };
  const refs = { ...ajv.refs };
  inst.compiles++;
  try {
    return { validate: ajv.compile(input) };
  } catch (e) {
    return { problem: `schema does not compile: ${errorText(e)}`, gaveUp: e instanceof RangeError };
  } finally {
    try {
      ajv.removeSchema(input);
    } catch {
      // removal only frees the cache entry; nothing to report
    }
    restore(ajv.schemas, schemas);
    restore(ajv.refs, refs);
  }
}

// ---- Annotations, which no validator reads ----------------------------------------------------

/** Metadata keywords with scalar values: no assertion depends on them, nor any Ajv error message. */
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
/** Keywords whose value is a schema, a list of schemas or a map of names to schemas, in any dialect. */
const SUBSCHEMA = new Set([
  'additionalItems', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'contains',
  'propertyNames', 'if', 'then', 'else', 'not', 'contentSchema', 'items',
]);
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
/**
 * A reference that could point into an annotation (or hides its path behind escapes) keeps the
 * schema as it is: dropping the annotation would change what the reference resolves to.
 */
const REF_NEAR_ANNOTATION = /"\$(?:ref|dynamicRef|recursiveRef)":"(?:[^"\\]|\\.)*?(?:title|description|\$comment|deprecated|readOnly|writeOnly|%|\\)/;

/**
 * The schema with its scalar annotations removed at every schema position, so schemas that differ
 * only in titles and descriptions share one compiled validator. Undefined when that is not safe.
 */
function withoutAnnotations(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  const text = textOf(schema);
  if (text === undefined || REF_NEAR_ANNOTATION.test(text)) return undefined;
  try {
    return bareSchema(schema) as Record<string, unknown>;
  } catch {
    return undefined; // nesting too deep for the stack: compiled as it is, and judged there
  }
}

function bareSchema(node: unknown): unknown {
  if (!isObject(node)) return node;
  const entries: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(node)) {
    if (ANNOTATIONS.has(k) && (v === null || typeof v !== 'object')) continue;
    if (Array.isArray(v)) entries.push([k, SUBSCHEMA_LISTS.has(k) ? v.map(bareSchema) : v]);
    else if (SUBSCHEMA.has(k)) entries.push([k, bareSchema(v)]);
    else if (SUBSCHEMA_MAPS.has(k) && isObject(v)) entries.push([k, Object.fromEntries(Object.entries(v).map(([name, s]) => [name, bareSchema(s)]))]);
    else entries.push([k, v]);
  }
  // fromEntries, not assignment: a "__proto__" member stays a member.
  return Object.fromEntries(entries);
}

function restore(target: Record<string, unknown>, saved: Record<string, unknown>): void {
  for (const k of Object.keys(target)) if (!Object.hasOwn(saved, k)) delete target[k];
  Object.assign(target, saved);
}

// ---- Messages --------------------------------------------------------------------------------

/** Ajv messages can quote target text (patterns, keys): keep them on one short line. */
function clean(s: string, max = 200): string {
  const one = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  return one.length > max ? one.slice(0, max) + '…' : one;
}

function errorText(e: unknown): string {
  return clean(e instanceof Error ? e.message : String(e));
}

function describe(e: ErrorObject): string {
  const where = e.instancePath === '' ? '(root)' : e.instancePath;
  const p = e.params as Record<string, unknown>;
  let extra = '';
  if ('additionalProperty' in p) extra = ` ${show(p.additionalProperty, 60)}`;
  else if ('unevaluatedProperty' in p) extra = ` ${show(p.unevaluatedProperty, 60)}`;
  else if (e.keyword === 'enum') extra = ` ${show(p.allowedValues, 80)}`;
  return clean(`${where} ${e.message ?? e.keyword}${extra}`);
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
}

const SUPPORTED = 'supported: 2020-12 (default), 2019-09, draft-07, draft-06, draft-04';

// ---- Public API ------------------------------------------------------------------------------

/** The rules checkSchema judges an embedded JSON Schema by: its dialect, and whether it can be used at all. */
export const SCHEMA_RULES: RuleTable = ['JSCH-VAL-02', 'JSCH-VAL-03', 'JSCH-DIAL-01', 'JSCH-DIAL-03'];

/**
 * Checks a schema carried in a message: dialect (JSCH-DIAL-03, JSCH-VAL-02) and validity (JSCH-VAL-03).
 * `sameAs` is the schema this one probably repeats (the same tool's, listed before): when it does,
 * the earlier verdict is reused, and `schema` is then as cheap to validate with as `sameAs` was.
 */
export function checkSchema(schema: unknown, pointer: string, sameAs?: unknown): Finding[] {
  if (!isObject(schema)) {
    return [violation('JSCH-VAL-03', `expected a JSON Schema object, got ${kind(schema)} ${show(schema, 60)}`, pointer)];
  }
  const detected = detectDialect(schema);
  const at = pointer + '/$schema';
  if ('unsupported' in detected) {
    return [violation('JSCH-VAL-02', `unsupported JSON Schema dialect ${show(detected.unsupported)} (${SUPPORTED})`, at)];
  }
  const findings: Finding[] = [];
  if (detected.slipped) {
    findings.push(
      violation(
        ['JSCH-VAL-02', 'JSCH-DIAL-01'],
        `$schema ${show(detected.declared)} is the URI slipped into the 2025-11-25 tag (${ruling('slipped-dialect-uri').cite}); ` +
          `treated as 2020-12, expected "${CANONICAL['2020-12']}"`,
        at,
        'warn',
      ),
    );
  } else if (detected.dialect !== '2020-12') {
    findings.push(
      note('JSCH-DIAL-03', `schema declares JSON Schema ${detected.dialect} (${show(detected.declared)}); 2020-12 is recommended`, at),
    );
  }
  const prep = prepared(schema, detected.dialect, sameAs);
  if (prep.metaErrors.length) {
    findings.push(
      violation(
        'JSCH-VAL-03',
        `schema is not valid JSON Schema ${detected.dialect}: ${prep.metaErrors.join('; ')}`,
        pointer + prep.metaPointer,
      ),
    );
  } else if (prep.problem) {
    findings.push(violation('JSCH-VAL-03', `${detected.dialect} ${prep.problem}`, pointer, prep.gaveUp ? 'warn' : undefined));
  }
  return findings;
}

export type SchemaValidation =
  | { status: 'valid' }
  | { status: 'invalid'; errors: string[] }
  | { status: 'unusable'; reason: string };

/** Validates data with the semantics of the schema's own dialect (JSCH-VAL-01). Never throws. */
export function validateWithSchema(schema: unknown, data: unknown): SchemaValidation {
  if (!isObject(schema)) return { status: 'unusable', reason: `schema is ${kind(schema)}, not a JSON Schema object` };
  let stood: Record<string, unknown> | undefined;
  let stoodData: unknown;
  try {
    stood = protoStandIn(schema);
    if (stood !== undefined) stoodData = standInData(data);
  } catch (e) {
    return { status: 'unusable', reason: `the schema could not be read: ${errorText(e)}` };
  }
  if (stood === undefined) return validateDirectly(schema, data);
  const v = validateDirectly(stood, stoodData);
  if (v.status === 'invalid') return { status: 'invalid', errors: v.errors.map(unStandIn) };
  if (v.status === 'unusable') return { status: 'unusable', reason: unStandIn(v.reason) };
  return v;
}

/** Per schema, once: its stand-in copy when it names a "__proto__" property (proto-keys.ts), else null; the copy's compile is then reused. */
const standIns = new WeakMap<object, Record<string, unknown> | null>();

function protoStandIn(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  let stood = standIns.get(schema);
  if (stood === undefined) {
    stood = hasProtoKey(schema) ? (standInSchema(schema) as Record<string, unknown>) : null;
    standIns.set(schema, stood);
  }
  return stood ?? undefined;
}

function validateDirectly(schema: Record<string, unknown>, data: unknown): SchemaValidation {
  const detected = detectDialect(schema);
  if ('unsupported' in detected) {
    return { status: 'unusable', reason: `unsupported JSON Schema dialect ${show(detected.unsupported)}` };
  }
  const prep = prepared(schema, detected.dialect);
  if (!prep.validate) {
    const detail = prep.metaErrors.length ? `: ${prep.metaErrors.join('; ')}` : '';
    return { status: 'unusable', reason: `${prep.problem ?? 'schema unusable'}${detail}` };
  }
  try {
    if (prep.validate(data)) return { status: 'valid' };
    const errors = prep.validate.errors ?? [];
    const shown = errors.slice(0, 10).map((e) => describe(e));
    if (errors.length > shown.length) shown.push(`…and ${errors.length - shown.length} more`);
    return { status: 'invalid', errors: shown.length ? shown : ['(root) does not match the schema'] };
  } catch (e) {
    return { status: 'unusable', reason: `validation failed: ${errorText(e)}` };
  }
}

// ---- Scoped validation: subschemas with their root's references ------------------------------

/** Validates values against parts of one root schema, in the root's dialect, with the root's `$ref` targets in scope. */
export interface ScopedValidator {
  readonly dialect: Dialect;
  /**
   * Whether `data` is valid against `node`: the root, a subschema of it, or a schema assembled from
   * its parts (local `$ref`s in `node` resolve against the root). Throws when `node` does not compile
   * (nor does the root, then).
   */
  holds(node: unknown, data: unknown): boolean;
  /** Why `data` is invalid against `node`: the failing keyword and its schema pointer; undefined when valid. */
  why(node: unknown, data: unknown): { keyword: string; schemaPath: string; message: string } | undefined;
}

const SCOPE_BASE = 'https://mcpcheck.invalid/scope/';
/** Keywords whose values are data, not schemas: a "$ref" inside them is not a reference. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
const scopes = new Map<Dialect, { ajv: AnyAjv; compiles: number }>();
let scopeCount = 0;

/** `$ref`s of a node made absolute (against the registered root), so the node compiles on its own. */
function anchored(node: unknown, base: string): unknown {
  if (Array.isArray(node)) return node.map((n) => anchored(n, base));
  if (!isObject(node)) return node;
  const entries: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#')) entries.push([k, base + v]);
    else if (k === '$schema' || k === '$id') continue;
    else entries.push([k, DATA_KEYWORDS.has(k) ? v : anchored(v, base)]);
  }
  return Object.fromEntries(entries);
}

/** A ScopedValidator for `root`, or why the root cannot be used (unsupported dialect, does not compile). */
export function scopedValidator(root: Record<string, unknown>): ScopedValidator | { unusable: string } {
  const detected = detectDialect(root);
  if ('unsupported' in detected) return { unusable: `unsupported JSON Schema dialect ${show(detected.unsupported)}` };
  const { dialect } = detected;
  let inst = scopes.get(dialect);
  if (!inst || inst.compiles >= COMPILES_PER_INSTANCE) {
    inst = { ajv: createAjv(dialect, RUNTIME_CODE), compiles: 0 };
    scopes.set(dialect, inst);
  }
  const { ajv } = inst;
  const counter = inst;
  const key = `${SCOPE_BASE}${++scopeCount}`;
  // The root's own `$id` would become its base and re-key its references; the scope key replaces it.
  const { $id: _id, ...rest } = root;
  const registered = { ...rest, ...(Object.hasOwn(root, '$schema') ? { $schema: CANONICAL[dialect] } : {}) };
  try {
    ajv.addSchema(registered, key);
  } catch (e) {
    return { unusable: `schema cannot be registered: ${errorText(e)}` };
  }
  const compiled = new WeakMap<object, ValidateFunction>();
  // Compiled on first use, so a caller can say first what it finds wrong with the schema itself.
  const compileNode = (node: unknown): ValidateFunction => {
    if (typeof node === 'boolean') return ajv.compile(node);
    if (node === root) {
      const hit = compiled.get(root);
      if (hit) return hit;
      counter.compiles++;
      const fn = ajv.getSchema(key)!;
      compiled.set(root, fn);
      return fn;
    }
    const hit = compiled.get(node as object);
    if (hit) return hit;
    counter.compiles++;
    const fn = ajv.compile(anchored(node, key) as Record<string, unknown>);
    compiled.set(node as object, fn);
    return fn;
  };
  return {
    dialect,
    holds: (node, data) => compileNode(node)(data) === true,
    why(node, data) {
      const validate = compileNode(node);
      if (validate(data)) return undefined;
      const e = validate.errors?.[0];
      return e ? { keyword: e.keyword, schemaPath: e.schemaPath, message: describe(e) } : { keyword: 'unknown', schemaPath: '#', message: 'invalid' };
    },
  };
}
