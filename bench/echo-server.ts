/**
 * The server of `npm run bench proxy`: the least a stdio MCP server does — initialize, ping, and
 * one tool, `echo`, that returns its message whatever its size — so that round trips measure the
 * hops, not the server.
 */
import { createInterface } from 'node:readline';

const reply = (id: unknown, result: unknown): void => void process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  const m = JSON.parse(line) as { id?: unknown; method?: string; params?: { protocolVersion?: string; arguments?: { message?: string } } };
  if (m.id === undefined) return;
  if (m.method === 'initialize') reply(m.id, { protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bench-echo', version: '1' } });
  else if (m.method === 'ping') reply(m.id, {});
  else if (m.method === 'tools/call') reply(m.id, { content: [{ type: 'text', text: m.params?.arguments?.message ?? '' }] });
  else process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }) + '\n');
});
