import fc from 'fast-check';
import { isObject } from '../json.js';
import { type Dialect, type ScopedValidator, scopedValidator } from '../validate/dialects.js';
import { boundedFilter, GenerationFailed } from './bounded.js';
import { formatValues, NUMERIC_FORMAT_BOUNDS } from './format-values.js';
import { intersect } from './intersect.js';
import { num, numericBounds } from './keywords.js';
import { pointerToken, resolveLocalRef } from './pointer.js';

/**
 * JSON Schema → fast-check Arbitrary of values VALID against the schema, in the schema's own
 * dialect (2020-12 by default; 2019-09, draft-07, draft-06, draft-04 by `$schema`).
 *
 * Values are built from the keywords (types, const, enum, bounds, formats, patterns, objects,
 * arrays, references, combinators); where a keyword cannot be built exactly (`not`, `oneOf`,
 * `if`, `contains`, two patterns …) the values built are checked against that part of the schema
 * with ajv and the misses dropped, within a bound. Every value is finally checked against the
 * whole schema, so an invalid value is never returned: when no valid value can be found the
 * result (or, at generation time, a GenerationFailed error) names the keyword and its JSON pointer.
 */

export interface ArbitraryOptions {
  /** Value nesting depth from which only what the schema requires is generated (required properties, minItems). Default 3. */
  maxDepth?: number;
  /** Array items generated beyond minItems (and the tuple). Default 3. */
  maxItems?: number;
  /** Characters generated beyond minLength in free strings. Default 12. */
  maxLength?: number;
  /** Undeclared properties generated at most per object (beyond what minProperties needs). Default 2. */
  maxExtraProperties?: number;
  /**
   * Whether properties the schema does not declare are generated where it allows them only by
   * omission (`additionalProperties` absent or true). Where `additionalProperties` or
   * `patternProperties` is a schema, undeclared properties are generated regardless. Default true.
   */
  undeclaredProperties?: boolean;
  /** Keys of undeclared properties, by the name of the property that holds the object (MCP: `{ _meta: metaKeyArbitrary() }`). */
  keysUnder?: Readonly<Record<string, fc.Arbitrary<string>>>;
  /**
   * Values of declared properties, by property name, for rules beyond the schema (MCP: a JSON
   * Schema's `$schema` must name a supported dialect). Values are still held to the property's schema.
   */
  propertyValues?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
  /** fast-check's unit of free strings. Default 'binary' (any code point but lone surrogates). */
  stringUnit?: 'grapheme' | 'grapheme-ascii' | 'binary' | 'binary-ascii';
  /**
   * Whether every value is checked against the whole schema before it is handed out. Default true;
   * false hands out what the keywords built (tests use it to show that the builder itself is right).
   */
  finalCheck?: boolean;
}

/** Why no valid value can be generated: the keyword, its JSON pointer in the schema, and what is wrong. */
export interface SchemaProblem {
  keyword: string;
  pointer: string;
  message: string;
}

export type SchemaArbitrary = { ok: true; arbitrary: fc.Arbitrary<unknown>; dialect: Dialect } | { ok: false; problem: SchemaProblem };

type Built = { ok: true; arb: fc.Arbitrary<unknown> } | { ok: false; problem: SchemaProblem };
type Schema = Record<string, unknown>;

const DEFAULTS = { maxDepth: 3, maxItems: 3, maxLength: 12, maxExtraProperties: 2, undeclaredProperties: true, stringUnit: 'binary', finalCheck: true } as const;
/** Nesting allowed past maxDepth for what the schema requires, before a recursion counts as endless. */
const REQUIRED_NESTING = 12;
/** `$ref`s followed in a row without a value nesting in between, before the chain counts as a cycle. */
const MAX_REF_HOPS = 32;
/** Values sampled when the arbitrary is built, to find schemas no generated value satisfies. */
const PROBE_RUNS = 20;

const UNSUPPORTED = ['$dynamicRef', '$recursiveRef'];
/** Keywords whose constraint is checked on the values built rather than built in. */
const CHECKED = ['not', 'oneOf', 'if', 'contains', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'patternProperties', 'uniqueItems'];
const TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const;
type Type = (typeof TYPES)[number];
const OBJECT_KEYWORDS = ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired', 'dependentSchemas', 'dependencies', 'unevaluatedProperties'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'additionalItems', 'contains', 'minItems', 'maxItems', 'uniqueItems', 'unevaluatedItems'];
const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

