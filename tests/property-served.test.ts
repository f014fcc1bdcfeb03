/**
 * What the property tier serves a client must itself be conformant: a generated tool list that
 * broke a rule would make a client's reaction to it meaningless. Every generated list is judged by
 * the live validator (schema, tool names, schema dialects, `_meta` keys) exactly as a server's
 * tools/list answer is judged, and the generation is reproducible from its seed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listedToolResult } from '../src/harness/server-session.js';
import { toolListArbitrary } from '../src/property/served-tools.js';
import { validateMessage } from '../src/validate/message.js';
import { STATEFUL_REVISIONS as REVISIONS } from '../src/spec/revisions.js';

/** Findings that are verdicts, not notes (info findings say something without judging). */
const verdicts = (message: unknown, revision: (typeof REVISIONS)[number]) =>
  validateMessage(message, { from: 'server', revision, request: { method: 'tools/list', params: {} } }).filter((f) => f.severity !== 'info');

describe('generated tool lists', () => {
  it('are valid tools/list answers in every revision, judged by the live validator', () => {
    fc.assert(
      fc.property(toolListArbitrary(), (tools) => {
        const answer = { jsonrpc: '2.0', id: 1, result: { tools } };
        for (const revision of REVISIONS) expect(verdicts(answer, revision), `${revision}: ${JSON.stringify(tools).slice(0, 400)}`).toEqual([]);
      }),
      { seed: 20261201, numRuns: 150 },
    );
  });

  it('carry what the property promises the client: icons, _meta, unknown members and nested schemas all occur', () => {
    const tools = fc.sample(toolListArbitrary(), { seed: 7, numRuns: 200 }).flat();
    const has = (pred: (t: Record<string, unknown>) => boolean) => tools.some(pred);
    expect(has((t) => Array.isArray(t.icons) && t.icons.length > 0)).toBe(true);
    expect(has((t) => typeof t._meta === 'object' && t._meta !== null && Object.keys(t._meta).length > 0)).toBe(true);
    expect(has((t) => 'futureField' in t || 'x-vendor' in t)).toBe(true);
    expect(has((t) => JSON.stringify(t.inputSchema).includes('"type":"object","properties":{') && JSON.stringify(t.inputSchema).split('"type":"object"').length > 2)).toBe(true);
  });

  it('are the same for the same seed and differ for another', () => {
    const draw = (seed: number) => JSON.stringify(fc.sample(toolListArbitrary(), { seed, numRuns: 5 }));
    expect(draw(42)).toBe(draw(42));
    expect(draw(42)).not.toBe(draw(43));
  });

  it('are served when called: every listed tool answers with a result that fits its outputSchema, judged by the live validator', () => {
    const tools = fc.sample(toolListArbitrary(), { seed: 20261203, numRuns: 150 }).flat();
    let structured = 0;
    for (const tool of tools) {
      const outcome = listedToolResult(tool);
      // As the client reads it off the wire: a member named __proto__ must survive the trip.
      const answer = JSON.parse(JSON.stringify({ jsonrpc: '2.0', id: 1, ...outcome })) as Record<string, unknown>;
      const context = { from: 'server' as const, revision: '2025-11-25' as const, request: { method: 'tools/call', params: { name: tool.name } }, tools: new Map([[tool.name as string, { ...tool, name: tool.name as string }]]) };
      const shown = `${JSON.stringify(tool.outputSchema)} → ${JSON.stringify(answer).slice(0, 400)}`;
      expect(validateMessage(answer, context).filter((f) => f.severity !== 'info'), shown).toEqual([]);
      const result = answer.result as Record<string, unknown>;
      if (result.structuredContent !== undefined) structured++;
      // A tool error only where the schema validator finds no value fits: one naming a member
      // every JavaScript object inherits (it reads toString and __proto__ off the prototype).
      else if (result.isError) expect(JSON.stringify(tool.outputSchema), shown).toMatch(/"(__proto__|toString|constructor)"/);
      else expect(tool.outputSchema, shown).toBeUndefined();
    }
    expect(structured).toBeGreaterThan(tools.filter((t) => t.outputSchema !== undefined).length / 2);
  });
});
