import { type Finding, ptr, show, violation } from './finding.js';
import { ruling } from '../spec/rulings.js';
import type { RequirementId } from '../spec/requirement-id.js';
import { META } from '../spec/modern.js';
import type { Era } from '../spec/revisions.js';
import { otelFormat } from './otel.js';

const LABEL = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const NAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;
const RESERVED_SECOND_LABELS = new Set(['modelcontextprotocol', 'mcp']);
/** Keys each era's spec itself defines under the reserved prefixes (META-RSV-01): 2025-11-25's, and 2026-07-28's per-request keys. */
const SPEC_DEFINED_KEYS: Readonly<Record<Era, ReadonlySet<string>>> = {
  stateful: new Set(['io.modelcontextprotocol/related-task', 'io.modelcontextprotocol/model-immediate-response']),
  stateless: new Set(Object.values(META)),
};
/** Enough top-level domains to tell `example.com/` from `com.example/` (META-KEY-03 heuristic). */
const TLDS = new Set([
  'com', 'org', 'net', 'io', 'dev', 'ai', 'app', 'co', 'edu', 'gov', 'info', 'biz', 'me', 'tech', 'cloud',
  'uk', 'de', 'fr', 'jp', 'cn', 'us', 'ca', 'au', 'nl', 'ru', 'in', 'br', 'es', 'it', 'se', 'ch', 'eu',
]);

/** META-KEY-01: a key is an optional prefix (dot-separated labels ending in `/`) and a name. */
export function metaKeyParts(key: string): { labels: string[] | undefined; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { labels: undefined, name: key } : { labels: key.slice(0, slash).split('.'), name: key.slice(slash + 1) };
}

/** META-KEY-02: a prefix label starts with a letter, ends with a letter or digit, and holds letters, digits and hyphens. */
export function isMetaPrefixLabel(label: string): boolean {
  return LABEL.test(label);
}

/** META-KEY-03 (heuristic): the prefix is not a forward domain name (its last label a known TLD, its first not). */
export function isReverseDnsPrefix(labels: readonly string[]): boolean {
  const first = labels[0]!.toLowerCase();
  const last = labels[labels.length - 1]!.toLowerCase();
  return !(labels.length > 1 && TLDS.has(last) && !TLDS.has(first));
}

/** META-KEY-04: the name is empty or begins and ends with an ASCII letter or digit, with letters, digits, `-`, `_`, `.` between. */
export function isMetaName(name: string): boolean {
  return NAME.test(name);
}

/** META-RSV-01: a key under a prefix whose second label is `modelcontextprotocol` or `mcp` that the specification does not define. */
export function isReservedMetaKey(key: string, era: Era = 'stateful'): boolean {
  const { labels } = metaKeyParts(key);
  return labels !== undefined && labels.length > 1 && RESERVED_SECOND_LABELS.has(labels[1]!.toLowerCase()) && !SPEC_DEFINED_KEYS[era].has(key);
}

type KeyVerdict = Array<{ id: RequirementId; message: string; soft?: boolean }>;
const verdicts: Record<Era, Map<string, KeyVerdict>> = { stateful: new Map(), stateless: new Map() };
const MAX_CACHED = 10_000;

/** Judges one `_meta` key against the grammar; cached because the same few keys recur in every message. */
function judgeKey(key: string, era: Era): KeyVerdict {
  const cached = verdicts[era].get(key);
  if (cached) return cached;
  const out: KeyVerdict = [];
  const { labels, name } = metaKeyParts(key);
  if (labels !== undefined) {
    const prefix = key.slice(0, key.indexOf('/') + 1);
    const bad = labels.filter((l) => !isMetaPrefixLabel(l));
    if (bad.length > 0) {
      out.push({
        id: 'META-KEY-02',
        message: `expected each prefix label to start with a letter, end with a letter or digit and hold only letters, digits and hyphens; label ${bad.map((l) => show(l)).join(', ')} of key ${show(key)} does not`,
      });
    } else {
      if (isReservedMetaKey(key, era)) {
        out.push({
          id: 'META-RSV-01',
          message: `key ${show(key)} uses the MCP-reserved prefix ${show(prefix)} but is not a key the specification defines (graded MUST NOT: ${ruling('reserved-prefix-level').cite})`,
        });
      }
      if (!isReverseDnsPrefix(labels)) {
        out.push({
          id: 'META-KEY-03',
          message: `prefix ${show(prefix)} looks like a forward domain name; expected reverse-DNS order (e.g. ${show(labels.slice().reverse().join('.') + '/')})`,
        });
      }
    }
  }
  if (!isMetaName(name)) {
    out.push({
      id: 'META-KEY-04',
      message: `expected the name part of key ${show(key)} to be empty or to begin and end with an ASCII letter or digit with only letters, digits, "-", "_", "." between; got ${show(name)}`,
    });
  }
  if (verdicts[era].size >= MAX_CACHED) verdicts[era].clear();
  verdicts[era].set(key, out);
  return out;
}

function isRequestId(v: unknown): boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

/** The `_meta` keys whose values 2026-07-28 types (META-RSV-04); the schema judges their shape, and a failure there cites the rule. */
export const TYPED_RESERVED_KEYS: ReadonlySet<string> = new Set(['progressToken', ...Object.values(META)]);

/**
 * Checks one `_meta` member: it must be an object, its keys must follow the grammar, and the
 * values at keys the spec defines must have their defined shape (at 2026-07-28 the OpenTelemetry
 * keys too, META-OTEL-01). `exercised` learns the rules its values gave a chance to fail.
 */
export function checkMeta(meta: unknown, pointer: string, era: Era = 'stateful', exercised?: Set<string>): Finding[] {
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    return [violation('META-RSV-03', `expected _meta to be an object; got ${show(meta)}`, pointer)];
  }
  const findings: Finding[] = [];
  for (const key of Object.keys(meta)) {
    for (const v of judgeKey(key, era)) findings.push(violation(v.id, v.message, pointer + ptr(key)));
    const value = (meta as Record<string, unknown>)[key];
    if (era === 'stateless') {
      if (TYPED_RESERVED_KEYS.has(key)) exercised?.add('META-RSV-04');
      const otel = otelFormat(key);
      if (otel) {
        exercised?.add('META-OTEL-01');
        const problem = otel.problem(value);
        if (problem !== undefined) findings.push(violation('META-OTEL-01', `expected _meta.${key} to follow ${otel.standard} (${problem}); got ${show(value)}`, pointer + ptr(key)));
      }
    }
    // 2026-07-28 restates progressToken's type in META-RSV-04; each revision keeps its own id (findingsIn).
    if (key === 'progressToken' && !isRequestId(value)) {
      findings.push(violation(['META-RSV-03', 'META-RSV-04'], `expected _meta.progressToken to be a string or an integer; got ${show(value)}`, pointer + ptr(key)));
    } else if (key === 'io.modelcontextprotocol/related-task') {
      const taskId = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).taskId : undefined;
      if (typeof taskId !== 'string') {
        findings.push(violation('META-RSV-03', `expected ${key} to be an object with a string taskId; got ${show(value)}`, pointer + ptr(key)));
      }
    } else if (key === 'io.modelcontextprotocol/model-immediate-response' && typeof value !== 'string') {
      findings.push(violation('META-RSV-03', `expected ${key} to be a string (schema.ts describes it so, non-bindingly); got ${show(value)}`, pointer + ptr(key), 'warn'));
    }
  }
  return findings;
}
