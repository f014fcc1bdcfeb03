// A small XML reader for the report tests (JUnit): shared by tests/report.test.ts and tests/report-formats.test.ts.

/** A small, strict-enough XML reader: enough to prove well-formedness and to query structure. */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

export function parseXml(xml: string): XmlNode {
  if (/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u.test(xml)) throw new Error('character not allowed in XML 1.0');
  const decode = (s: string) => {
    if (/&(?!(?:lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(s)) throw new Error(`bare & in ${s}`);
    return s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_m, e: string) =>
      e[0] === '#' ? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)) : ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[e]!,
    );
  };
  let i = 0;
  const root: XmlNode = { name: '#document', attrs: {}, children: [], text: '' };
  const stack = [root];
  const decl = /^<\?xml[^?]*\?>/.exec(xml);
  if (decl) i = decl[0].length;
  while (i < xml.length) {
    const top = stack.at(-1)!;
    if (xml.startsWith('<![CDATA[', i)) {
      const end = xml.indexOf(']]>', i);
      if (end < 0) throw new Error('unterminated CDATA');
      top.text += xml.slice(i + 9, end);
      i = end + 3;
    } else if (xml.startsWith('</', i)) {
      const m = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(xml.slice(i));
      if (!m || m[1] !== top.name) throw new Error(`mismatched end tag at ${i}`);
      stack.pop();
      i += m[0].length;
    } else if (xml[i] === '<') {
      const m = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>/.exec(xml.slice(i));
      if (!m) throw new Error(`malformed tag at ${i}: ${xml.slice(i, i + 40)}`);
      const attrs: Record<string, string> = {};
      for (const a of m[2]!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
        if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        attrs[a[1]!] = decode(a[2]!);
      }
      const node: XmlNode = { name: m[1]!, attrs, children: [], text: '' };
      if (top === root && root.children.length > 0) throw new Error('more than one root element');
      top.children.push(node);
      if (m[3] !== '/') stack.push(node);
      i += m[0].length;
    } else {
      const next = xml.indexOf('<', i);
      const raw = xml.slice(i, next < 0 ? xml.length : next);
      if (raw.includes('>') && raw.includes(']]>')) throw new Error(']]> in text');
      if (top === root && raw.trim() !== '') throw new Error('text outside the root element');
      top.text += decode(raw);
      i += raw.length;
    }
  }
  if (stack.length !== 1) throw new Error('unclosed elements');
  return root.children[0]!;
}

export const all = (node: XmlNode, name: string): XmlNode[] => [...(node.name === name ? [node] : []), ...node.children.flatMap((c) => all(c, name))];
export const child = (node: XmlNode, name: string) => node.children.find((c) => c.name === name);
