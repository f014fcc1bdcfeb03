/**
 * The per-request fields of the stateless era (2026-07-28) as generated input: every request a
 * modern fuzz run sends carries a generated `_meta` (basic/index.mdx#meta), valid or mutated, and
 * over Streamable HTTP its headers may be made to differ from its body
 * (streamable-http.mdx#server-validation). Each mutation says which answers the spec allows it
 * (`refusal`), so the oracles judge it by its own row. Pure: no I/O.
 */
import fc from 'fast-check';
import { cannedCapabilities } from '../harness/canned.js';
import { isObject } from '../json.js';
import { META, MODERN_HEADERS } from '../spec/modern.js';
import type { StatelessRevision } from '../spec/revisions.js';
import type { FuzzCase, Refusal } from './case.js';
import { type BaseRequest, requestId } from './mutate.js';

type Message = Record<string, unknown>;

/** The input kinds a client may declare; a generated request declares any subset of them. */
const INPUT_CAPABILITIES = Object.entries(cannedCapabilities());

/**
 * A valid per-request `_meta`: the revision, client capabilities (any subset of the input kinds),
 * clientInfo or not (a SHOULD, META-REQ-02), and sometimes a key the server does not know
 * (ROBUST-09: tolerated).
 */
export function requestMetaArbitrary(revision: StatelessRevision): fc.Arbitrary<Message> {
  return fc
    .record({
      capabilities: fc.subarray(INPUT_CAPABILITIES),
      clientInfo: fc.boolean(),
      unknown: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined, freq: 4 }),
    })
    .map(({ capabilities, clientInfo, unknown }) => ({
      [META.protocolVersion]: revision,
      [META.clientCapabilities]: Object.fromEntries(capabilities),
      ...(clientInfo ? { [META.clientInfo]: { name: 'mcpcheck-fuzz', version: '0.1.0' } } : {}),
      ...(unknown !== undefined ? { 'dev.mcpcheck/fuzz': unknown } : {}),
    }));
}

/** The base's params with a generated valid `_meta` under them: what every modern case starts from. */
export function withRequestMeta(base: BaseRequest, meta: fc.Arbitrary<Message>): BaseRequest {
  return { ...base, params: fc.tuple(base.params, meta).map(([p, m]) => ({ ...(p ?? {}), _meta: { ...(isObject(p?._meta) ? p._meta : {}), ...m } })) };
}

function metaCase(mutation: string, base: BaseRequest, id: string | number, params: Message | undefined, expects: FuzzCase['expects'], refusal?: Refusal, at?: string): FuzzCase {
  const json = { jsonrpc: '2.0', id, method: base.method, ...(params !== undefined ? { params } : {}) };
  return { mutation, method: base.method, expects, body: { json }, ending: 'lf', ...(refusal ? { refusal } : {}), ...(at ? { at } : {}) };
}

/** The base's params (with their generated valid `_meta`) edited by `edit`. */
function edited(base: BaseRequest, mutation: string, at: string, expects: FuzzCase['expects'], refusal: Refusal | undefined, edit: (meta: Message, params: Message) => Message | undefined): fc.Arbitrary<FuzzCase> {
  return fc.tuple(requestId, base.params).map(([id, p]) => {
    const params = p ?? {};
    return metaCase(mutation, base, id, edit(isObject(params._meta) ? params._meta : {}, params), expects, refusal, at);
  });
}

const without = (m: Message, key: string) => Object.fromEntries(Object.entries(m).filter(([k]) => k !== key));

/**
 * The `_meta` mutations of a base request whose params carry a valid generated `_meta`:
 * - a required field missing (or `_meta`, or params, altogether) → −32602 (META-REQ-03);
 * - a protocol version the server does not implement → −32022 (VER-NEG-01);
 * - clientCapabilities that is no object: the schema's type is broken, but no row names the
 *   answer (an error or a result), so only one answer is asked;
 * - keys the server does not know beside valid fields: served (ROBUST-09).
 */
