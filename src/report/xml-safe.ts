/**
 * Make text carriable by XML 1.0. A target can send characters XML 1.0 cannot represent at all
 * (NUL and most C0 controls, U+FFFE/U+FFFF, lone surrogates), not even as character references.
 * Each is replaced by a visible `\uXXXX` so the reader sees it was there. Markup characters are
 * the writer's business (junit.ts escapes `&`, `<`, `>`, quotes), not this function's.
 */
export function xmlSafe(text: string): string {
  return text.replace(INVALID_XML_10, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

// Everything outside XML 1.0's Char production (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]).
// With the `u` flag a lone surrogate is its own code point, so it matches here while valid pairs do not.
const INVALID_XML_10 = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