const ANNOTATIONS = new Set(['title', 'description', '$comment', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', '$schema', '$id', '$anchor', '$defs', 'definitions']);

function jsonType(v: unknown): Type | undefined {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'boolean' || typeof v === 'string' || typeof v === 'object' ? (typeof v as Type) : undefined;
}

/** Whether a value has one of the JSON types `type` lists (an integer is a number too). */
function typeMatches(type: unknown, value: unknown): boolean {
  const t = jsonType(value);
  const types = Array.isArray(type) ? type : [type];
  return t !== undefined && (types.includes(t) || (t === 'integer' && types.includes('number')));
}

const problem = (keyword: string, pointer: string, message: string): Built => ({ ok: false, problem: { keyword, pointer, message } });
const without = (s: Schema, ...keys: string[]): Schema => Object.fromEntries(Object.entries(s).filter(([k]) => !keys.includes(k)));

/** JSON with object keys sorted: equal JSON values (as uniqueItems judges them) give equal text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

/** Length in code points, as JSON Schema counts it. */
const length = (s: string) => [...s].length;

interface At {
  pointer: string;
  depth: number;
  hops: number;
  /** Name of the property holding this value (for `keysUnder`). */
  holder?: string;
}

class Builder {
  private readonly memo = new WeakMap<object, Map<string, Built>>();
  private readonly o: Required<Omit<ArbitraryOptions, 'keysUnder' | 'propertyValues'>> & Pick<ArbitraryOptions, 'keysUnder' | 'propertyValues'>;

  constructor(
    private readonly root: Schema,
    private readonly scope: ScopedValidator,
    options: ArbitraryOptions,
  ) {
    this.o = { ...DEFAULTS, ...options };
  }

  /** Whether `value` meets `node` (a part of the root); a node ajv cannot compile is reported where it is used. */
  private holds(node: unknown, value: unknown): boolean {
    return this.scope.holds(node, value);
  }

  /** Whether a `const` or `enum` value meets the keywords beside it; without compiling where only `type` is beside it. */
  private fits(s: Schema, keyword: string, value: unknown): boolean {
    const others = Object.keys(s).filter((k) => k !== keyword && !ANNOTATIONS.has(k));
    if (others.length === 0) return true;
    if (others.length === 1 && others[0] === 'type') return typeMatches(s.type, value);
    return this.holds(s, value);
  }

  /** The values of `arb` that meet `node`, bounded (see boundedFilter). */
  private checked(arb: fc.Arbitrary<unknown>, node: Schema, keyword: string, pointer: string): fc.Arbitrary<unknown> {
    return boundedFilter(arb, (v) => this.holds(node, v), () => ({ keyword, pointer, reason: `generated values do not meet "${keyword}"` }));
  }

  build(schema: unknown, at: At): Built {
    if (at.depth > this.o.maxDepth + REQUIRED_NESTING) return problem('$ref', at.pointer, `required members nest deeper than ${this.o.maxDepth + REQUIRED_NESTING} levels (a recursion with no way to stop)`);
    if (at.hops > MAX_REF_HOPS) return problem('$ref', at.pointer, `more than ${MAX_REF_HOPS} references in a row (a reference cycle)`);
    if (schema === true) return { ok: true, arb: this.anyValue(at.depth) };
    if (schema === false) return problem('false', at.pointer, 'the schema false admits no value');
    if (!isObject(schema)) return problem('type', at.pointer, `${JSON.stringify(schema)} is not a schema`);
    const key = `${at.depth}|${at.holder !== undefined && this.o.keysUnder?.[at.holder] ? at.holder : ''}`;
    let byKey = this.memo.get(schema);
    const hit = byKey?.get(key);
    if (hit) return hit;
    const built = this.node(schema, at);
    if (!byKey) this.memo.set(schema, (byKey = new Map()));
    byKey.set(key, built);
    return built;
  }

  private node(s: Schema, at: At): Built {
    for (const k of UNSUPPORTED) if (k in s) return problem(k, at.pointer, `"${k}" is not supported by the generator`);
    if (typeof s.$ref === 'string') return this.ref(s, at);
    if (Array.isArray(s.allOf)) return this.allOf(s, at);
    for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) return this.branches(s, k, at);
    if ('if' in s) return this.conditional(s, at);
    if ('not' in s) {
      const rest = this.build(without(s, 'not'), at);
      return rest.ok ? { ok: true, arb: this.checked(rest.arb, s, 'not', `${at.pointer}/not`) } : rest;
    }
    if ('const' in s) {
      return this.fits(s, 'const', s.const) ? { ok: true, arb: fc.constant(s.const) } : problem('const', `${at.pointer}/const`, 'the const value does not meet the keywords beside it');
    }
    if (Array.isArray(s.enum)) {
      const values = s.enum.filter((v) => this.fits(s, 'enum', v));
      return values.length > 0 ? { ok: true, arb: fc.constantFrom(...values) } : problem('enum', `${at.pointer}/enum`, 'no enum value meets the keywords beside it');
    }
    const built = this.typed(s, at);
    if (!built.ok) return built;
    const checked = CHECKED.find((k) => k in s);
    return checked ? { ok: true, arb: this.checked(built.arb, s, checked, `${at.pointer}/${checked}`) } : built;
  }

  /** `$ref` (local JSON pointer), with its siblings applied too (as ajv does in every dialect). */
  private ref(s: Schema, at: At): Built {
    const ref = s.$ref as string;
    const target = resolveLocalRef(this.root, ref);
    if (target === undefined) return problem('$ref', `${at.pointer}/$ref`, `cannot resolve ${JSON.stringify(ref)} (only local references are followed)`);
    const siblings = Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref' && !ANNOTATIONS.has(k)));
    const next = { ...at, pointer: ref, hops: at.hops + 1 };
    if (Object.keys(siblings).length === 0) return this.build(target, next);
    if (target === false) return this.build(false, next);
    if (target === true) return this.build(siblings, { ...at, hops: at.hops + 1 });
    return this.merged(s, target, siblings, '$ref', next);
  }

  private merged(original: Schema, a: Schema, b: Schema, keyword: string, at: At): Built {
    const both = intersect(a, b);
    if ('conflict' in both) return problem(both.keyword, at.pointer, `${keyword}: ${both.conflict}`);
    const built = this.build(both.schema, at);
    if (!built.ok || both.exact) return built;
    return { ok: true, arb: this.checked(built.arb, original, keyword, at.pointer) };
  }

  /** A schema with its own `$ref` followed (repeatedly), for merging into a sibling. */
  private deref(part: unknown, hops = 0): unknown {
    if (!isObject(part) || typeof part.$ref !== 'string' || hops > MAX_REF_HOPS) return part;
    const target = resolveLocalRef(this.root, part.$ref);
    if (target === undefined || typeof target === 'boolean') return target;
    const siblings = without(part, '$ref');
    const both = Object.keys(siblings).length === 0 ? { schema: target, exact: true } : intersect(target, siblings);
    return 'schema' in both && both.exact ? this.deref(both.schema, hops + 1) : part;
  }

  private allOf(s: Schema, at: At): Built {
    let merged: Schema = without(s, 'allOf');
    let exact = true;
    for (const [i, raw] of (s.allOf as unknown[]).entries()) {
      const part = this.deref(raw);
      if (part === true) continue;
      if (part === false) return problem('allOf', `${at.pointer}/allOf/${i}`, 'allOf contains the schema false');
      if (!isObject(part)) {
        const why = this.build(raw, { ...at, pointer: `${at.pointer}/allOf/${i}`, hops: at.hops + 1 });
        return why.ok ? problem('allOf', `${at.pointer}/allOf/${i}`, `allOf member ${i} cannot be used`) : why;
      }
      const both = intersect(merged, part);
      if ('conflict' in both) return problem('allOf', `${at.pointer}/allOf/${i}`, `allOf members conflict: ${both.conflict}`);
      merged = both.schema;
      exact &&= both.exact && !(isObject(raw) && typeof raw.$ref === 'string' && part === raw);
    }
    const built = this.build(merged, { ...at, hops: at.hops + 1 });
    if (!built.ok || exact) return built;
    return { ok: true, arb: this.checked(built.arb, s, 'allOf', `${at.pointer}/allOf`) };
  }

  /** anyOf/oneOf: each branch together with the keywords beside it; oneOf values are checked to meet exactly one. */
  private branches(s: Schema, keyword: 'anyOf' | 'oneOf', at: At): Built {
    const rest = without(s, keyword);
    const arbs: fc.Arbitrary<unknown>[] = [];
    let first: Built | undefined;
    let exact = keyword === 'anyOf';
    for (const [i, raw] of (s[keyword] as unknown[]).entries()) {
      const pointer = `${at.pointer}/${keyword}/${i}`;
      const branch = this.deref(raw);
      let built: Built;
      if (branch === true) built = this.build(rest, { ...at, hops: at.hops + 1 });
      else if (isObject(branch)) {
        const both = intersect(rest, branch);
        if ('conflict' in both) built = problem(both.keyword, pointer, both.conflict);
        else {
          exact &&= both.exact && !(isObject(raw) && typeof raw.$ref === 'string' && branch === raw);
          built = this.build(both.schema, { ...at, pointer, hops: at.hops + 1 });
        }
      } else built = this.build(raw, { ...at, pointer, hops: at.hops + 1 }); // false, or a reference that leads nowhere: build says which
      if (built.ok) arbs.push(built.arb);
      else first ??= built;
    }
    if (arbs.length === 0) return first ?? problem(keyword, `${at.pointer}/${keyword}`, `${keyword} has no branch`);
    const arb = arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
    return { ok: true, arb: exact ? arb : this.checked(arb, s, keyword, `${at.pointer}/${keyword}`) };
  }

  /** if/then/else: values meeting `if` and `then`, or `else`; checked against the whole. */
  private conditional(s: Schema, at: At): Built {
    const rest = without(s, 'if', 'then', 'else');
    const sides: fc.Arbitrary<unknown>[] = [];
    let first: Built | undefined;
    const side = (parts: unknown[]) => {
      const built = this.build({ ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), ...parts] }, { ...at, hops: at.hops + 1 });
      if (built.ok) sides.push(built.arb);
      else first ??= built;
    };
    side([s.if, ...('then' in s ? [s.then] : [])]);
    side('else' in s ? [s.else] : []);
    if (sides.length === 0) return first!;
    return { ok: true, arb: this.checked(fc.oneof(...sides), s, 'if', `${at.pointer}/if`) };
  }

  private typesOf(s: Schema): Type[] {
    const t = s.type;
    if (typeof t === 'string') return TYPES.includes(t as Type) ? [t as Type] : [];
    if (Array.isArray(t)) return TYPES.filter((x) => t.includes(x));
    const implied: Type[] = [];
    if (OBJECT_KEYWORDS.some((k) => k in s)) implied.push('object');
    if (ARRAY_KEYWORDS.some((k) => k in s)) implied.push('array');
    if (STRING_KEYWORDS.some((k) => k in s) || (typeof s.format === 'string' && !(s.format in NUMERIC_FORMAT_BOUNDS))) implied.push('string');
    if (NUMBER_KEYWORDS.some((k) => k in s)) implied.push('number');
    return implied.length > 0 ? implied : ['null', 'boolean', 'number', 'string', 'array', 'object'];
  }

  private typed(s: Schema, at: At): Built {
    const types = this.typesOf(s);
    if (types.length === 0) return problem('type', `${at.pointer}/type`, `unknown type ${JSON.stringify(s.type)}`);
    const arbs: fc.Arbitrary<unknown>[] = [];
    let first: Built | undefined;
    for (const t of types) {
      if (t === 'integer' && types.includes('number')) continue;
      const built = this.ofType(s, t, at);
      if (built.ok) arbs.push(built.arb);
      else first ??= built;
    }
    if (arbs.length === 0) return first!;
    return { ok: true, arb: arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs) };
  }

  private ofType(s: Schema, t: Type, at: At): Built {
    switch (t) {
      case 'null':
        return { ok: true, arb: fc.constant(null) };
      case 'boolean':
        return { ok: true, arb: fc.boolean() };
      case 'integer':
      case 'number':
        return this.number(s, t === 'integer', at);
      case 'string':
        return this.string(s, at);
      case 'array':
        return this.array(s, at);
      case 'object':
        return this.object(s, at);
    }
  }

  private anyValue(depth: number): fc.Arbitrary<unknown> {
    const scalar = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: this.o.maxLength, unit: this.o.stringUnit }));
    return depth >= this.o.maxDepth ? scalar : fc.jsonValue({ maxDepth: Math.min(2, this.o.maxDepth - depth), stringUnit: this.o.stringUnit });
  }

  // ---- numbers ---------------------------------------------------------------------------------

  private number(s: Schema, integer: boolean, at: At): Built {
    let { lo, hi, loOpen, hiOpen } = numericBounds(s);
    const bounds = typeof s.format === 'string' ? NUMERIC_FORMAT_BOUNDS[s.format] : undefined;
    if (bounds) {
      integer ||= bounds.integer;
      if (lo === undefined || lo < bounds.min) [lo, loOpen] = [bounds.min, false];
      if (hi === undefined || hi > bounds.max) [hi, hiOpen] = [bounds.max, false];
    }
    const step = num(s.multipleOf);
    const where = `${at.pointer}/${hi !== undefined ? 'maximum' : 'minimum'}`;
    if (lo !== undefined && hi !== undefined && (lo > hi || (lo === hi && (loOpen || hiOpen)))) return problem(hi === num(s.exclusiveMaximum) ? 'exclusiveMaximum' : 'maximum', where, `no number lies between the lower bound ${lo} and the upper bound ${hi}`);
    const inRange = (v: number) => (lo === undefined || (loOpen ? v > lo : v >= lo)) && (hi === undefined || (hiOpen ? v < hi : v <= hi));
    if (step !== undefined && step > 0) {
      // ajv's test: value / multipleOf is an integer.
      const fits = (v: number) => inRange(v) && Number.isInteger(v / step) && (!integer || Number.isInteger(v));
      const kLo = Math.max(lo === undefined ? -1e6 : Math.ceil(lo / step), Math.ceil(Number.MIN_SAFE_INTEGER / Math.max(step, 1)));
      const kHi = Math.min(hi === undefined ? 1e6 : Math.floor(hi / step), Math.floor(Number.MAX_SAFE_INTEGER / Math.max(step, 1)));
      if (kLo > kHi) return problem('multipleOf', `${at.pointer}/multipleOf`, `no multiple of ${step} lies within the bounds`);
      const multiples = fc.integer({ min: kLo, max: kHi }).map((k) => k * step);
      return { ok: true, arb: boundedFilter(multiples, (v) => fits(v as number), () => ({ keyword: 'multipleOf', pointer: `${at.pointer}/multipleOf`, reason: `multiples of ${step} miss the bounds` })) };
    }
    const iLo = lo === undefined ? Number.MIN_SAFE_INTEGER : Math.max(Number.MIN_SAFE_INTEGER, loOpen ? Math.floor(lo) + 1 : Math.ceil(lo));
    const iHi = hi === undefined ? Number.MAX_SAFE_INTEGER : Math.min(Number.MAX_SAFE_INTEGER, hiOpen ? Math.ceil(hi) - 1 : Math.floor(hi));
    const integers = iLo <= iHi ? fc.integer({ min: iLo, max: iHi }) : undefined;
    if (integer) return integers ? { ok: true, arb: integers } : problem('maximum', where, `no integer lies between ${lo} and ${hi}`);
    const doubles = fc.double({ noNaN: true, noDefaultInfinity: true, ...(lo !== undefined ? { min: lo, minExcluded: loOpen } : {}), ...(hi !== undefined ? { max: hi, maxExcluded: hiOpen } : {}) });
    return { ok: true, arb: integers ? fc.oneof(integers, doubles) : doubles };
  }

  // ---- strings ---------------------------------------------------------------------------------

  private string(s: Schema, at: At): Built {
    const min = num(s.minLength) ?? 0;
    const max = num(s.maxLength);
    if (max !== undefined && max < min) return problem('maxLength', `${at.pointer}/maxLength`, `maxLength ${max} is below minLength ${min}`);
    const format = typeof s.format === 'string' ? formatValues(s.format) : undefined;
    let pattern: RegExp | undefined;
    if (typeof s.pattern === 'string') {
      try {
        pattern = new RegExp(s.pattern, 'u');
      } catch {
        return problem('pattern', `${at.pointer}/pattern`, `${JSON.stringify(s.pattern)} is not a regular expression`);
      }
    }
    let arb: fc.Arbitrary<string>;
    if (format) arb = format;
    else if (pattern) {
      try {
        arb = fc.stringMatching(pattern, { maxLength: max ?? min + this.o.maxLength * 4 });
      } catch (e) {
        return problem('pattern', `${at.pointer}/pattern`, `cannot generate strings matching ${JSON.stringify(s.pattern)}: ${e instanceof Error ? e.message : String(e)}`);
      }
    } else return { ok: true, arb: fc.string({ minLength: min, maxLength: max ?? min + this.o.maxLength, unit: this.o.stringUnit }) };
    const fits = (v: string) => (pattern === undefined || pattern.test(v)) && length(v) >= min && (max === undefined || length(v) <= max);
    return { ok: true, arb: boundedFilter(arb, (v) => fits(v as string), (last) => {
      const keyword = pattern && !pattern.test(last) ? 'pattern' : length(last) < min ? 'minLength' : 'maxLength';
      return { keyword, pointer: `${at.pointer}/${keyword}`, reason: 'generated strings do not meet the pattern, format and length bounds together' };
    }) };
  }

  // ---- arrays ----------------------------------------------------------------------------------

  private array(s: Schema, at: At): Built {
    const min = num(s.minItems) ?? 0;
    const max = num(s.maxItems);
    if (max !== undefined && max < min) return problem('maxItems', `${at.pointer}/maxItems`, `maxItems ${max} is below minItems ${min}`);
    const modern = this.scope.dialect === '2020-12';
    const tupleKey = modern ? 'prefixItems' : 'items';
    const tuple = Array.isArray(s[tupleKey]) ? (s[tupleKey] as unknown[]) : [];
    const restKey = modern ? 'items' : Array.isArray(s.items) ? 'additionalItems' : 'items';
    const restSchema = restKey in s && !Array.isArray(s[restKey]) ? s[restKey] : true;
    const child = (i: number | string): At => ({ pointer: `${at.pointer}/${i}`, depth: at.depth + 1, hops: 0 });
    const minimal = at.depth >= this.o.maxDepth;
    const upper = Math.min(max ?? Infinity, minimal ? min : Math.max(min, tuple.length) + this.o.maxItems);
    const items: fc.Arbitrary<unknown>[] = [];
    for (const [i, item] of tuple.entries()) {
      if (i >= upper) break;
      const built = this.build(item, child(`${tupleKey}/${i}`));
      if (!built.ok) {
        if (i < min) return built;
        break;
      }
      items.push(built.arb);
    }
    const restCount = Math.max(0, upper - items.length);
    const needRest = Math.max(0, min - items.length);
    let rest: fc.Arbitrary<unknown[]> = fc.constant([]);
    if (restCount > 0 && items.length === tuple.length) {
      const built = this.build(restSchema, child(restKey));
      if (!built.ok) {
        if (needRest > 0) return built;
      } else {
        rest = s.uniqueItems === true
          ? fc.uniqueArray(built.arb, { minLength: needRest, maxLength: restCount, selector: canonical })
          : fc.array(built.arb, { minLength: needRest, maxLength: restCount });
      }
    } else if (needRest > 0) return problem(restKey, `${at.pointer}/${restKey}`, `minItems ${min} needs items the schema does not allow`);
    // Tuple members beyond minItems are optional: a prefix of them, at least as long as minItems wants.
    const tupleMin = Math.min(items.length, min);
    const arb = fc.tuple(fc.tuple(...items), fc.integer({ min: tupleMin, max: items.length }), rest).map(([head, n, tail]) => (n < head.length ? head.slice(0, n) : [...head, ...tail]));
    if (!('contains' in s)) return { ok: true, arb };
    // One item that meets `contains` (and the items schema), put after the tuple; the rest of
    // contains (minContains, maxContains, a tuple-only array) is checked on the result.
    const wanted = this.build(restSchema === true ? s.contains : { allOf: [restSchema, s.contains] }, child('contains'));
    if (!wanted.ok) return wanted;
    const withOne = fc.tuple(arb, wanted.arb, fc.nat()).map(([xs, item, i]) => {
      const out = [...xs];
      const from = Math.min(tuple.length, out.length);
      const room = max === undefined || out.length < max;
      const at = from + (i % (out.length - from + (room ? 1 : 0) || 1));
      out.splice(at, room ? 0 : 1, item);
      return out;
    });
    return { ok: true, arb: withOne };
  }

  // ---- objects ---------------------------------------------------------------------------------

  private object(s: Schema, at: At): Built {
    const props = isObject(s.properties) ? s.properties : {};
    const patterns = isObject(s.patternProperties) ? Object.entries(s.patternProperties) : [];
    let regexes: RegExp[];
    try {
      regexes = patterns.map(([p]) => new RegExp(p, 'u'));
    } catch {
      return problem('patternProperties', `${at.pointer}/patternProperties`, 'a patternProperties key is not a regular expression');
    }
    const additional = 'additionalProperties' in s ? s.additionalProperties : true;
    const dependentRequired = this.dependentRequired(s);
    const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
    // A required property's dependencies are required too.
    for (let grew = true; grew; ) {
      grew = false;
      for (const name of [...required]) for (const dep of dependentRequired.get(name) ?? []) if (!required.has(dep)) grew = required.add(dep) !== undefined;
    }
    const minProps = num(s.minProperties) ?? 0;
    const maxProps = num(s.maxProperties);
    if (maxProps !== undefined && required.size > maxProps) return problem('maxProperties', `${at.pointer}/maxProperties`, `${required.size} required properties exceed maxProperties ${maxProps}`);
    const minimal = at.depth >= this.o.maxDepth;
    const child = (path: string, holder: string): At => ({ pointer: `${at.pointer}/${path}`, depth: at.depth + 1, hops: 0, holder });
    const schemaOf = (name: string): { schema: unknown; path: string } => {
      const matching = patterns.filter((_, i) => regexes[i]!.test(name));
      const own = Object.hasOwn(props, name) ? [{ schema: props[name], path: `properties/${pointerToken(name)}` }] : [];
      const byPattern = matching.map(([p, sc]) => ({ schema: sc, path: `patternProperties/${pointerToken(p)}` }));
      const all = [...own, ...byPattern];
      if (all.length === 0) return { schema: additional, path: 'additionalProperties' };
      return all.length === 1 ? all[0]! : { schema: { allOf: all.map((x) => x.schema) }, path: all[0]!.path };
    };
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    // Optional declared properties, in order, are promoted to required until minProperties is met.
    const optional = Object.keys(props).filter((n) => !required.has(n));
    for (const name of optional) if (required.size < minProps) required.add(name);
    for (const name of new Set([...required, ...(minimal ? [] : optional)])) {
      const { schema, path } = schemaOf(name);
      const given = this.o.propertyValues?.[name];
      const built = given ? this.given(given, schema, `${at.pointer}/${path}`) : this.build(schema, child(path, name));
      if (!built.ok) {
        if (required.has(name)) return schema === false ? problem('required', `${at.pointer}/required`, `required property ${JSON.stringify(name)} is not allowed (its schema is false)`) : built;
        continue;
      }
      model[name] = built.arb;
    }
    const extras = this.extras(s, at, props, patterns, regexes, additional, Math.max(0, minProps - Object.keys(model).length), minimal);
    if (!extras.ok) return extras;
    const requiredKeys = [...required].filter((n) => n in model);
    const record = fc.record(model, { requiredKeys });
    const arb = fc.tuple(record, extras.arb).map(([declared, extra]) => {
      const out: Record<string, unknown> = Object.fromEntries([...Object.entries(extra as Record<string, unknown>), ...Object.entries(declared)]);
      // dependentRequired: an optional property whose dependencies are absent is dropped.
      for (const [name, deps] of dependentRequired) if (name in out && !required.has(name) && deps.some((d) => !(d in out))) delete out[name];
      if (maxProps !== undefined) for (const name of Object.keys(out)) if (Object.keys(out).length > maxProps && !required.has(name)) delete out[name];
      return out;
    });
    return { ok: true, arb: minProps > 0 ? boundedFilter(arb, (v) => Object.keys(v as object).length >= minProps, () => ({ keyword: 'minProperties', pointer: `${at.pointer}/minProperties`, reason: 'generated objects have too few properties' })) : arb };
  }

  /** A caller's values for a property, held to the property's schema. */
  private given(arb: fc.Arbitrary<unknown>, schema: unknown, pointer: string): Built {
    if (schema === false) return problem('false', pointer, 'the schema false admits no value');
    return { ok: true, arb: boundedFilter(arb, (v) => schema === true || this.holds(schema, v), () => ({ keyword: 'propertyValues', pointer, reason: 'the values given for this property do not meet its schema' })) };
  }

  /** dependentRequired (2019-09+) and the array form of draft-07 `dependencies`. */
  private dependentRequired(s: Schema): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const source of [s.dependentRequired, s.dependencies]) {
      if (!isObject(source)) continue;
      for (const [name, deps] of Object.entries(source)) if (Array.isArray(deps)) out.set(name, [...(out.get(name) ?? []), ...deps.filter((d): d is string => typeof d === 'string')]);
    }
    return out;
  }

  /** Undeclared properties: keys by patternProperties, propertyNames or `keysUnder`, values by their schema. */
  private extras(s: Schema, at: At, props: Schema, patterns: Array<[string, unknown]>, regexes: RegExp[], additional: unknown, atLeast: number, minimal: boolean): Built {
    const explicit = isObject(additional) || patterns.length > 0;
    const allowed = additional !== false || patterns.length > 0;
    const most = minimal ? atLeast : Math.max(atLeast, this.o.undeclaredProperties || explicit ? this.o.maxExtraProperties : 0);
    if (!allowed || most === 0) return atLeast > 0 ? problem('minProperties', `${at.pointer}/minProperties`, `minProperties needs ${atLeast} more properties than the schema declares and allows`) : { ok: true, arb: fc.constant({}) };
    const entries: fc.Arbitrary<[string, unknown]>[] = [];
    const undeclared = (k: string) => !Object.hasOwn(props, k);
    for (const [i, [p, schema]] of patterns.entries()) {
      let keys: fc.Arbitrary<string>;
      try {
        keys = fc.stringMatching(regexes[i]!, { maxLength: this.o.maxLength * 2 });
      } catch {
        continue;
      }
      const value = this.build(schema, { pointer: `${at.pointer}/patternProperties/${pointerToken(p)}`, depth: at.depth + 1, hops: 0 });
      // A key matched by several patterns must meet all their schemas: such keys are left out.
      const own = (k: string) => undeclared(k) && regexes.every((r, j) => j === i || !r.test(k));
      const where = `${at.pointer}/patternProperties/${pointerToken(p)}`;
      if (value.ok && yields(keys, own)) entries.push(fc.tuple(boundedFilter(keys, own, () => ({ keyword: 'patternProperties', pointer: where, reason: 'generated keys are declared or match another pattern too' })), value.arb));
    }
    if (additional !== false && (this.o.undeclaredProperties || isObject(additional))) {
      const value = this.build(additional, { pointer: `${at.pointer}/additionalProperties`, depth: at.depth + 1, hops: 0 });
      const named = at.holder !== undefined ? this.o.keysUnder?.[at.holder] : undefined;
      const names = isObject(s.propertyNames) || typeof s.propertyNames === 'boolean' ? this.build(intersectOrSelf(s.propertyNames, { type: 'string' }), { pointer: `${at.pointer}/propertyNames`, depth: at.depth + 1, hops: 0 }) : undefined;
      const keys = named ?? (names?.ok ? (names.arb as fc.Arbitrary<string>) : fc.string({ minLength: 1, maxLength: 12, unit: this.o.stringUnit }));
      const fresh = (k: string) => undeclared(k) && regexes.every((r) => !r.test(k));
      const where = `${at.pointer}/additionalProperties`;
      if (value.ok && !(names && !names.ok) && yields(keys, fresh)) entries.push(fc.tuple(boundedFilter(keys, fresh, () => ({ keyword: 'additionalProperties', pointer: where, reason: 'generated keys are all declared or matched by patternProperties' })), value.arb));
    }
    if (entries.length === 0) return atLeast > 0 ? problem('minProperties', `${at.pointer}/minProperties`, `minProperties needs ${atLeast} undeclared properties, and none can be generated`) : { ok: true, arb: fc.constant({}) };
    const pairs = fc.uniqueArray(entries.length === 1 ? entries[0]! : fc.oneof(...entries), { minLength: atLeast, maxLength: most, selector: ([k]) => k });
    return { ok: true, arb: pairs.map((ps) => Object.fromEntries(ps)) };
  }
}

