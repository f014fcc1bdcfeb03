import type { ErrorObject } from 'ajv';
import { isAbsoluteUri } from './content.js';
import { validateWithSchema } from './dialects.js';
import { type Finding, show, unjudged } from './finding.js';
import { FORMAT_SAMPLES } from './formats.js';
import { obj } from '../json.js';

/**
 * A violation that only reflects a value the client supplied is not the server's: a prompt that
 * embeds the resource its `uri` argument names, given "mcpcheck", returns the invalid URI
 * "mcpcheck". Such findings become unjudged notes (see Finding.unjudged). One predicate,
 * echoedArgument, decides; live validation (message.ts) and scenarios use it alike.
 */

/** A string the client passed in a request's arguments, with the argument's name (`a.b`, `list[0]` when nested). */
export interface Supplied {
  argument: string;
  value: string;
}

/** Requests whose `arguments` a server may build its result from. */
const ARGUMENT_METHODS = new Set(['tools/call', 'prompts/get']);
/** A shorter value is too likely to occur in a URI by chance. */
const MIN_CONTAINED = 3;
const MAX_SUPPLIED = 200;
const MAX_ROUNDS = 20;
/** A plain word, for a value that sits where a path segment or a name goes. */
const PLAIN = 'mcpcheck';

/** The non-empty strings among a tools/call or prompts/get request's arguments. */
export function suppliedArguments(request: { method: string; params?: unknown } | undefined): Supplied[] {
  const args = request && ARGUMENT_METHODS.has(request.method) ? obj(obj(request.params)?.arguments) : undefined;
  const out: Supplied[] = [];
  const walk = (v: unknown, name: string, depth: number): void => {
    if (out.length >= MAX_SUPPLIED || depth > 8) return;
    if (typeof v === 'string') {
      if (v !== '') out.push({ argument: name, value: v });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${name}[${i}]`, depth + 1));
    else for (const [k, x] of Object.entries(obj(v) ?? {})) walk(x, name === '' ? k : `${name}.${k}`, depth + 1);
  };
  if (args) walk(args, '', 0);
  return out;
}

/**
 * The one predicate: the argument an invalid string echoes, if any. It echoes one when it is that
 * argument's value, or contains it (at least 3 characters) and putting a valid value in its place
 * — `standIn`, a sample of the expected format, or a plain word — makes the string valid: the
 * server built the string around the client's value, and a fitting value would have given a valid one.
 */
export function echoedArgument(value: unknown, supplied: readonly Supplied[], isValid: (s: string) => boolean, standIn: string): Supplied | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const exact = supplied.find((s) => s.value === value);
  if (exact) return exact;
  return supplied.find((s) => s.value.length >= MIN_CONTAINED && value.includes(s.value) && repaired(value, s, isValid, standIn) !== undefined);
}

/** The string with the echoed value replaced by a stand-in that makes it valid, if one does. */
function repaired(value: string, echo: Supplied, isValid: (s: string) => boolean, standIn: string): string | undefined {
  return [standIn, PLAIN].map((x) => value.split(echo.value).join(x)).find(isValid);
}

function because(what: string, value: string, echo: Supplied, client: string): string {
  const how = echo.value === value ? 'is the value' : `was built from the value ${show(echo.value, 80)}`;
  return `not judged: the invalid ${what} ${show(value, 80)} ${how} ${client} passed for argument ${show(echo.argument, 60)}`;
}

/**
 * RES-URI-02 findings about a URI that echoes an argument, turned into unjudged notes. `root` is
 * what the pointers point into; `client` names who passed the arguments, for the message.
 */
export function excuseEchoedUris(findings: Finding[], root: unknown, supplied: readonly Supplied[], client = 'the client'): Finding[] {
  if (supplied.length === 0) return findings;
  return findings.map((f) => {
    if (f.severity === 'info' || !f.requirements.includes('RES-URI-02')) return f;
    const value = valueAt(root, f.pointer);
    const echo = echoedArgument(value, supplied, isAbsoluteUri, FORMAT_SAMPLES.uri);
    return echo && typeof value === 'string' ? unjudged(f.requirements, because('URI', value, echo, client), f.pointer) : f;
  });
}

export interface SchemaEcho {
  /** JSON pointer (relative to the validated data) of the echoed value. */
  pointer: string;
  message: string;
}

/**
 * Schema errors without those only an echoed argument causes: each `format` error on a string that
 * echoes an argument (judged by the format itself) is set aside, the value replaced by a valid
 * stand-in and the data validated again, until no such error is left. `errors` null = nothing
 * else was wrong.
 */
export function withoutEchoedFormats(
  data: unknown,
  errors: ErrorObject[],
  supplied: readonly Supplied[],
  revalidate: (data: unknown) => ErrorObject[] | null,
): { errors: ErrorObject[] | null; echoes: SchemaEcho[] } {
  const echoes: SchemaEcho[] = [];
  if (supplied.length === 0) return { errors, echoes };
  let current: ErrorObject[] | null = errors;
  let copy = data;
  for (let round = 0; current && round < MAX_ROUNDS; round++) {
    let changed = false;
    for (const e of current) {
      const format = e.keyword === 'format' && typeof e.params.format === 'string' ? e.params.format : undefined;
      const sample = format !== undefined ? FORMAT_SAMPLES[format] : undefined;
      const value = valueAt(copy, e.instancePath);
      if (sample === undefined || typeof value !== 'string' || echoes.some((x) => x.pointer === e.instancePath)) continue;
      const holds = (s: string) => validateWithSchema({ type: 'string', format }, s).status === 'valid';
      const echo = echoedArgument(value, supplied, holds, sample);
      if (!echo) continue;
      echoes.push({ pointer: e.instancePath, message: because(format === 'uri' ? 'URI' : `${format} value`, value, echo, 'the client') });
      copy = replacedAt(copy, tokens(e.instancePath), repaired(value, echo, holds, sample) ?? sample);
      changed = true;
    }
    if (!changed) break;
    current = revalidate(copy);
  }
  return { errors: current, echoes };
}

function tokens(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a JSON pointer (RFC 6901), or undefined. */
export function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const t of tokens(pointer)) {
    const o = obj(node);
    if (Array.isArray(node)) node = node[Number(t)];
    else if (o) node = Object.hasOwn(o, t) ? o[t] : undefined;
    else return undefined;
  }
  return node;
}

/** A copy of `root` with the value at the path replaced (only the path to it is copied). */
function replacedAt(root: unknown, path: readonly string[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (Array.isArray(root)) return root.map((x, i) => (i === Number(head) ? replacedAt(x, rest, value) : x));
  const o = obj(root);
  return o ? { ...o, [head]: replacedAt(o[head], rest, value) } : root;
}
