/**
 * META-OTEL-01 (2026-07-28, basic/index.mdx#meta): the unprefixed `_meta` keys `traceparent`,
 * `tracestate` and `baggage` carry OpenTelemetry context, so their values follow W3C Trace Context
 * (https://www.w3.org/TR/trace-context/) and W3C Baggage (https://www.w3.org/TR/baggage/).
 * Each function returns what is wrong with a value, or undefined when it follows its format.
 */

/** version-traceid-parentid-flags, lowercase hex; a later version may add fields after a `-` (trace-context §3.2.4). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;
/** A tracestate key: simple, or tenant@system (trace-context §3.3.1.3.1). */
const TRACESTATE_KEY = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
/** A tracestate value: printable ASCII but `,` and `=`, not ending in a space (§3.3.1.3.2). */
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
const MAX_TRACESTATE_MEMBERS = 32;
/** An RFC 7230 token: the baggage key (baggage §3.3.1.1). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Baggage value octets: printable ASCII but `"`, `,`, `;` and `\`, with %XX escapes (§3.3.1.2). */
const BAGGAGE_VALUE = /^(?:[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e])*$/;
const MAX_BAGGAGE_MEMBERS = 64;
const MAX_BAGGAGE_BYTES = 8192;
const OWS = /^[ \t]+|[ \t]+$/g;

function traceparentProblem(value: string): string | undefined {
  const m = TRACEPARENT.exec(value);
  if (!m) return 'expected version-traceid-parentid-flags in lowercase hex (2-32-16-2 digits)';
  const [, version, traceId, parentId, more] = m;
  if (version === 'ff') return 'version ff is invalid';
  if (version === '00' && more !== undefined) return 'version 00 has exactly four fields';
  if (/^0+$/.test(traceId!)) return 'the trace-id is all zeros';
  if (/^0+$/.test(parentId!)) return 'the parent-id is all zeros';
  return undefined;
}

function tracestateProblem(value: string): string | undefined {
  const members = value.split(',').map((m) => m.replace(OWS, '')).filter((m) => m !== '');
  if (members.length > MAX_TRACESTATE_MEMBERS) return `expected at most ${MAX_TRACESTATE_MEMBERS} list-members; got ${members.length}`;
  for (const member of members) {
    const eq = member.indexOf('=');
    if (eq < 0 || !TRACESTATE_KEY.test(member.slice(0, eq)) || !TRACESTATE_VALUE.test(member.slice(eq + 1))) return `expected each list-member to be key=value (lowercase key); ${JSON.stringify(member)} is not`;
  }
  return undefined;
}

function baggageProblem(value: string): string | undefined {
  if (Buffer.byteLength(value) > MAX_BAGGAGE_BYTES) return `expected at most ${MAX_BAGGAGE_BYTES} bytes`;
  const members = value.split(',');
  if (members.length > MAX_BAGGAGE_MEMBERS) return `expected at most ${MAX_BAGGAGE_MEMBERS} list-members; got ${members.length}`;
  for (const member of members) {
    const [pair = '', ...properties] = member.split(';');
    const eq = pair.indexOf('=');
    const key = eq < 0 ? '' : pair.slice(0, eq).replace(OWS, '');
    if (eq < 0 || !TOKEN.test(key) || !BAGGAGE_VALUE.test(pair.slice(eq + 1).replace(OWS, ''))) return `expected each list-member to be key=value (a token key, percent-encoded value); ${JSON.stringify(member)} is not`;
    for (const p of properties) {
      const [pk = '', pv] = p.split('=', 2).map((x) => x.replace(OWS, ''));
      if (!TOKEN.test(pk) || (pv !== undefined && !BAGGAGE_VALUE.test(pv))) return `expected each property to be a token, or key=value; ${JSON.stringify(p)} in ${JSON.stringify(member)} is not`;
    }
  }
  return undefined;
}

interface OtelFormat {
  /** The W3C recommendation the value follows. */
  standard: string;
  /** What is wrong with a value, or undefined when it follows the standard. */
  problem: (value: unknown) => string | undefined;
}

const stringOf = (check: (value: string) => string | undefined) => (value: unknown) => (typeof value === 'string' ? check(value) : 'expected a string');
const FORMATS: ReadonlyMap<string, OtelFormat> = new Map([
  ['traceparent', { standard: 'W3C Trace Context', problem: stringOf(traceparentProblem) }],
  ['tracestate', { standard: 'W3C Trace Context', problem: stringOf(tracestateProblem) }],
  ['baggage', { standard: 'W3C Baggage', problem: stringOf(baggageProblem) }],
]);

/** The format of an OpenTelemetry `_meta` key, undefined for any other key. */
export function otelFormat(key: string): OtelFormat | undefined {
  return FORMATS.get(key);
}