/** Whether a few keys of `keys` (fixed seed) include one that `usable` accepts: else undeclared properties of that kind are not generated. */
function yields(keys: fc.Arbitrary<string>, usable: (k: string) => boolean): boolean {
  try {
    return fc.sample(keys, { numRuns: 20, seed: 1 }).some(usable);
  } catch {
    return false;
  }
}

function intersectOrSelf(schema: unknown, extra: Schema): unknown {
  if (!isObject(schema)) return schema;
  const both = intersect(schema, extra);
  return 'schema' in both ? both.schema : schema;
}

/**
 * An Arbitrary of values valid against `schema` (see the module comment), or the problem that
 * stops it: the schema cannot be used (not an object, unsupported dialect, does not compile), a
 * keyword is unsatisfiable (`maxLength` below `minLength`, conflicting `allOf` members) or cannot
 * be generated (`$dynamicRef`, a pattern fast-check cannot read), or no sampled value was valid.
 */
export function schemaArbitrary(schema: unknown, options: ArbitraryOptions = {}): SchemaArbitrary {
  if (typeof schema === 'boolean') schema = schema ? {} : { not: {} };
  if (!isObject(schema)) return { ok: false, problem: { keyword: 'type', pointer: '#', message: 'the schema is not a JSON Schema object' } };
  return arbitraryAt(schema, '#', options);
}

