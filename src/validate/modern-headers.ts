import { type Finding, ptr, show, violation } from './finding.js';
import type { RuleTable } from './rule-table.js';
import { obj } from '../json.js';
import { META, MODERN_HEADERS } from '../spec/modern.js';
import { ruling } from '../spec/rulings.js';

/**
 * The Streamable HTTP request headers of the stateless era (2026-07-28,
 * basic/transports/streamable-http.mdx#request-metadata), judged against the JSON-RPC body they
 * mirror: pure functions the harness calls on each POST it sees (a client's, when mcpcheck plays
 * the server) and the validator on recorded traffic. Signatures are part of the seam with the
 * harness: keep them stable.
 */

export const HEADER_RULES: RuleTable = ['HDR-VER-01', 'HDR-VER-02', 'HDR-STD-01', 'HDR-STD-02', 'HDR-CASE-01', 'HDR-PARAM-01', 'HDR-PARAM-02', 'HDR-PARAM-04', 'TASK-HDR-01'];

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** The methods whose POST also carries Mcp-Name, the params member it mirrors, and the rule that asks for it (the tasks extension's own for its requests). */
const NAMED: ReadonlyMap<string, { member: 'name' | 'uri' | 'taskId'; rule: 'HDR-STD-01' | 'TASK-HDR-01' }> = new Map([
  ['tools/call', { member: 'name', rule: 'HDR-STD-01' }],
  ['prompts/get', { member: 'name', rule: 'HDR-STD-01' }],
  ['resources/read', { member: 'uri', rule: 'HDR-STD-01' }],
  ['tasks/get', { member: 'taskId', rule: 'TASK-HDR-01' }],
  ['tasks/update', { member: 'taskId', rule: 'TASK-HDR-01' }],
  ['tasks/cancel', { member: 'taskId', rule: 'TASK-HDR-01' }],
]);
/** RFC 9110 field-name token (`1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Whether a value looks like the Base64 sentinel (so a plain value of that shape must be encoded too). */
function looksLikeSentinel(value: string): boolean {
  return value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX) && value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length;
}

