import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { freePort } from './processes.js';
import { median } from './time.js';

const root = packageRoot();
const server = `node ${join(root, 'dist/bench/echo-server.js')}`;
const ROUND_TRIPS = 1_000;
const BIG_BYTES = 10 * 1024 * 1024;
const BIG_RUNS = 2;
/**
 * Rounds, each with processes of its own: where the scheduler happens to place a proxy beside its
 * client and server shifts its round trip by as much as the proxy adds, so one set of processes
 * says little; the median round is what is reported, with the spread of all.
 */
const ROUNDS = 5;
/** Targets of issue 25: the time the proxy adds to a round trip, against a plain byte-copying proxy's; a 10 MB message against the direct time. */
const TARGET_ADDED = 1.3;
const TARGET_BIG = 2;

/** A line-reading JSON-RPC client of one stdio process: sends a request, resolves with the line that answers it. */
class LineClient {
  private readonly child: ChildProcess;
  /** The line under way, as the chunks it arrived in (joined once whole: a 10 MB line is not copied at every chunk). */
  private partial: string[] = [];
  private waiting: { id: number; resolve: (line: string) => void } | undefined;
  private nextId = 1;

  constructor(argv: string[]) {
    this.child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      let start = 0;
      let nl: number;
      while ((nl = chunk.indexOf('\n', start)) >= 0) {
        this.partial.push(chunk.slice(start, nl));
        this.line(this.partial.join(''));
        this.partial = [];
        start = nl + 1;
      }
      if (start < chunk.length) this.partial.push(chunk.slice(start));
    });
  }

  /** Only the answer (its id is near the start; a 10 MB line is not parsed for it) ends the wait. */
  private line(line: string): void {
    const waiting = this.waiting;
    if (waiting && line.slice(0, 60).includes(`"id":${waiting.id},`)) {
      this.waiting = undefined;
      waiting.resolve(line);
    }
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

/** A JSON-RPC client of one Streamable HTTP endpoint (JSON answers, keep-alive connections). */
class HttpClient {
  private nextId = 1;
  constructor(private readonly url: string) {}

  async request(method: string, params?: unknown): Promise<string> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, ...(params !== undefined ? { params } : {}) }),
    });
    return res.text();
  }

  notify(method: string): void {
    void fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', method }) }).then((r) => r.text());
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Round trips in runs of this many, the three ways taking turns: a busy spell of the machine falls on all alike. */
const TURN = 50;

/**
 * One session each way, open side by side: initialize, then round trips one at a time, the ways
 * taking turns every TURN round trips; per way, the median of all its samples, in milliseconds.
 */
async function measure(clients: Record<Way, LineClient | HttpClient>): Promise<Record<Way, Measured>> {
  for (const client of Object.values(clients)) {
    await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
    client.notify('notifications/initialized');
  }
  const samples = (): Record<Way, number[]> => ({ direct: [], plain: [], mcpcheck: [] });
  const timed = async (n: number, turn: number, send: (client: LineClient | HttpClient) => Promise<string>): Promise<Record<Way, number>> => {
    const times = samples();
    for (let done = 0; done < n; done += turn) {
      for (const way of WAYS) {
        for (let i = 0; i < turn; i++) {
          const t0 = performance.now();
          await send(clients[way]);
          times[way].push(performance.now() - t0);
        }
      }
    }
    return { direct: median(times.direct), plain: median(times.plain), mcpcheck: median(times.mcpcheck) };
  };
  const ping = await timed(ROUND_TRIPS, TURN, (c) => c.request('ping'));
  const call = await timed(ROUND_TRIPS, TURN, (c) => c.request('tools/call', { name: 'echo', arguments: { message: 'hello' } }));
  const message = 'x'.repeat(BIG_BYTES);
  const big = await timed(BIG_RUNS, 1, (c) => c.request('tools/call', { name: 'echo', arguments: { message } }));
  for (const client of Object.values(clients)) await client.close();
  const of = (way: Way): Measured => ({ ping: ping[way], call: call[way], big: big[way] });
  return { direct: of('direct'), plain: of('plain'), mcpcheck: of('mcpcheck') };
}

/**
 * What mcpcheck proxy adds to a round trip on loopback, over stdio and over Streamable HTTP,
 * beside what the plainest Node proxy (pipe() both ways) adds, on the same server in the same run:
 * pings and tool calls one at a time (median), and a 10 MB message each way (a tool call whose
 * message comes back as its result). The three ways to reach the server take turns, so a busy
 * spell falls on all alike; ROUNDS rounds with fresh processes.
 */
export async function benchProxy(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-bench-proxy-'));
  try {
    const ways: Record<Way, string[]> = {
      direct: ['sh', '-c', `exec ${server}`],
      plain: [process.execPath, join(root, 'dist/bench/plain-proxy.js'), server],
      mcpcheck: [process.execPath, join(root, 'dist/src/cli.js'), 'proxy', '--stdio', server, '--log', join(dir, 'proxy.log'), '--transcript', join(dir, 'proxy.jsonl')],
    };
    console.log(`proxy (a minimal echo server, so the hops are what is timed): ${ROUNDS} rounds, each with fresh processes: the median round trip of ${ROUND_TRIPS} pings and ${ROUND_TRIPS} tool calls one at a time and of ${BIG_RUNS} 10 MB echoes, each way, the three ways open side by side and taking turns every ${TURN} round trips; the median round's figures, [the spread of the ${ROUNDS} rounds' ratios]`);
    const stdio: Array<Record<Way, Measured>> = [];
    const http: Array<Record<Way, Measured>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      stdio.push(await measure({ direct: new LineClient(ways.direct), plain: new LineClient(ways.plain), mcpcheck: new LineClient(ways.mcpcheck) }));
      http.push(await measureHttp(dir));
    }
    report('stdio', stdio);
    report('HTTP', http);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Way = 'direct' | 'plain' | 'mcpcheck';
const WAYS = ['direct', 'plain', 'mcpcheck'] as const;

/** The same over Streamable HTTP: the echo server on its port, a plain proxy and mcpcheck's in front of it, each on its own. */
async function measureHttp(dir: string): Promise<Record<Way, Measured>> {
  const started: ChildProcess[] = [];
  const start = (argv: string[]) => started.push(spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' }));
  try {
    const [server, plain, ours] = [await freePort(), await freePort(), await freePort()];
    start([process.execPath, join(root, 'dist/bench/echo-server.js'), '--http', String(server)]);
    const upstream = `http://127.0.0.1:${server}/mcp`;
    start([process.execPath, join(root, 'dist/bench/plain-proxy.js'), '--http', upstream, String(plain)]);
    start([process.execPath, join(root, 'dist/src/cli.js'), 'proxy', '--url', upstream, '--listen', `127.0.0.1:${ours}`, '--log', join(dir, 'http-proxy.log'), '--transcript', join(dir, 'http-transcripts')]);
    const urls: Record<Way, string> = { direct: upstream, plain: `http://127.0.0.1:${plain}/mcp`, mcpcheck: `http://127.0.0.1:${ours}/mcp` };
    for (const url of Object.values(urls)) await until(() => fetch(url, { method: 'GET' }).then(() => true, () => false));
    return await measure({ direct: new HttpClient(urls.direct), plain: new HttpClient(urls.plain), mcpcheck: new HttpClient(urls.mcpcheck) });
  } finally {
    for (const child of started) child.kill('SIGTERM');
  }
}

async function until(ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error('a bench process did not listen within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Per figure, the round with the median ratio, and the lowest and highest ratio of all rounds. */
function report(transport: string, rounds: Array<Record<Way, Measured>>): void {
  const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
  const spread = (ratios: number[]) => `[${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}]`;
  for (const what of ['ping', 'call'] as const) {
    const ratioOf = (r: Record<Way, Measured>) => (r.mcpcheck[what] - r.direct[what]) / (r.plain[what] - r.direct[what]);
    const ratios = rounds.map(ratioOf);
    const r = rounds.find((round) => ratioOf(round) === median(ratios))!;
    console.log(`  ${transport.padEnd(5)} ${what.padEnd(5)} direct ${us(r.direct[what])}, plain proxy +${us(r.plain[what] - r.direct[what])}, mcpcheck proxy +${us(r.mcpcheck[what] - r.direct[what])}: ${median(ratios).toFixed(2)}× ${spread(ratios)} the plain proxy's added time (target ≤ ${TARGET_ADDED}×)`);
  }
  const ratioOf = (r: Record<Way, Measured>) => r.mcpcheck.big / r.direct.big;
  const ratios = rounds.map(ratioOf);
  const r = rounds.find((round) => ratioOf(round) === median(ratios))!;
  console.log(`  ${transport.padEnd(5)} 10 MB direct ${r.direct.big.toFixed(0)} ms, plain proxy ${r.plain.big.toFixed(0)} ms, mcpcheck proxy ${r.mcpcheck.big.toFixed(0)} ms: ${median(ratios).toFixed(2)}× ${spread(ratios)} direct (target ≤ ${TARGET_BIG}×)`);
}