const scopes = new WeakMap<object, ScopedValidator | { unusable: string }>();

/** Judges a value against the whole schema: undefined when valid, else the failing keyword and its schema path. */
export type Judge = (value: unknown) => { keyword: string; schemaPath: string; message: string } | undefined;

/**
 * Like schemaArbitrary, for the subschema at `pointer` (a local `$ref`, e.g. "#/$defs/Tool") of
 * `document`. Generators for many parts of one document share its compiled validators; `judge`
 * replaces the final check against the subschema where the caller has that validator compiled.
 */
export function arbitraryAt(document: Readonly<Record<string, unknown>>, pointer: string, options: ArbitraryOptions = {}, judge?: Judge): SchemaArbitrary {
  let scope = scopes.get(document);
  if (!scope) scopes.set(document, (scope = scopedValidator(document)));
  if ('unusable' in scope) return { ok: false, problem: { keyword: '$schema', pointer: '#', message: scope.unusable } };
  const checker = scope;
  const start = pointer === '#' ? document : resolveLocalRef(document, pointer);
  if (start === undefined) return { ok: false, problem: { keyword: '$ref', pointer, message: `${JSON.stringify(pointer)} names no part of the schema` } };
  const whole = pointer === '#' ? document : { $ref: pointer };
  const final: Judge = judge ?? ((v) => checker.why(whole, v));
  let built: Built;
  try {
    built = new Builder(document, checker, options).build(start, { pointer, depth: 0, hops: 0 });
  } catch (e) {
    return { ok: false, problem: { keyword: 'type', pointer, message: `the schema cannot be used: ${e instanceof Error ? e.message : String(e)}` } };
  }
  if (!built.ok) return built;
  try {
    final(null);
  } catch (e) {
    return { ok: false, problem: { keyword: '$schema', pointer, message: `the schema does not compile: ${e instanceof Error ? e.message : String(e)}` } };
  }
  if (options.finalCheck === false) return probe(built.arb) ?? { ok: true, arbitrary: built.arb, dialect: checker.dialect };
  const arbitrary = boundedFilter(built.arb, (v) => final(v) === undefined, (last) => {
    const why = final(last);
    return { keyword: why?.keyword ?? 'type', pointer: why?.schemaPath ?? pointer, reason: `generated values are invalid: ${why?.message ?? 'invalid'}` };
  });
  return probe(arbitrary) ?? { ok: true, arbitrary, dialect: checker.dialect };
}

/** Samples a few values with a fixed seed: a schema whose values all fail is reported now, not mid-run. */
function probe(arbitrary: fc.Arbitrary<unknown>): SchemaArbitrary | undefined {
  try {
    fc.sample(arbitrary, { numRuns: PROBE_RUNS, seed: 42 });
    return undefined;
  } catch (e) {
    if (e instanceof GenerationFailed) return { ok: false, problem: { keyword: e.keyword, pointer: e.pointer, message: e.message } };
    return { ok: false, problem: { keyword: 'type', pointer: '#', message: `generation failed: ${e instanceof Error ? e.message : String(e)}` } };
  }
}
