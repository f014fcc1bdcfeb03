import { isObject } from '../json.js';

/**
 * Ajv leaves a property named "__proto__" out of `properties` (a guard against prototype
 * pollution), so a schema that declares one judges it as an additional property and never applies
 * its subschema. Such a schema and the data it judges are validated with the name stood in for by
 * a key no JSON Schema or MCP name uses, and messages name it again as it was.
 */
const PROTO = '__proto__';
const STANDIN = '__mcpcheck_proto_stand_in__';
/** Keywords whose string members are property names. */
const NAME_LISTS = new Set(['required']);
const NAME_MAPS = new Set(['dependentRequired', 'dependencies']);

/**
 * Whether `value` holds an own "__proto__" member at any depth (the only case that needs the
 * stand-in). Iterative, as a target's schema may nest deeper than the stack; a value met twice (a
 * cycle: no JSON, so no schema a target sent) is left as it is: false.
 */
export function hasProtoKey(value: unknown): boolean {
  let found = false;
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (seen.has(v)) return false;
    seen.add(v);
    if (!Array.isArray(v) && Object.hasOwn(v, PROTO)) found = true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
  }
  return found;
}

function renamed(key: string): string {
  return key === PROTO ? STANDIN : key;
}

function names(list: unknown): unknown {
  return Array.isArray(list) ? list.map((n) => (n === PROTO ? STANDIN : n)) : list;
}

/** `data` with every "__proto__" member renamed to the stand-in; fromEntries defines members, never a prototype. */
export function standInData(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(standInData);
  if (!isObject(data)) return data;
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [renamed(k), standInData(v)]));
}

/** `schema` with "__proto__" renamed wherever it names a property: as a member, and in `required` and `dependentRequired`. */
export function standInSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(standInSchema);
  if (!isObject(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => {
      if (NAME_LISTS.has(k)) return [k, names(v)];
      if (NAME_MAPS.has(k) && isObject(v)) return [k, Object.fromEntries(Object.entries(v).map(([p, list]) => [renamed(p), Array.isArray(list) ? names(list) : standInSchema(list)]))];
      return [renamed(k), standInSchema(v)];
    }),
  );
}

/** A validator's message with the stand-in named as the member it stands for. */
export function unStandIn(message: string): string {
  return message.replaceAll(STANDIN, PROTO);
}
