import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { synthesizeArguments, timedArguments } from '../src/harness/args.js';
import { validateWithSchema } from '../src/validate/dialects.js';

const D07 = 'http://json-schema.org/draft-07/schema#';
const D04 = 'http://json-schema.org/draft-04/schema#';

function synth(schema: Record<string, unknown>) {
  const out = synthesizeArguments(schema);
  if (out.complete) expect(validateWithSchema(schema, out.args)).toEqual({ status: 'valid' });
  return out;
}

describe('synthesizeArguments', () => {
  it('fills only required properties', () => {
    const out = synth({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] });
    expect(out).toEqual({ args: { a: 'mcpcheck' }, complete: true });
  });

  it('gives {} for a tool without parameters', () => {
    expect(synth({ type: 'object', additionalProperties: false })).toEqual({ args: {}, complete: true });
    expect(synth({ type: 'object' })).toEqual({ args: {}, complete: true });
  });

  it('prefers const, then default, then enum, then examples', () => {
    const out = synth({
      type: 'object',
      properties: {
        c: { const: 'fixed', default: 'other' },
        d: { type: 'integer', default: 7, enum: [3, 7] },
        e: { type: 'string', enum: ['first', 'second'] },
        x: { type: 'string', pattern: '^[a-z]{3}$', examples: ['abc'] },
      },
      required: ['c', 'd', 'e', 'x'],
    });
    expect(out).toEqual({ args: { c: 'fixed', d: 7, e: 'first', x: 'abc' }, complete: true });
  });

  it('ignores a default that breaks the property schema', () => {
    const out = synth({ type: 'object', properties: { n: { type: 'integer', minimum: 5, default: 1 } }, required: ['n'] });
    expect(out).toEqual({ args: { n: 5 }, complete: true });
  });

  it('honours numeric bounds, exclusive bounds and multipleOf', () => {
    const out = synth({
      type: 'object',
      properties: {
        a: { type: 'integer', minimum: 3, maximum: 9 },
        b: { type: 'number', exclusiveMinimum: 2, maximum: 3 },
        c: { type: 'integer', maximum: -4 },
        d: { type: 'integer', multipleOf: 5, minimum: 11 },
        e: { type: 'number', minimum: -1, maximum: 0.5 },
      },
      required: ['a', 'b', 'c', 'd', 'e'],
    });
    expect(out.complete).toBe(true);
    expect(out.args).toMatchObject({ a: 3, c: -4, d: 15 });
  });

  it('understands draft-04 boolean exclusiveMinimum', () => {
    const out = synth({ $schema: D04, type: 'object', properties: { n: { type: 'integer', minimum: 0, exclusiveMinimum: true } }, required: ['n'] });
    expect(out).toEqual({ args: { n: 1 }, complete: true });
  });

  it('honours string lengths and formats', () => {
    const out = synth({
      type: 'object',
      properties: {
        long: { type: 'string', minLength: 20 },
        short: { type: 'string', maxLength: 2 },
        email: { type: 'string', format: 'email' },
        uri: { type: 'string', format: 'uri' },
        date: { type: 'string', format: 'date' },
        when: { type: 'string', format: 'date-time' },
        id: { type: 'string', format: 'uuid' },
      },
      required: ['long', 'short', 'email', 'uri', 'date', 'when', 'id'],
    });
    expect(out.complete).toBe(true);
    expect((out.args.long as string).length).toBe(20);
    expect(out.args.short).toBe('mc');
    expect(out.args.email).toContain('@');
  });

  it('fills arrays to minItems and nested objects', () => {
    const out = synth({
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
        pos: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'], additionalProperties: false },
        flag: { type: 'boolean' },
        nothing: { type: 'null' },
      },
      required: ['tags', 'pos', 'flag', 'nothing'],
    });
    expect(out).toEqual({ args: { tags: ['mcpcheck', 'mcpcheck'], pos: { x: 1, y: 1 }, flag: false, nothing: null }, complete: true });
  });

  it('takes the first viable anyOf / oneOf branch', () => {
    const out = synth({
      type: 'object',
      properties: {
        a: { anyOf: [{ type: 'string', pattern: '^x+$' }, { type: 'integer', minimum: 2 }] },
        b: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        c: { type: ['null', 'string'] },
      },
      required: ['a', 'b', 'c'],
    });
    expect(out).toEqual({ args: { a: 2, b: 'mcpcheck', c: 'mcpcheck' }, complete: true });
  });

  it('follows local $ref into $defs (2020-12) and definitions (draft-07)', () => {
    const modern = synth({
      type: 'object',
      $defs: { point: { type: 'object', properties: { x: { type: 'integer', minimum: 4 } }, required: ['x'] } },
      properties: { p: { $ref: '#/$defs/point' } },
      required: ['p'],
    });
    expect(modern).toEqual({ args: { p: { x: 4 } }, complete: true });
    const legacy = synth({
      $schema: D07,
      type: 'object',
      definitions: { color: { type: 'string', enum: ['red', 'green'] } },
      properties: { c: { $ref: '#/definitions/color' } },
      required: ['c'],
    });
    expect(legacy).toEqual({ args: { c: 'red' }, complete: true });
  });

  it('merges allOf', () => {
    const out = synth({ type: 'object', allOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'integer' } }, required: ['b'] }] });
    expect(out).toEqual({ args: { a: 'mcpcheck', b: 1 }, complete: true });
  });

  it('satisfies a permissive pattern with a plain value', () => {
    const out = synth({ type: 'object', properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, n: { type: 'string', pattern: '^[0-9]+$' } }, required: ['id', 'n'] });
    expect(out).toEqual({ args: { id: 'mcpcheck', n: '1' }, complete: true });
  });

  it('gives up, saying why, on pattern and not', () => {
    const p = synth({ type: 'object', properties: { id: { type: 'string', pattern: '^[A-Z]{3}$' } }, required: ['id'] });
    expect(p.complete).toBe(false);
    expect(p.why).toMatch(/pattern/);
    const n = synth({ type: 'object', properties: { v: { not: { type: 'string' } } }, required: ['v'] });
    expect(n.complete).toBe(false);
    expect(n.why).toMatch(/"not"/);
  });

  it('gives up on a required property that additionalProperties forbids, and on non-objects', () => {
    expect(synth({ type: 'object', required: ['ghost'], additionalProperties: false }).complete).toBe(false);
    expect(synthesizeArguments(null).complete).toBe(false);
    expect(synthesizeArguments({ type: 'string' }).complete).toBe(false);
  });

  it('stops on recursive references', () => {
    const out = synth({ type: 'object', $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } }, required: ['next'] } }, properties: { head: { $ref: '#/$defs/n' } }, required: ['head'] });
    expect(out.complete).toBe(false);
    expect(out.why).toMatch(/deeper/);
  });

  it('synthesises valid arguments for generated simple schemas (property)', () => {
    const leaf = fc.oneof(
      fc.record({ type: fc.constant('string'), minLength: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }), maxLength: fc.option(fc.integer({ min: 30, max: 60 }), { nil: undefined }) }),
      fc.record({ type: fc.constantFrom('string'), format: fc.constantFrom('email', 'uri', 'date', 'date-time', 'uuid') }),
      fc
        .tuple(fc.constantFrom('integer', 'number'), fc.option(fc.integer({ min: -50, max: 50 }), { nil: undefined }), fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }), fc.boolean())
        .map(([type, min, span, exclusive]) => {
          const s: Record<string, unknown> = { type };
          if (min !== undefined) s[exclusive ? 'exclusiveMinimum' : 'minimum'] = min;
          if (min !== undefined && span !== undefined) s.maximum = min + span + 1;
          else if (span !== undefined) s.maximum = span;
          return s;
        }),
      fc.record({ type: fc.constant('boolean') }),
      fc.uniqueArray(fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { minLength: 1, maxLength: 4 }).map((values) => ({ enum: values })),
      fc.record({ type: fc.constant('string'), default: fc.string({ maxLength: 8 }) }),
    );
    const value = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.record({ type: fc.constant('array'), items: tie('node'), minItems: fc.integer({ min: 0, max: 3 }) }),
        fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tie('node'), { maxKeys: 4 }).chain((properties) =>
          fc.subarray(Object.keys(properties)).map((required) => ({ type: 'object', properties, required, additionalProperties: false })),
        ),
        fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((branches) => ({ anyOf: branches })),
      ),
    })).node;
    const schema = fc
      .tuple(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), value, { maxKeys: 5 }), fc.constantFrom(undefined, D07))
      .chain(([properties, dialect]) =>
        fc.subarray(Object.keys(properties)).map((required) => ({ ...(dialect ? { $schema: dialect } : {}), type: 'object', properties, required })),
      );
    fc.assert(
      fc.property(schema, (s) => {
        const out = synthesizeArguments(s);
        expect(out.complete, out.why).toBe(true);
        expect(validateWithSchema(s, out.args)).toEqual({ status: 'valid' });
      }),
      { numRuns: 500 },
    );
  });
});

