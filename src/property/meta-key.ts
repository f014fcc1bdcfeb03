import fc from 'fast-check';

/** A prefix label: a letter first, a letter or digit last, hyphens only inside (META-KEY-02). */
const label = fc.stringMatching(/^[A-Za-z](?:[A-Za-z0-9-]{0,8}[A-Za-z0-9])?$/);

/** Second labels MCP keeps for itself (META-RSV-01): a producer other than the spec never mints them. */
const RESERVED = new Set(['modelcontextprotocol', 'mcp']);

/** Reverse-DNS prefixes (META-KEY-03), `com.example/` and the like, outside the reserved ones. */
const prefix = fc
  .tuple(fc.constantFrom('com', 'org', 'io', 'dev', 'net'), fc.array(label, { minLength: 1, maxLength: 3 }))
  .filter(([, rest]) => !RESERVED.has(rest[0]!.toLowerCase()))
  .map(([tld, rest]) => `${[tld, ...rest].join('.')}/`);

/** The name part: empty, or letters and digits at both ends with `-`, `_`, `.` allowed inside (META-KEY-04). */
const name = fc.oneof(fc.constant(''), fc.stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,10}[A-Za-z0-9])?$/));

/** `_meta` keys a conformant producer may use: an optional prefix and a name, per the key grammar (META-KEY-01). */
export function metaKeyArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.tuple(prefix, name).map(([p, n]) => p + n),
    name.filter((n) => n !== ''),
  );
}
