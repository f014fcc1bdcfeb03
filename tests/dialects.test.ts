import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { checkSchema, validateWithSchema } from '../src/validate/dialects.js';
import { findRequirement } from '../src/spec/catalog.js';
import type { Finding } from '../src/validate/finding.js';

const D2020 = 'https://json-schema.org/draft/2020-12/schema';
const D2019 = 'https://json-schema.org/draft/2019-09/schema';
const D07 = 'http://json-schema.org/draft-07/schema#';
const D06 = 'http://json-schema.org/draft-06/schema#';
const D04 = 'http://json-schema.org/draft-04/schema#';
const SLIPPED = 'https://json-schema.org/2025-11-25/2020-12/schema';

function ids(findings: Finding[]): string[] {
  return findings.map((f) => `${f.requirements[0]}:${f.severity}`);
}

function expectKnownIds(findings: Finding[]): void {
  for (const f of findings) for (const id of f.requirements) expect(findRequirement(id), id).toBeDefined();
}

describe('dialect detection', () => {
  it('treats a schema without $schema as 2020-12 (JSCH-DIAL-01)', () => {
    const schema = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] };
    expect(checkSchema(schema, '/s')).toEqual([]);
    expect(validateWithSchema(schema, ['a', 1])).toEqual({ status: 'valid' });
    expect(validateWithSchema(schema, [1, 'a']).status).toBe('invalid');
  });

  it('judges only members the data holds, never what Object.prototype lends it', () => {
    const typed = { type: 'object', properties: { toString: { type: 'string' }, constructor: { type: 'integer' } } };
    expect(validateWithSchema(typed, {})).toEqual({ status: 'valid' });
    expect(validateWithSchema(typed, { toString: 1 }).status).toBe('invalid');
    expect(validateWithSchema({ type: 'object', required: ['toString', 'constructor'] }, {}).status).toBe('invalid');
    expect(validateWithSchema({ type: 'object', required: ['__proto__'] }, JSON.parse('{"__proto__": 1}'))).toEqual({ status: 'valid' });
  });

  it('judges a property named __proto__ as declared, though Ajv leaves that name out of `properties`', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object"},"a":{}},"required":["__proto__"],"additionalProperties":false}') as Record<string, unknown>;
    expect(validateWithSchema(schema, JSON.parse('{"__proto__":{}}'))).toEqual({ status: 'valid' });
    expect(validateWithSchema(schema, JSON.parse('{"__proto__":1}'))).toEqual({ status: 'invalid', errors: ['/__proto__ must be object'] });
    expect(validateWithSchema(schema, { a: 1 })).toEqual({ status: 'invalid', errors: ["(root) must have required property '__proto__'"] });
    expect(validateWithSchema(schema, JSON.parse('{"__proto__":{},"b":1}')).status).toBe('invalid');
  });

  it('rejects draft-07 tuple `items` in a 2020-12 schema (no $schema)', () => {
    const f = checkSchema({ type: 'array', items: [{ type: 'string' }] }, '/s');
    expect(ids(f)).toEqual(['JSCH-VAL-03:fail']);
    expect(f[0]!.pointer).toBe('/s/items');
  });

  const variants: Array<[string, string[]]> = [
    ['2020-12', [D2020, D2020 + '#', D2020.replace('https:', 'http:'), D2020.replace('https:', 'http:') + '#']],
    ['2019-09', [D2019, D2019 + '#', D2019.replace('https:', 'http:')]],
    ['draft-07', [D07, D07.slice(0, -1), D07.replace('http:', 'https:'), D07.replace('http:', 'https:').slice(0, -1)]],
    ['draft-06', [D06, D06.slice(0, -1), D06.replace('http:', 'https:')]],
    ['draft-04', [D04, D04.slice(0, -1), D04.replace('http:', 'https:')]],
  ];
  for (const [dialect, uris] of variants) {
    for (const uri of uris) {
      it(`recognises ${uri} as ${dialect}`, () => {
        const f = checkSchema({ $schema: uri, type: 'object' }, '/s');
        if (dialect === '2020-12') {
          expect(f).toEqual([]);
        } else {
          expect(ids(f)).toEqual(['JSCH-DIAL-03:info']);
          expect(f[0]!.pointer).toBe('/s/$schema');
          expect(f[0]!.message).toContain(dialect);
        }
        expect(validateWithSchema({ $schema: uri, type: 'object' }, {})).toEqual({ status: 'valid' });
        expect(validateWithSchema({ $schema: uri, type: 'object' }, 1).status).toBe('invalid');
      });
    }
  }

  it('treats the slipped 2025-11-25 URI as 2020-12 with a warning (§15.17)', () => {
    const schema = { $schema: SLIPPED, type: 'array', prefixItems: [{ type: 'string' }] };
    const f = checkSchema(schema, '/s');
    expect(ids(f)).toEqual(['JSCH-VAL-02:warn']);
    expect(f[0]!.message).toContain(SLIPPED);
    expect(f[0]!.message).toContain(D2020);
    expect(validateWithSchema(schema, ['x'])).toEqual({ status: 'valid' });
    expect(validateWithSchema(schema, [1]).status).toBe('invalid');
  });

  it.each([
    ['https://example.invalid/unknown'],
    ['http://json-schema.org/draft-03/schema#'],
    ['https://json-schema.org/draft/2020-12/schema/'],
    [''],
  ])('fails an unsupported dialect %j without throwing (JSCH-VAL-02)', (uri) => {
    const f = checkSchema({ $schema: uri, type: 'object' }, '/s');
    expect(ids(f)).toEqual(['JSCH-VAL-02:fail']);
    expect(f[0]!.message).toContain('unsupported JSON Schema dialect');
    expect(f[0]!.message).toContain(JSON.stringify(uri));
    expect(f[0]!.pointer).toBe('/s/$schema');
    const v = validateWithSchema({ $schema: uri }, {});
    expect(v.status).toBe('unusable');
    if (v.status === 'unusable') expect(v.reason).toContain('unsupported JSON Schema dialect');
  });

  it.each([[42], [null], [{ uri: D2020 }], [[D2020]]])('fails a non-string $schema %j (JSCH-VAL-02)', ($schema) => {
    const f = checkSchema({ $schema, type: 'object' }, '/s');
    expect(ids(f)).toEqual(['JSCH-VAL-02:fail']);
    expect(f[0]!.message).toContain('unsupported JSON Schema dialect');
    expect(validateWithSchema({ $schema }, {}).status).toBe('unusable');
  });
});

