/**
 * The standard request headers of the stateless era (2026-07-28) that a Streamable HTTP client
 * derives from a request's body: `Mcp-Method` always, `Mcp-Name` for the methods that name a tool,
 * prompt or resource (streamable-http.mdx#standard-request-headers, HDR-STD-01), and a task
 * (the tasks extension, TASK-HDR-01).
 *
 * Values that are not plain header values travel in the Base64 sentinel (HDR-STD-02), encoded by
 * the same rule the validator judges them by.
 */
import { isObject } from '../json.js';
import { MODERN_HEADERS } from '../spec/modern.js';
import { encodeHeaderValue } from '../validate/modern-headers.js';

/** Where each naming method keeps the name its `Mcp-Name` header mirrors (the tasks extension's requests: their task id, TASK-HDR-01). */
const NAMED_BY: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri', 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' };

/** The `Mcp-Method` and `Mcp-Name` headers a modern request's body calls for (none for a notification or a response). */
export function modernRequestHeaders(message: unknown): Record<string, string> {
  if (!isObject(message) || typeof message.method !== 'string' || !('id' in message)) return {};
  const headers: Record<string, string> = { [MODERN_HEADERS.method]: message.method };
  const field = NAMED_BY[message.method];
  const name = field && isObject(message.params) ? message.params[field] : undefined;
  if (typeof name === 'string') headers[MODERN_HEADERS.name] = encodeHeaderValue(name);
  return headers;
}
