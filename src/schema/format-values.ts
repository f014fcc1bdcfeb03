import fc from 'fast-check';

/**
 * Strings of each `format` ajv-formats checks (its "full" mode, which mcpcheck uses), built to
 * pass those checks. Formats ajv does not know are not asserted, so any string fits them: they
 * have no entry here. Numeric formats (int32, int64, float, double) bound numbers instead: see
 * NUMERIC_FORMAT_BOUNDS.
 */

let table: Readonly<Record<string, fc.Arbitrary<string>>> | undefined;

/**
 * The arbitrary of a format's strings, if the format asserts anything. Built on first use:
 * fast-check compiling the patterns below cost every run about 0.1 s of start-up.
 */
export function formatValues(format: string): fc.Arbitrary<string> | undefined {
  table ??= buildFormatValues();
  return Object.hasOwn(table, format) ? table[format] : undefined;
}

function buildFormatValues(): Readonly<Record<string, fc.Arbitrary<string>>> {
  const two = (n: number) => String(n).padStart(2, '0');
  const day = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true });
  const zone = fc.oneof(fc.constant('Z'), fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([s, h, m]) => `${s}${two(h)}:${two(m)}`));
  const clock = fc
    .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }), fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }))
    .map(([h, m, s, ms]) => `${two(h)}:${two(m)}:${two(s)}${ms === undefined ? '' : '.' + String(ms).padStart(3, '0')}`);
  const date = day.map((d) => d.toISOString().slice(0, 10));
  const time = fc.tuple(clock, zone).map(([c, z]) => c + z);
  const dateTime = fc.tuple(date, clock, zone).map(([d, c, z]) => `${d}T${c}${z}`);
  const label = fc.stringMatching(/^[a-z](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
  const hostname = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('com', 'org', 'net', 'example', 'test')).map(([ls, tld]) => [...ls, tld].join('.'));
  const email = fc.tuple(fc.stringMatching(/^[a-z0-9](?:[a-z0-9_+-]{0,10})(?:\.[a-z0-9]{1,6})?$/), hostname).map(([local, host]) => `${local}@${host}`);
  const pathSegment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,10}$/);
  const path = fc.array(pathSegment, { maxLength: 3 }).map((ss) => ss.map((s) => '/' + s).join(''));
  const url = fc
    .tuple(fc.constantFrom('https', 'http'), hostname, fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), path, fc.option(fc.stringMatching(/^[a-z]{1,6}=[a-z0-9]{0,6}$/), { nil: undefined }))
    .map(([scheme, host, port, p, query]) => `${scheme}://${host}${port === undefined ? '' : ':' + port}${p}${query === undefined ? '' : '?' + query}`);
  const uri = fc.oneof(url, fc.stringMatching(/^urn:[a-z]{2,8}:[a-z0-9]{1,12}$/), path.map((p) => `file://${p || '/'}`), fc.stringMatching(/^mcp:\/\/[a-z]{1,8}(?:\/[a-z0-9]{1,8}){0,2}$/));
  const uriReference = fc.oneof(uri, path.map((p) => p || '/'), pathSegment);
  const uriTemplate = fc.tuple(url, fc.option(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), { nil: undefined })).map(([u, v]) => (v === undefined ? u : `${u}/{${v}}`));
  const jsonPointer = fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }).map((ts) => ts.map((t) => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join(''));
  const duration = fc
    .tuple(fc.nat(99), fc.nat(11), fc.nat(30), fc.nat(23), fc.nat(59), fc.nat(59))
    .map(([y, mo, d, h, mi, s]) => {
      const date = (y ? `${y}Y` : '') + (mo ? `${mo}M` : '') + (d ? `${d}D` : '');
      const clockPart = (h ? `${h}H` : '') + (mi ? `${mi}M` : '') + (s ? `${s}S` : '');
      return 'P' + (date || clockPart ? date + (clockPart ? 'T' + clockPart : '') : '0D');
    });

  return {
    date,
    time,
    'date-time': dateTime,
    'iso-time': time,
    'iso-date-time': dateTime,
    duration,
    uri,
    'uri-reference': uriReference,
    'uri-template': uriTemplate,
    url,
    email,
    hostname,
    ipv4: fc.ipV4(),
    ipv6: fc.ipV6(),
    regex: fc.constantFrom('^[a-z]+$', '\\d{3}', 'a|b', '.*', '^mcpcheck$'),
    uuid: fc.uuid(),
    'json-pointer': jsonPointer,
    'json-pointer-uri-fragment': jsonPointer.map((p) => '#' + encodeURI(p)),
    'relative-json-pointer': fc.tuple(fc.nat(9), fc.oneof(fc.constant('#'), jsonPointer)).map(([n, p]) => `${n}${p}`),
    byte: fc.base64String({ maxLength: 24 }),
  };
}

/** The range each numeric format allows (ajv-formats: int32 and int64 are integers in range; float and double any number). */
export const NUMERIC_FORMAT_BOUNDS: Readonly<Record<string, { min: number; max: number; integer: boolean }>> = {
  int32: { min: -(2 ** 31), max: 2 ** 31 - 1, integer: true },
  int64: { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, integer: true },
};