describe('each dialect applies its own semantics (JSCH-VAL-01)', () => {
  it('draft-07: `items` array is a tuple, `prefixItems` is an unknown keyword', () => {
    const tuple = { $schema: D07, type: 'array', items: [{ type: 'string' }, { type: 'number' }] };
    expect(ids(checkSchema(tuple, ''))).toEqual(['JSCH-DIAL-03:info']);
    expect(validateWithSchema(tuple, ['a', 1])).toEqual({ status: 'valid' });
    const bad = validateWithSchema(tuple, [1, 'a']);
    expect(bad.status).toBe('invalid');
    if (bad.status === 'invalid') expect(bad.errors.join(' ')).toContain('/0');
    expect(validateWithSchema({ $schema: D07, prefixItems: [{ type: 'string' }] }, [1])).toEqual({ status: 'valid' });
  });

  it('draft-07: `dependencies`', () => {
    const schema = { $schema: D07, dependencies: { a: ['b'] } };
    expect(validateWithSchema(schema, { a: 1, b: 2 })).toEqual({ status: 'valid' });
    expect(validateWithSchema(schema, { a: 1 }).status).toBe('invalid');
  });

  it('draft-06: numeric exclusiveMaximum and tuple items', () => {
    const schema = { $schema: D06, type: 'array', items: [{ type: 'number', exclusiveMaximum: 5 }] };
    expect(ids(checkSchema(schema, ''))).toEqual(['JSCH-DIAL-03:info']);
    expect(validateWithSchema(schema, [4.9])).toEqual({ status: 'valid' });
    expect(validateWithSchema(schema, [5]).status).toBe('invalid');
    // The boolean form belongs to draft-04.
    expect(ids(checkSchema({ $schema: D06, maximum: 5, exclusiveMaximum: true }, ''))).toEqual([
      'JSCH-DIAL-03:info',
      'JSCH-VAL-03:fail',
    ]);
  });

  it('draft-04: boolean exclusiveMaximum and `id`', () => {
    const schema = { $schema: D04, id: 'urn:example:d4', type: 'number', maximum: 5, exclusiveMaximum: true };
    expect(ids(checkSchema(schema, ''))).toEqual(['JSCH-DIAL-03:info']);
    expect(validateWithSchema(schema, 4.9)).toEqual({ status: 'valid' });
    expect(validateWithSchema(schema, 5).status).toBe('invalid');
    // The same keyword is meta-invalid in 2020-12.
    expect(ids(checkSchema({ maximum: 5, exclusiveMaximum: true }, ''))).toEqual(['JSCH-VAL-03:fail']);
    // The numeric form is meta-invalid in draft-04.
    expect(ids(checkSchema({ $schema: D04, exclusiveMaximum: 5 }, ''))).toEqual(['JSCH-DIAL-03:info', 'JSCH-VAL-03:fail']);
  });

  it('2019-09: dependentRequired', () => {
    const schema = { $schema: D2019, type: 'object', dependentRequired: { a: ['b'] } };
    expect(ids(checkSchema(schema, ''))).toEqual(['JSCH-DIAL-03:info']);
    expect(validateWithSchema(schema, { a: 1, b: 2 })).toEqual({ status: 'valid' });
    const bad = validateWithSchema(schema, { a: 1 });
    expect(bad.status).toBe('invalid');
    // draft-07 has no dependentRequired: ignored there.
    expect(validateWithSchema({ $schema: D07, dependentRequired: { a: ['b'] } }, { a: 1 })).toEqual({ status: 'valid' });
  });

  it('2020-12: dependentRequired, $defs and unevaluatedProperties', () => {
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/s' } },
      dependentRequired: { a: ['b'] },
      unevaluatedProperties: false,
      $defs: { s: { type: 'string' } },
    };
    expect(checkSchema(schema, '')).toEqual([]);
    expect(validateWithSchema(schema, { a: 'x', b: 1 }).status).toBe('invalid'); // b is unevaluated
    const extra = validateWithSchema(schema, { c: 1 });
    expect(extra.status).toBe('invalid');
    if (extra.status === 'invalid') expect(extra.errors.join(' ')).toContain('"c"');
    expect(validateWithSchema({ ...schema, properties: { a: { $ref: '#/$defs/s' }, b: {} } }, { a: 'x', b: 1 })).toEqual({
      status: 'valid',
    });
  });

  it('validates formats in every dialect (ajv-formats)', () => {
    for (const $schema of [D2020, D2019, D07, D06, D04]) {
      const schema = { $schema, type: 'string', format: 'email' };
      expect(validateWithSchema(schema, 'a@example.com'), $schema).toEqual({ status: 'valid' });
      expect(validateWithSchema(schema, 'not an email').status, $schema).toBe('invalid');
    }
    // Unknown formats are ignored, as JSON Schema says.
    expect(validateWithSchema({ type: 'string', format: 'mcpcheck-nonexistent' }, 'x')).toEqual({ status: 'valid' });
  });

  it('reports instance paths in data errors', () => {
    const schema = { type: 'object', properties: { list: { type: 'array', items: { type: 'integer' } } }, required: ['list'] };
    const r = validateWithSchema(schema, { list: [1, 'two', 3.5] });
    expect(r.status).toBe('invalid');
    if (r.status === 'invalid') {
      expect(r.errors.some((e) => e.startsWith('/list/1 '))).toBe(true);
      expect(r.errors.some((e) => e.startsWith('/list/2 '))).toBe(true);
    }
    const root = validateWithSchema(schema, {});
    if (root.status === 'invalid') expect(root.errors[0]).toMatch(/^\(root\) .*list/);
    else expect.fail('expected invalid');
  });
});

