import { type Finding, ptr, show, violation } from './finding.js';
import { obj } from '../json.js';

export type UriTemplateParse = { ok: true; variables: string[] } | { ok: false; error: string };

const OPERATORS = '+#./;?&';
const RESERVED_OPERATORS = '=,!@|';
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
const PREFIX = /^[1-9][0-9]{0,3}$/;
// Literals: any character but CTL, space, and " ' < > \ ^ ` { | } ; "%" only as a pct-encoding.
// eslint-disable-next-line no-control-regex
const BAD_LITERAL = /[\u0000-\u0020\u007f"'<>\\^`{|}]/;

/** Parses an RFC 6570 URI template (levels 1–4); returns its variable names or the first error. */
export function parseUriTemplate(template: string): UriTemplateParse {
  const variables: string[] = [];
  let i = 0;
  while (i < template.length) {
    const c = template[i]!;
    if (c === '{') {
      const end = template.indexOf('}', i + 1);
      if (end < 0) return { ok: false, error: `unclosed "{" at offset ${i}` };
      let body = template.slice(i + 1, end);
      if (body.includes('{')) return { ok: false, error: `nested "{" in the expression at offset ${i}` };
      if (body !== '' && OPERATORS.includes(body[0]!)) body = body.slice(1);
      else if (body !== '' && RESERVED_OPERATORS.includes(body[0]!)) return { ok: false, error: `operator "${body[0]}" is reserved for future extensions (offset ${i})` };
      if (body === '') return { ok: false, error: `empty expression at offset ${i}` };
      for (const spec of body.split(',')) {
        let name = spec;
        if (name.endsWith('*')) name = name.slice(0, -1);
        else if (name.includes(':')) {
          const [n, max] = name.split(':', 2) as [string, string];
          if (!PREFIX.test(max) || name.split(':').length > 2) return { ok: false, error: `bad prefix modifier in ${show(spec)} (":" then 1–9999)` };
          name = n;
        }
        if (!VARNAME.test(name)) return { ok: false, error: `bad variable name ${show(spec)} (letters, digits, "_", pct-encodings, inner ".")` };
        variables.push(name);
      }
      i = end + 1;
    } else if (c === '}') {
      return { ok: false, error: `"}" without "{" at offset ${i}` };
    } else if (c === '%') {
      if (!/^%[0-9A-Fa-f]{2}$/.test(template.slice(i, i + 3))) return { ok: false, error: `"%" not followed by two hex digits at offset ${i}` };
      i += 3;
    } else {
      if (BAD_LITERAL.test(c)) return { ok: false, error: `character ${show(c)} is not allowed in a literal (offset ${i})` };
      i++;
    }
  }
  return { ok: true, variables };
}

/** RES-TPL-01 on a resources/templates/list result: every uriTemplate parses as RFC 6570. */
export function checkTemplateList(result: Record<string, unknown>): Finding[] {
  if (!Array.isArray(result.resourceTemplates)) return [];
  const findings: Finding[] = [];
  result.resourceTemplates.forEach((t, i) => {
    const template = obj(t)?.uriTemplate;
    if (typeof template !== 'string') return;
    const parsed = parseUriTemplate(template);
    if (!parsed.ok) findings.push(violation('RES-TPL-01', `expected an RFC 6570 URI template; ${show(template, 80)}: ${parsed.error}`, ptr('result', 'resourceTemplates', i, 'uriTemplate')));
  });
  return findings;
}
