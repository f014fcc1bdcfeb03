/**
 * The yardstick of `npm run bench proxy`: the plainest proxies Node makes, judging nothing.
 *   plain-proxy.js "<server command>"       stdio: starts the server (by the shell), pipe() both ways
 *   plain-proxy.js --http UPSTREAM PORT     HTTP: listens on 127.0.0.1:PORT, forwards each request to UPSTREAM with pipe()
 */
import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';

const [first, upstream, port] = process.argv.slice(2);
if (first === '--http' && upstream !== undefined && port !== undefined) {
  const target = new URL(upstream);
  createServer((req, res) => {
    const up = request(new URL(req.url ?? '/', target), { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(up);
  }).listen(Number(port), '127.0.0.1');
} else if (first !== undefined) {
  const child = spawn(first, { shell: true, stdio: ['pipe', 'pipe', 'inherit'] });
  process.stdin.pipe(child.stdin);
  child.stdout.pipe(process.stdout);
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  process.stderr.write('usage: plain-proxy.js "<server command>" | plain-proxy.js --http UPSTREAM PORT\n');
  process.exit(2);
}
