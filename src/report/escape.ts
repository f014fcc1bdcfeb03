/**
 * Make text a target sent safe to print on a terminal.
 *
 * A hostile or broken target controls server names, error messages and excerpts. Printed raw,
 * ESC (and the 8-bit CSI, U+009B) would let it recolour, hide or rewrite report lines, move the
 * cursor, set the window title or emit hyperlinks; CR and BS can overwrite a FAIL with a PASS,
 * and bidi overrides can make text read differently from what it is. Each such character is
 * replaced by a visible escape (`\x1b`, `\r`, `\u202e`), which defuses every escape sequence at
 * once (without its ESC it is plain text) and still shows the reader what the target sent.
 *
 * With `allowNewlines`, `\n` is kept so multi-line messages stay readable; the caller must then
 * indent continuation lines so they cannot pose as report lines.
 */
export function escapeTerminal(text: string, options: { allowNewlines?: boolean } = {}): string {
  return text.replace(UNSAFE, (ch) => (ch === '\n' && options.allowNewlines ? ch : visible(ch)));
}

// C0 controls, DEL, C1 controls, bidi embeddings/overrides/isolates, line/paragraph separators,
// BOM/zero-width no-break space, and lone surrogates (which terminals render unpredictably).
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|\p{Cs}/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\v': '\\v' };

function visible(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Where a cut reads well: after a member or element of JSON, or between words. */
const BOUNDARY = new Set([',', '}', ']', ' ']);

/**
 * `text` cut to `max` characters (code points), saying how long it was: after the last JSON
 * member, element or word that fits, when one ends in the last third of `max`, so a reader sees
 * whole values, not `"inputSc…`.
 */
export function truncateAtBoundary(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  let end = max;
  for (let i = max; i > Math.floor((max * 2) / 3); i--) {
    if (BOUNDARY.has(points[i - 1]!)) {
      end = i;
      break;
    }
  }
  return `${points.slice(0, end).join('')}…(${points.length} chars)`;
}

/**
 * `text` in lines of at most `width` characters, broken between words (a word longer than a line
 * is cut); its own line breaks are kept. For the console: a reader's terminal, not a log's width.
 */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let current = '';
    for (const word of line.split(' ')) {
      let rest = word;
      while (Array.from(rest).length > width) {
        if (current !== '') out.push(current);
        const points = Array.from(rest);
        out.push(points.slice(0, width).join(''));
        rest = points.slice(width).join('');
        current = '';
      }
      if (current === '') current = rest;
      else if (Array.from(current).length + 1 + Array.from(rest).length <= width) current += ` ${rest}`;
      else {
        out.push(current);
        current = rest;
      }
    }
    out.push(current);
  }
  return out;
}

/**
 * Make text a target sent inert in GitHub-flavoured Markdown and in the HTML GitHub renders
 * from it, as one inline run after a prefix of ours (a table cell, a list item).
 *
 * Controls, bidi overrides and newlines first become visible escapes (as on a terminal), so text
 * cannot end a table row or start a block of its own. Then every ASCII punctuation character
 * that means something inline is backslash-escaped (CommonMark makes an escaped one literal):
 * no `|` splits a cell, no backtick opens code, no `<` starts a tag or `&` an entity, no `[` makes
 * a link, no `*`/`_`/`~` emphasis, no `$` math, no `:` or `.` completes an autolink (`https://`,
 * `www.`), no `#` or leading `-`/`+` starts a heading or a list. `, ; ' " / = ? %` and an inner `-`
 * mean nothing inline and stay as they are, so the Markdown stays readable. Leading spaces
 * become `&#32;`, which cannot indent a list item's text into a code block. A word joiner after
 * each `@` and `#` stops GitHub from turning `@name` into a mention or `#12` into an issue link
 * (those filters read the rendered text, where a backslash escape is already gone).
 */
export function escapeMarkdown(text: string): string {
  return escapeTerminal(text)
    .replace(/[!#$&()*+.:<>@[\\\]^_`{|}~]|^-/g, '\\$&')
    .replace(/[@#]/g, '$&\u2060')
    .replace(/^ +/, (spaces) => '&#32;'.repeat(spaces.length));
}
