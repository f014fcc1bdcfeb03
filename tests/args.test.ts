import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { synthesizeArguments } from '../src/schema/synthesize.js';
import { timedArguments } from '../src/schema/durations.js';
import { promptArgumentValue } from '../src/schema/kinds.js';
import { checksFromFindings } from '../src/checks.js';
import { isAbsoluteUri } from '../src/validate/content.js';
import { validateWithSchema } from '../src/validate/dialects.js';
import { echoedArgument, suppliedArguments } from '../src/validate/echo.js';
import type { Finding } from '../src/validate/finding.js';
import { validateMessage } from '../src/validate/message.js';
import { SessionValidator } from '../src/validate/session.js';
import { describeFailures, harnessErrors, ROOT, runStdio } from './server-helpers.js';

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

  it('fills properties named like Object.prototype members as members', () => {
    // Parsed, as a target's schema is: in an object literal `__proto__` would set the prototype.
    const out = synth(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object"},"toString":{"type":"string"}},"required":["__proto__","toString"]}') as Record<string, unknown>);
    expect(out.complete).toBe(true);
    expect(Object.keys(out.args).sort()).toEqual(['__proto__', 'toString']);
    expect(JSON.stringify(out.args)).toContain('"__proto__":{}');
    expect(Object.getPrototypeOf(out.args)).toBe(Object.prototype);
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

  it('takes the simplest viable anyOf / oneOf branch', () => {
    const out = synth({
      type: 'object',
      properties: {
        a: { anyOf: [{ type: 'string', pattern: '^x+$' }, { type: 'integer', minimum: 2 }] },
        b: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        c: { type: ['null', 'string'] },
      },
      required: ['a', 'b', 'c'],
    });
    expect(out).toEqual({ args: { a: 'x', b: 'mcpcheck', c: 'mcpcheck' }, complete: true });
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
    expect(out).toEqual({ args: { id: 'mcpcheck-1', n: '1' }, complete: true });
  });

  it('gives up, saying why, on a pattern it cannot read and on not', () => {
    const p = synth({ type: 'object', properties: { id: { type: 'string', pattern: '^(?=.*[0-9])[A-Z]{3}$' } }, required: ['id'] });
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

  it('sets an unstated step count beside a per-step delay named for its step, so no unseen server default multiplies it', () => {
    const schema = { type: 'object', properties: { steps: { type: 'integer', minimum: 1, maximum: 100 }, stepMs: { type: 'integer', minimum: 1, maximum: 10_000 } }, additionalProperties: false };
    expect(timedArguments(schema, {}, 300)).toEqual({ args: { steps: 3, stepMs: 100 }, estimateMs: 300, timeProperties: ['stepMs'] });
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

// ---- Realistic values ----------------------------------------------------------------------------

const required = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties) });

describe('synthesizeArguments: values of the kind a parameter names', () => {
  it('reads names, descriptions and formats', () => {
    // name, what the schema adds to {type: 'string'}, the value expected
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['resourceUri', {}, 'https://example.com/mcpcheck'],
      ['target', { description: 'The URI of the resource to read' }, 'https://example.com/mcpcheck'],
      ['homepage_url', {}, 'https://example.com/mcpcheck'],
      ['file_path', {}, '/tmp/mcpcheck.txt'],
      ['outputDir', {}, '/tmp/mcpcheck'],
      ['fileName', {}, 'mcpcheck.txt'],
      ['email', {}, 'mcpcheck@example.com'],
      ['contact', { description: 'E-mail of the owner' }, 'mcpcheck@example.com'],
      ['startDate', {}, '2025-11-25'],
      ['createdAt', {}, '2025-11-25T12:00:00Z'],
      ['when', { format: 'date-time' }, '2025-11-25T12:00:00Z'],
      ['request_id', { format: 'uuid' }, '123e4567-e89b-42d3-a456-426614174000'],
      ['userId', {}, 'mcpcheck-1'],
      ['host', {}, 'example.com'],
      ['ip', {}, '127.0.0.1'],
      ['language', {}, 'en'],
      ['locale', {}, 'en-US'],
      ['colour', {}, '#3366cc'],
      ['payload', { description: 'A JSON document' }, '{}'],
      ['contentType', {}, 'text/plain'],
    ];
    const out = synth(required(Object.fromEntries(cases.map(([name, extra]) => [name, { type: 'string', ...extra }]))));
    expect(out.args).toEqual(Object.fromEntries(cases.map(([name, , value]) => [name, value])));
  });

  it('prefers a resource the server listed for URI parameters, not for URLs', () => {
    const schema = required({ uri: { type: 'string' }, link: { type: 'string', format: 'uri' }, items: { type: 'array', items: { type: 'string', format: 'uri' }, minItems: 1, description: 'URIs to read' } });
    const out = synthesizeArguments(schema, { resourceUris: ['test://static/resource/1'] });
    expect(out).toEqual({ args: { uri: 'test://static/resource/1', link: 'https://example.com/mcpcheck', items: ['test://static/resource/1'] }, complete: true });
    // A listed URI the schema does not allow gives way to the next candidate.
    const bounded = synthesizeArguments(required({ uri: { type: 'string', pattern: '^https:' } }), { resourceUris: ['test://x'] });
    expect(bounded.args).toEqual({ uri: 'https://example.com/mcpcheck' });
  });

  it('picks numbers of the kind within the bounds, else the bounds', () => {
    const out = synth(
      required({
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        smallPort: { type: 'integer', minimum: 1, maximum: 100 },
        page: { type: 'integer', minimum: 1 },
        offset: { type: 'integer', minimum: 0 },
        year: { type: 'integer' },
        lat: { type: 'number', minimum: -90, maximum: 90 },
        lng: { type: 'number', minimum: -180, maximum: 180, multipleOf: 0.5 },
        percent: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 100 },
      }),
    );
    expect(out.args).toEqual({ port: 8080, smallPort: 1, page: 1, offset: 0, year: 2025, lat: 48.8566, lng: 0.5, percent: 50 });
  });

  it('runs a dry run where a tool offers one, other booleans false', () => {
    expect(synth(required({ dryRun: { type: 'boolean' }, dry_run: { type: 'boolean' }, force: { type: 'boolean' } })).args).toEqual({ dryRun: true, dry_run: true, force: false });
  });

  it('reads simple patterns', () => {
    const out = synth(
      required({
        code: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
        slug: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', minLength: 1 },
        version: { type: 'string', pattern: '^v\\d+\\.\\d+$' },
        sha: { type: 'string', pattern: '^[0-9a-f]{7,40}$' },
        pick: { type: 'string', pattern: '^(red|green)$' },
        email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
      }),
    );
    expect(out.args).toEqual({ code: 'AAA-1111', slug: 'mcpcheck', version: 'v1.1', sha: 'aaaaaaa', pick: 'red', email: 'mcpcheck@example.com' });
  });

  it('prefers the simplest anyOf branch, and null last', () => {
    const out = synth(
      required({
        a: { anyOf: [{ type: 'object', properties: { x: { type: 'string' } }, required: ['x'] }, { type: 'string' }] },
        b: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 3 }] },
        c: { oneOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'object' }] },
      }),
    );
    expect(out.args).toEqual({ a: 'mcpcheck', b: 3, c: [] });
  });

  it('keeps time-like arguments shortened', () => {
    const schema = required({ url: { type: 'string' }, delayMs: { type: 'integer', minimum: 0, maximum: 60_000 } });
    const out = synth(schema);
    expect(timedArguments(schema, out.args, 300)?.args).toEqual({ url: 'https://example.com/mcpcheck', delayMs: 300 });
  });

  it('gives prompt arguments (names and descriptions only) values of their kind', () => {
    expect(promptArgumentValue('uri', 'URI of the resource to embed', { resourceUris: ['echoargs://docs/readme'] })).toBe('echoargs://docs/readme');
    expect(promptArgumentValue('resource', 'The URI of a resource')).toBe('https://example.com/mcpcheck');
    expect(promptArgumentValue('day', 'Which day')).toBe('2025-11-25');
    expect(promptArgumentValue('topic', 'What to write about')).toBe('mcpcheck');
  });

  it('synthesises valid values for generated named, described and constrained schemas (property)', () => {
    const names = fc.constantFrom('uri', 'resourceUri', 'url', 'path', 'dir', 'fileName', 'email', 'date', 'createdAt', 'uuid', 'id', 'host', 'ip', 'ipv6', 'lang', 'locale',
      'color', 'json', 'mimeType', 'version', 'phone', 'port', 'page', 'offset', 'year', 'month', 'day', 'hour', 'lat', 'lng', 'percent', 'dryRun', 'query', 'x');
    const text = fc.constantFrom(undefined, 'The URI of a resource', 'An e-mail address', 'A date (YYYY-MM-DD)', 'A JSON document', 'Hostname of the server', 'Text');
    const stringSchema = fc.record(
      {
        type: fc.constant('string'),
        description: text,
        format: fc.constantFrom(undefined, 'uri', 'email', 'date', 'date-time', 'time', 'uuid', 'hostname', 'ipv4', 'ipv6'),
        pattern: fc.constantFrom(undefined, '^[A-Za-z0-9_.:/@-]+$', '^\\S+$', '^[a-z]{2}(-[A-Z]{2})?$', '^\\d+$'),
        maxLength: fc.constantFrom(undefined, 64, 200),
      },
      { requiredKeys: ['type'] },
    );
    const numberSchema = fc
      .tuple(fc.constantFrom('integer', 'number'), fc.integer({ min: -100, max: 100 }), fc.integer({ min: 1, max: 100_000 }), fc.constantFrom(undefined, 1, 5, 0.5))
      .map(([type, min, span, multipleOf]) => ({ type, minimum: min, maximum: min + span, ...(multipleOf !== undefined && type === 'number' ? { multipleOf } : {}) }));
    const prop = fc.oneof(stringSchema, numberSchema, fc.constant({ type: 'boolean' }));
    const schema = fc.dictionary(names, prop, { minKeys: 1, maxKeys: 6 }).map((properties) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false }));
    fc.assert(
      fc.property(schema, (s) => {
        const out = synthesizeArguments(s, { resourceUris: ['test://static/resource/1'] });
        // Only a pattern that contradicts the format (digits only for an email, …), or bounds no
        // multiple fits between (minimum 41, maximum 42, multipleOf 5), may make it give up.
        if (!out.complete) expect(out.why).toMatch(/pattern|fits|no number satisfies/);
        else expect(validateWithSchema(s, out.args)).toEqual({ status: 'valid' });
      }),
      { numRuns: 300 },
    );
  });
});

