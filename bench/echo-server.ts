/**
 * The server of `npm run bench proxy`: the least an MCP server does — initialize, ping, and one
 * tool, `echo`, that returns its message whatever its size — so that round trips measure the
 * hops, not the server. Over stdio by default; `--http PORT` serves it on 127.0.0.1 (JSON answers,
 * no sessions).
 */
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

function answer(line: string): string | undefined {
  const m = JSON.parse(line) as { id?: unknown; method?: string; params?: { protocolVersion?: string; arguments?: { message?: string } } };
  if (m.id === undefined) return undefined;
  const reply = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: m.id, result });
  if (m.method === 'initialize') return reply({ protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bench-echo', version: '1' } });
  if (m.method === 'ping') return reply({});
  if (m.method === 'tools/call') return reply({ content: [{ type: 'text', text: m.params?.arguments?.message ?? '' }] });
  return JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
}

const httpAt = process.argv.indexOf('--http');
if (httpAt >= 0) {
  createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const out = req.method === 'POST' ? answer(Buffer.concat(body).toString('utf8')) : undefined;
      if (out === undefined) {
        res.writeHead(req.method === 'POST' ? 202 : 405);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(out);
      }
    });
  }).listen(Number(process.argv[httpAt + 1]), '127.0.0.1');
} else {
  createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
    const out = answer(line);
    if (out !== undefined) process.stdout.write(out + '\n');
  });
}
