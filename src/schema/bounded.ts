import fc from 'fast-check';

/** Where generation gave up: the keyword whose constraint no generated value met, and where it is. */
export class GenerationFailed extends Error {
  constructor(
    readonly keyword: string,
    readonly pointer: string,
    reason: string,
  ) {
    super(`${pointer}: ${reason}`);
  }
}

/**
 * `arb.filter(predicate)` with a bound: fast-check's own filter retries for ever, so a constraint
 * that generated values (almost) never meet would hang a run. After `tries` rejections in a row
 * this throws GenerationFailed naming the keyword, which the caller reports instead of hanging.
 */
class BoundedFilter<T> extends fc.Arbitrary<T> {
  constructor(
    private readonly arb: fc.Arbitrary<T>,
    private readonly predicate: (value: T) => boolean,
    private readonly tries: number,
    private readonly failure: (last: T) => GenerationFailed,
  ) {
    super();
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    let candidate: fc.Value<T> | undefined;
    for (let i = 0; i < this.tries; i++) {
      candidate = this.arb.generate(mrng, biasFactor);
      if (this.predicate(candidate.value)) return candidate;
    }
    throw this.failure(candidate!.value);
  }

  canShrinkWithoutContext(value: unknown): value is T {
    return this.arb.canShrinkWithoutContext(value) && this.predicate(value);
  }

  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.arb.shrink(value, context).filter((v) => this.predicate(v.value));
  }
}

export const FILTER_TRIES = 200;

/** The values of `arb` that meet `predicate`; `blame` names the keyword (and pointer) that the last rejected value missed. */
export function boundedFilter<T>(arb: fc.Arbitrary<T>, predicate: (value: T) => boolean, blame: (last: T) => { keyword: string; pointer: string; reason: string }): fc.Arbitrary<T> {
  return new BoundedFilter(arb, predicate, FILTER_TRIES, (last) => {
    const { keyword, pointer, reason } = blame(last);
    return new GenerationFailed(keyword, pointer, `${reason} (no value met it in ${FILTER_TRIES} tries)`);
  });
}