export function metaMutations(base: BaseRequest): Array<fc.Arbitrary<FuzzCase>> {
  const setMeta = (meta: Message, params: Message): Message => ({ ...params, _meta: meta });
  return [
    edited(base, 'meta.missing-protocol-version', `_meta.${META.protocolVersion}`, 'refused', 'meta-required', (m, p) => setMeta(without(m, META.protocolVersion), p)),
    edited(base, 'meta.missing-client-capabilities', `_meta.${META.clientCapabilities}`, 'refused', 'meta-required', (m, p) => setMeta(without(m, META.clientCapabilities), p)),
    edited(base, 'meta.missing', '_meta', 'refused', 'meta-required', (_m, p) => without(p, '_meta')),
    fc.tuple(requestId, base.params, fc.constantFrom('1999-01-01', 'mcpcheck', '2026-13-45')).map(([id, p, v]) => {
      const params = p ?? {};
      return metaCase('meta.unsupported-version', base, id, setMeta({ ...(isObject(params._meta) ? params._meta : {}), [META.protocolVersion]: v }, params), 'refused', 'version', `_meta.${META.protocolVersion}`);
    }),
    fc.tuple(requestId, base.params, fc.constantFrom<unknown>(5, 'all', [], null, true)).map(([id, p, v]) => {
      const params = p ?? {};
      return metaCase('meta.capabilities-not-object', base, id, setMeta({ ...(isObject(params._meta) ? params._meta : {}), [META.clientCapabilities]: v }, params), 'response', undefined, `_meta.${META.clientCapabilities}`);
    }),
    fc.tuple(requestId, base.params, fc.dictionary(fc.constantFrom('com.example/x', 'dev.mcpcheck/extra', 'mcpcheck_unprefixed', 'traceparent_like'), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 3 })).map(([id, p, extra]) => {
      const params = p ?? {};
      return metaCase('meta.unknown-keys', base, id, setMeta({ ...extra, ...(isObject(params._meta) ? params._meta : {}) }, params), 'response', undefined, '_meta');
    }),
  ];
}

/** Where the methods that name something keep the name `Mcp-Name` mirrors (HDR-STD-01). */
const NAMED_BY: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/**
 * Over Streamable HTTP, headers that differ from the body or are missing (HDR-VAL-01, HDR-VER-02,
 * HDR-CASE-01): refused with 400 and −32020 (a version mismatch may be −32022, ruling
 * version-mismatch-error). The body is the valid request.
 */
export function headerMutations(base: BaseRequest): Array<fc.Arbitrary<FuzzCase>> {
  const m = base.method;
  const other = m === 'server/discover' ? 'tools/list' : 'server/discover';
  const cased = m.charAt(0).toUpperCase() + m.slice(1);
  const withHeaders = (mutation: string, at: string, headers: fc.Arbitrary<Record<string, string | null>>) =>
    fc.tuple(requestId, base.params, headers).map(([id, p, h]) => ({ ...metaCase(mutation, base, id, p, 'refused', 'header', at), headers: h }));
  const out = [
    withHeaders('header.method-mismatch', MODERN_HEADERS.method, fc.constantFrom<Record<string, string | null>>({ [MODERN_HEADERS.method]: other }, { [MODERN_HEADERS.method]: cased })),
    withHeaders('header.method-missing', MODERN_HEADERS.method, fc.constant({ [MODERN_HEADERS.method]: null })),
    withHeaders('header.version-mismatch', MODERN_HEADERS.protocolVersion, fc.constant({ [MODERN_HEADERS.protocolVersion]: '1999-01-01' })),
  ];
  if (NAMED_BY[m]) {
    out.push(
      withHeaders('header.name-mismatch', MODERN_HEADERS.name, fc.constant({ [MODERN_HEADERS.name]: 'mcpcheck-not-the-name' })),
      withHeaders('header.name-missing', MODERN_HEADERS.name, fc.constant({ [MODERN_HEADERS.name]: null })),
    );
  }
  return out;
}
