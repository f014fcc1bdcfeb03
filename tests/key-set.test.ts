import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeySet } from '../src/validate/session/key-set.js';

describe('KeySet (the request ids a session has seen)', () => {
  it('answers has() as a Set of the same keys does, whatever the order and mix of keys', () => {
    const key = fc.oneof(fc.integer({ min: -20, max: 20 }), fc.constantFrom('1', 'a', ''), fc.constantFrom(Number.MAX_SAFE_INTEGER, 2 ** 60));
    fc.assert(
      fc.property(fc.array(key, { maxLength: 60 }), fc.array(key, { maxLength: 20 }), (added, probes) => {
        const set = new Set<string | number>();
        const keys = new KeySet();
        for (const k of added) {
          set.add(k);
          keys.add(k);
        }
        for (const k of [...added, ...probes]) expect(keys.has(k), String(k)).toBe(set.has(k));
      }),
    );
  });

  it('ids counted up one by one, then one out of order', () => {
    const keys = new KeySet();
    for (let i = 1; i <= 100_000; i++) keys.add(i);
    keys.add(100_002);
    expect(keys.has(100_002)).toBe(true);
    expect(keys.has(0)).toBe(false);
    expect(keys.has(50_000)).toBe(true);
    expect(keys.has(100_001)).toBe(false);
  });
});
