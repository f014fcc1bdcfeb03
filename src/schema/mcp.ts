import fc from 'fast-check';
import { isObject } from '../json.js';
import { DIALECT_URIS } from '../validate/dialects.js';
import type { Revision } from '../spec/revisions.js';
import { describeErrors, schemaFor } from '../validate/schemas.js';
import { type ArbitraryOptions, arbitraryAt, type SchemaArbitrary } from './arbitrary.js';
import { metaKeyArbitrary } from './meta-key.js';
import { resolveLocalRef } from './pointer.js';

/**
 * Arbitraries of MCP objects from the official schema of a revision (as src/validate loads it,
 * with mcpcheck's rulings applied): any definition, and whole JSON-RPC requests and notifications
 * per method. `_meta` objects get keys by the `_meta` key grammar (meta-key.ts) unless the caller
 * passes its own `keysUnder`; see `defaults` for undeclared members.
 */

/**
 * Undeclared members are off by default: JSON Schema allows them almost everywhere in schema.json,
 * but a request with a stray `result` member is no request (BASE-MSG-01). Where the schema gives
 * undeclared members a schema (`_meta`, tool `arguments`) they are generated.
 */
const defaults = (options: ArbitraryOptions): ArbitraryOptions => ({
  undeclaredProperties: false,
  ...options,
  keysUnder: { _meta: metaKeyArbitrary(), ...options.keysUnder },
  // schema.json types `$schema` (of elicitation's requestedSchema) as any string; JSCH-VAL-02 wants a
  // supported dialect, and JSCH-DIAL-03 recommends 2020-12.
  propertyValues: { $schema: fc.constant(DIALECT_URIS['2020-12']), ...options.propertyValues },
});

/** Values valid against definition `name` (e.g. 'Tool', 'CallToolResult') of `revision`'s schema. */
export function definitionArbitrary(revision: Revision, name: string, options: ArbitraryOptions = {}): SchemaArbitrary {
  const schema = schemaFor(revision);
  if (!schema.has(name)) return { ok: false, problem: { keyword: '$ref', pointer: '#', message: `schema ${revision} has no definition ${JSON.stringify(name)}` } };
  // The revision's own compiled validator makes the final check: it is compiled once per process.
  const judge = (value: unknown) => {
    const errors = schema.validate(name, value);
    return errors ? { keyword: errors[0]?.keyword ?? 'type', schemaPath: errors[0]?.schemaPath ?? '#', message: describeErrors(errors, '', 1) } : undefined;
  };
  return arbitraryAt(schema.document, schema.definitionRef(name), defaults(options), judge);
}

/** Whether a message definition spells out the JSON-RPC envelope (2025-11-25 does; older revisions give method and params only). */
function hasEnvelope(revision: Revision, def: string): boolean {
  const schema = schemaFor(revision);
  const d = resolveLocalRef(schema.document, schema.definitionRef(def));
  return isObject(d) && isObject(d.properties) && 'jsonrpc' in d.properties;
}

/** Completes a method-and-params message into a JSON-RPC one, where the revision's definition leaves the envelope out. */
function enveloped(revision: Revision, def: string, message: fc.Arbitrary<unknown>, id: fc.Arbitrary<unknown> | undefined): fc.Arbitrary<unknown> {
  if (hasEnvelope(revision, def)) return message;
  return fc.tuple(message, id ?? fc.constant(undefined)).map(([m, i]) => ({ ...(m as Record<string, unknown>), jsonrpc: '2.0', ...(id ? { id: i } : {}) }));
}

/** Whole JSON-RPC requests of `method` (e.g. 'tools/call') with valid params, as `revision` defines them. */
export function requestArbitrary(revision: Revision, method: string, options: ArbitraryOptions = {}): SchemaArbitrary {
  const def = schemaFor(revision).requestDef(method);
  if (def === undefined) return { ok: false, problem: { keyword: 'method', pointer: '#', message: `revision ${revision} defines no request ${JSON.stringify(method)}` } };
  const message = definitionArbitrary(revision, def, options);
  if (!message.ok) return message;
  const id = definitionArbitrary(revision, 'RequestId', options);
  if (!id.ok) return id;
  return { ...message, arbitrary: enveloped(revision, def, message.arbitrary, id.arbitrary) };
}

/** Whole JSON-RPC notifications of `method` (e.g. 'notifications/progress'), as `revision` defines them. */
export function notificationArbitrary(revision: Revision, method: string, options: ArbitraryOptions = {}): SchemaArbitrary {
  const def = schemaFor(revision).notificationDef(method);
  if (def === undefined) return { ok: false, problem: { keyword: 'method', pointer: '#', message: `revision ${revision} defines no notification ${JSON.stringify(method)}` } };
  const message = definitionArbitrary(revision, def, options);
  if (!message.ok) return message;
  return { ...message, arbitrary: enveloped(revision, def, message.arbitrary, undefined) };
}