describe('schema validity (JSCH-VAL-03)', () => {
  it('fails a schema that breaks its meta-schema, listing paths', () => {
    const f = checkSchema({ type: 'object', properties: { a: { type: 'strng' }, b: { minimum: 'x' } } }, '/result/tools/3/inputSchema');
    expect(ids(f)).toEqual(['JSCH-VAL-03:fail']);
    expect(f[0]!.pointer).toBe('/result/tools/3/inputSchema/properties/a/type');
    expect(f[0]!.message).toContain('/properties/a/type');
    expect(f[0]!.message).toContain('/properties/b/minimum');
    const v = validateWithSchema({ type: 'strng' }, 1);
    expect(v.status).toBe('unusable');
  });

  it('fails a schema whose $ref cannot be resolved, without network access', () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      for (const $ref of ['https://example.com/remote.json', '#/$defs/missing', 'other.json#/x']) {
        const f = checkSchema({ $ref }, '/s');
        expect(ids(f)).toEqual(['JSCH-VAL-03:fail']);
        expect(f[0]!.message).toContain('does not compile');
        expect(validateWithSchema({ $ref }, 1).status).toBe('unusable');
      }
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
    }
  });

  it('fails an invalid regular expression', () => {
    const f = checkSchema({ type: 'string', pattern: '(' }, '/s');
    expect(ids(f)).toEqual(['JSCH-VAL-03:fail']);
  });

  it.each([[null], [[]], [[{ type: 'string' }]], ['{"type":"object"}'], [42], [true], [undefined]])(
    'fails a non-object schema %j',
    (schema) => {
      const f = checkSchema(schema, '/params/requestedSchema');
      expect(ids(f)).toEqual(['JSCH-VAL-03:fail']);
      expect(f[0]!.pointer).toBe('/params/requestedSchema');
      expect(validateWithSchema(schema, {}).status).toBe('unusable');
    },
  );
});

