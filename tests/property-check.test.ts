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

  it('interrupted, it ends at once: the cases left are not generated, however many were asked for', async () => {
    const controller = new AbortController();
    let generated = 0;
    let afterAbort = 0;
    const counted = fc.integer().map((n) => {
      generated++;
      if (controller.signal.aborted) afterAbort++;
      return n;
    });
    const outcome = await checkProperty(counted, 1, { cases: 100_000, maxEvaluations: 100_200, deadline: Infinity, signal: controller.signal }, async () => {
      if (generated >= 5) controller.abort();
      return { held: true };
    });
    expect(outcome).toMatchObject({ judged: 5, cutShort: true, outOfTime: true });
    expect(outcome.failure).toBeUndefined();
    // After it only the shrinking candidates of the one case that ended the run are made (each holds at once), not
    // the 99,995 cases left, which a skip would generate one by one.
    expect(afterAbort).toBeLessThan(100);
  });

  it('interrupted while shrinking a failure: the smallest case so far is the failure', async () => {
    const controller = new AbortController();
    let evaluations = 0;
    const outcome = await checkProperty(fc.array(fc.integer(), { minLength: 30 }), 1, { cases: 50, maxEvaluations: 1_000, deadline: Infinity, signal: controller.signal }, async () => {
      if (++evaluations === 3) controller.abort();
      return { failed: 'always' };
    });
    expect(outcome.failure).toBeDefined();
    expect(outcome).toMatchObject({ judged: 3, cutShort: true, outOfTime: true });
  });

  it('a run that held to the end: neither', async () => {
    const outcome = await checkProperty(fc.integer(), 1, { cases: 20, maxEvaluations: 40, deadline: Infinity }, async () => ({ held: true }));
    expect(outcome).toMatchObject({ judged: 20, cutShort: false, outOfTime: false });
  });
});
