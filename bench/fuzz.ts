import { spawn, spawnSync } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { caseId } from '../src/fuzz/case.js';
import { DEFAULT_MUTATION_OPTIONS } from '../src/fuzz/mutate.js';
import { caseArbitrary } from '../src/fuzz/run.js';
import { SPLIT_PAUSE_MS, stdioWrites } from '../src/fuzz/send.js';
import { packageRoot } from '../src/paths.js';
import { median } from './time.js';

const root = packageRoot();
const REFERENCE = join(root, 'dist/tests/fixtures/reference/server.js');
const CASES = 1_000;
const RUNS = 3;

const CASE_TIMEOUT_MS = 5_000;

/** A minimal line-delimited JSON-RPC peer on a child's stdio: write bytes, wait (bounded) for the answer to an id. */
function rawPeer(child: { stdin: Writable; stdout: Readable }) {
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  const waiting = new Map<unknown, (message: Record<string, unknown>) => void>();
  lines.on('line', (line) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  const answered = (id: unknown) =>
    new Promise<Record<string, unknown> | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), CASE_TIMEOUT_MS);
      waiting.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
  const write = (bytes: string | Uint8Array) => new Promise<void>((resolve) => child.stdin.write(bytes, () => resolve()));
  const request = async (id: number, method: string, params?: unknown) => {
    const answer = answered(id);
    await write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }) + '\n');
    return answer;
  };
  return { answered, write, request };
}

/**
 * The server's own rate for the same cases, without the harness: a minimal loop that sends each
 * case mcpcheck fuzz generates for this seed (as its bytes, framed as the case says; a tool call's
 * answer awaited, as the harness does), then a ping, and waits for the ping's answer.
 */
async function rawCasesPerSecond(): Promise<number> {
  const child = spawn(process.execPath, [REFERENCE], { stdio: ['pipe', 'pipe', 'ignore'] });
  const peer = rawPeer(child);
  const init = await peer.request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  await peer.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const listed = await peer.request(2, 'tools/list');
  const capabilities = ((init?.result as { capabilities?: Record<string, unknown> } | undefined)?.capabilities ?? {});
  const tools = ((listed?.result as { tools?: Array<Record<string, unknown>> } | undefined)?.tools ?? []);
  const arbitrary = caseArbitrary({ revision: '2025-11-25', capabilities, tools, callTools: { mode: 'readonly' }, mutation: { ...DEFAULT_MUTATION_OPTIONS, transport: 'stdio' } }, []);
  const cases = fc.sample(arbitrary, { seed: 1, numRuns: CASES });
  let pingId = 1_000_000_000;
  const t0 = performance.now();
  for (const c of cases) {
    const id = caseId(c);
    const answer = id !== undefined && c.method === 'tools/call' && c.expects !== 'survive' ? peer.answered(id) : undefined;
    for (const [i, w] of stdioWrites(c).entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, SPLIT_PAUSE_MS));
      await peer.write(w);
    }
    await answer;
    await peer.request(pingId++, 'ping');
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
  console.log(`  raw loop (the same cases, each then a ping)  ${r.toFixed(0).padStart(6)} cases/s`);
  console.log(`  mcpcheck fuzz (generate, send, judge)        ${h.toFixed(0).padStart(6)} cases/s   overhead ${((1 - h / r) * 100).toFixed(0)}%   target ≤ 25%`);
}
