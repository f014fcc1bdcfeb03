import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../src/paths.js';
import { median } from './time.js';

const root = packageRoot();
const REFERENCE = join(root, 'dist/tests/fixtures/reference/server.js');
const CASES = 1_000;
const RUNS = 3;

/**
 * The server's own rate, without the harness: a minimal loop that sends what a fuzz case costs
 * the server — one request, then a ping once it is answered — and waits for each answer.
 */
async function rawCasesPerSecond(): Promise<number> {
  const child = spawn(process.execPath, [REFERENCE], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = new Map<number, () => void>();
  lines.on('line', (line) => {
    const id = (JSON.parse(line) as { id?: number }).id;
    if (typeof id === 'number') waiting.get(id)?.();
  });
  let next = 1;
  const request = (method: string, params?: unknown) =>
    new Promise<void>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }) + '\n');
    });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const t0 = performance.now();
  for (let i = 0; i < CASES; i++) {
    await request(i % 2 === 0 ? 'tools/list' : 'tools/call', i % 2 === 0 ? undefined : { name: 'add', arguments: { a: i, b: 1 } });
    await request('ping');
  }
  const ms = performance.now() - t0;
  child.kill('SIGKILL');
  return (CASES * 1000) / ms;
}

/** Cases per second of `mcpcheck fuzz` itself (the rate its report notes give), stateful part off. */
function fuzzCasesPerSecond(): number {
  const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-bench-fuzz-'));
  try {
    const json = join(dir, 'report.json');
    const r = spawnSync(process.execPath, [join(root, 'dist/src/cli.js'), 'fuzz', '--stdio', `node ${REFERENCE}`, '--runs', String(CASES), '--sequences', '0', '--seed', '1', '--out', dir, '--json', json], { stdio: 'ignore', timeout: 300_000 });
    if (r.status !== 0) throw new Error(`mcpcheck fuzz exited ${r.status ?? r.signal}`);
    const notes = (JSON.parse(readFileSync(json, 'utf8')) as { notes: string[] }).notes;
    const m = /(\d+) cases sent .* in ([\d.]+) s/.exec(notes.find((n) => n.includes('cases sent')) ?? '');
    if (!m) throw new Error('the fuzz report gives no rate');
    return Number(m[1]) / Number(m[2]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Harness overhead of `mcpcheck fuzz` against the reference stdio server, side by side with a raw loop. */
export async function benchFuzz(): Promise<void> {
  const raw: number[] = [];
  const harness: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    raw.push(await rawCasesPerSecond());
    harness.push(fuzzCasesPerSecond());
  }
  const r = median(raw);
  const h = median(harness);
  console.log(`fuzz: ${CASES} cases against the reference stdio server; median of ${RUNS} runs, interleaved`);
  console.log(`  raw loop (request, then ping; no harness)   ${r.toFixed(0).padStart(6)} cases/s`);
  console.log(`  mcpcheck fuzz (generate, send, judge)        ${h.toFixed(0).padStart(6)} cases/s   overhead ${((1 - h / r) * 100).toFixed(0)}%   target ≤ 25%`);
}
