/**
 * A realistic generated session for the validator benchmark: paginated tools/list pages with
 * large input/output schemas, tool calls with progress and logs, resource reads, pings.
 */
function bigSchema(i: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let p = 0; p < 12; p++) {
    properties[`field_${p}`] =
      p % 4 === 0
        ? { type: 'string', description: `Field ${p} of tool ${i}`, minLength: 1, maxLength: 200 }
        : p % 4 === 1
          ? { type: 'integer', minimum: 0, maximum: 1000, default: 10 }
          : p % 4 === 2
            ? { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 5 }
            : { type: 'object', properties: { nested: { type: 'boolean' }, label: { type: 'string' } }, required: ['nested'] };
  }
  return { type: 'object', properties, required: ['field_0'], additionalProperties: false };
}

function tool(i: number): Record<string, unknown> {
  return {
    name: `tool_${i}`,
    title: `Tool ${i}`,
    description: `Does the thing number ${i} with care and precision.`,
    inputSchema: bigSchema(i),
    outputSchema: { type: 'object', properties: { result: { type: 'string' }, count: { type: 'integer' } }, required: ['result'] },
    annotations: { readOnlyHint: i % 2 === 0, idempotentHint: true },
    icons: [{ src: 'https://example.com/icons/tool.png', mimeType: 'image/png', sizes: ['48x48'] }],
    _meta: { 'com.example/category': 'bench' },
  };
}

/** Returns `frames` JSON Lines of a transcript (header first). */
export function generateTranscript(frames: number): string[] {
  const lines: string[] = [JSON.stringify({ mcpcheck: 'transcript', version: 1, transport: 'stdio' })];
  const push = (from: 'client' | 'server', message: unknown) => lines.push(JSON.stringify({ from, message }));
  push('client', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  push('server', { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true }, logging: {}, resources: {} }, serverInfo: { name: 'bench-server', version: '1' } } });
  push('client', { jsonrpc: '2.0', method: 'notifications/initialized' });
  const tools = Array.from({ length: 50 }, (_, i) => tool(i));
  let id = 1;
  let token = 0;
  while (lines.length - 1 < frames) {
    // A client lists tools now and then (here: every 250 requests) and calls them in between.
    const round = id % 10;
    if (id % 250 === 1) {
      for (let page = 0; page < 5; page++) {
        const rid = id++;
        push('client', { jsonrpc: '2.0', id: rid, method: 'tools/list', params: page === 0 ? {} : { cursor: `c${page}` } });
        push('server', { jsonrpc: '2.0', id: rid, result: { tools: tools.slice(page * 10, page * 10 + 10), ...(page < 4 ? { nextCursor: `c${page + 1}` } : {}) } });
      }
    } else if (round < 7) {
      const rid = id++;
      const t = `p${token++}`;
      push('client', { jsonrpc: '2.0', id: rid, method: 'tools/call', params: { name: `tool_${rid % 50}`, arguments: { field_0: 'hello' }, _meta: { progressToken: t } } });
      push('server', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: t, progress: 1, total: 2 } });
      push('server', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'bench', data: { step: rid } } });
      push('server', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: t, progress: 2, total: 2 } });
      push('server', { jsonrpc: '2.0', id: rid, result: { content: [{ type: 'text', text: JSON.stringify({ result: 'ok', count: rid }) }], structuredContent: { result: 'ok', count: rid } } });
    } else if (round < 9) {
      const rid = id++;
      push('client', { jsonrpc: '2.0', id: rid, method: 'resources/read', params: { uri: `file:///data/${rid}.txt` } });
      push('server', { jsonrpc: '2.0', id: rid, result: { contents: [{ uri: `file:///data/${rid}.txt`, mimeType: 'text/plain', text: 'lorem ipsum '.repeat(20) }] } });
    } else {
      const rid = id++;
      push('client', { jsonrpc: '2.0', id: rid, method: 'ping' });
      push('server', { jsonrpc: '2.0', id: rid, result: {} });
    }
  }
  return lines.slice(0, frames + 1);
}

/** A modern request's `_meta` (2026-07-28): its revision, capabilities and identity, with a log level when asked. */
function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    ...extra,
  };
}

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'bench-server', version: '1' } };

