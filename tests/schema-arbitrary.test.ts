import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ClientSession } from '../src/harness/client-session.js';
import { StdioTarget } from '../src/harness/target.js';
import { isObject } from '../src/json.js';
import { type ArbitraryOptions, schemaArbitrary } from '../src/schema/arbitrary.js';
import { definitionArbitrary, notificationArbitrary, requestArbitrary } from '../src/schema/mcp.js';
import { metaKeyArbitrary } from '../src/schema/meta-key.js';
import { validateWithSchema } from '../src/validate/dialects.js';
import { checkMeta, isMetaName, isMetaPrefixLabel, isReservedMetaKey, isReverseDnsPrefix, metaKeyParts } from '../src/validate/meta.js';
import { validateMessage } from '../src/validate/message.js';
import { STATEFUL_REVISIONS as REVISIONS } from '../src/spec/revisions.js';
import { schemaFor } from '../src/validate/schemas.js';
import { EVERYTHING, REFERENCE, requireBuild } from './server-helpers.js';

const SEED = 20251125;
const D2020 = 'https://json-schema.org/draft/2020-12/schema';
const D2019 = 'https://json-schema.org/draft/2019-09/schema';
const D07 = 'http://json-schema.org/draft-07/schema#';
const D04 = 'http://json-schema.org/draft-04/schema#';

/** The builder's own values (no final check), each validated by ajv in the schema's dialect. */
function expectAllValid(schema: Record<string, unknown>, numRuns = 40, options: ArbitraryOptions = {}): unknown[] {
  const built = schemaArbitrary(schema, { ...options, finalCheck: false });
  if (!built.ok) throw new Error(`no arbitrary for ${JSON.stringify(schema).slice(0, 200)}: ${JSON.stringify(built.problem)}`);
  const seen: unknown[] = [];
  fc.assert(
    fc.property(built.arbitrary, (value) => {
      seen.push(value);
      const verdict = validateWithSchema(schema, value);
      if (verdict.status !== 'valid') throw new Error(`${JSON.stringify(value)?.slice(0, 300)} is not valid: ${JSON.stringify(verdict)}`);
    }),
    { seed: SEED, numRuns },
  );
  return seen;
}

// ---- Hand-written schemas: each keyword, in each dialect's spelling --------------------------------

type Dialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-04';
const URI: Record<Dialect, string> = { '2020-12': D2020, '2019-09': D2019, 'draft-07': D07, 'draft-04': D04 };

