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