/**
 * `frames` JSON Lines of a 2026-07-28 transcript (header first) whose messages do not repeat: every
 * list page, tool call, multi round-trip retry and read differs from the others (the round is in
 * the tools' descriptions and in every argument), so no result is judged from a cache of an earlier one.
 */
export function generateModernTranscript(frames: number): string[] {
  const lines: string[] = [JSON.stringify({ mcpcheck: 'transcript', version: 1, transport: 'stdio' })];
  const push = (from: 'client' | 'server', message: unknown) => lines.push(JSON.stringify({ from, message }));
  const cache = { ttlMs: 60_000, cacheScope: 'public' };
  push('client', { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: modernMeta() } });
  push('server', { jsonrpc: '2.0', id: 0, result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true }, resources: {}, logging: {} }, ...cache, _meta: SERVER_INFO } });
  push('client', { jsonrpc: '2.0', id: 'listen', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: modernMeta() } });
  push('server', { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen' } } });
  let id = 1;
  let token = 0;
  while (lines.length - 1 < frames) {
    const round = id % 10;
    if (id % 250 === 1) {
      push('server', { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen' } } });
      const tools = Array.from({ length: 50 }, (_, i) => ({ ...tool(i), description: `Does the thing number ${i} (revision ${id}) with care and precision.` }));
      for (let page = 0; page < 5; page++) {
        const rid = id++;
        push('client', { jsonrpc: '2.0', id: rid, method: 'tools/list', params: { ...(page === 0 ? {} : { cursor: `c${rid}-${page}` }), _meta: modernMeta() } });
        push('server', { jsonrpc: '2.0', id: rid, result: { resultType: 'complete', tools: tools.slice(page * 10, page * 10 + 10), ...(page < 4 ? { nextCursor: `c${rid + 1}-${page + 1}` } : {}), ...cache, _meta: SERVER_INFO } });
      }
    } else if (round < 6) {
      const rid = id++;
      const t = `p${token++}`;
      push('client', { jsonrpc: '2.0', id: rid, method: 'tools/call', params: { name: `tool_${rid % 50}`, arguments: { field_0: `hello ${rid}` }, _meta: modernMeta({ progressToken: t, 'io.modelcontextprotocol/logLevel': 'info' }) } });
      push('server', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: t, progress: 1, total: 2 } });
      push('server', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'bench', data: { step: rid } } });
      push('server', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: t, progress: 2, total: 2 } });
      push('server', { jsonrpc: '2.0', id: rid, result: { resultType: 'complete', content: [{ type: 'text', text: JSON.stringify({ result: 'ok', count: rid }) }], structuredContent: { result: 'ok', count: rid }, _meta: SERVER_INFO } });
    } else if (round < 7) {
      // A multi round-trip call: input required, then the retry with the answer and the echoed state.
      const first = id++;
      const retry = id++;
      const params = { name: `tool_${first % 50}`, arguments: { field_0: `book ${first}` } };
      const state = Buffer.from(`state-${first}`).toString('base64');
      const ask = { method: 'elicitation/create', params: { mode: 'form', message: `Confirm booking ${first}?`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } };
      push('client', { jsonrpc: '2.0', id: first, method: 'tools/call', params: { ...params, _meta: modernMeta() } });
      push('server', { jsonrpc: '2.0', id: first, result: { resultType: 'input_required', inputRequests: { confirm: ask }, requestState: state, _meta: SERVER_INFO } });
      push('client', { jsonrpc: '2.0', id: retry, method: 'tools/call', params: { ...params, inputResponses: { confirm: { action: 'accept', content: { ok: true } } }, requestState: state, _meta: modernMeta() } });
      push('server', { jsonrpc: '2.0', id: retry, result: { resultType: 'complete', content: [{ type: 'text', text: `{"result":"booked ${first}"}` }], structuredContent: { result: `booked ${first}` }, _meta: SERVER_INFO } });
    } else {
      const rid = id++;
      push('client', { jsonrpc: '2.0', id: rid, method: 'resources/read', params: { uri: `file:///data/${rid}.txt`, _meta: modernMeta() } });
      push('server', { jsonrpc: '2.0', id: rid, result: { resultType: 'complete', contents: [{ uri: `file:///data/${rid}.txt`, mimeType: 'text/plain', text: `lorem ipsum ${rid} `.repeat(20) }], ttlMs: 0, cacheScope: 'private', _meta: SERVER_INFO } });
    }
  }
  return lines.slice(0, frames + 1);
}
