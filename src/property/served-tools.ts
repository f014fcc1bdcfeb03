/**
 * Generated tool lists that a conformant server may send: what mcpcheck, playing the server,
 * serves a client under test in the property tier. Everything generated is valid for the
 * 2025-11-25 schema (ListToolsResult), every schema in it is a valid 2020-12 schema with an
 * object root (TOOL-SCHEMA-01, JSCH-VAL-03), every `_meta` key follows the key grammar
 * (META-KEY-01..04), and the unknown members are ones the schema leaves open (ROBUST-07 asks a
 * client to tolerate them). The text fields carry markup and control characters on purpose: a
 * client that renders them must escape them, and none of them is invalid.
 */
import fc from 'fast-check';
import { metaKeyArbitrary } from '../schema/meta-key.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: Json };

/** Strings a renderer must treat as text: markup, template syntax, direction overrides, odd whitespace. */
const HOSTILE_TEXT = ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '</style>', '{{7*7}}', '${process.env.HOME}', '\u202egnirts', 'tab\tnew\nline', ''];

const text = (maxLength: number): fc.Arbitrary<string> => fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength }) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_TEXT) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength }) });

/** Small JSON values (for `_meta` values, unknown members, enum members). */
const jsonValue: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 2 }).map((v) => v as Json);

const FORMATS = ['date-time', 'date', 'email', 'uri', 'uuid', 'ipv4'] as const;

const stringSchema: fc.Arbitrary<Schema> = fc
  .record(
    {
      minLength: fc.nat({ max: 4 }),
      extra: fc.nat({ max: 20 }),
      format: fc.constantFrom(...FORMATS),
      enum: fc.uniqueArray(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 4 }),
    },
    { requiredKeys: [] },
  )
  .map(({ minLength, extra, format, enum: members }): Schema => {
    if (members) return { type: 'string', enum: members };
    // A format goes without length bounds: a date-time of at most 3 characters is a schema no value fits.
    if (format) return { type: 'string', format };
    return {
      type: 'string',
      ...(minLength !== undefined ? { minLength } : {}),
      ...(extra !== undefined ? { maxLength: (minLength ?? 0) + extra } : {}),
    };
  });

const numberSchema: fc.Arbitrary<Schema> = fc
  .record({ type: fc.constantFrom('number', 'integer'), minimum: fc.integer({ min: -1000, max: 1000 }), span: fc.nat({ max: 1000 }) }, { requiredKeys: ['type'] })
  .map(({ type, minimum, span }): Schema => ({ type, ...(minimum !== undefined ? { minimum } : {}), ...(span !== undefined ? { maximum: (minimum ?? 0) + span } : {}) }));

const leafSchema: fc.Arbitrary<Schema> = fc.oneof(stringSchema, numberSchema, fc.constant<Schema>({ type: 'boolean' }), fc.constant<Schema>({ type: 'null' }));

/** Words a schema may name a property with, including ones a careless client might treat specially. */
const propertyName = fc.oneof(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,11}$/), fc.constantFrom('__proto__', 'constructor', 'toString', '$ref', 'type', ''));

const annotated = (schema: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> =>
  fc.tuple(schema, fc.record({ title: text(20), description: text(60) }, { requiredKeys: [] })).map(([s, notes]) => ({ ...s, ...notes }));

/** Object schemas whose properties are schemas down to `depth` levels; `required` names only declared properties. */
function objectSchema(depth: number): fc.Arbitrary<Schema> {
  const member: fc.Arbitrary<Schema> = depth <= 0 ? annotated(leafSchema) : annotated(fc.oneof({ weight: 3, arbitrary: leafSchema }, { weight: 1, arbitrary: objectSchema(depth - 1) }, { weight: 1, arbitrary: arraySchema(depth - 1) }));
  return fc
    .tuple(fc.uniqueArray(fc.tuple(propertyName, member), { maxLength: 5, selector: ([name]) => name }), fc.boolean())
    .chain(([entries, closed]) =>
      fc.subarray(entries.map(([name]) => name)).map((required): Schema => ({
        type: 'object',
        // An own-property map: `__proto__` must be a member, not the prototype.
        properties: Object.fromEntries(entries) as Schema,
        ...(required.length ? { required } : {}),
        ...(closed ? { additionalProperties: false } : {}),
      })),
    );
}

function arraySchema(depth: number): fc.Arbitrary<Schema> {
  const items = depth <= 0 ? leafSchema : fc.oneof(leafSchema, objectSchema(depth - 1));
  return fc.tuple(items, fc.nat({ max: 3 })).map(([itemSchema, maxExtra]): Schema => ({ type: 'array', items: itemSchema, maxItems: 1 + maxExtra }));
}

/** A one-pixel PNG and a tiny GIF: real images under the type they claim. */
const DATA_ICONS = [
  { src: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', mimeType: 'image/png' },
  { src: 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==', mimeType: 'image/gif' },
] as const;

/**
 * Icons at data: URIs and at https: URLs on a loopback port nothing listens on (a client that
 * fetches them gets a refused connection, and mcpcheck never sends traffic elsewhere).
 */
const icon = fc
  .record(
    {
      where: fc.oneof(fc.constantFrom(...DATA_ICONS), fc.stringMatching(/^[a-z0-9]{1,8}$/).map((file) => ({ src: `https://127.0.0.1:9/${file}.png`, mimeType: 'image/png' }))),
      sizes: fc.uniqueArray(fc.constantFrom('16x16', '32x32', '48x48', 'any'), { minLength: 1, maxLength: 3 }),
      theme: fc.constantFrom('light', 'dark'),
      typed: fc.boolean(),
    },
    { requiredKeys: ['where', 'typed'] },
  )
  .map(({ where, sizes, theme, typed }): Schema => ({ src: where.src, ...(typed ? { mimeType: where.mimeType } : {}), ...(sizes ? { sizes } : {}), ...(theme ? { theme } : {}) }));

const meta: fc.Arbitrary<Schema> = fc.dictionary(metaKeyArbitrary(), jsonValue, { maxKeys: 3 });

/** Members the schema does not name; open objects allow them and a client must tolerate them. */
const unknownMembers: fc.Arbitrary<Schema> = fc.dictionary(fc.constantFrom('x-vendor', 'futureField', 'category', 'version'), jsonValue, { maxKeys: 2 });

const annotations = fc.record(
  { title: text(20), readOnlyHint: fc.boolean(), destructiveHint: fc.boolean(), idempotentHint: fc.boolean(), openWorldHint: fc.boolean() },
  { requiredKeys: [] },
);

/** Tool names inside the recommended alphabet (TOOL-NAME-01), so that a client may refuse none of them. */
const toolName = fc.stringMatching(/^[A-Za-z0-9_.-]{1,48}$/);

const toolArbitrary: fc.Arbitrary<Schema> = fc
  .record(
    {
      name: toolName,
      title: text(30),
      description: text(200),
      inputSchema: objectSchema(2),
      outputSchema: objectSchema(1),
      annotations,
      icons: fc.array(icon, { minLength: 1, maxLength: 3 }),
      _meta: meta,
      extra: unknownMembers,
    },
    { requiredKeys: ['name', 'inputSchema'] },
  )
  .map(({ extra, ...tool }) => ({ ...(extra ?? {}), ...tool }) as Schema);

/** A whole tools/list answer's worth of tools: names unique, up to `maxTools`. */
export function toolListArbitrary(maxTools = 6): fc.Arbitrary<Schema[]> {
  return fc.uniqueArray(toolArbitrary, { maxLength: maxTools, selector: (t) => t.name });
}
