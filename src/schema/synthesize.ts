import { validateWithSchema } from '../validate/dialects.js';
import { FORMAT_SAMPLES } from '../validate/formats.js';
import { isObject } from '../json.js';
import { type ArgumentContext, kindOf, PLACEHOLDER, valuesOf } from './kinds.js';
import { num, numericBounds } from './keywords.js';
import { intersect } from './intersect.js';
import { exampleOf } from './pattern.js';
import { resolveLocalRef } from './pointer.js';

export type { ArgumentContext } from './kinds.js';

/**
 * Tool arguments synthesised from a tool's inputSchema, so that mcpcheck can call a tool the way a
 * careful client would: required properties only, preferring the schema's own `const`, `default`,
 * `enum` and `examples`, else a value of the kind the parameter's name, description and `format`
 * suggest (a URI, a date, a port: see kinds.ts) within its constraints, else the smallest value
 * they allow; of anyOf/oneOf the simplest branch that yields a valid value. JSON Schema 2020-12 and
 * draft-07 spellings are both understood. The result is validated against the schema (with the
 * schema's dialect) before it is returned; `complete: false` says why no valid arguments were found.
 */
export interface SynthesizedArguments {
  args: Record<string, unknown>;
  complete: boolean;
  why?: string;
}

type Schema = Record<string, unknown> | boolean;
type Gen = { ok: true; value: unknown } | { ok: false; why: string };

const MAX_DEPTH = 12;

/** Keywords whose constraints are not reproduced here: a schema using them (without a value to copy) is given up on. */
const UNSUPPORTED = ['not', 'if', 'patternProperties', 'propertyNames', 'dependentSchemas', 'dependencies', 'contains', 'unevaluatedProperties', 'unevaluatedItems', '$dynamicRef', '$recursiveRef'];

const STRING_CONSTRAINTS = ['pattern', 'format', 'minLength', 'maxLength'];

/** What a value is for: the property's name (inherited by array items) and its description/title. */
interface Hint {
  name?: string;
  text: string;
}

const NO_HINT: Hint = { text: '' };

function hintFor(schema: Schema, name: string | undefined, inherited = ''): Hint {
  const own = isObject(schema) ? [schema.title, schema.description].filter((t): t is string => typeof t === 'string').join(' ') : '';
  return { ...(name !== undefined ? { name } : {}), text: own || inherited };
}

/** A branch's cost for "the simplest valid branch": scalars first, then arrays, then objects; null last. */
function branchCost(branch: unknown): number {
  if (!isObject(branch)) return branch === true ? 1 : 9;
  if ('const' in branch || Array.isArray(branch.enum)) return 0;
  const type = Array.isArray(branch.type) ? branch.type[0] : branch.type;
  if (type === 'null') return 8;
  if (type === 'array' || 'items' in branch) return 3;
  if (type === 'object' || 'properties' in branch) return 4 + (Array.isArray(branch.required) ? branch.required.length : 0);
  return 1;
}

class Synthesizer {
  constructor(
    private readonly root: Record<string, unknown>,
    private readonly context: ArgumentContext,
  ) {}

  resolve(ref: string): Schema | undefined {
    return resolveLocalRef(this.root, ref);
  }

  /** Validates a value against a subschema, with the root's definitions in scope. */
  fits(schema: Schema, value: unknown): boolean {
    if (schema === true) return true;
    if (schema === false) return false;
    const scoped: Record<string, unknown> = { ...schema };
    for (const k of ['$schema', '$defs', 'definitions'] as const) if (k in this.root && !(k in scoped)) scoped[k] = this.root[k];
    return validateWithSchema(scoped, value).status === 'valid';
  }

  /** Values of the kind the hint (and the schema's format) suggests, of one JSON type. */
  kindValues(schema: Record<string, unknown>, hint: Hint, type: 'string' | 'number' | 'boolean'): unknown[] {
    const kind = kindOf(hint.name, hint.text, typeof schema.format === 'string' ? schema.format : undefined);
    return kind === undefined ? [] : valuesOf(kind, this.context).filter((v) => typeof v === type);
  }

