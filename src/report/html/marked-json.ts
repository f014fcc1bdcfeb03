import { esc } from './escape.js';

/** Deeper than this, a frame is shown as it came (a report must not recurse without end). */
const MAX_DEPTH = 64;

/** The path a JSON pointer names (RFC 6901), or undefined for one that is not a pointer. */
function pathOf(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * A frame's JSON text pretty-printed and highlighted (the classes of highlightJson), with the
 * value `pointer` names (or the nearest of its parents the frame holds: a missing member marks the
 * object it is missing from) in a <mark>. Every string goes through `esc`. Undefined when the
 * text is not whole JSON (a frame cut by the report's bounds): the caller shows it as it is.
 */
export function markedJsonHtml(text: string, pointer: string | undefined): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const path = pointer === undefined ? undefined : pathOf(pointer);
  // The longest prefix of the path the frame holds.
  let target: string[] | undefined;
  if (path) {
    let at: unknown = value;
    target = [];
    for (const step of path) {
      if (at === null || typeof at !== 'object' || !Object.hasOwn(at, step)) break;
      at = (at as Record<string, unknown>)[step];
      target.push(step);
    }
  }
  const render = (v: unknown, here: string[], depth: number, indent: string): string => {
    const marked = target !== undefined && here.length === target.length && here.every((s, i) => s === target![i]);
    const inner = depth > MAX_DEPTH ? `<span class="s">${esc(JSON.stringify(v) ?? '')}</span>` : body(v, here, depth, indent);
    return marked ? `<mark>${inner}</mark>` : inner;
  };
  const body = (v: unknown, here: string[], depth: number, indent: string): string => {
    if (v === null || typeof v === 'boolean') return `<span class="b">${String(v)}</span>`;
    if (typeof v === 'number') return `<span class="n">${esc(JSON.stringify(v))}</span>`;
    if (typeof v === 'string') return `<span class="s">${esc(JSON.stringify(v))}</span>`;
    const next = `${indent}  `;
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[\n${v.map((x, i) => `${next}${render(x, [...here, String(i)], depth + 1, next)}`).join(',\n')}\n${indent}]`;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, x]) => `${next}<span class="k">${esc(JSON.stringify(k))}</span>: ${render(x, [...here, k], depth + 1, next)}`).join(',\n')}\n${indent}}`;
  };
  return render(value, [], 0, '');
}