// ---- Values mcpcheck supplied are not the server's fault ---------------------------------------

const supplied = (args: Record<string, unknown>) => suppliedArguments({ method: 'prompts/get', params: { name: 'p', arguments: args } });
const tagsOf = (findings: Finding[]) => findings.map((f) => `${f.requirements.join('+')}:${f.severity}${f.unjudged ? ':unjudged' : ''}`);

describe('echoedArgument: the one predicate', () => {
  const uri = (s: string) => isAbsoluteUri(s);
  it('is the argument an invalid string is, or is built around', () => {
    const args = supplied({ uri: 'mcpcheck', topic: 'hello world', nested: { list: ['deep value'] } });
    expect(args).toEqual([
      { argument: 'uri', value: 'mcpcheck' },
      { argument: 'topic', value: 'hello world' },
      { argument: 'nested.list[0]', value: 'deep value' },
    ]);
    expect(echoedArgument('mcpcheck', args, uri, 'https://example.com/x')?.argument).toBe('uri');
    expect(echoedArgument('notes://hello world', args, uri, 'https://example.com/x')?.argument).toBe('topic');
    expect(echoedArgument('mcpcheck.txt', args, uri, 'https://example.com/x')?.argument).toBe('uri');
    expect(echoedArgument('x://deep value/', args, uri, 'https://example.com/x')?.argument).toBe('nested.list[0]');
  });

  it('is not an argument when the string is invalid whatever the argument', () => {
    const args = supplied({ uri: 'mcpcheck', short: 'ab' });
    for (const broken of ['link mcpcheck', 'res/mcpcheck', 'not a uri', 'ab cd']) expect(echoedArgument(broken, args, uri, 'https://example.com/x'), broken).toBeUndefined();
    expect(suppliedArguments({ method: 'resources/read', params: { uri: 'mcpcheck' } })).toEqual([]);
  });
});