  gen(schema: Schema, path: string, depth: number, hint: Hint = NO_HINT): Gen {
    if (depth > MAX_DEPTH) return { ok: false, why: `${path}: nesting deeper than ${MAX_DEPTH} levels (recursive schema?)` };
    if (schema === true) return { ok: true, value: this.kindValues({}, hint, 'string')[0] ?? PLACEHOLDER };
    if (schema === false) return { ok: false, why: `${path}: the schema is false (no value allowed)` };
    if (!isObject(schema)) return { ok: false, why: `${path}: not a schema` };
    if (hint.text === '') hint = hintFor(schema, hint.name);

    if (typeof schema.$ref === 'string') {
      const target = this.resolve(schema.$ref);
      if (target === undefined) return { ok: false, why: `${path}: cannot resolve $ref ${JSON.stringify(schema.$ref)} (only local references are followed)` };
      const { $ref: _ref, ...rest } = schema;
      // Siblings of $ref (2019-09+) apply as well; draft-07 ignores them, and so does merging nothing.
      const merged = Object.keys(rest).length > 0 && isObject(target) ? mergeAll(target, rest) : target;
      if (merged === undefined) return { ok: false, why: `${path}: $ref with conflicting siblings` };
      return this.gen(merged, path, depth + 1, hint);
    }
    if ('const' in schema) return { ok: true, value: schema.const };
    if ('default' in schema && this.fits(schema, schema.default)) return { ok: true, value: schema.default };
    if (Array.isArray(schema.enum)) {
      const value = schema.enum.find((v) => this.fits(schema, v));
      return value !== undefined ? { ok: true, value } : { ok: false, why: `${path}: no enum value satisfies the other constraints` };
    }
    if (Array.isArray(schema.examples)) {
      const value = schema.examples.find((v) => this.fits(schema, v));
      if (value !== undefined) return { ok: true, value };
    }

    if (Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      let merged: Record<string, unknown> | undefined = rest;
      for (const part of allOf) {
        const p = isObject(part) && typeof part.$ref === 'string' ? this.resolve(part.$ref) : part;
        if (p === true) continue;
        if (!isObject(p)) return { ok: false, why: `${path}: allOf contains an unusable schema` };
        merged = merged && mergeAll(merged, p);
      }
      if (!merged) return { ok: false, why: `${path}: allOf branches conflict` };
      return this.gen(merged, path, depth + 1, hint);
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = schema[key];
      if (!Array.isArray(branches)) continue;
      const { [key]: _drop, ...rest } = schema;
      const reasons: string[] = [];
      const resolved = branches.map((branch, i) => ({ i, b: isObject(branch) && typeof branch.$ref === 'string' ? this.resolve(branch.$ref) : (branch as Schema) }));
      resolved.sort((x, y) => branchCost(x.b) - branchCost(y.b));
      for (const { i, b } of resolved) {
        if (b === undefined || b === false) continue;
        const merged = b === true ? rest : mergeAll(rest, b);
        if (!merged) continue;
        const got = this.gen(merged, `${path}/${key}/${i}`, depth + 1, hint);
        if (got.ok && this.fits(schema, got.value)) return got;
        if (!got.ok) reasons.push(got.why);
      }
      return { ok: false, why: reasons[0] ?? `${path}: no ${key} branch could be satisfied` };
    }

    for (const k of UNSUPPORTED) if (k in schema) return { ok: false, why: `${path}: "${k}" is not supported by the argument synthesiser` };

    const type = pickType(schema);
    switch (type) {
      case 'null':
        return { ok: true, value: null };
      case 'boolean':
        return { ok: true, value: this.kindValues(schema, hint, 'boolean')[0] ?? false };
      case 'integer':
      case 'number':
        return this.number(schema, type, path, hint);
      case 'string':
        return this.string(schema, path, hint);
      case 'array':
        return this.array(schema, path, depth, hint);
      case 'object':
        return this.object(schema, path, depth);
      default:
        return { ok: false, why: `${path}: unknown type ${JSON.stringify(schema.type)}` };
    }
  }