/** Whether a value can travel as a plain header value: visible ASCII and space, no surrounding whitespace, not sentinel-shaped. */
export function isPlainHeaderValue(value: string): boolean {
  if (value !== value.trim() || looksLikeSentinel(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/**
 * A value as a header carries it (HDR-PARAM-04, HDR-STD-02): as it is when plain, else
 * `=?base64?<Base64 of its UTF-8 bytes>?=` (streamable-http.mdx#value-encoding).
 */
export function encodeHeaderValue(value: string): string {
  return isPlainHeaderValue(value) ? value : `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/**
 * The value a header stands for: a sentinel decoded, a plain value as it is; undefined when the
 * text is sentinel-shaped but not valid Base64 of UTF-8 (which matches no body value).
 */
export function decodeHeaderValue(text: string): string | undefined {
  if (!looksLikeSentinel(text)) return text;
  const encoded = text.slice(SENTINEL_PREFIX.length, text.length - SENTINEL_SUFFIX.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  const decoded = new TextDecoder('utf-8', { fatal: true });
  try {
    return decoded.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A tool argument as its header carries it before encoding (strings as they are, integers in decimal, booleans lower case); undefined when absent or null. */
export function headerTextOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

/** Header names compare case-insensitively (HDR-CASE-01): the headers by lower-case name. */
function byLowerName(headers: Readonly<Record<string, string>>): Map<string, string> {
  return new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** An annotated property of a tool's inputSchema: its header name and the path of `properties` keys to it. */
export interface HeaderParameter {
  header: string;
  path: readonly string[];
}

/** The `x-mcp-header` annotations reachable through `properties` keys alone (the only valid places, HDR-PARAM-02). */
export function headerParameters(inputSchema: unknown): HeaderParameter[] {
  const out: HeaderParameter[] = [];
  const visit = (schema: Record<string, unknown>, path: string[]): void => {
    for (const [key, child] of Object.entries(obj(schema.properties) ?? {})) {
      const property = obj(child);
      if (!property) continue;
      if (typeof property['x-mcp-header'] === 'string') out.push({ header: property['x-mcp-header'], path: [...path, key] });
      visit(property, [...path, key]);
    }
  };
  const root = obj(inputSchema);
  if (root) visit(root, []);
  return out;
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let node: unknown = args;
  for (const key of path) node = obj(node)?.[key];
  return node;
}

/**
 * The headers of one POST judged against its body: `MCP-Protocol-Version` (HDR-VER-01/02),
 * `Mcp-Method` and `Mcp-Name` (HDR-STD-01/02; TASK-HDR-01 on the tasks extension's requests), case rules (HDR-CASE-01), and for a tools/call of
 * `tool` (as listed, when known) each `Mcp-Param-*` its `x-mcp-header` annotations call for
 * (HDR-PARAM-01/04). Header names may come in any case. A notification POST is only warned about
 * (ruling headers-on-notification-posts); a response is not a POST a client may send and is not judged here.
 * `applied` collects the rules a request POST gave a chance to fail: a rule whose header had
 * nothing to mirror (Mcp-Name off the named methods, the sentinel for a plain value) is not among them.
 */
export function checkModernRequestHeaders(headers: Readonly<Record<string, string>>, message: unknown, tool?: { inputSchema?: unknown }, applied?: Set<string>): Finding[] {
  const body = obj(message);
  const method = body?.method;
  if (!body || typeof method !== 'string') return [];
  const isRequest = 'id' in body;
  const h = byLowerName(headers);
  const findings: Finding[] = [];
  const params = obj(body.params);
  const mark = (...ids: RuleTable) => {
    if (isRequest) for (const id of ids) applied?.add(id);
  };
  mark('HDR-VER-01', 'HDR-STD-01');
  const missing = (name: string, id: 'HDR-VER-01' | 'HDR-STD-01', what: string) =>
    isRequest
      ? violation(id, `expected a ${name} header on every request POST (${what}); none came with this ${method} request`)
      : violation(id, `expected a ${name} header on the POST of ${method} as on requests (${what}); a notification POST without it is a warning (${ruling('headers-on-notification-posts').cite})`, '', 'warn');

  const version = h.get(MODERN_HEADERS.protocolVersion.toLowerCase());
  const bodyVersion = obj(params?._meta)?.[META.protocolVersion];
  if (version === undefined) findings.push(missing(MODERN_HEADERS.protocolVersion, 'HDR-VER-01', 'the protocol version of the body\'s _meta'));
  else if (typeof bodyVersion === 'string') mark('HDR-VER-02');
  if (version !== undefined && typeof bodyVersion === 'string' && version !== bodyVersion) {
    findings.push(violation(['HDR-VER-02', ...caseOnly(version, bodyVersion)], `expected ${MODERN_HEADERS.protocolVersion} to equal the body's ${META.protocolVersion} ${show(bodyVersion)}; got ${show(version)}`));
  }

  const methodHeader = h.get(MODERN_HEADERS.method.toLowerCase());
  if (methodHeader === undefined) findings.push(missing(MODERN_HEADERS.method, 'HDR-STD-01', 'the body\'s method'));
  else if (methodHeader !== method) findings.push(violation(['HDR-STD-01', ...caseOnly(methodHeader, method)], `expected ${MODERN_HEADERS.method} to equal the body's method ${show(method)} (values compare case-sensitively); got ${show(methodHeader)}`));

  const named = NAMED.get(method);
  if (isRequest && named !== undefined) {
    const name = h.get(MODERN_HEADERS.name.toLowerCase());
    const value = params?.[named.member];
    if (named.rule !== 'HDR-STD-01' && typeof value === 'string') mark(named.rule);
    if (name !== undefined && typeof value === 'string' && !isPlainHeaderValue(value)) mark('HDR-STD-02');
    checkName(name, value, named, findings);
  }
  if (isRequest && method === 'tools/call' && tool) {
    if (headerParameters(tool.inputSchema).length > 0) mark('HDR-PARAM-01', 'HDR-PARAM-04');
    checkParamHeaders(h, obj(params?.arguments), tool.inputSchema, findings);
  }
  return findings;
}

/** HDR-CASE-01 beside the mismatch when the two values differ only in case (a value was compared without its case). */
function caseOnly(header: string, body: string): Array<'HDR-CASE-01'> {
  return header.toLowerCase() === body.toLowerCase() ? ['HDR-CASE-01'] : [];
}

/** HDR-STD-01 (Mcp-Name present and equal after decoding) and HDR-STD-02 (sent in the sentinel when not plain). */
function checkName(header: string | undefined, value: unknown, { member, rule }: { member: string; rule: 'HDR-STD-01' | 'TASK-HDR-01' }, findings: Finding[]): void {
  if (typeof value !== 'string') return;
  if (header === undefined) {
    findings.push(violation(rule, `expected an ${MODERN_HEADERS.name} header carrying params.${member} ${show(value)}; none came`));
    return;
  }
  const problem = encodingProblem(header, value);
  if (problem === 'mismatch') findings.push(violation([rule, ...caseOnly(header, value)], `expected ${MODERN_HEADERS.name} to carry params.${member} ${show(value)} (decoded when Base64-encoded); got ${show(header)}`));
  else if (problem) findings.push(violation('HDR-STD-02', `expected ${MODERN_HEADERS.name} for ${show(value)} as ${show(encodeHeaderValue(value))}: ${problem}; got ${show(header)}`));
}

/**
 * What is wrong with `header` as the carrier of `value`: 'mismatch' when it stands for another
 * value, a reason when it stands for it but not in the required form, undefined when right.
 */
function encodingProblem(header: string, value: string): string | undefined {
  const decoded = decodeHeaderValue(header);
  if (decoded !== value) {
    if (header.toLowerCase().startsWith(SENTINEL_PREFIX) && !header.startsWith(SENTINEL_PREFIX)) return 'the sentinel markers are exactly "=?base64?" and "?=", in lower case';
    return 'mismatch';
  }
  if (header === value && !isPlainHeaderValue(value)) return 'a value that is not a plain ASCII header value (non-ASCII, control characters, surrounding whitespace, or sentinel-shaped) is sent Base64-encoded';
  return undefined;
}

/** HDR-PARAM-01 (each annotated argument present is sent in its header) and HDR-PARAM-04 (in the right form, and only when present). */
function checkParamHeaders(h: ReadonlyMap<string, string>, args: Record<string, unknown> | undefined, inputSchema: unknown, findings: Finding[]): void {
  for (const { header, path } of headerParameters(inputSchema)) {
    const name = `${MODERN_HEADERS.paramPrefix}${header}`;
    const sent = h.get(name.toLowerCase());
    const raw = valueAt(args, path);
    const text = headerTextOf(raw);
    const where = ptr('params', 'arguments', ...path);
    if (text === undefined) {
      if (sent !== undefined) findings.push(violation('HDR-PARAM-04', `expected no ${name} header when arguments${ptr(...path)} is absent or null; got ${show(sent)}`, where));
      continue;
    }
    if (sent === undefined) {
      findings.push(violation('HDR-PARAM-01', `expected a ${name} header carrying arguments${ptr(...path)} ${show(raw)} (x-mcp-header ${show(header)}); none came`, where));
      continue;
    }
    const problem = encodingProblem(sent, text);
    if (problem === 'mismatch') findings.push(violation('HDR-PARAM-01', `expected ${name} to carry ${show(encodeHeaderValue(text))} for arguments${ptr(...path)} ${show(raw)}; got ${show(sent)}`, where));
    else if (problem) findings.push(violation('HDR-PARAM-04', `expected ${name} as ${show(encodeHeaderValue(text))}: ${problem}; got ${show(sent)}`, where));
  }
}

/**
 * HDR-PARAM-02: every `x-mcp-header` of a tool's inputSchema is a non-empty RFC 9110 token, unique
 * case-insensitively, on a string, integer or boolean property reachable from the root through
 * `properties` keys alone; integer bounds beyond ±(2^53−1) warn (ruling header-integer-range).
 * `at` is the JSON pointer of the inputSchema in its message.
 */
export function checkXMcpHeaderSchema(inputSchema: unknown, at = ''): Finding[] {
  const findings: Finding[] = [];
  const seen = new Map<string, string>();
  const reachable = new Set<unknown>();
  const visit = (schema: Record<string, unknown>, path: string): void => {
    for (const [key, child] of Object.entries(obj(schema.properties) ?? {})) {
      const property = obj(child);
      if (!property) continue;
      const here = `${path}/properties${ptr(key)}`;
      if ('x-mcp-header' in property) {
        reachable.add(property);
        checkAnnotation(property, here, seen, findings);
      }
      visit(property, here);
    }
  };
  const root = obj(inputSchema);
  if (!root) return findings;
  visit(root, at);
  // An annotation anywhere else (items, composition, conditionals, $defs) makes the tool invalid.
  const stray = (node: unknown, path: string): void => {
    const o = obj(node);
    if (o) {
      if ('x-mcp-header' in o && !reachable.has(o) && o !== root) {
        findings.push(violation('HDR-PARAM-02', `expected x-mcp-header only on properties reachable from the root through "properties" keys alone; ${show(o['x-mcp-header'])} sits at ${path}`, `${path}/x-mcp-header`));
      }
      for (const [key, child] of Object.entries(o)) if (child !== null && typeof child === 'object') stray(child, `${path}${ptr(key)}`);
    } else if (Array.isArray(node)) node.forEach((child, i) => stray(child, `${path}/${i}`));
  };
  stray(root, at);
  if ('x-mcp-header' in root) findings.push(violation('HDR-PARAM-02', 'expected x-mcp-header only on a property, not on the inputSchema root', `${at}/x-mcp-header`));
  return findings;
}

function checkAnnotation(property: Record<string, unknown>, at: string, seen: Map<string, string>, findings: Finding[]): void {
  const value = property['x-mcp-header'];
  const where = `${at}/x-mcp-header`;
  if (typeof value !== 'string' || !TOKEN.test(value)) {
    findings.push(violation('HDR-PARAM-02', `expected x-mcp-header to be a non-empty HTTP field-name token (RFC 9110 tchar only); got ${show(value)}`, where));
    return;
  }
  const other = seen.get(value.toLowerCase());
  if (other !== undefined) findings.push(violation('HDR-PARAM-02', `expected x-mcp-header values unique case-insensitively within the inputSchema; ${show(value)} repeats ${show(other)}`, where));
  seen.set(value.toLowerCase(), value);
  const types = (Array.isArray(property.type) ? property.type : [property.type]).filter((t) => t !== 'null');
  if (types.length === 0 || !types.every((t) => t === 'string' || t === 'integer' || t === 'boolean')) {
    findings.push(violation('HDR-PARAM-02', `expected x-mcp-header only on a property of type string, integer or boolean (not number); ${show(value)} is on type ${show(property.type)}`, where));
  }
  if (types.includes('integer')) {
    for (const bound of ['minimum', 'maximum'] as const) {
      const b = property[bound];
      if (typeof b === 'number' && Math.abs(b) > MAX_SAFE) {
        findings.push(violation('HDR-PARAM-02', `expected the integer header parameter ${show(value)} to stay within ±(2^53−1); its ${bound} is ${b} (${ruling('header-integer-range').cite})`, `${at}/${bound}`, 'warn'));
      }
    }
  }
}