describe('validateMessage: a result that echoes the arguments of its request', () => {
  const getPrompt = (args: Record<string, unknown>) => ({ method: 'prompts/get', params: { name: 'embed', arguments: args } });
  const embedded = (uri: string) => ({
    jsonrpc: '2.0',
    id: 1,
    result: { messages: [{ role: 'user', content: { type: 'resource', resource: { uri, mimeType: 'text/plain', text: 'x' } } }] },
  });
  const ctx = (request: { method: string; params?: unknown }) => ({ from: 'server' as const, revision: '2025-11-25' as const, request });

  it('fails an invalid URI that the request did not supply', () => {
    expect(tagsOf(validateMessage(embedded('mcpcheck'), ctx({ method: 'prompts/get', params: { name: 'embed' } })))).toEqual(['BASE-RES-03+PROMPT-GET-01:fail', 'RES-URI-02:fail']);
    expect(tagsOf(validateMessage(embedded('link mcpcheck'), ctx(getPrompt({ uri: 'mcpcheck' }))))).toEqual(['BASE-RES-03+PROMPT-GET-01:fail', 'RES-URI-02:fail']);
  });

  it('does not judge an invalid URI that is the value the request supplied, and says so', () => {
    const findings = validateMessage(embedded('mcpcheck'), ctx(getPrompt({ uri: 'mcpcheck' })));
    expect(tagsOf(findings)).toEqual(['BASE-RES-03+PROMPT-GET-01:info:unjudged', 'RES-URI-02:info:unjudged']);
    expect(findings[1]!.message).toBe('not judged: the invalid URI "mcpcheck" is the value the client passed for argument "uri"');
    expect(findings[0]!.pointer).toBe('/result/messages/0/content/resource/uri');
  });

  it('still fails whatever else is wrong in the same result', () => {
    const message = embedded('mcpcheck');
    (message.result.messages as unknown[]).push({ role: 'system', content: { type: 'text', text: 'x' } });
    expect(tagsOf(validateMessage(message, ctx(getPrompt({ uri: 'mcpcheck' }))))).toEqual(['BASE-RES-03+PROMPT-GET-01:info:unjudged', 'BASE-RES-03+PROMPT-GET-01:fail', 'RES-URI-02:info:unjudged']);
  });

  it('a rule seen only on unjudged values is skipped, not passed', () => {
    const findings = validateMessage(embedded('mcpcheck'), ctx(getPrompt({ uri: 'mcpcheck' })));
    const checks = checksFromFindings({ idPrefix: 'live.', findings, applied: new Set(['BASE-RES-03']), coverage: [], evidence: () => ({}), skipReason: 'not exercised' });
    const status = Object.fromEntries(checks.map((c) => [c.id, c.status]));
    expect(status).toEqual({ 'live.BASE-RES-03': 'pass', 'live.PROMPT-GET-01': 'skip', 'live.RES-URI-02': 'skip' });
    expect(checks.find((c) => c.id === 'live.RES-URI-02')!.message).toMatch(/; note: not judged: the invalid URI "mcpcheck"/);
  });
});

