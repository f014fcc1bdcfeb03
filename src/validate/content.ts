import { isStrictBase64 } from './base64.js';
import { type Finding, ptr, show, violation } from './finding.js';
import { obj } from '../json.js';
import { ruling } from '../spec/rulings.js';
import type { RequirementId } from '../spec/requirement-id.js';

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const MIME = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:\s*;.*)?$/;

/** RES-URI-02's test: an absolute RFC 3986 URI (scheme, then no whitespace or control characters). */
export function isAbsoluteUri(uri: string): boolean {
  // eslint-disable-next-line no-control-regex
  return SCHEME.test(uri) && !/[\s\u0000-\u001f\u007f<>"{}|\\^`]/.test(uri);
}

/** RES-URI-02: an absolute RFC 3986 URI. */
export function checkResourceUri(uri: unknown, pointer: string): Finding[] {
  if (typeof uri !== 'string') return [];
  if (!isAbsoluteUri(uri)) {
    return [violation('RES-URI-02', `expected an absolute RFC 3986 URI (scheme ":" …, no spaces or control characters); got ${show(uri)}`, pointer)];
  }
  return [];
}

/** Resource contents (text or base64 blob) inside resources/read results and embedded resources. */
export function checkResourceContents(contents: unknown, pointer: string, rule: RequirementId): Finding[] {
  const c = obj(contents);
  if (!c) return [];
  const findings = checkResourceUri(c.uri, pointer + '/uri');
  const hasText = typeof c.text === 'string';
  const hasBlob = 'blob' in c;
  if (hasText && hasBlob) {
    findings.push(violation(rule, 'expected resource contents to carry either "text" or "blob", not both', pointer));
  }
  if (hasBlob && (typeof c.blob !== 'string' || !isStrictBase64(c.blob))) {
    findings.push(violation(rule, `expected "blob" to be strict base64; got ${show(c.blob, 60)}`, pointer + '/blob'));
  }
  return findings;
}

/**
 * Content blocks (tool results, prompt messages, sampling): image and audio data must be strict
 * base64 with a MIME type of the right family; embedded resources are checked as contents.
 * `rule` names the requirement of the surrounding feature (TOOL-CONT-01, PROMPT-CONT-01, …).
 */
export function checkContentBlock(block: unknown, pointer: string, rule: RequirementId, embeddedNeedsMime = false): Finding[] {
  const b = obj(block);
  if (!b) return [];
  const findings: Finding[] = [];
  if (b.type === 'image' || b.type === 'audio') {
    if (typeof b.data === 'string' && !isStrictBase64(b.data)) {
      findings.push(violation(rule, `expected ${b.type} "data" to be strict base64; got ${show(b.data, 60)}`, pointer + '/data'));
    }
    if (typeof b.mimeType === 'string' && (!MIME.test(b.mimeType) || !b.mimeType.toLowerCase().startsWith(`${b.type}/`))) {
      findings.push(violation(rule, `expected an ${b.type}/* MIME type; got ${show(b.mimeType)}`, pointer + '/mimeType'));
    }
  } else if (b.type === 'resource') {
    findings.push(...checkResourceContents(b.resource, pointer + '/resource', rule));
    const r = obj(b.resource);
    if (embeddedNeedsMime && r && typeof r.mimeType !== 'string') {
      // Applied to prompt messages only.
      findings.push(violation(rule, `expected an embedded resource in a prompt message to carry a mimeType; got none (${ruling('prompt-embedded-mime').cite})`, pointer + '/resource'));
    }
  } else if (b.type === 'resource_link') {
    findings.push(...checkResourceUri(b.uri, pointer + '/uri'));
  }
  return findings;
}

/** A tool result's content blocks: each of a known type with its fields, then checkContentBlock. */
export function checkContentList(content: unknown, pointer: string, rule: RequirementId): Finding[] {
  if (!Array.isArray(content)) return [];
  const findings: Finding[] = [];
  content.forEach((block, i) => {
    const problem = contentBlockProblem(block);
    if (problem !== undefined) findings.push(violation(rule, `expected a content block of a known type with its fields; ${problem}`, pointer + ptr(i)));
    else findings.push(...checkContentBlock(block, pointer + ptr(i), rule));
  });
  return findings;
}

const CONTENT_FIELDS: Readonly<Record<string, Array<[string, string]>>> = {
  text: [['text', 'string']],
  image: [['data', 'string'], ['mimeType', 'string']],
  audio: [['data', 'string'], ['mimeType', 'string']],
  resource_link: [['uri', 'string'], ['name', 'string']],
  resource: [['resource', 'object']],
};

/** What is wrong with one content block (type and required fields; base64 is checked elsewhere), if anything. */
export function contentBlockProblem(block: unknown): string | undefined {
  const b = obj(block);
  if (!b) return `a content block is ${show(block, 40)}`;
  const fields = typeof b.type === 'string' ? CONTENT_FIELDS[b.type] : undefined;
  if (!fields) return `content block type ${show(b.type, 40)} is not text, image, audio, resource_link or resource`;
  for (const [field, type] of fields) {
    const v = b[field];
    if (type === 'object' ? !obj(v) : typeof v !== type) return `a ${b.type} block has no ${type} "${field}"`;
  }
  if (b.type === 'resource') {
    const r = b.resource as Record<string, unknown>;
    if (typeof r.uri !== 'string') return 'an embedded resource has no string "uri"';
    if (typeof r.text !== 'string' && typeof r.blob !== 'string') return 'an embedded resource has neither "text" nor "blob"';
  }
  return undefined;
}
