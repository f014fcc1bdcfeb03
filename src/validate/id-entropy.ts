// Whether identifiers a party issued can be guessed from one another: the task ids of a receiver
// (TASK-SEC-02 of 2025-11-25, TASK-SEC-05 of the tasks extension; ruling task-id-entropy), the
// OAuth state an MCP proxy sends a third-party authorization server (SEC-PROXY-02; ruling
// proxy-consent). Pure: it reads ids.

/** The fewest bits the varying characters of an id must carry (OWASP's floor for session identifiers). */
export const ENTROPY_FLOOR_BITS = 64;

/** What the ids showed: why they can be guessed, or what was seen of their randomness. */
export type IdEntropy = { guessable: true; why: string } | { guessable: false; bits: number; seen: string };

function commonPrefix(ids: readonly string[]): number {
  let n = 0;
  while (ids.every((id) => n < id.length && id[n] === ids[0]![n])) n++;
  return n;
}

function commonSuffix(ids: readonly string[], prefix: number): number {
  let n = 0;
  const fits = (id: string) => id.length - n - 1 >= prefix;
  while (ids.every((id) => fits(id) && id[id.length - 1 - n] === ids[0]![ids[0]!.length - 1 - n])) n++;
  return n;
}

/** The smallest of the usual alphabets holding every character: its size. */
function alphabet(chars: Iterable<string>): number {
  const all = [...chars].join('');
  if (/^[0-9]*$/.test(all)) return 10;
  if (/^[0-9a-f]*$/.test(all) || /^[0-9A-F]*$/.test(all)) return 16;
  if (/^[0-9a-z]*$/.test(all) || /^[0-9A-Z]*$/.test(all)) return 36;
  if (/^[0-9a-zA-Z]*$/.test(all)) return 62;
  if (/^[0-9a-zA-Z_-]*$/.test(all)) return 64;
  return 94;
}

/**
 * The varying characters of each id: for ids of one length, the positions where they differ (a
 * UUID's fixed hyphens and version digit drop out); else what lies between their common prefix
 * and suffix.
 */
function varying(ids: readonly string[]): string[] {
  const length = ids[0]!.length;
  if (ids.every((id) => id.length === length)) {
    const columns = [...Array(length).keys()].filter((i) => ids.some((id) => id[i] !== ids[0]![i]));
    return ids.map((id) => columns.map((i) => id[i]).join(''));
  }
  const prefix = commonPrefix(ids);
  const suffix = commonSuffix(ids, prefix);
  return ids.map((id) => id.slice(prefix, id.length - suffix));
}

/** Whether the varying parts, in the order issued, are decimal numbers that grow: a counter or a clock. */
function counted(parts: readonly string[]): boolean {
  if (!parts.every((p) => /^[0-9]{1,15}$/.test(p))) return false;
  const values = parts.map(Number);
  return values.every((v, i) => i === 0 || v > values[i - 1]!);
}

/**
 * Judges several ids issued together (tasks', states'), in the order issued (at least two distinct
 * ones): fewer than ENTROPY_FLOOR_BITS in the characters that vary between them can be guessed (a
 * counter's or a clock's digits vary in a few places only). Not guessable says only that nothing
 * of the kind was seen.
 */
export function idEntropy(ids: readonly string[]): IdEntropy {
  const parts = varying([...new Set(ids)]);
  const size = alphabet(parts.join(''));
  const bits = Math.floor(Math.min(...parts.map((p) => p.length)) * Math.log2(size));
  if (bits < ENTROPY_FLOOR_BITS) {
    const kind = counted(parts) ? ': a number that grows, a counter or a clock' : '';
    return { guessable: true, why: `what differs between them (${parts.map((p) => JSON.stringify(p)).join(', ')}) carries at most ${bits} bits (${size} possible characters each)${kind}, under the ${ENTROPY_FLOOR_BITS} that make an id hard to guess` };
  }
  return { guessable: false, bits, seen: `what differs between them carries up to ${bits} bits (${size} possible characters each)` };
}