// ---- A correct server that echoes its arguments (tests/fixtures/echo-args) --------------------

const ECHO_SERVER = join(ROOT, 'dist/tests/fixtures/echo-args/server.js');

/** Initializes the fixture over stdio, sends each request, and returns every frame in order. */
async function exchange(flags: string[], requests: Array<{ method: string; params: unknown }>): Promise<Array<{ from: 'client' | 'server'; message: unknown }>> {
  const child = spawn(process.execPath, [ECHO_SERVER, ...flags], { stdio: ['pipe', 'pipe', 'ignore'] });
  const frames: Array<{ from: 'client' | 'server'; message: unknown }> = [];
  const waiting = new Map<number, () => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as { id?: number };
    frames.push({ from: 'server', message });
    if (typeof message.id === 'number') waiting.get(message.id)?.();
  });
  const send = (message: Record<string, unknown>) => {
    frames.push({ from: 'client', message });
    child.stdin.write(JSON.stringify(message) + '\n');
  };
  const call = (id: number, method: string, params: unknown) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method}`)), 5_000);
      waiting.set(id, () => (clearTimeout(timer), resolve()));
      send({ jsonrpc: '2.0', id, method, params });
    });
  try {
    await call(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'args-test', version: '1' } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    for (const [i, r] of requests.entries()) await call(i + 1, r.method, r.params);
  } finally {
    child.kill();
  }
  return frames;
}

/** Findings of a session validator over the frames, as tags. */
function judge(frames: Array<{ from: 'client' | 'server'; message: unknown }>): string[] {
  const v = new SessionValidator({ transport: 'stdio' });
  return [...new Set(frames.flatMap((f, i) => tagsOf(v.message(f.from, f.message, i))))].sort();
}

const OLD_VALUE = 'mcpcheck';

describe('echo-args fixture: a correct server that builds URIs from its arguments', () => {
  beforeAll(() => {
    if (!existsSync(ECHO_SERVER)) throw new Error('dist/ is missing: run `npm run build` first');
  });

  const requestsWith = (prompt: Record<string, string>, tool: Record<string, string>) => [
    { method: 'prompts/get', params: { name: 'embed', arguments: prompt } },
    { method: 'tools/call', params: { name: 'bookmark', arguments: tool } },
  ];
  const old = requestsWith({ uri: OLD_VALUE }, { url: OLD_VALUE, email: OLD_VALUE, date: OLD_VALUE });

  it('the old placeholder arguments got invalid URIs back, which used to fail the server', async () => {
    const frames = await exchange([], old);
    // Judged as before the echo rule: the requests' arguments unknown to the validator.
    const blind = frames.map((f) => {
      const m = f.message as { params?: Record<string, unknown> };
      return f.from === 'client' && m.params?.arguments ? { ...f, message: { ...m, params: { ...m.params, arguments: {} } } } : f;
    });
    expect(judge(blind).filter((t) => t.endsWith(':fail'))).toEqual(['BASE-RES-03+PROMPT-GET-01:fail', 'BASE-RES-03+TOOL-CALL-01:fail', 'RES-URI-02:fail']);
    // Judged now: the invalid URIs are the values mcpcheck passed, so they are not the server's failures.
    expect(judge(frames).filter((t) => !t.endsWith(':pass') && !t.startsWith('LIFE'))).toEqual(['BASE-RES-03+PROMPT-GET-01:info:unjudged', 'BASE-RES-03+TOOL-CALL-01:info:unjudged', 'RES-URI-02:info:unjudged']);
  });

  it('the synthesised arguments are realistic, and the server answers them with valid URIs', async () => {
    const tools = (await exchange([], [{ method: 'tools/list', params: {} }])).map((f) => f.message as { result?: { tools?: Array<Record<string, unknown>> } });
    const bookmark = tools.find((m) => m.result?.tools)!.result!.tools![0]!;
    const toolArgs = synthesizeArguments(bookmark.inputSchema);
    expect(toolArgs).toEqual({ args: { url: 'https://example.com/mcpcheck', email: 'mcpcheck@example.com', date: '2025-11-25' }, complete: true });
    const uri = promptArgumentValue('uri', 'URI of the resource to embed', { resourceUris: ['echoargs://docs/readme'] });
    const frames = await exchange([], requestsWith({ uri }, toolArgs.args as Record<string, string>));
    expect(judge(frames).filter((t) => !t.endsWith(':pass') && t !== 'LIFE-INIT-02:info')).toEqual([]);
  });

  it('a server whose URIs are invalid whatever it is given still fails', async () => {
    const frames = await exchange(['--broken'], requestsWith({ uri: 'https://example.com/mcpcheck' }, { url: 'https://example.com/mcpcheck', email: 'a@example.com', date: '2025-11-25' }));
    expect(judge(frames).filter((t) => t.endsWith(':fail'))).toEqual(['BASE-RES-03+PROMPT-GET-01:fail', 'BASE-RES-03+TOOL-CALL-01:fail', 'RES-URI-02:fail']);
    expect(judge(await exchange(['--broken'], old)).filter((t) => t.endsWith(':fail'))).toEqual(['BASE-RES-03+PROMPT-GET-01:fail', 'BASE-RES-03+TOOL-CALL-01:fail', 'RES-URI-02:fail']);
  });

  it('mcpcheck server: no failure for the correct server, the URI rules fail for the broken one', async () => {
    const only = ['server.prompts', 'server.tools'];
    const good = await runStdio(`node ${ECHO_SERVER}`, { only });
    expect(harnessErrors(good)).toEqual([]);
    const failed = (r: typeof good) => r.checks.filter((c) => c.status === 'fail').map((c) => c.id).sort();
    expect(failed(good), describeFailures(good)).toEqual([]);
    const status = Object.fromEntries(good.checks.map((c) => [c.id, c.status]));
    expect(status).toMatchObject({ 'server.tools.call/content': 'pass', 'server.prompts.get/result': 'pass', 'live.RES-URI-02': 'pass', 'live.PROMPT-GET-01': 'pass' });
    // visit's `target` gets the placeholder and comes back as the link's URI: said, not failed.
    const echoed = 'not judged: the invalid URI "mcpcheck" is the value mcpcheck passed for argument "target"';
    expect(good.notes.some((n) => n.includes(echoed)), good.notes.join('\n')).toBe(true);
    expect(good.checks.find((c) => c.id === 'live.RES-URI-02')!.message).toContain('is the value the client passed for argument "target"');
    const bad = await runStdio(`node ${ECHO_SERVER} --broken`, { only });
    expect(failed(bad)).toEqual(['live.BASE-RES-03', 'live.PROMPT-GET-01', 'live.RES-URI-02', 'live.TOOL-CALL-01', 'server.tools.call/content']);
  }, 60_000);
});
