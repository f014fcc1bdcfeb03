import { isObject } from '../json.js';

/**
 * The node a local `$ref` names: "#" (the root) or a JSON pointer into the root ("#/$defs/x",
 * "#/definitions/x", "#/properties/a/items"), with `~0`, `~1` and percent-escapes decoded.
 * Undefined for remote references and pointers that lead nowhere.
 */
export function resolveLocalRef(root: Record<string, unknown>, ref: string): Record<string, unknown> | boolean | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return isObject(node) || typeof node === 'boolean' ? node : undefined;
}

/** A property name as one JSON pointer token. */
export function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}