describe('$id handling', () => {
  it('keeps two different schemas with the same $id apart', () => {
    const a = { $id: 'https://example.com/same', type: 'string' };
    const b = { $id: 'https://example.com/same', type: 'number' };
    for (let round = 0; round < 2; round++) {
      expect(checkSchema(a, '')).toEqual([]);
      expect(checkSchema(b, '')).toEqual([]);
      expect(validateWithSchema(a, 'x')).toEqual({ status: 'valid' });
      expect(validateWithSchema(b, 1)).toEqual({ status: 'valid' });
      expect(validateWithSchema(a, 1).status).toBe('invalid');
      expect(validateWithSchema(b, 'x').status).toBe('invalid');
    }
  });

  it('keeps nested $ids of different schemas apart', () => {
    const a = { $ref: 'https://example.com/nested', $defs: { n: { $id: 'https://example.com/nested', type: 'string' } } };
    const b = { $ref: 'https://example.com/nested', $defs: { n: { $id: 'https://example.com/nested', type: 'boolean' } } };
    expect(validateWithSchema(a, 'x')).toEqual({ status: 'valid' });
    expect(validateWithSchema(b, true)).toEqual({ status: 'valid' });
    expect(validateWithSchema(b, 'x').status).toBe('invalid');
    // A schema that only refers to the id must not resolve it through an earlier schema.
    expect(validateWithSchema({ $ref: 'https://example.com/nested' }, 'x').status).toBe('unusable');
  });

  it('keeps draft-04 `id` collisions apart', () => {
    const a = { $schema: D04, id: 'https://example.com/d4', type: 'string' };
    const b = { $schema: D04, id: 'https://example.com/d4', type: 'number' };
    expect(validateWithSchema(a, 'x')).toEqual({ status: 'valid' });
    expect(validateWithSchema(b, 1)).toEqual({ status: 'valid' });
  });

  it('resolves a recursive absolute $ref to the schema itself', () => {
    const tree = {
      $id: 'https://example.com/tree',
      type: 'object',
      properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: 'https://example.com/tree' } } },
    };
    expect(checkSchema(tree, '')).toEqual([]);
    expect(validateWithSchema(tree, { value: 1, children: [{ value: 2, children: [] }] })).toEqual({ status: 'valid' });
    expect(validateWithSchema(tree, { value: 1, children: [{ value: 'x' }] }).status).toBe('invalid');
  });

  it('tolerates a $id equal to a meta-schema URI without breaking later schemas', () => {
    const f = checkSchema({ $id: D2020, type: 'string' }, '');
    expectKnownIds(f);
    expect(checkSchema({ type: 'object' }, '')).toEqual([]);
    expect(validateWithSchema({ type: 'object', properties: { a: { type: 'string' } } }, { a: 1 }).status).toBe('invalid');
  });
});

describe('caching', () => {
  it('validates the same schema many times quickly', () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
      required: ['city'],
    };
    const start = performance.now();
    for (let i = 0; i < 50_000; i++) {
      // A fresh object each time, as after JSON.parse of a new message.
      const s = JSON.parse(JSON.stringify(schema)) as unknown;
      if (checkSchema(s, '/x').length !== 0) throw new Error('unexpected finding');
      if (validateWithSchema(s, { city: 'Paris', days: i + 1 }).status !== 'valid') throw new Error('unexpected result');
    }
    expect(performance.now() - start).toBeLessThan(5_000);
  });

  it('stays correct past the cache bound and instance recycling', () => {
    const first = { const: 'first' };
    expect(validateWithSchema(first, 'first')).toEqual({ status: 'valid' });
    for (let i = 0; i < 2_100; i++) {
      const s = { $id: `https://example.com/s${i % 3}`, const: i };
      expect(validateWithSchema(s, i)).toEqual({ status: 'valid' });
    }
    expect(validateWithSchema(first, 'first')).toEqual({ status: 'valid' });
    expect(validateWithSchema(first, 'second').status).toBe('invalid');
  });
});

