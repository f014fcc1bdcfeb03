/**
 * Mutation operators: negative inputs built from a valid request. Each operator is a fast-check
 * arbitrary of cases, so a failing case shrinks along the operator's own parameters (a string's
 * length, a nesting depth, the property mutated) down to the smallest input that still fails.
 * Pure: no I/O; the runner sends what these build.
 */
import fc from 'fast-check';
import { isObject } from '../json.js';
import type { Expectation, FrameEnding, FuzzCase } from './case.js';

/** A request the target accepts, as generated values: what the mutations start from. */
export interface BaseRequest {
  method: string;
  params: fc.Arbitrary<Record<string, unknown> | undefined>;
  /** For tools/call: the tool's input schema, whose properties the argument mutations aim at. */
  inputSchema?: Record<string, unknown>;
  /** For tools/call: the tool's output schema, when it declares one. */
  outputSchema?: Record<string, unknown>;
  /** For tools/call: the arguments read as times (a duration, a delay). */
  timeProperties?: readonly string[];
}

export interface MutationOptions {
  /** Longest string a case carries (characters). */
  maxStringLength: number;
  /** Deepest nesting a case carries. */
  maxDepth: number;
  /** Over stdio the line framing itself is mutated too; over HTTP a body is a frame. */
  transport: 'stdio' | 'http';
}

export const DEFAULT_MUTATION_OPTIONS: Omit<MutationOptions, 'transport'> = { maxStringLength: 100_000, maxDepth: 10_000 };

/** Request ids: integers in the 32-bit range and strings. Repeats are the runner's to avoid. */
export const requestId: fc.Arbitrary<string | number> = fc.oneof(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((n) => `fuzz-${n}`));

/** Values of every JSON type, small. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

type Message = Record<string, unknown>;

function request(method: string, id: unknown, params: Message | undefined): Message {
  return { jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) };
}

function jsonCase(mutation: string, method: string, expects: Expectation, json: unknown, at?: string, ending: FrameEnding = 'lf'): FuzzCase {
  return { mutation, method, expects, body: { json }, ending, ...(at ? { at } : {}) };
}

/** The base request itself, valid: it must get exactly one response with its id. */
function valid(base: BaseRequest): fc.Arbitrary<FuzzCase> {
  const tool = base.inputSchema ? { tool: { inputSchema: base.inputSchema, ...(base.outputSchema ? { outputSchema: base.outputSchema } : {}) } } : {};
  return fc.tuple(requestId, base.params).map(([id, params]) => ({ ...jsonCase('valid', base.method, 'response', request(base.method, id, params)), ...tool }));
}

// --- Arguments of tools/call, aimed at the properties of the tool's input schema.

interface Property {
  key: string;
  schema: Record<string, unknown>;
}

function properties(schema: Record<string, unknown> | undefined): Property[] {
  if (!schema || !isObject(schema.properties)) return [];
  return Object.entries(schema.properties).flatMap(([key, s]) => (isObject(s) ? [{ key, schema: s }] : []));
}

function declaredType(s: Record<string, unknown>): string | undefined {
  return typeof s.type === 'string' ? s.type : undefined;
}

/** A value of a type the property does not declare. */
function wrongTypeValue(type: string): unknown {
  switch (type) {
    case 'string':
      return 12345;
    case 'number':
    case 'integer':
      return 'not a number';
    case 'boolean':
      return 'true';
    case 'array':
      return { not: 'an array' };
    case 'object':
      return ['not', 'an', 'object'];
    default:
      return null;
  }
}

/** Values just outside the property's bounds (`maximum` + 1, one character past `maxLength`, a string not in `enum`, …). */
function outOfBounds(s: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  const step = declaredType(s) === 'integer' ? 1 : 0.5;
  if (typeof s.maximum === 'number') out.push(s.maximum + step);
  if (typeof s.exclusiveMaximum === 'number') out.push(s.exclusiveMaximum);
  if (typeof s.minimum === 'number') out.push(s.minimum - step);
  if (typeof s.exclusiveMinimum === 'number') out.push(s.exclusiveMinimum);
  if (typeof s.maxLength === 'number') out.push('x'.repeat(s.maxLength + 1));
  if (typeof s.minLength === 'number' && s.minLength > 0) out.push('x'.repeat(s.minLength - 1));
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string')) out.push(`${(s.enum as string[]).join('')}-not-listed`);
  if (typeof s.maxItems === 'number' && declaredType(s) === 'array') out.push(Array.from({ length: s.maxItems + 1 }, () => null));
  return out;
}

