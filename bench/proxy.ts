import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { median } from './time.js';

const root = packageRoot();
const server = `node ${join(root, 'dist/bench/echo-server.js')}`;
const ROUND_TRIPS = 1_000;
const BIG_BYTES = 10 * 1024 * 1024;
const BIG_RUNS = 5;
/** Targets of issue 25: the time the proxy adds to a round trip, against a plain byte-copying proxy's; a 10 MB message against the direct time. */
const TARGET_ADDED = 1.3;
const TARGET_BIG = 2;

/** A line-reading JSON-RPC client of one stdio process: sends a request, resolves with the line that answers it. */
class LineClient {
  private readonly child: ChildProcess;
  private buffered = '';
  private waiting: { id: number; resolve: (line: string) => void } | undefined;
  private nextId = 1;

  constructor(argv: string[]) {
    this.child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        // Only the answer (its id is near the start; a 10 MB line is not parsed for it) ends the wait.
        const waiting = this.waiting;
        if (waiting && line.slice(0, 60).includes(`"id":${waiting.id},`)) {
          this.waiting = undefined;
          waiting.resolve(line);
        }
      }
    });
  }

  request(method: string, params?: unknown): Promise<string> {
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.waiting = { id, resolve };
      this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }) + '\n');
    });
  }

  notify(method: string): void {
    this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n');
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once('close', () => resolve());
      this.child.stdin!.end();
    });
  }
}

interface Measured {
  ping: number;
  call: number;
  big: number;
}

/** One session: initialize, then round trips one at a time; medians in milliseconds. */
async function measure(argv: string[]): Promise<Measured> {
  const client = new LineClient(argv);
  await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  client.notify('notifications/initialized');
  const timed = async (n: number, send: () => Promise<string>): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await send();
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  const ping = await timed(ROUND_TRIPS, () => client.request('ping'));
  const call = await timed(ROUND_TRIPS, () => client.request('tools/call', { name: 'echo', arguments: { message: 'hello' } }));
  const message = 'x'.repeat(BIG_BYTES);
  const big = await timed(BIG_RUNS, () => client.request('tools/call', { name: 'echo', arguments: { message } }));
  await client.close();
  return { ping, call, big };
}

/**
 * What mcpcheck proxy adds to a round trip on loopback stdio, beside what the plainest Node proxy
 * (pipe() both ways) adds, on the same server in the same run: 1,000 pings and 1,000 tool calls
 * one at a time (median), and a 10 MB message each way (a tool call whose 10 MB message comes back as its result). The three
 * ways to reach the server take turns, so a busy spell falls on all alike.
 */
export async function benchProxy(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-bench-proxy-'));
  try {
    const ways: Record<'direct' | 'plain' | 'mcpcheck', string[]> = {
      direct: ['sh', '-c', `exec ${server}`],
      plain: [process.execPath, join(root, 'dist/bench/plain-proxy.js'), server],
      mcpcheck: [process.execPath, join(root, 'dist/src/cli.js'), 'proxy', '--stdio', server, '--log', join(dir, 'proxy.log'), '--transcript', join(dir, 'proxy.jsonl')],
    };
    const runs: Record<keyof typeof ways, Measured[]> = { direct: [], plain: [], mcpcheck: [] };
    for (let round = 0; round < 3; round++) {
      for (const way of ['direct', 'plain', 'mcpcheck'] as const) runs[way].push(await measure(ways[way]));
    }
    const med = (way: keyof typeof ways, what: keyof Measured) => median(runs[way].map((m) => m[what]));
    console.log(`proxy (stdio, a minimal echo server, so the hops are what is timed): median round trip of ${ROUND_TRIPS} pings and ${ROUND_TRIPS} tool calls one at a time, and of ${BIG_RUNS} 10 MB echoes; 3 sessions each way, taking turns`);
    for (const what of ['ping', 'call'] as const) {
      const direct = med('direct', what);
      const plainAdds = med('plain', what) - direct;
      const ours = med('mcpcheck', what) - direct;
      const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
      console.log(`  ${what.padEnd(5)} direct ${us(direct)}, plain proxy +${us(plainAdds)}, mcpcheck proxy +${us(ours)}: ${(ours / plainAdds).toFixed(2)}× the plain proxy's added time (target ≤ ${TARGET_ADDED}×)`);
    }
    const direct = med('direct', 'big');
    console.log(`  10 MB  direct ${direct.toFixed(0)} ms, plain proxy ${med('plain', 'big').toFixed(0)} ms, mcpcheck proxy ${med('mcpcheck', 'big').toFixed(0)} ms: ${(med('mcpcheck', 'big') / direct).toFixed(2)}× direct (target ≤ ${TARGET_BIG}×)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