describe('schemas that differ only in annotations share a compiled validator', () => {
  it('gives each its own verdicts all the same', () => {
    const a = { type: 'object', description: 'first', properties: { n: { type: 'integer', title: 'N', description: 'a count' } } };
    const b = { type: 'object', description: 'second', properties: { n: { type: 'integer', title: 'Count' } } };
    for (const s of [a, b]) {
      expect(checkSchema(s, '/s')).toEqual([]);
      expect(validateWithSchema(s, { n: 1 })).toEqual({ status: 'valid' });
      expect(validateWithSchema(s, { n: 'x' })).toEqual({ status: 'invalid', errors: ['/n must be integer'] });
    }
    // A meta-invalid annotation is still reported, though the compiled form is shared.
    expect(ids(checkSchema({ ...a, description: 42 }, '/s'))).toEqual(['JSCH-VAL-03:fail']);
  });

  it('keeps properties, definitions and data that merely carry an annotation keyword as their name', () => {
    const plain = { type: 'object', properties: {} };
    const named = { type: 'object', properties: { description: { type: 'string' }, title: { const: 'x' } }, required: ['title'] };
    expect(validateWithSchema(plain, { description: 1 })).toEqual({ status: 'valid' });
    expect(validateWithSchema(named, { description: 1, title: 'x' }).status).toBe('invalid');
    expect(validateWithSchema(named, { title: 'y' }).status).toBe('invalid');
    expect(validateWithSchema(named, { description: 'd', title: 'x' })).toEqual({ status: 'valid' });
    const viaRef = { $defs: { description: { type: 'string' } }, $ref: '#/$defs/description' };
    expect(validateWithSchema(viaRef, 'text')).toEqual({ status: 'valid' });
    expect(validateWithSchema(viaRef, 1).status).toBe('invalid');
    expect(validateWithSchema({ enum: [{ description: 'a' }] }, { description: 'a' })).toEqual({ status: 'valid' });
    expect(validateWithSchema({ enum: [{ description: 'a' }] }, {}).status).toBe('invalid');
  });
});

describe('robustness', () => {
  const KEYWORDS = [
    '$schema', '$id', '$ref', '$defs', 'definitions', 'type', 'properties', 'items', 'prefixItems', 'required',
    'enum', 'const', 'pattern', 'format', 'minimum', 'exclusiveMaximum', 'allOf', 'anyOf', 'oneOf', 'not',
    'if', 'then', 'else', 'dependentRequired', 'dependencies', 'additionalProperties', 'unevaluatedProperties',
    '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$anchor', 'id',
  ];
  const uris = fc.constantFrom(D2020, D2019, D07, D06, D04, SLIPPED, 'https://example.invalid/x');
  const schemaLike = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.anything(),
      fc.dictionary(fc.constantFrom(...KEYWORDS), fc.oneof(tie('node'), uris, fc.constantFrom('string', 'object', '#', '#/$defs/a'))),
    ),
  })).node;

  it('checkSchema and validateWithSchema never throw on arbitrary input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), schemaLike), fc.anything(), (schema, data) => {
        const f = checkSchema(schema, '/s');
        expectKnownIds(f);
        for (const x of f) expect(x.pointer.startsWith('/s')).toBe(true);
        const v = validateWithSchema(schema, data);
        expect(['valid', 'invalid', 'unusable']).toContain(v.status);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on values JSON.stringify rejects', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    expect(() => checkSchema(cyclic, '')).not.toThrow();
    expect(() => validateWithSchema(cyclic, {})).not.toThrow();
    expect(() => checkSchema({ const: 10n }, '')).not.toThrow();
    let deep: unknown = { type: 'string' };
    for (let i = 0; i < 20_000; i++) deep = { not: deep };
    // Stack exhaustion is the checker giving up, not a verdict on the schema.
    expect(checkSchema(deep, '').filter((f) => f.severity === 'fail')).toEqual([]);
    expect(() => validateWithSchema(deep, 'x')).not.toThrow();
  });
});
