/** `f` of each item, one after the other. */
export async function inTurn<T, R>(items: readonly T[], f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) out.push(await f(item));
  return out;
}

/**
 * `f` of each item at once. The first to fail stops the others (`stop`, which they heed), and its
 * error is thrown once every one has ended: nothing a failed run started outlives the caller.
 */
export async function atOnce<T, R>(items: readonly T[], f: (item: T) => Promise<R>, stop: AbortController): Promise<R[]> {
  let failure: { error: unknown } | undefined;
  const settled = await Promise.allSettled(
    items.map((item) =>
      f(item).catch((error: unknown) => {
        failure ??= { error };
        stop.abort();
        throw error;
      }),
    ),
  );
  if (failure) throw failure.error;
  return settled.map((r) => (r as PromiseFulfilledResult<R>).value);
}
