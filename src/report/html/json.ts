import { esc } from './escape.js';

/** Pretty JSON longer than this is cut: deep nesting multiplies indentation, and the report has a size budget. */
export const PRETTY_CHARS = 4000;

// A string (a key when a colon follows), a literal, or a number; everything between is punctuation and space.
const TOKEN = /("(?:[^"\\\n]|\\.)*")(\s*:)?|\b(?:true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Compact JSON re-indented token by token: keys stay in the order sent (duplicates included) and
 * numbers as written, and JSON cut short is indented as far as it goes. Whitespace outside
 * strings is dropped, so already pretty JSON comes out the same.
 */
function reindent(text: string): string {
  let out = '';
  let depth = 0;
  let inString = false;
  const line = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length && out.length <= PRETTY_CHARS; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === '{' || ch === '[') {
      const next = text.slice(i + 1).trimStart()[0];
      if (next === '}' || next === ']') {
        out += ch + next;
        i = text.indexOf(next, i + 1);
      } else {
        depth++;
        out += ch + line();
      }
    } else if (ch === '}' || ch === ']') {
      depth = Math.max(0, depth - 1);
      out += line() + ch;
    } else if (ch === ',') out += ch + line();
    else if (ch === ':') out += ': ';
    else if (!/\s/.test(ch)) out += ch;
  }
  return out;
}

/** JSON (whole, or cut by the report's bounds) pretty-printed; anything else as it came. Bounded either way. */
export function prettyJson(text: string, cut: boolean): string {
  const pretty = /^\s*[[{]/.test(text) && (cut || isJson(text)) ? reindent(text) : text;
  return pretty.length > PRETTY_CHARS ? `${pretty.slice(0, PRETTY_CHARS)}\n…` : pretty;
}

/**
 * JSON text highlighted: each token an escaped span (keys, strings, numbers, literals), every
 * other character escaped too. Works on cut or invalid JSON, whose tail is then plain text.
 */
export function highlightJson(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index;
    out += esc(text.slice(last, at));
    const [token, str, colon] = m;
    if (str !== undefined) out += `<span class="${colon !== undefined ? 'k' : 's'}">${esc(str)}</span>${colon !== undefined ? esc(colon) : ''}`;
    else out += `<span class="${token[0] === '-' || (token[0]! >= '0' && token[0]! <= '9') ? 'n' : 'b'}">${esc(token)}</span>`;
    last = at + token.length;
  }
  return out + esc(text.slice(last));
}