/** An edit of the generated arguments; `deep` puts nested arrays of that depth at `key` (too deep to build as a value). */
type ArgsEdit = { mutation: string; at: string; expects: Expectation; edit: (args: Message) => Message; deep?: { key: string; depth: number } };

const DEEP_MARK = '\u0000mcpcheck-deep\u0000';

/** Builds cases by editing the generated arguments of a tools/call base. */
function argumentCases(base: BaseRequest, edits: fc.Arbitrary<ArgsEdit>): fc.Arbitrary<FuzzCase> {
  return fc.tuple(requestId, base.params, edits).map(([id, params, e]): FuzzCase => {
    const p = params ?? {};
    const args = e.edit({ ...(isObject(p.arguments) ? p.arguments : {}) });
    const at = `arguments.${e.at}`;
    // A time argument out of its bounds (or of its type, or left out) may ask the tool to run that long.
    const timed = base.timeProperties?.includes(e.at) ? { timed: true as const } : {};
    if (!e.deep) return { ...jsonCase(e.mutation, base.method, e.expects, request(base.method, id, { ...p, arguments: args }), at), ...timed };
    const text = JSON.stringify(request(base.method, id, { ...p, arguments: { ...args, [e.deep.key]: DEEP_MARK } })).replace(JSON.stringify(DEEP_MARK), `${'['.repeat(e.deep.depth)}${']'.repeat(e.deep.depth)}`);
    return { mutation: e.mutation, at, method: base.method, expects: e.expects, body: { text }, ending: 'lf' };
  });
}

function argumentMutations(base: BaseRequest, o: MutationOptions): Array<fc.Arbitrary<FuzzCase>> {
  const schema = base.inputSchema;
  const props = properties(schema);
  const required = Array.isArray(schema?.required) ? schema.required.filter((k): k is string => typeof k === 'string') : [];
  const typed = props.filter((p) => declaredType(p.schema) !== undefined);
  const strings = props.filter((p) => declaredType(p.schema) === 'string' && p.schema.enum === undefined && p.schema.format === undefined && p.schema.pattern === undefined);
  const bounded = props.flatMap((p) => outOfBounds(p.schema).map((value) => ({ key: p.key, value })));
  const out: Array<fc.Arbitrary<FuzzCase>> = [];
  const set = (key: string, value: unknown) => (args: Message) => ({ ...args, [key]: value });
  if (typed.length) {
    out.push(argumentCases(base, fc.constantFrom(...typed).map((p) => ({ mutation: 'args.wrong-type', at: p.key, expects: 'invalid-params' as const, edit: set(p.key, wrongTypeValue(declaredType(p.schema)!)) }))));
  }
  if (required.length) {
    out.push(
      argumentCases(
        base,
        fc.constantFrom(...required).map((key) => ({
          mutation: 'args.missing-required',
          at: key,
          expects: 'invalid-params' as const,
          edit: (args: Message) => Object.fromEntries(Object.entries(args).filter(([k]) => k !== key)),
        })),
      ),
    );
  }
  // Even under additionalProperties: false a member the tool does not use may be ignored (zod's
  // default strips it): the spec asks servers to validate inputs, not to refuse what they drop.
  // Refused or ignored, it is answered once.
  out.push(argumentCases(base, anyJson.map((value) => ({ mutation: 'args.unexpected-field', at: 'mcpcheck_unexpected', expects: 'response' as const, edit: set('mcpcheck_unexpected', value) }))));
  if (bounded.length) {
    out.push(argumentCases(base, fc.constantFrom(...bounded).map((b) => ({ mutation: 'args.out-of-bounds', at: b.key, expects: 'invalid-params' as const, edit: set(b.key, b.value) }))));
  }
  // Long strings and deep nesting may be refused or dropped (ROBUST-05); the server must survive them.
  const longKeys = strings.length ? strings.map((p) => p.key) : ['mcpcheck_long'];
  out.push(
    argumentCases(
      base,
      fc.tuple(fc.constantFrom(...longKeys), fc.integer({ min: 1, max: o.maxStringLength })).map(([key, length]) => ({ mutation: 'args.long-string', at: `${key} (${length} characters)`, expects: 'survive' as const, edit: set(key, 'x'.repeat(length)) })),
    ),
  );
  const deepKeys = props.length ? props.map((p) => p.key) : ['mcpcheck_deep'];
  out.push(
    argumentCases(
      base,
      fc.tuple(fc.constantFrom(...deepKeys), fc.integer({ min: 1, max: o.maxDepth })).map(([key, depth]) => ({
        mutation: 'args.deep-nesting',
        at: `${key} (depth ${depth})`,
        expects: 'survive' as const,
        edit: (args: Message) => args,
        deep: { key, depth },
      })),
    ),
  );
  return out;
}