/** One schema per keyword, spelled as `dialect` spells it (tuples, definitions, dependencies, exclusive bounds, const). */
function keywordSchemas(dialect: Dialect): Array<[string, Record<string, unknown>]> {
  const modern = dialect === '2020-12' || dialect === '2019-09';
  const defs = modern ? '$defs' : 'definitions';
  const constOf = (v: unknown) => (dialect === 'draft-04' ? { enum: [v] } : { const: v });
  const exclusive = dialect === 'draft-04' ? { minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true } : { exclusiveMinimum: 0, exclusiveMaximum: 10 };
  const tuple = dialect === '2020-12' ? { prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false } : { items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false };
  const dependent = modern ? { dependentRequired: { a: ['b'] } } : { dependencies: { a: ['b'] } };
  const cases: Array<[string, Record<string, unknown>]> = [
    ['type', { type: 'integer' }],
    ['type array', { type: ['string', 'null', 'boolean'] }],
    ['no type', {}],
    ['enum', { enum: ['a', 2, null, { x: [1] }] }],
    ['const', { properties: { v: constOf('fixed') }, required: ['v'] }],
    ['minimum/maximum', { type: 'number', minimum: -2.5, maximum: 3 }],
    ['exclusive bounds', { type: 'integer', ...exclusive }],
    ['multipleOf (integer)', { type: 'integer', multipleOf: 7, minimum: 10, maximum: 100 }],
    ['multipleOf (fraction)', { type: 'number', multipleOf: 0.25, minimum: -1, maximum: 1 }],
    ['string lengths', { type: 'string', minLength: 3, maxLength: 5 }],
    ['pattern', { type: 'string', pattern: '^[A-Z]{2}-\\d{3,4}$' }],
    ['unanchored pattern and length', { type: 'string', pattern: 'ab+c', maxLength: 8 }],
    ['required and nested objects', { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'array', items: { type: 'boolean' } } }, required: ['b'] } }, required: ['a'] }],
    ['min/maxItems', { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 3 }],
    ['uniqueItems', { type: 'array', items: { enum: [1, 2, 3, 4] }, uniqueItems: true, minItems: 3 }],
    ['uniqueItems of objects', { type: 'array', items: { type: 'object', properties: { k: { type: 'boolean' } }, required: ['k'], additionalProperties: false }, uniqueItems: true, minItems: 2 }],
    ['min/maxProperties', { type: 'object', minProperties: 2, maxProperties: 3 }],
    ['tuple', { type: 'array', ...tuple, minItems: 1 }],
    ['additionalProperties false', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }],
    ['additionalProperties schema', { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } }],
    ['patternProperties', { type: 'object', patternProperties: { '^x-[a-z]+$': { type: 'integer' } }, additionalProperties: false, minProperties: 1 }],
    ['dependencies (required)', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, ...dependent }],
    ['$ref to definitions', { [defs]: { pos: { type: 'integer', minimum: 1 } }, type: 'array', items: { $ref: `#/${defs}/pos` } }],
    ['$ref by JSON pointer', { type: 'object', properties: { a: { type: 'string', minLength: 2 }, b: { $ref: '#/properties/a' } }, required: ['a', 'b'] }],
    ['recursion', { [defs]: { node: { type: 'object', properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: `#/${defs}/node` } } }, required: ['value'] } }, $ref: `#/${defs}/node` }],
    ['anyOf', { anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer', minimum: 5 }] }],
    ['oneOf', { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 0 }] }],
    ['allOf', { allOf: [{ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }, { properties: { a: { minimum: 10 } } }] }],
    ['not', { type: ['string', 'integer'], not: { type: 'string' } }],
    ['format', { type: 'object', properties: Object.fromEntries(['date-time', 'date', 'time', 'email', 'uri', 'uri-reference', 'uuid', 'ipv4', 'ipv6', 'hostname', 'json-pointer', 'byte', 'duration', 'uri-template', 'regex'].filter((f) => !(dialect === 'draft-04' && (f === 'duration' || f === 'uuid'))).map((f) => [f, { type: 'string', format: f }])), required: ['date-time', 'email', 'uri'] }],
  ];
  cases.push(['$ref with siblings', { [defs]: { s: { type: 'string' } }, properties: { a: { $ref: `#/${defs}/s`, minLength: 4, maxLength: 6 } }, required: ['a'] }]);
  cases.push(['allOf of $refs', { [defs]: { named: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, aged: { properties: { age: { type: 'integer', minimum: 0 } }, required: ['age'] } }, allOf: [{ $ref: `#/${defs}/named` }, { $ref: `#/${defs}/aged` }] }]);
  cases.push(['discriminated oneOf', { oneOf: [{ type: 'object', properties: { kind: constOf('text'), text: { type: 'string' } }, required: ['kind', 'text'] }, { type: 'object', properties: { kind: constOf('image'), data: { type: 'string', format: 'byte' } }, required: ['kind', 'data'] }] }]);
  cases.push(['overlapping patternProperties', { type: 'object', properties: { ab: { type: 'integer' } }, patternProperties: { '^a': { type: 'integer' }, '^a.$': { minimum: 3 } } }]);
  if (modern) {
    cases.push(['dependentSchemas', { type: 'object', properties: { card: { type: 'string' } }, dependentSchemas: { card: { properties: { cvv: { type: 'string', pattern: '^\\d{3}$' } }, required: ['cvv'] } } }]);
    cases.push(['unevaluatedProperties', { type: 'object', allOf: [{ properties: { a: { type: 'integer' } } }], properties: { b: { type: 'boolean' } }, unevaluatedProperties: false }]);
  }
  if (dialect !== 'draft-04') {
    cases.push(['if/then/else', { type: 'object', properties: { kind: { enum: ['a', 'b'] } }, required: ['kind'], if: { properties: { kind: { const: 'a' } } }, then: { required: ['x'] }, else: { required: ['y'] } }]);
    cases.push(['propertyNames', { type: 'object', propertyNames: { pattern: '^[a-z]{1,4}$' }, minProperties: 1 }]);
    cases.push(['contains', { type: 'array', contains: { const: 42 } }]);
  }
  return cases.map(([name, s]) => [name, { $schema: URI[dialect], ...s }]);
}

