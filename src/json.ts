/** A JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON text parsed, when it is an object; undefined when it is not JSON or not an object. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    return obj(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** The value as a JSON object, or undefined when it is not one. */
export function obj(v: unknown): Record<string, unknown> | undefined {
  return isObject(v) ? v : undefined;
}

/**
 * Whether two parsed JSON values have the same text: the same members in the same order, but for
 * the top-level member `ignoring` (a response's id). What a peer sends again (a tools/list page, a
 * tool's schema) is compared with what it sent before, which costs a fraction of stringifying
 * both. False when in doubt (nesting deeper than the stack).
 */
export function sameJson(a: unknown, b: unknown, ignoring?: string): boolean {
  try {
    return sameValue(a, b, ignoring);
  } catch {
    return false;
  }
}

function sameValue(a: unknown, b: unknown, ignoring?: string): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  // One key list, not two: a's keys are walked in place (for-in gives a parsed object's own keys in order).
  const kb = Object.keys(b);
  let i = 0;
  for (const k in a) {
    if (k !== kb[i++] || (k !== ignoring && !sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))) return false;
  }
  return i === kb.length;
}

/**
 * Whether JSON text can hold a member of one of `names`: names of ASCII letters, digits, `_` and
 * `-`, which JSON text spells out as they are unless it writes them as \u escapes; so a text with
 * none of the names and no \u holds none. Any text that contains the message's own JSON will do
 * (its frame, a whole transcript line).
 */
export function mayHoldMember(text: string, ...names: string[]): boolean {
  return names.some((name) => text.includes(name)) || text.includes('\\u');
}

/**
 * A lookup table keyed by names a peer sends (methods, kinds): a Map, so that a name such as
 * "constructor" or "__proto__" finds nothing rather than Object's own members, and a lookup is
 * one hash probe rather than a property load that varies with every name.
 */
export function table<T>(entries: Readonly<Record<string, T>>): ReadonlyMap<string, T> {
  return new Map(Object.entries(entries));
}

/** The `name` and `version` strings of an object (an Implementation: serverInfo, clientInfo), each when it is one; undefined for no object. */
export function nameAndVersion(v: unknown): { name?: string; version?: string } | undefined {
  if (!isObject(v)) return undefined;
  return { ...(typeof v.name === 'string' ? { name: v.name } : {}), ...(typeof v.version === 'string' ? { version: v.version } : {}) };
}