// --- The envelope: ids, jsonrpc, method, params.

function envelopeMutations(base: BaseRequest): Array<fc.Arbitrary<FuzzCase>> {
  const m = base.method;
  const withId = (mutation: string, id: fc.Arbitrary<unknown>, expects: Expectation) => fc.tuple(id, base.params).map(([i, p]) => jsonCase(mutation, m, expects, request(m, i, p), 'id'));
  return [
    // A null id cannot be answered by id: refused or dropped, never fatal (ROBUST-01, ROBUST-05).
    withId('id.null', fc.constant(null), 'survive'),
    // Ids must be integers (BASE-ID-01): a fractional one may be refused; it must not be fatal.
    withId('id.fractional', fc.integer({ min: 0, max: 2 ** 20 }).map((n) => n + 0.5), 'survive'),
    // Integers past 2^31 but exactly representable must come back as they were sent.
    withId('id.above-2^31', fc.integer({ min: 0, max: 2 ** 30 }).map((n) => 2 ** 31 + n * 4096 + 1), 'response'),
    // Past 2^53 a double cannot carry the id exactly; only survival is asked.
    fc.tuple(fc.integer({ min: 1, max: 999 }), base.params).map(([n, p]) => ({
      mutation: 'id.above-2^53',
      at: 'id',
      method: m,
      expects: 'survive' as const,
      body: { text: JSON.stringify(request(m, 0, p)).replace('"id":0', `"id":9007199254740${String(992 + n).padStart(4, '0')}`) },
      ending: 'lf' as const,
    })),
    fc.tuple(requestId, base.params, fc.constantFrom<unknown>('1.0', 2, null)).map(([id, p, v]) => jsonCase('envelope.jsonrpc', m, 'survive', { ...request(m, id, p), jsonrpc: v }, 'jsonrpc')),
    fc.tuple(requestId, base.params, fc.constantFrom<unknown>(42, null, ['ping'], { method: m })).map(([id, p, v]) => jsonCase('envelope.method-type', m, 'survive', { ...request(m, id, p), method: v }, 'method')),
    // Params that are no object make the message no MCP request: JSON-RPC lets its error carry id null, or (read as unparsable) none comes. Only survival is asked.
    fc.tuple(requestId, fc.constantFrom<unknown>(5, 'params', [1, 2], true)).map(([id, p]) => jsonCase('params.wrong-type', m, 'survive', { jsonrpc: '2.0', id, method: m, params: p }, 'params')),
    fc.tuple(requestId, base.params, anyJson).map(([id, p, v]) => jsonCase('params.unexpected-field', m, 'response', request(m, id, { ...(p ?? {}), mcpcheck_unexpected: v }), 'params.mcpcheck_unexpected')),
    fc.tuple(requestId, requestId, base.params).map(([a, b, p]) => jsonCase('batch', m, 'survive', [request(m, a, p), request('ping', b, undefined)])),
  ];
}