describe('schemaArbitrary: every keyword, in every dialect', () => {
  for (const dialect of Object.keys(URI) as Dialect[]) {
    it(`${dialect}: everything generated validates with ajv in ${dialect}`, () => {
      for (const [name, schema] of keywordSchemas(dialect)) {
        const seen = expectAllValid(schema, 25);
        expect(new Set(seen.map((v) => JSON.stringify(v))).size, `${name}: varied values`).toBeGreaterThan(name === 'const' ? 0 : 1);
      }
    });
  }

  it('spells tuples by dialect: draft-07 `items` arrays and 2020-12 `prefixItems`', () => {
    const [, modern] = keywordSchemas('2020-12').find(([n]) => n === 'tuple')!;
    const [, old] = keywordSchemas('draft-07').find(([n]) => n === 'tuple')!;
    for (const values of [expectAllValid(modern), expectAllValid(old)]) {
      expect(values.some((v) => Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && Number.isInteger(v[1]))).toBe(true);
    }
  });

  it('keeps recursion within the depth bound', () => {
    const [, schema] = keywordSchemas('2020-12').find(([n]) => n === 'recursion')!;
    const depth = (v: unknown): number => (isObject(v) && Array.isArray(v.children) ? 1 + Math.max(0, ...v.children.map(depth)) : 0);
    const values = expectAllValid(schema, 50, { maxDepth: 3 });
    expect(Math.max(...values.map(depth))).toBeGreaterThan(0);
    expect(Math.max(...values.map(depth))).toBeLessThanOrEqual(3);
  });

  it('generates declared-only objects when undeclared properties are turned off', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } };
    for (const v of expectAllValid(schema, 30, { undeclaredProperties: false })) expect(Object.keys(v as object).every((k) => k === 'a' || k === 'b')).toBe(true);
  });
});

describe('schemaArbitrary: unsatisfiable and ungenerable schemas are reported, not generated', () => {
  const cases: Array<[string, unknown, string, string]> = [
    ['maxLength below minLength', { type: 'string', minLength: 5, maxLength: 2 }, 'maxLength', '#/maxLength'],
    ['allOf of conflicting consts', { allOf: [{ const: 'a' }, { const: 'b' }] }, 'allOf', '#/allOf/1'],
    ['allOf of conflicting types', { allOf: [{ type: 'string' }, { type: 'integer' }] }, 'allOf', '#/allOf/1'],
    ['no integer in range', { type: 'integer', minimum: 1.2, maximum: 1.8 }, 'maximum', '#/maximum'],
    ['maxItems below minItems', { type: 'array', minItems: 3, maxItems: 1 }, 'maxItems', '#/maxItems'],
    ['enum values all out of bounds', { type: 'integer', minimum: 10, enum: [1, 2] }, 'enum', '#/enum'],
    ['required but forbidden', { type: 'object', required: ['a'], additionalProperties: false }, 'required', '#/required'],
    ['false', false, 'not', '#/not'],
    ['not of everything', { not: {} }, 'not', '#/not'],
    ['endless required recursion', { $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } }, required: ['next'] } }, $ref: '#/$defs/n' }, '$ref', '#/$defs/n'],
    ['a reference cycle', { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }, '$ref', '#/$defs/a'],
    ['remote reference', { $ref: 'https://example.com/schema.json' }, '$ref', '#/$ref'],
    ['$dynamicRef', { $dynamicRef: '#node' }, '$dynamicRef', '#'],
    ['lookahead pattern', { type: 'string', pattern: '^(?=a)ab$' }, 'pattern', '#/pattern'],
    ['oneOf whose branches always overlap', { oneOf: [{ type: 'integer' }, { type: 'integer' }] }, 'oneOf', '#/oneOf'],
  ];
  for (const [name, schema, keyword, pointer] of cases) {
    it(name, () => {
      const got = schemaArbitrary(schema);
      expect(got.ok).toBe(false);
      if (got.ok) return;
      expect(got.problem.keyword).toBe(keyword);
      expect(got.problem.pointer.startsWith(pointer), got.problem.pointer).toBe(true);
      expect(got.problem.message).not.toBe('');
    });
  }

  it('an unsupported dialect is a problem too', () => {
    expect(schemaArbitrary({ $schema: 'http://example.com/my-dialect', type: 'string' })).toMatchObject({ ok: false, problem: { keyword: '$schema' } });
  });
});

