/**
 * The standard request headers of the stateless era (2026-07-28) that a Streamable HTTP client
 * derives from a request's body: `Mcp-Method` always, `Mcp-Name` for the methods that name a tool,
 * prompt or resource (streamable-http.mdx#standard-request-headers, HDR-STD-01).
 *
 * `encodeHeaderValue` is the transport's own copy of the Base64 sentinel rule (HDR-STD-02): the
 * validator's (src/validate/modern-headers.ts, written beside this by another branch) replaces it
 * once both are merged.
 */
import { isObject } from '../json.js';
import { MODERN_HEADERS } from '../spec/modern.js';

/** Where each naming method keeps the name its `Mcp-Name` header mirrors. */
const NAMED_BY: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** A value that may travel as a plain header value: visible ASCII and inner spaces only. */
const PLAIN = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
/** What a sentinel-encoded value looks like; a plain value of that shape is encoded too, so it cannot be misread. */
const SENTINEL = /^=\?base64\?.*\?=$/;

/** A header value for `value`: as it is when safe, else `=?base64?<Base64 of its UTF-8 bytes>?=`. */
export function encodeHeaderValue(value: string): string {
  if (PLAIN.test(value) && !SENTINEL.test(value)) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The `Mcp-Method` and `Mcp-Name` headers a modern request's body calls for (none for a notification or a response). */
export function modernRequestHeaders(message: unknown): Record<string, string> {
  if (!isObject(message) || typeof message.method !== 'string' || !('id' in message)) return {};
  const headers: Record<string, string> = { [MODERN_HEADERS.method]: message.method };
  const field = NAMED_BY[message.method];
  const name = field && isObject(message.params) ? message.params[field] : undefined;
  if (typeof name === 'string') headers[MODERN_HEADERS.name] = encodeHeaderValue(name);
  return headers;
}