// --- The frame: not JSON, invalid UTF-8, the stdio line framing.

function frameMutations(base: BaseRequest, o: MutationOptions): Array<fc.Arbitrary<FuzzCase>> {
  const m = base.method;
  const text = fc.tuple(requestId, base.params).map(([id, p]) => JSON.stringify(request(m, id, p)));
  const out: Array<fc.Arbitrary<FuzzCase>> = [
    // A valid request cut short is never JSON: an object's text needs its closing brace.
    text.chain((t) => fc.integer({ min: 1, max: t.length - 1 }).map((cut) => ({ mutation: 'frame.truncated', method: m, expects: 'parse-error' as const, body: { text: t.slice(0, cut) }, ending: 'lf' as const }))),
    fc.constantFrom('{bad json', 'mcpcheck', '{"jsonrpc":"2.0",}', "{'jsonrpc':'2.0'}").map((t) => ({ mutation: 'frame.not-json', method: m, expects: 'parse-error' as const, body: { text: t }, ending: 'lf' as const })),
    fc.tuple(requestId, fc.constantFrom('fffe', 'c328', 'ed9fbf', 'f0288c28', 'c0af')).map(([id, bad]) => ({
      mutation: 'frame.invalid-utf8',
      method: 'ping',
      expects: 'survive' as const,
      body: { hex: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { _meta: { 'dev.mcpcheck/bytes': '\u0000' } } })).toString('hex').replace('5c7530303030', bad) },
      ending: 'lf' as const,
    })),
  ];
  if (o.transport === 'stdio') {
    out.push(
      fc.tuple(requestId, base.params).map(([id, p]) => jsonCase('frame.split-write', m, 'response', request(m, id, p), undefined, 'split')),
      fc.tuple(requestId, base.params).map(([id, p]) => jsonCase('frame.crlf', m, 'survive', request(m, id, p), undefined, 'crlf')),
      fc.tuple(requestId, base.params).map(([id, p]) => ({ mutation: 'frame.embedded-newline', method: m, expects: 'survive' as const, body: { text: JSON.stringify(request(m, id, p), null, 1) }, ending: 'lf' as const })),
    );
  }
  return out;
}

/** Notifications a client may send; none may be answered (BASE-NOTIF-02), not even when malformed. */
export function notificationCases(notifications: Array<fc.Arbitrary<unknown>>): fc.Arbitrary<FuzzCase> {
  const known = notifications.map((n) => n.map((json) => jsonCase('notification', String((json as Message).method), 'no-response', json)));
  return fc.oneof(
    ...known,
    fc.constantFrom<unknown>(5, 'params', [1]).map((p) => jsonCase('notification.bad-params', 'notifications/progress', 'no-response', { jsonrpc: '2.0', method: 'notifications/progress', params: p }, 'params')),
    anyJson.map((p) => jsonCase('notification.unknown', 'notifications/mcpcheck_unknown', 'no-response', { jsonrpc: '2.0', method: 'notifications/mcpcheck_unknown', params: { value: p } })),
  );
}

/** Every mutation of one base request, the valid request among them, and `extra` cases of the era (its per-request fields). */
export function mutationsOf(base: BaseRequest, o: MutationOptions, extra: Array<fc.Arbitrary<FuzzCase>> = []): fc.Arbitrary<FuzzCase> {
  // The arguments are where a server's own code runs, so their mutations come up most.
  const weighted = (weight: number) => (arbitrary: fc.Arbitrary<FuzzCase>) => ({ arbitrary, weight });
  return fc.oneof(
    // A valid tool call is judged too (its result's structuredContent, no refusal of valid arguments).
    weighted(base.inputSchema ? 6 : 2)(valid(base)),
    ...(base.inputSchema ? argumentMutations(base, o) : []).map(weighted(3)),
    ...envelopeMutations(base).map(weighted(1)),
    ...frameMutations(base, o).map(weighted(1)),
    ...extra.map(weighted(1)),
  );
}