  number(schema: Record<string, unknown>, type: 'integer' | 'number', path: string, hint: Hint): Gen {
    const integer = type === 'integer';
    const { lo, hi, loOpen: loExclusive, hiOpen: hiExclusive } = numericBounds(schema);
    const step = num(schema.multipleOf);
    const ok = (v: number) =>
      (lo === undefined || (loExclusive ? v > lo : v >= lo)) &&
      (hi === undefined || (hiExclusive ? v < hi : v <= hi)) &&
      (!integer || Number.isInteger(v)) &&
      (step === undefined || Math.abs(v / step - Math.round(v / step)) < 1e-9);
    const unit = step ?? (integer ? 1 : undefined);
    const candidates: number[] = [];
    if (lo !== undefined) {
      const base = unit !== undefined ? Math.ceil(lo / unit) * unit : lo;
      candidates.push(base, unit !== undefined ? base + unit : hi !== undefined ? (lo + hi) / 2 : lo + 1);
    }
    if (hi !== undefined) {
      const base = unit !== undefined ? Math.floor(hi / unit) * unit : hi;
      candidates.push(unit !== undefined ? base : hi - 1, base, unit !== undefined ? base - unit : hi);
    }
    candidates.unshift(...(this.kindValues(schema, hint, 'number') as number[]), step ?? 1);
    candidates.push(0);
    const value = candidates.find(ok);
    return value !== undefined ? { ok: true, value } : { ok: false, why: `${path}: no ${type} satisfies minimum/maximum/multipleOf` };
  }

  string(schema: Record<string, unknown>, path: string, hint: Hint): Gen {
    const min = num(schema.minLength) ?? 0;
    const max = num(schema.maxLength);
    if (max !== undefined && max < min) return { ok: false, why: `${path}: maxLength is below minLength` };
    const format = typeof schema.format === 'string' ? schema.format : undefined;
    const fromPattern = typeof schema.pattern === 'string' ? exampleOf(schema.pattern) : undefined;
    const candidates = [
      ...this.kindValues(schema, hint, 'string'),
      ...(format !== undefined && format in FORMAT_SAMPLES ? [FORMAT_SAMPLES[format]] : []),
      PLACEHOLDER,
      ...(fromPattern !== undefined ? [fromPattern] : []),
    ];
    // Patterns are read only where simple; a few plain candidates are tried against the whole schema too.
    if (typeof schema.pattern === 'string') candidates.push(PLACEHOLDER + '1', 'mcpcheck-1', 'a', 'A', '1', 'test', 'x1');
    // Without string constraints any string fits: no need to compile the schema to know.
    const constrained = STRING_CONSTRAINTS.some((k) => k in schema);
    const hit = constrained ? candidates.find((c) => this.fits(schema, c)) : candidates[0];
    if (hit !== undefined) return { ok: true, value: hit };
    if (typeof schema.pattern === 'string') {
      return { ok: false, why: `${path}: "pattern" ${JSON.stringify(schema.pattern).slice(0, 60)} cannot be satisfied without an example or default` };
    }
    if (format !== undefined && format in FORMAT_SAMPLES) return { ok: false, why: `${path}: no ${format} value fits minLength/maxLength` };
    let value = PLACEHOLDER;
    if (value.length < min) value = value + 'x'.repeat(min - value.length);
    if (max !== undefined && value.length > max) value = value.slice(0, max);
    return { ok: true, value };
  }

