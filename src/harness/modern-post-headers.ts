/**
 * The standard request headers of a client's modern POST, judged against its body (HDR-VER-01/02,
 * HDR-STD-01/02). A private stand-in: validate2026 writes the pure judge of these rules,
 * `checkModernRequestHeaders(headers, message)` in src/validate/modern-headers.ts; at the merge
 * `judgeModernPost` delegates to it and this file goes.
 */
import { isObject } from '../json.js';
import { levelIn } from '../spec/catalog.js';
import { META, MODERN_HEADERS } from '../spec/modern.js';
import type { RequirementId } from '../spec/requirement-id.js';
import type { Finding } from '../validate/finding.js';

const NAMED = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' } as const;
const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

function finding(id: RequirementId, message: string): Finding {
  const level = levelIn(id, '2026-07-28');
  return { requirements: [id], level, severity: level === 'MUST' ? 'fail' : 'warn', message, pointer: '' };
}

/** Whether a value must travel Base64-encoded (HDR-STD-02): not plain printable ASCII, padded, or sentinel-shaped. */
function needsEncoding(value: string): boolean {
  return !/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) || SENTINEL.test(value);
}

/** What the client's POST headers (lower-cased names) say of its request `message`: the rules it exercised and what broke them. */
export function judgeModernPost(headers: Record<string, string>, message: unknown): { applied: RequirementId[]; findings: Finding[] } {
  if (!isObject(message) || typeof message.method !== 'string' || !('id' in message)) return { applied: [], findings: [] };
  const findings: Finding[] = [];
  const applied: RequirementId[] = ['HDR-VER-01', 'HDR-VER-02', 'HDR-STD-01'];
  const params = isObject(message.params) ? message.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  const version = headers[MODERN_HEADERS.protocolVersion.toLowerCase()];
  if (version === undefined) findings.push(finding('HDR-VER-01', `expected an ${MODERN_HEADERS.protocolVersion} header on the POST of ${message.method}; it had none`));
  else if (version !== meta[META.protocolVersion]) findings.push(finding('HDR-VER-02', `expected ${MODERN_HEADERS.protocolVersion} to equal the body's ${META.protocolVersion} (${JSON.stringify(meta[META.protocolVersion])}); the header was ${JSON.stringify(version)}`));
  const method = headers[MODERN_HEADERS.method.toLowerCase()];
  if (method !== message.method) findings.push(finding('HDR-STD-01', `expected ${MODERN_HEADERS.method}: ${message.method} (the body's method); ${method === undefined ? 'the header was missing' : `it was ${JSON.stringify(method)}`}`));
  const member = NAMED[message.method as keyof typeof NAMED];
  const body = member === undefined ? undefined : params[member];
  if (typeof body !== 'string') return { applied, findings };
  const name = headers[MODERN_HEADERS.name.toLowerCase()];
  if (name === undefined) {
    findings.push(finding('HDR-STD-01', `expected an ${MODERN_HEADERS.name} header carrying params.${member} (${JSON.stringify(body)}) on the POST of ${message.method}; it had none`));
    return { applied, findings };
  }
  const encoded = SENTINEL.exec(name);
  const decoded = encoded ? Buffer.from(encoded[1]!, 'base64').toString('utf8') : name;
  if (decoded !== body) findings.push(finding('HDR-STD-01', `expected ${MODERN_HEADERS.name} to carry params.${member} ${JSON.stringify(body)}; it carried ${JSON.stringify(name)}${encoded ? ` (decoded ${JSON.stringify(decoded)})` : ''}`));
  if (needsEncoding(body)) {
    applied.push('HDR-STD-02');
    if (!encoded) findings.push(finding('HDR-STD-02', `expected ${MODERN_HEADERS.name} for ${JSON.stringify(body)} (not a plain ASCII header value) Base64-encoded as =?base64?…?=; it was sent as ${JSON.stringify(name)}`));
  }
  return { applied, findings };
}
