import { isObject } from '../json.js';

/** Shallow merge of two schema objects (for allOf and $ref siblings); undefined on a plain conflict. */
export function mergeAll(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (!(k in out)) {
      out[k] = v;
      continue;
    }
    const cur = out[k];
    if (k === 'properties' && isObject(cur) && isObject(v)) {
      const props: Record<string, unknown> = { ...cur };
      for (const [p, s] of Object.entries(v)) props[p] = p in props && isObject(props[p]) && isObject(s) ? (mergeAll(props[p] as Record<string, unknown>, s) ?? s) : s;
      out[k] = props;
    } else if (k === 'required' && Array.isArray(cur) && Array.isArray(v)) out[k] = [...new Set([...cur, ...v])];
    else if (k === 'minimum' || k === 'minLength' || k === 'minItems' || k === 'exclusiveMinimum' || k === 'minProperties') out[k] = Math.max(Number(cur), Number(v));
    else if (k === 'maximum' || k === 'maxLength' || k === 'maxItems' || k === 'exclusiveMaximum' || k === 'maxProperties') out[k] = Math.min(Number(cur), Number(v));
    else if (k === 'type' && cur !== v) {
      const x = Array.isArray(cur) ? cur : [cur];
      const y = Array.isArray(v) ? v : [v];
      const both = x.filter((t) => y.includes(t) || (t === 'integer' && y.includes('number'))).concat(y.filter((t) => t === 'integer' && x.includes('number')));
      if (both.length === 0) return undefined;
      out[k] = both.length === 1 ? both[0] : [...new Set(both)];
    } else if (JSON.stringify(cur) !== JSON.stringify(v)) {
      if (k === 'description' || k === 'title' || k === '$comment' || k === 'examples' || k === 'default') continue;
      return undefined;
    }
  }
  return out;
}