// ---- Real schemas: tools of real servers ------------------------------------------------------------

async function listTools(command: string): Promise<Record<string, unknown>[]> {
  const target = new StdioTarget({ command });
  const session = new ClientSession({ channel: await target.open(), transport: 'stdio', requestTimeoutMs: 15_000, startupMs: 15_000 });
  try {
    expect((await session.initialize()).kind).toBe('result');
    const tools: Record<string, unknown>[] = [];
    let cursor: unknown;
    do {
      const reply = await session.request('tools/list', cursor === undefined ? {} : { cursor });
      if (reply.kind !== 'result') throw new Error(`tools/list: ${JSON.stringify(reply).slice(0, 200)}`);
      tools.push(...(reply.result.tools as Record<string, unknown>[]));
      cursor = reply.result.nextCursor;
    } while (typeof cursor === 'string');
    return tools;
  } finally {
    await session.close();
    await target.close();
  }
}

describe('schemaArbitrary: the tool schemas of real servers', () => {
  const servers: Record<string, Record<string, unknown>[]> = {};
  beforeAll(async () => {
    requireBuild();
    [servers.reference, servers.everything] = await Promise.all([listTools(`node ${REFERENCE}`), listTools(`node ${EVERYTHING} stdio`)]);
  }, 60_000);
  afterAll(() => undefined);

  for (const server of ['reference', 'everything']) {
    it(`${server}: every inputSchema and outputSchema`, () => {
      const tools = servers[server]!;
      expect(tools.length).toBeGreaterThan(3);
      let schemas = 0;
      for (const tool of tools) {
        for (const key of ['inputSchema', 'outputSchema']) {
          const schema = tool[key];
          if (!isObject(schema)) continue;
          schemas++;
          expectAllValid(schema, 20);
        }
      }
      expect(schemas).toBeGreaterThan(tools.length);
    });
  }
});

// ---- The official schemas ---------------------------------------------------------------------------

function definitionNames(revision: (typeof REVISIONS)[number]): string[] {
  const doc = schemaFor(revision).document;
  return Object.keys((doc.$defs ?? doc.definitions) as Record<string, unknown>);
}

/**
 * Live rules that relate parts of a message in ways no schema states, which values valid against
 * the schema may break: a tool_result must answer an earlier tool_use of the same request.
 */
const BEYOND_SCHEMA = new Set(['SAMP-MSG-02']);

