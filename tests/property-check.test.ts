import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkProperty } from '../src/property/check.js';

// What a property run says of how it ended: a run the clock stopped is out of time (fuzz then
// reports it incomplete), one the bound on evaluations stopped (shrinking) is not.
describe('checkProperty', () => {
  it('a deadline already passed: cut short, out of time, nothing judged', async () => {
    const outcome = await checkProperty(fc.integer(), 1, { cases: 100, maxEvaluations: 200, deadline: performance.now() - 1 }, async () => ({ held: true }));
    expect(outcome).toMatchObject({ judged: 0, cutShort: true, outOfTime: true });
  });

  it('the bound on evaluations ends shrinking: cut short, not out of time', async () => {
    // Every array fails: shrinking a long one takes many steps, more than the bound allows.
    const outcome = await checkProperty(fc.array(fc.integer(), { minLength: 30 }), 1, { cases: 50, maxEvaluations: 3, deadline: Infinity }, async () => ({ failed: 'always' }));
    expect(outcome.failure).toBeDefined();
    expect(outcome).toMatchObject({ cutShort: true, outOfTime: false });
  });

  it('a run that held to the end: neither', async () => {
    const outcome = await checkProperty(fc.integer(), 1, { cases: 20, maxEvaluations: 40, deadline: Infinity }, async () => ({ held: true }));
    expect(outcome).toMatchObject({ judged: 20, cutShort: false, outOfTime: false });
  });
});
