import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { addFormats } from './formats.js';
import { packageRoot } from '../paths.js';
import { applySchemaPatches } from '../spec/rulings.js';
import { type Revision } from './revisions.js';

/**
 * The official MCP schema of each revision, compiled lazily: one Ajv instance per revision, and
 * each definition compiled on first use, so a session that only pings never pays for the rest.
 */
export interface RevisionSchema {
  readonly revision: Revision;
  /** Definition name of the request type for `method` (e.g. "CallToolRequest"), if the revision has it. */
  requestDef(method: string): string | undefined;
  notificationDef(method: string): string | undefined;
  /** Definition name of the result for a request method; CreateTaskResult for task-augmented requests. */
  resultDef(method: string, taskAugmented: boolean): string | undefined;
  /** Validates `data` against a named definition; returns null when valid. */
  validate(def: string, data: unknown): ErrorObject[] | null;
  has(def: string): boolean;
  /**
   * The revision's schema document (its `$schema` and definitions, with mcpcheck's rulings applied),
   * for tools that read schemas rather than validate (value generation). Not to be modified.
   */
  readonly document: Readonly<Record<string, unknown>>;
  /** The local `$ref` of a definition in `document`: "#/$defs/Tool" or "#/definitions/Tool". */
  definitionRef(def: string): string;
}

interface SchemaFile {
  $schema?: string;
  $defs?: Record<string, { properties?: { method?: { const?: string } } }>;
  definitions?: Record<string, { properties?: { method?: { const?: string } } }>;
}

/** Results whose name does not follow `XRequest` → `XResult`. */
const RESULT_EXCEPTIONS: Readonly<Record<string, string>> = {
  PingRequest: 'EmptyResult',
  SetLevelRequest: 'EmptyResult',
  SubscribeRequest: 'EmptyResult',
  UnsubscribeRequest: 'EmptyResult',
};

class CompiledRevision implements RevisionSchema {
  private readonly ajv: Ajv;
  private readonly defs: Record<string, unknown>;
  private readonly prefix: string;
  private readonly requests = new Map<string, string>();
  private readonly notifications = new Map<string, string>();
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly document: Readonly<Record<string, unknown>>;

  constructor(readonly revision: Revision) {
    const file = JSON.parse(readFileSync(join(packageRoot(), 'schemas/mcp', `${revision}.json`), 'utf8')) as SchemaFile;
    const modern = file.$defs !== undefined;
    const defs = (file.$defs ?? file.definitions ?? {}) as NonNullable<SchemaFile['$defs']>;
    applySchemaPatches(revision, defs);
    this.defs = defs;
    this.prefix = modern ? '#/$defs/' : '#/definitions/';
    this.document = { ...(file.$schema ? { $schema: file.$schema } : {}), [modern ? '$defs' : 'definitions']: defs };
    // strict: false because the official schemas use annotation keywords Ajv does not know.
    // validateSchema: false because these are the bundled official schemas, checked against their
    // meta-schema by tests/schemas.test.ts rather than on every run (that cost each run ~150 ms).
    const options = { strict: false, allErrors: false, validateFormats: true, validateSchema: false } as const;
    this.ajv = modern ? new Ajv2020(options) : new Ajv(options);
    addFormats(this.ajv);
    this.ajv.addSchema(file as object, revision);
    for (const [name, def] of Object.entries(defs)) {
      const method = def.properties?.method?.const;
      if (typeof method !== 'string') continue;
      if (name.endsWith('Request')) this.requests.set(method, name);
      else if (name.endsWith('Notification')) this.notifications.set(method, name);
    }
  }

  requestDef(method: string): string | undefined {
    return this.requests.get(method);
  }

  notificationDef(method: string): string | undefined {
    return this.notifications.get(method);
  }

  resultDef(method: string, taskAugmented: boolean): string | undefined {
    if (taskAugmented && this.has('CreateTaskResult')) return 'CreateTaskResult';
    const request = this.requests.get(method);
    if (!request) return undefined;
    const name = RESULT_EXCEPTIONS[request] ?? request.replace(/Request$/, 'Result');
    return this.has(name) ? name : 'Result';
  }

  has(def: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.defs, def);
  }

  definitionRef(def: string): string {
    return this.prefix + def;
  }

  validate(def: string, data: unknown): ErrorObject[] | null {
    let fn = this.compiled.get(def);
    if (!fn) {
      fn = this.ajv.getSchema(`${this.revision}${this.prefix}${def}`);
      if (!fn) throw new Error(`schema ${this.revision} has no definition ${def}`);
      this.compiled.set(def, fn);
    }
    return fn(data) ? null : (fn.errors ?? []);
  }
}

const loaded = new Map<Revision, RevisionSchema>();

export function schemaFor(revision: Revision): RevisionSchema {
  let s = loaded.get(revision);
  if (!s) {
    s = new CompiledRevision(revision);
    loaded.set(revision, s);
  }
  return s;
}

/** One line per Ajv error, most specific first, bounded. */
export function describeErrors(errors: ErrorObject[], base: string, max = 3): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const e of errors) {
    const line = `${base}${e.instancePath || ''} ${e.message ?? 'is invalid'}${paramsNote(e)}`;
    if (seen.has(line)) continue;
    seen.add(line);
    parts.push(line);
    if (parts.length >= max) break;
  }
  return parts.join('; ');
}

function paramsNote(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return ` (${String(p.additionalProperty)})`;
  if (e.keyword === 'enum' && Array.isArray(p.allowedValues)) return ` (${p.allowedValues.map(String).join(', ')})`;
  if (e.keyword === 'const') return ` (${JSON.stringify(p.allowedValue)})`;
  return '';
}
