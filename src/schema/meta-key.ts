import fc from 'fast-check';
import { isReservedMetaKey, isReverseDnsPrefix, metaKeyParts } from '../validate/meta.js';

/**
 * Keys of `_meta` objects, by the grammar of basic/index.mdx#meta that schema.json does not
 * encode: an optional prefix of dot-separated labels ending in `/` (META-KEY-01), each label a
 * letter, then letters, digits or hyphens, ending in a letter or digit (META-KEY-02), in
 * reverse-DNS order (META-KEY-03), and a name that is empty or begins and ends with an ASCII letter
 * or digit with letters, digits, `-`, `_`, `.` between (META-KEY-04). Keys the specification
 * reserves are left out: MCP-reserved prefixes (META-RSV-01) and the unprefixed `progressToken`,
 * whose value has a defined shape (META-RSV-03).
 */

const label = fc.stringMatching(/^[A-Za-z](?:[A-Za-z0-9-]{0,8}[A-Za-z0-9])?$/);
/** The first label of a reverse-DNS prefix: a top-level domain, or a single-label prefix. */
const topLevel = fc.constantFrom('com', 'org', 'net', 'io', 'dev', 'app', 'example');
const name = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 8, arbitrary: fc.stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,10}[A-Za-z0-9])?$/) },
);
const prefix = fc.oneof(label.map((l) => [l]), fc.tuple(topLevel, fc.array(label, { minLength: 1, maxLength: 3 })).map(([tld, rest]) => [tld, ...rest]));

/** Defined-shape keys without a prefix (META-RSV-03). */
const DEFINED_UNPREFIXED = new Set(['progressToken']);

export function metaKeyArbitrary(): fc.Arbitrary<string> {
  return fc
    .oneof(name, fc.tuple(prefix, name).map(([labels, n]) => `${labels.join('.')}/${n}`))
    .filter((key) => {
      const { labels } = metaKeyParts(key);
      return !DEFINED_UNPREFIXED.has(key) && !isReservedMetaKey(key) && (labels === undefined || isReverseDnsPrefix(labels));
    });
}
