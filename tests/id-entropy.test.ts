import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENTROPY_FLOOR_BITS, idEntropy } from '../src/validate/id-entropy.js';

// The measure behind TASK-SEC-02 and TASK-SEC-05 (ruling task-id-entropy): what varies between the
// ids of tasks made together, in bits; a counter or a clock varies in a few places only.

const five = (make: (i: number) => string) => Array.from({ length: 5 }, (_, i) => make(i));

describe('task id entropy', () => {
  it('finds a counter, after a prefix or inside a fixed width, and says it grows', () => {
    for (const ids of [five((i) => `task-${i + 1}`), five((i) => String(i + 8)), five((i) => `job-${String(i + 1).padStart(6, '0')}-x`)]) {
      const judged = idEntropy(ids);
      expect(judged, ids.join(' ')).toMatchObject({ guessable: true });
      expect(judged.guessable && judged.why).toContain('a number that grows');
    }
  });

  it('finds a clock: milliseconds apart, or a time-based UUID (version 1)', () => {
    const start = 1_765_000_000_000;
    expect(idEntropy(five((i) => `t${start + i * 3}`))).toMatchObject({ guessable: true });
    const v1 = ['6ba7b810-9dad-11d1-80b4-00c04fd430c8', '6ba7b811-9dad-11d1-80b4-00c04fd430c8', '6ba7b812-9dad-11d1-80b4-00c04fd430c8'];
    expect(idEntropy(v1)).toMatchObject({ guessable: true });
  });

  it('finds random ids too short to resist guessing (32 bits), without calling them a counter', () => {
    const judged = idEntropy(five(() => randomBytes(4).toString('hex')));
    expect(judged).toMatchObject({ guessable: true });
    expect(judged.guessable && judged.why).not.toContain('counter');
    expect(judged.guessable && judged.why).toContain(`under the ${ENTROPY_FLOOR_BITS}`);
  });

  it('sees nothing guessable in random UUIDs, 128-bit hex or base64url ids, and says how many bits vary', () => {
    for (const ids of [five(() => randomUUID()), five(() => randomBytes(16).toString('hex')), five(() => `task_${randomBytes(16).toString('base64url')}`)]) {
      const judged = idEntropy(ids);
      expect(judged, ids.join(' ')).toMatchObject({ guessable: false });
      expect(judged.guessable ? 0 : judged.bits).toBeGreaterThanOrEqual(120);
    }
  });
});
