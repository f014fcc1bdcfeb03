/**
 * The names the stateless era (2026-07-28) gives its per-request fields, reserved `_meta` keys and
 * error codes (schema.json RequestMetaObject, ResultMetaObject, NotificationMetaObject and the
 * *Error definitions), defined once for the validator, the harness and the suites.
 */

/** Reserved `_meta` keys of a modern request, result or notification. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The JSON-RPC error codes the stateless era defines (HTTP status 400 with each). */
export const MODERN_ERRORS = {
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

/** The Streamable HTTP request headers of the stateless era (names compare case-insensitively, HDR-CASE-01). */
export const MODERN_HEADERS = {
  protocolVersion: 'MCP-Protocol-Version',
  method: 'Mcp-Method',
  name: 'Mcp-Name',
  /** Prefix of the headers mirroring tool arguments annotated with `x-mcp-header`. */
  paramPrefix: 'Mcp-Param-',
} as const;