  array(schema: Record<string, unknown>, path: string, depth: number, hint: Hint): Gen {
    const min = num(schema.minItems) ?? 0;
    const max = num(schema.maxItems);
    if (max !== undefined && max < min) return { ok: false, why: `${path}: maxItems is below minItems` };
    const out: unknown[] = [];
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
    const rest = prefix ? (Array.isArray(schema.items) ? schema.additionalItems : schema.items) : schema.items;
    for (let i = 0; i < min; i++) {
      const item = prefix && i < prefix.length ? (prefix[i] as Schema) : rest === undefined ? true : (rest as Schema);
      const got = this.gen(item, `${path}/${i}`, depth + 1, hintFor(item, hint.name, hint.text));
      if (!got.ok) return got;
      out.push(got.value);
    }
    if (schema.uniqueItems === true && min > 1 && new Set(out.map((v) => JSON.stringify(v))).size < out.length) {
      return { ok: false, why: `${path}: cannot make ${min} distinct items (uniqueItems)` };
    }
    return { ok: true, value: out };
  }

  object(schema: Record<string, unknown>, path: string, depth: number): Gen {
    const props = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
    // No prototype while filling, so "__proto__" or "toString" is a member like any other name.
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const name of required) {
      const prop = Object.hasOwn(props, name) ? (props[name] as Schema) : isObject(schema.additionalProperties) || typeof schema.additionalProperties === 'boolean' ? (schema.additionalProperties as Schema) : true;
      const got = this.gen(prop, `${path}/${name}`, depth + 1, hintFor(prop, name));
      if (!got.ok) return got;
      out[name] = got.value;
    }
    const min = num(schema.minProperties) ?? 0;
    for (const [name, prop] of Object.entries(props)) {
      if (Object.keys(out).length >= min) break;
      if (name in out) continue;
      const got = this.gen(prop as Schema, `${path}/${name}`, depth + 1, hintFor(prop as Schema, name));
      if (got.ok) out[name] = got.value;
    }
    if (Object.keys(out).length < min) return { ok: false, why: `${path}: cannot reach minProperties ${min}` };
    // A plain object again (fromEntries defines members, never calls the __proto__ setter).
    return { ok: true, value: Object.fromEntries(Object.entries(out)) };
  }
}

/** The type to generate: the first listed non-null type, else one the keywords imply. */
function pickType(schema: Record<string, unknown>): string {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const types = t.filter((x): x is string => typeof x === 'string');
    return types.find((x) => x !== 'null') ?? types[0] ?? 'string';
  }
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema || 'minProperties' in schema) return 'object';
  if ('items' in schema || 'prefixItems' in schema || 'minItems' in schema || 'maxItems' in schema) return 'array';
  if ('minimum' in schema || 'maximum' in schema || 'exclusiveMinimum' in schema || 'exclusiveMaximum' in schema || 'multipleOf' in schema) return 'number';
  return 'string';
}

/** The intersection of two schemas where it is one plain schema; undefined on a conflict or where values would need checking against both. */
function mergeAll(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> | undefined {
  const both = intersect(a, b);
  return 'schema' in both && both.exact ? both.schema : undefined;
}

/** Arguments for a tool whose inputSchema is `inputSchema`; see SynthesizedArguments. Never throws. */
export function synthesizeArguments(inputSchema: unknown, context: ArgumentContext = {}): SynthesizedArguments {
  if (!isObject(inputSchema)) return { args: {}, complete: false, why: 'inputSchema is not a JSON Schema object' };
  let got: Gen;
  try {
    got = new Synthesizer(inputSchema, context).gen(inputSchema, '#', 0);
  } catch (e) {
    return { args: {}, complete: false, why: `synthesis failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!got.ok) return { args: {}, complete: false, why: got.why };
  if (!isObject(got.value)) return { args: {}, complete: false, why: `the schema describes ${JSON.stringify(got.value)?.slice(0, 40)}, not an object` };
  const v = validateWithSchema(inputSchema, got.value);
  if (v.status === 'unusable') return { args: got.value, complete: false, why: `the schema cannot be used: ${v.reason}` };
  if (v.status === 'invalid') return { args: got.value, complete: false, why: `the synthesised arguments do not validate: ${v.errors.slice(0, 2).join('; ')}` };
  return { args: got.value, complete: true };
}