describe('timedArguments', () => {
  it('divides a per-step millisecond delay by the step count (default steps)', () => {
    const schema = {
      type: 'object',
      properties: {
        steps: { type: 'integer', minimum: 1, maximum: 100, default: 5, description: 'Number of steps.' },
        delayMs: { type: 'integer', minimum: 0, maximum: 10_000, default: 100, description: 'Delay per step in milliseconds.' },
      },
      additionalProperties: false,
    };
    const out = timedArguments(schema, {}, 2000);
    expect(out).toEqual({ args: { delayMs: 400 }, estimateMs: 2000, timeProperties: ['delayMs'] });
  });

  it('reads a duration in seconds as a total', () => {
    const schema = {
      $schema: D07,
      type: 'object',
      properties: {
        duration: { default: 10, description: 'Duration of the operation in seconds', type: 'number' },
        steps: { default: 5, description: 'Number of steps in the operation', type: 'number' },
      },
    };
    expect(timedArguments(schema, {}, 500)).toEqual({ args: { duration: 0.5 }, estimateMs: 500, timeProperties: ['duration'] });
  });

  it('clamps to the schema bounds and ignores non-time names', () => {
    const schema = { type: 'object', properties: { seconds: { type: 'integer', minimum: 1 }, items: { type: 'integer' } } };
    expect(timedArguments(schema, {}, 300)).toEqual({ args: { seconds: 1 }, estimateMs: 1000, timeProperties: ['seconds'] });
    expect(timedArguments({ type: 'object', properties: { items: { type: 'integer' } } }, {}, 300)).toBeUndefined();
  });
});
