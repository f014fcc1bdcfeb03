import { isObject } from '../json.js';

/**
 * The intersection of two schema objects as one schema, for generating from `allOf`, from a `$ref`
 * with siblings and from a branch of `anyOf`/`oneOf` together with the keywords beside it. Bounds
 * tighten, types and enums intersect, required lists unite, properties present on both sides become
 * `allOf` of the two. Where two values of a keyword cannot be combined into one (two patterns, two
 * formats, two `anyOf` lists …) the first side's is kept and the result is marked inexact: the
 * caller must then check generated values against the original schema.
 */
export type Intersection = { schema: Record<string, unknown>; exact: boolean } | { conflict: string; keyword: string };

/** Keywords no value is judged by: the first side's is kept. */
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', '$schema', '$id', '$anchor', '$defs', 'definitions', 'contentMediaType', 'contentEncoding', '$vocabulary']);
const LOWER_BOUNDS = new Set(['minimum', 'minLength', 'minItems', 'minProperties', 'minContains']);
const UPPER_BOUNDS = new Set(['maximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains']);
/** Keywords whose two values are both met by a value meeting `allOf` of them. */
const CONJOINABLE = new Set(['items', 'additionalItems', 'contains', 'propertyNames', 'unevaluatedItems']);
/** Maps of names to schemas: a name on both sides must meet both schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas']);

const json = (v: unknown) => JSON.stringify(v);

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function intersectTypes(x: unknown, y: unknown): string[] {
  const xs = (Array.isArray(x) ? x : [x]).filter((t): t is string => typeof t === 'string');
  const ys = (Array.isArray(y) ? y : [y]).filter((t): t is string => typeof t === 'string');
  const has = (list: string[], t: string) => list.includes(t) || (t === 'integer' && list.includes('number'));
  return [...new Set([...xs.filter((t) => has(ys, t)), ...ys.filter((t) => has(xs, t))])].filter((t) => !(t === 'number' && !(xs.includes('number') && ys.includes('number'))));
}

const names = (s: Record<string, unknown>) => Object.keys(isObject(s.properties) ? s.properties : {});

function judgesOthers(x: Record<string, unknown>, y: Record<string, unknown>): boolean {
  if (!('additionalProperties' in x) && !('patternProperties' in x) && !('unevaluatedProperties' in x)) return false;
  const own = new Set(names(x));
  return names(y).some((n) => !own.has(n));
}

export function intersect(a: Record<string, unknown>, b: Record<string, unknown>): Intersection {
  const out: Record<string, unknown> = { ...a };
  let exact = true;
  for (const [k, v] of Object.entries(b)) {
    if (!Object.hasOwn(out, k)) {
      out[k] = v;
      continue;
    }
    const cur = out[k];
    if (ANNOTATIONS.has(k) || json(cur) === json(v)) continue;
    if (k === 'type') {
      const both = intersectTypes(cur, v);
      if (both.length === 0) return { conflict: `types ${json(cur)} and ${json(v)} have no value in common`, keyword: 'type' };
      out[k] = both.length === 1 ? both[0] : both;
    } else if (k === 'const') {
      return { conflict: `const ${json(cur)} and const ${json(v)} differ`, keyword: 'const' };
    } else if (k === 'enum' && Array.isArray(cur) && Array.isArray(v)) {
      const ys = new Set(v.map(json));
      const both = cur.filter((x) => ys.has(json(x)));
      if (both.length === 0) return { conflict: `enums ${json(cur)} and ${json(v)} have no value in common`, keyword: 'enum' };
      out[k] = both;
    } else if (LOWER_BOUNDS.has(k) && typeof cur === 'number' && typeof v === 'number') out[k] = Math.max(cur, v);
    else if (UPPER_BOUNDS.has(k) && typeof cur === 'number' && typeof v === 'number') out[k] = Math.min(cur, v);
    else if (k === 'exclusiveMinimum' && typeof cur === 'number' && typeof v === 'number') out[k] = Math.max(cur, v);
    else if (k === 'exclusiveMaximum' && typeof cur === 'number' && typeof v === 'number') out[k] = Math.min(cur, v);
    else if (k === 'multipleOf' && Number.isInteger(cur) && Number.isInteger(v)) out[k] = ((cur as number) * (v as number)) / gcd(cur as number, v as number);
    else if (k === 'required' && Array.isArray(cur) && Array.isArray(v)) out[k] = [...new Set([...cur, ...v])];
    else if (k === 'uniqueItems') out[k] = cur === true || v === true;
    else if (k === 'allOf' && Array.isArray(cur) && Array.isArray(v)) out[k] = [...cur, ...v];
    else if (k === 'not') out[k] = { anyOf: [cur, v] };
    else if (CONJOINABLE.has(k) && !Array.isArray(cur) && !Array.isArray(v)) out[k] = { allOf: [cur, v] };
    else if (k === 'additionalProperties' && !Array.isArray(cur)) out[k] = { allOf: [cur, v] };
    else if (SCHEMA_MAPS.has(k) && isObject(cur) && isObject(v)) {
      const map: Record<string, unknown> = { ...cur };
      for (const [name, s] of Object.entries(v)) map[name] = Object.hasOwn(map, name) ? { allOf: [map[name], s] } : s;
      out[k] = map;
    } else if (k === 'dependentRequired' && isObject(cur) && isObject(v)) {
      const map: Record<string, unknown> = { ...cur };
      for (const [name, list] of Object.entries(v)) map[name] = [...new Set([...(Array.isArray(map[name]) ? (map[name] as unknown[]) : []), ...(Array.isArray(list) ? list : [])])];
      out[k] = map;
    } else exact = false;
  }
  // A side's additionalProperties and patternProperties judge the properties only the other side names.
  if (exact && (judgesOthers(a, b) || judgesOthers(b, a))) exact = false;
  if ('prefixItems' in a && 'prefixItems' in b) exact = false;
  return { schema: out, exact };
}
