/**
 * Make text carriable by XML 1.0. A target can send characters XML 1.0 cannot represent at all
 * (NUL and most C0 controls, U+FFFE/U+FFFF, lone surrogates); xmlbuilder would either throw or, as
 * junit-report-builder configures it, drop them, and its lone-low-surrogate pattern also eats the
 * character before. We replace each with a visible `\uXXXX` so the reader sees it was there.
 *
 * `]]>` is also rewritten: the library wraps logs in CDATA and splits only the *first* `]]>`, so a
 * second one would end the CDATA section early and let target text inject markup. `\u003e` is
 * the JSON spelling of `>`, so JSON excerpts keep their meaning.
 */
export function xmlSafe(text: string): string {
  return text
    .replace(INVALID_XML_10, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`)
    .replace(/\]\]>/g, ']]\\u003e');
}

// Everything outside XML 1.0's Char production (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]).
// With the `u` flag a lone surrogate is its own code point, so it matches here while valid pairs do not.
const INVALID_XML_10 = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