describe('definitionArbitrary / requestArbitrary: the official schema of every revision', () => {
  for (const revision of REVISIONS) {
    it(`${revision}: every definition`, () => {
      const schema = schemaFor(revision);
      const names = definitionNames(revision);
      expect(names.length).toBeGreaterThan(70);
      for (const name of names) {
        const built = definitionArbitrary(revision, name, { finalCheck: false });
        if (!built.ok) throw new Error(`${revision} ${name}: ${JSON.stringify(built.problem)}`);
        fc.assert(
          fc.property(built.arbitrary, (value) => {
            const errors = schema.validate(name, value);
            if (errors) throw new Error(`${revision} ${name}: ${JSON.stringify(value).slice(0, 300)} → ${JSON.stringify(errors[0])}`);
          }),
          { seed: SEED, numRuns: 8 },
        );
      }
    });
  }

  it('every request and notification of 2025-11-25 and 2024-11-05: whole JSON-RPC messages that pass the live validator', () => {
    const problems = new Set<string>();
    for (const revision of ['2025-11-25', '2024-11-05'] as const) {
      const schema = schemaFor(revision);
      const defs = schema.document[revision === '2025-11-25' ? '$defs' : 'definitions'] as Record<string, { properties?: { method?: { const?: string } } }>;
      const methods = Object.entries(defs).filter(([n, d]) => /(?:Request|Notification)$/.test(n) && typeof d.properties?.method?.const === 'string');
      expect(methods.length).toBeGreaterThan(15);
      for (const [name, def] of methods) {
        const method = def.properties!.method!.const!;
        const request = name.endsWith('Request');
        const built = request ? requestArbitrary(revision, method, { finalCheck: false }) : notificationArbitrary(revision, method, { finalCheck: false });
        if (!built.ok) throw new Error(`${revision} ${method}: ${JSON.stringify(built.problem)}`);
        fc.assert(
          fc.property(built.arbitrary, (message) => {
            const m = message as Record<string, unknown>;
            expect(m.jsonrpc).toBe('2.0');
            expect(m.method).toBe(method);
            expect('id' in m).toBe(request);
            expect(schema.validate(request ? 'JSONRPCRequest' : 'JSONRPCNotification', m)).toBeNull();
            const from = schema.validate(request ? 'ClientRequest' : 'ClientNotification', m) === null ? 'client' : 'server';
            const findings = validateMessage(m, { from, revision }).filter((f) => !BEYOND_SCHEMA.has(f.requirements[0]!));
            for (const f of findings) problems.add(`${revision} ${method} ${f.requirements.join(',')} ${f.severity}: ${f.message.slice(0, 160)}`);
          }),
          { seed: SEED, numRuns: 15 },
        );
      }
    }
    expect([...problems]).toEqual([]);
  });

  it('tools/call requests carry a name, arguments and _meta keys by the grammar', () => {
    const built = requestArbitrary('2025-11-25', 'tools/call');
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    const messages = fc.sample(built.arbitrary, { numRuns: 200, seed: SEED }) as Array<{ id: unknown; params: Record<string, unknown> }>;
    expect(messages.every((m) => typeof m.params.name === 'string' && (typeof m.id === 'string' || Number.isInteger(m.id)))).toBe(true);
    const keys = messages.flatMap((m) => (isObject(m.params._meta) ? Object.keys(m.params._meta) : []));
    expect(keys.some((k) => k.includes('/'))).toBe(true);
    for (const m of messages) if (isObject(m.params._meta)) expect(checkMeta(m.params._meta, '/params/_meta')).toEqual([]);
  });

  it('reports an unknown definition or method', () => {
    expect(definitionArbitrary('2025-11-25', 'NoSuchThing')).toMatchObject({ ok: false, problem: { keyword: '$ref' } });
    expect(requestArbitrary('2024-11-05', 'tasks/get')).toMatchObject({ ok: false, problem: { keyword: 'method' } });
  });
});

describe('metaKeyArbitrary: keys by the _meta key grammar', () => {
  it('passes each META-KEY rule of the live validator, and never mints a reserved key', () => {
    fc.assert(
      fc.property(metaKeyArbitrary(), (key) => {
        const { labels, name } = metaKeyParts(key);
        expect(key).toBe(labels === undefined ? name : `${labels.join('.')}/${name}`);
        if (labels !== undefined) {
          expect(labels.every(isMetaPrefixLabel)).toBe(true);
          expect(isReverseDnsPrefix(labels)).toBe(true);
        }
        expect(isMetaName(name)).toBe(true);
        expect(isReservedMetaKey(key)).toBe(false);
        expect(checkMeta({ [key]: 1 }, '/_meta')).toEqual([]);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('covers the grammar: empty names, unprefixed names, several labels, digits and hyphens', () => {
    const keys = fc.sample(metaKeyArbitrary(), { numRuns: 500, seed: SEED });
    expect(keys.some((k) => k.endsWith('/'))).toBe(true);
    expect(keys.some((k) => k !== '' && !k.includes('/'))).toBe(true);
    expect(keys.some((k) => (metaKeyParts(k).labels?.length ?? 0) >= 3)).toBe(true);
    expect(keys.some((k) => /[0-9-]/.test(k.split('/')[0]!) && k.includes('/'))).toBe(true);
    expect(keys.some((k) => /[._-]/.test(metaKeyParts(k).name))).toBe(true);
  });
});
