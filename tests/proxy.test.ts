import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model.js';
import { waitForPort } from './fuzz-helpers.js';
import { CLIENT_FIXTURE, INSPECTOR_BUILD, MCP_REMOTE, MCPORTER, SDK_EXAMPLE as SDK_CLIENT, SDK_V2_CLIENT } from './real-clients.js';
import { freePort, PROTECTED_HEADER, REFERENCE, ROOT, withProtectedToken } from './server-helpers.js';

/** The initialize request the hand-made exchanges open with. */
const INITIALIZE = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}';

// mcpcheck proxy between real clients and real servers: what each side sent arrives unchanged,
// the client's outputs and exit code are those of a direct run, every break is caught by its
// rule, and `validate` of the transcript says what the proxy said.

const CLI = join(ROOT, 'dist/src/cli.js');
const transcriptLine = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'schemas/transcript.schema.json'), 'utf8')) as object);
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const BYTE_SERVER = join(ROOT, 'dist/tests/fixtures/proxy/byte-server.js');
const REFERENCE_2026 = join(ROOT, 'dist/tests/fixtures/reference-2026/server.js');

let dir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  dir = mkdtempSync(join(tmpdir(), 'mcpcheck-proxy-test-'));
});
afterAll(() => (process.env.KEEP ? undefined : rmSync(dir, { recursive: true, force: true })));

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs a process to its end (60 s at most), feeding it `input` in uneven chunks when given. */
function run(program: string, args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; input?: Buffer } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: o.cwd ?? ROOT, env: o.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
    child.stdin.on('error', () => undefined);
    if (o.input === undefined) return;
    const input = o.input;
    const sizes = [3, 1, 5000, 17, 70_000];
    let at = 0;
    let n = 0;
    const next = (): void => {
      if (at >= input.length) return void child.stdin.end();
      const size = sizes[n++ % sizes.length]!;
      child.stdin.write(input.subarray(at, at + size));
      at += size;
      setTimeout(next, 1);
    };
    next();
  });
}

/**
 * The proxy's log so far, '' before it exists: mcpcheck checks that it can write the log by making
 * the file and removing it before it opens it for good, so the file can vanish between an
 * existsSync and a read.
 */
function logSoFar(log: string): string {
  try {
    return readFileSync(log, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

/**
 * The proxy's report, once written: a client may exit before the proxy it started has written it
 * (it stops its server and goes), so this waits for the console report's last line in the log,
 * which comes after every report file.
 */
async function finished(log: string, report: string): Promise<RunReport> {
  const deadline = Date.now() + 45_000;
  while (!/^requirements: /m.test(logSoFar(log))) {
    if (Date.now() > deadline) throw new Error(`the proxy wrote no report within 45 s; its log: ${logSoFar(log) || '(none)'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return JSON.parse(readFileSync(report, 'utf8')) as RunReport;
}

let files = 0;
/** A proxy in front of `server`, as a script a client can start (clients split their server's command line on spaces), and where it writes. */
function proxied(server: string): { script: string; report: () => Promise<RunReport>; transcript: string; log: () => string } {
  const n = ++files;
  const report = join(dir, `report-${n}.json`);
  const transcript = join(dir, `transcript-${n}.jsonl`);
  const log = join(dir, `log-${n}.txt`);
  const script = join(dir, `proxy-${n}.sh`);
  writeFileSync(script, `#!/bin/sh\nexec node ${CLI} proxy --stdio ${JSON.stringify(server)} --json ${report} --transcript ${transcript} --log ${log}\n`);
  chmodSync(script, 0o755);
  return { script, report: () => finished(log, report), transcript, log: () => readFileSync(log, 'utf8') };
}

/** `status REQUIREMENT` of each failing or warning check. */
function violations(report: RunReport): string[] {
  return report.checks.filter((c) => c.status === 'fail' || c.status === 'warn').map((c) => `${c.status} ${c.requirements.join(',')}`).sort();
}

/** `REQUIREMENT status` of every check, check ids without their command's prefix. */
function verdicts(report: RunReport): string[] {
  return report.checks.map((c) => `${c.id.replace(/^(proxy|validate)\./, '')} ${c.status}`).sort();
}

async function validated(...transcripts: string[]): Promise<RunReport> {
  const out = join(dir, `validate-${++files}.json`);
  const r = await run(process.execPath, [CLI, 'validate', ...transcripts, '--json', out]);
  expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
  return JSON.parse(readFileSync(out, 'utf8')) as RunReport;
}

const inspector = (args: string[], server: string[]) => run(process.execPath, ['index.js', ...server, ...args], { cwd: INSPECTOR_BUILD });

describe('mcpcheck proxy --stdio', () => {
  it('carries every byte unchanged both ways, passes stderr through, exits as the server did, and judges both sides', async () => {
    const clientBytes = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bytes","version":"1"}}}\n'),
      Buffer.from('{"jsonrpc":"2.0","id":4,"method":"ping"}\r\n'),
      Buffer.from('not json at all\n'),
      Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0xff, 0x7d, 0x0a]),
      Buffer.from(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"${'a'.repeat(300_000)}"}}}\n`),
      Buffer.from('{"jsonrpc":"2.0","id":3,"method":"ping"}'),
    ]);
    // Written once the server has read the client's first line, so the frames are judged in one order.
    const serverBytes = Buffer.concat([
      Buffer.from('server banner\n'),
      Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"bytes","version":"1"}}}\n'),
      Buffer.from('{\n  "jsonrpc": "2.0",\n  "method": "notifications/message",\n  "params": {"level": "info", "data": "pretty"}\n}\n'),
      Buffer.from(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"${'b'.repeat(1_000_000)}"}}\n`),
    ]);
    const payload = join(dir, 'server-payload');
    const record = join(dir, 'server-received');
    writeFileSync(payload, serverBytes);
    const p = proxied(`node ${BYTE_SERVER} ${record} ${payload} 3`);
    const r = await run('sh', [p.script], { input: clientBytes });
    expect(r.code).toBe(3);
    expect(r.stdout.equals(serverBytes)).toBe(true);
    expect(readFileSync(record).equals(clientBytes)).toBe(true);
    expect(r.stderr).toContain('byte-server: started');
    const report = await p.report();
    expect(violations(report)).toEqual(['fail BASE-MSG-02', 'fail STDIO-FRAME-01', 'fail STDIO-IN-01', 'fail STDIO-OUT-01']);
    expect(p.log()).toMatch(/^mcpcheck proxy: FAIL STDIO-OUT-01 MUST \(server, frame \d+\): /m);
    // The transcript keeps every frame's text: validate finds what the proxy found in the frames;
    // what lies in the bytes between them (invalid UTF-8 the framer decoded, lines that make one
    // pretty-printed value, an unterminated last line) the proxy alone sees.
    const offline = await validated(p.transcript);
    expect(violations(offline)).toEqual(['fail STDIO-IN-01', 'fail STDIO-OUT-01']);
  });

  it('Inspector CLI and server-everything: the same output and exit code as a direct run, no finding, and validate of the transcript agrees check by check', async () => {
    for (const args of [['--method', 'tools/list'], ['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=hi']]) {
      const p = proxied(`node ${EVERYTHING}`);
      const [direct, through] = await Promise.all([inspector(args, ['node', EVERYTHING]), inspector(args, ['sh', p.script])]);
      expect(through.code, through.stderr).toBe(direct.code);
      expect(through.stdout.toString()).toBe(direct.stdout.toString());
      const report = await p.report();
      expect(violations(report), args.join(' ')).toEqual([]);
      expect(verdicts(await validated(p.transcript))).toEqual(verdicts(report));
    }
  });

  it('mcporter lists the same tools through the proxy as directly', async () => {
    const p = proxied(`node ${EVERYTHING}`);
    const mcporter = (server: string) => run('sh', ['-c', `HOME=$(mktemp -d ${dir}/home-XXXXXX) exec node ${MCPORTER} list --stdio ${JSON.stringify(server)} --json`]);
    const [direct, through] = await Promise.all([mcporter(`node ${EVERYTHING}`), mcporter(`sh ${p.script}`)]);
    expect(through.code).toBe(direct.code);
    const tools = (r: Ran) => (JSON.parse(r.stdout.toString()) as { tools: unknown[] }).tools;
    expect(tools(through)).toEqual(tools(direct));
    expect(violations(await p.report())).toEqual([]);
  });

  it('2026-07-28 (the SDK v2 client and the 2026 reference server): judged in the stateless era, no finding, and validate of the transcript agrees', async () => {
    const p = proxied(`node ${REFERENCE_2026}`);
    const r = await run(process.execPath, [SDK_V2_CLIENT, 'sh', p.script]);
    expect(r.code, r.stderr).toBe(0);
    const report = await p.report();
    expect(report.target.description).toContain('stateless era');
    expect(violations(report)).toEqual([]);
    expect(report.summary.checks.pass).toBeGreaterThan(20);
    expect(verdicts(await validated(p.transcript))).toEqual(verdicts(report));
  });

  it('the SDK example client and server-everything: exit 0, no finding', async () => {
    const p = proxied(`node ${EVERYTHING}`);
    const r = await run(process.execPath, [SDK_CLIENT, 'sh', p.script]);
    expect(r.code, r.stderr).toBe(0);
    const report = await p.report();
    expect(report.target.serverInfo?.name).toBe('mcp-servers/everything');
    expect(violations(report)).toEqual([]);
  });
});

/** Each break of the reference server a client's tools/list exercises, and what the proxy must say of it: its rule, and the other ids the same finding cites. */
const SERVER_BREAKS: ReadonlyArray<readonly [string, string[]]> = [
  ['stdout-banner', ['fail STDIO-OUT-01']],
  ['invalid-utf8-output', ['fail BASE-MSG-02']],
  // The result fails its schema: one finding citing the rule and the result's shape.
  ['init-missing-serverinfo', ['fail BASE-RES-03', 'fail LIFE-INIT-02']],
  ['tool-missing-inputschema', ['fail BASE-RES-03', 'fail TOOL-LIST-01']],
  ['bad-meta-key', ['fail META-KEY-02']],
  ['reserved-meta-key', ['fail META-RSV-01']],
  // SHOULDs of the icon format.
  ['icon-javascript', ['warn ICON-FMT-03']],
  ['icon-bad-sizes', ['warn ICON-FMT-02']],
];

/** Each break of the reference client its default session (initialize, tools/list) exercises, and what the proxy must say of it. */
const CLIENT_BREAKS: ReadonlyArray<readonly [string, string[]]> = [
  ['null-id', ['fail BASE-ID-02']],
  ['fractional-id', ['fail BASE-ID-01']],
  ['reused-id', ['fail BASE-ID-03']],
  ['batch', ['fail BASE-MSG-05']],
  ['initialized-with-id', ['fail BASE-NOTIF-01']],
  ['meta-bad-key', ['fail META-KEY-02']],
  // The request fails its schema: one finding citing the rule and the request's shape.
  ['init-missing-clientinfo', ['fail BASE-SCHEMA-01', 'fail LIFE-INIT-01']],
  ['bad-capability-shape', ['fail BASE-SCHEMA-01', 'fail LIFE-CAP-01', 'fail LIFE-INIT-01']],
  ['no-initialized', ['fail LIFE-INIT-03']],
  ['request-before-init-response', ['warn LIFE-INIT-04']],
  ['cancel-initialize', ['fail CANCEL-02']],
  ['stdin-noise', ['fail STDIO-IN-01']],
  // Each line of the pretty-printed message reaches the server as a line that is no message.
  ['pretty-printed', ['fail STDIO-FRAME-01', 'fail STDIO-IN-01']],
];

describe('mcpcheck proxy --stdio: the reference fixtures behind it, each break caught by its rule', () => {
  it.concurrent('Inspector CLI and the reference server: no finding', async () => {
    const p = proxied(`node ${REFERENCE}`);
    const r = await inspector(['--method', 'tools/list'], ['sh', p.script]);
    expect(r.code, r.stderr).toBe(0);
    expect(violations(await p.report())).toEqual([]);
  });

  it.concurrent('the reference client and the reference server: no finding', async () => {
    const p = proxied(`node ${REFERENCE}`);
    const r = await run(process.execPath, [CLIENT_FIXTURE, 'sh', p.script]);
    expect(r.code, r.stderr).toBe(0);
    expect(violations(await p.report())).toEqual([]);
  });

  it.concurrent.each(SERVER_BREAKS)('server break %s (Inspector CLI, tools/list; its output and exit code as without the proxy)', async (name, expected) => {
    const server = ['node', REFERENCE, '--break', name];
    const p = proxied(server.join(' '));
    const [direct, through] = await Promise.all([inspector(['--method', 'tools/list'], server), inspector(['--method', 'tools/list'], ['sh', p.script])]);
    expect(through.code).toBe(direct.code);
    expect(through.stdout.toString()).toBe(direct.stdout.toString());
    expect(violations(await p.report())).toEqual(expected);
  });

  it.concurrent.each(CLIENT_BREAKS)('client break %s (against the reference server; its exit code as without the proxy)', async (name, expected) => {
    const p = proxied(`node ${REFERENCE}`);
    const [direct, through] = await Promise.all([run(process.execPath, [CLIENT_FIXTURE, '--break', name, 'node', REFERENCE]), run(process.execPath, [CLIENT_FIXTURE, '--break', name, 'sh', p.script])]);
    expect(through.code).toBe(direct.code);
    expect(violations(await p.report())).toEqual(expected);
  });
});

describe('mcpcheck proxy: bad input', () => {
  it.concurrent.each([
    [[], /name the server: --stdio/],
    [['--url', 'http://127.0.0.1:9/mcp'], /--url goes with --listen/],
    [['--url', 'http://127.0.0.1:9/mcp', '--listen', '0.0.0.0:0'], /--listen 0\.0\.0\.0: the proxy listens on loopback only/],
    [['--url', 'http://127.0.0.1:9/mcp', '--stdio', 'true'], /name the server: --stdio "<command>", or --url/],
    [['--stdio', 'true', '--listen', '127.0.0.1:0'], /--listen goes with --url/],
    [['--stdio', 'true', '--json', '-'], /--json -: write the report to a file \(the proxy's stdout is the client's connection/],
    [['--stdio', 'true', '--transcript', '/proc/mcpcheck-t.jsonl'], /--transcript \/proc\/mcpcheck-t.jsonl: cannot write there/],
  ])('%j: one line, exit 2, nothing started', async (args, line) => {
    const r = await run(process.execPath, [CLI, 'proxy', ...args], { input: Buffer.alloc(0) });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(line);
    expect(r.stdout.length).toBe(0);
  });

  it.concurrent('a server that does not start: the client reads the end of its output, the proxy exits as the shell did (127) with a report that could not judge the session', async () => {
    const report = join(dir, 'not-started.json');
    const r = await run(process.execPath, [CLI, 'proxy', '--stdio', 'mcpcheck-no-such-command-xyz', '--json', report], { input: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\n') });
    expect(r.code).toBe(127);
    expect(r.stdout.length).toBe(0);
    const graded = JSON.parse(readFileSync(report, 'utf8')) as RunReport;
    expect(graded.checks.filter((c) => c.status === 'error').map((c) => `${c.id}: ${c.message}`)).toEqual([expect.stringMatching(/^proxy\.session-judged: target did not start: `mcpcheck-no-such-command-xyz` exited with code 127 .*not found/)]);
  });

  it.concurrent('--listen on a port already taken: one line, exit 2', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as import('node:net').AddressInfo).port;
      const r = await run(process.execPath, [CLI, 'proxy', '--url', 'http://127.0.0.1:9/mcp', '--listen', `127.0.0.1:${port}`], { input: Buffer.alloc(0) });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n').at(-1)).toMatch(new RegExp(`^mcpcheck: --listen 127\\.0\\.0\\.1:${port}: cannot listen there \\(EADDRINUSE\\)$`));
    } finally {
      taken.close();
    }
  });

  it.concurrent('a server nobody serves: the client is answered 502, the run is incomplete (exit 3)', async () => {
    const p = await httpProxied(`http://127.0.0.1:${await freePort()}/mcp`);
    const res = await fetch(p.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: INITIALIZE });
    expect(res.status).toBe(502);
    expect(await res.text()).toMatch(/could not be reached \(ECONNREFUSED\)/);
    const { code, report } = await p.stop();
    expect(code).toBe(3);
    expect(report.checks.filter((c) => c.status === 'error').map((c) => c.message)).toEqual(['the server could not be reached for 1 exchange(s); the client was answered 502']);
  });

  it.concurrent('a 100 MB line and a flood of 100,000 notifications: forwarded whole, the line said to be unjudged (so the error without id that refuses it is no violation), the report written, the exit as the server’s', async () => {
    const p = proxied(`node ${REFERENCE}`);
    const child = spawn('sh', [p.script], { stdio: ['pipe', 'pipe', 'ignore'] });
    let answers = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (answers += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"t","version":"1"}}}\n');
    while (!answers.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 20));
    const write = (text: string) => new Promise<void>((resolve) => (child.stdin.write(text) ? resolve() : child.stdin.once('drain', () => resolve())));
    await write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const chunk = 'a'.repeat(1024 * 1024);
    await write('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"');
    for (let i = 0; i < 100; i++) await write(chunk);
    await write('"}}}\n');
    const flood = '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}\n'.repeat(1000);
    for (let i = 0; i < 100; i++) await write(flood);
    await write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    while (!answers.includes('"id":3')) await new Promise((resolve) => setTimeout(resolve, 20));
    child.stdin.end();
    expect(await exited).toBe(0);
    const report = await p.report();
    expect(violations(report)).toEqual([]);
    expect(report.checks.filter((c) => c.status === 'error')).toEqual([]);
    expect(p.log()).toMatch(/the client's stdout line 3 is over mcpcheck's limit of 16777216 bytes: forwarded, not judged/);
    expect(report.notes[0]).toMatch(/^session: the client closed its output; 100006 frames passed/);
  });

  it.concurrent('SIGTERM mid-session: the server (and what it started) is stopped, the report is written, the proxy exits 143', async () => {
    const p = proxied(`sh -c 'sleep 600 & node ${REFERENCE}'`);
    const child = spawn('sh', [p.script], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.write(`${INITIALIZE}\n`);
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    const code = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    expect(await code).toBe(143);
    const report = await p.report();
    expect(report.notes[0]).toMatch(/^session: mcpcheck proxy received SIGTERM; 2 frames passed/);
    // The server's process group is gone, the `sleep` it left running included.
    const sleeping = await run('sh', ['-c', `ps -eo args | grep -c '^sleep 600$' || true`]);
    expect(sleeping.stdout.toString().trim()).toBe('0');
  });
});

/** A server started on a free loopback port, once it accepts connections; stopped (its process group) with `stop`. */
async function httpServer(command: (port: number) => string): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn('sh', ['-c', command(port)], { stdio: 'ignore', detached: true });
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  try {
    await waitForPort(port);
  } catch (e) {
    stop();
    throw e;
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop };
}

interface HttpProxied {
  /** The URL a client is given. */
  url: string;
  transcripts: string;
  log: () => string;
  /** SIGTERM, then its exit code and report. */
  stop: () => Promise<{ code: number | null; report: RunReport }>;
}

/** mcpcheck proxy in front of `upstream`, listening on a free loopback port (told on its log). */
async function httpProxied(upstream: string): Promise<HttpProxied> {
  const n = ++files;
  const report = join(dir, `http-report-${n}.json`);
  const log = join(dir, `http-log-${n}.txt`);
  const transcripts = join(dir, `http-transcripts-${n}`);
  const child: ChildProcess = spawn(process.execPath, [CLI, 'proxy', '--url', upstream, '--listen', '127.0.0.1:0', '--json', report, '--log', log, '--transcript', transcripts], { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const deadline = Date.now() + 45_000;
  let url: string | undefined;
  while ((url = /listening on (\S+),/.exec(logSoFar(log))?.[1]) === undefined) {
    if (Date.now() > deadline) throw new Error(`the proxy did not listen within 45 s; its log: ${logSoFar(log) || '(none)'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    transcripts,
    log: () => readFileSync(log, 'utf8'),
    stop: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      return { code, report: JSON.parse(readFileSync(report, 'utf8')) as RunReport };
    },
  };
}

/** A hand-made upstream server on a free loopback port, with the proxy in front of it: `answer` gets each request once its body is read. */
async function behindProxy(answer: (req: IncomingMessage, body: string, res: ServerResponse) => void, use: (p: HttpProxied) => Promise<void>): Promise<void> {
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => answer(req, body, res));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  try {
    await use(await httpProxied(`http://127.0.0.1:${(upstream.address() as import('node:net').AddressInfo).port}/mcp`));
  } finally {
    upstream.close();
  }
}

/** Checks of message-level rules: what a transcript can show (the HTTP rules are judged on headers and statuses, live only). */
const messageLevel = (report: RunReport) => verdicts({ ...report, checks: report.checks.filter((c) => !c.requirements.some((r) => /^(HTTP|HDR)-/.test(r))) });

describe('mcpcheck proxy --url --listen (Streamable HTTP)', () => {
  it('carries requests and answers byte for byte, passes an SSE stream on event by event (never held until it ends), and judges both sides', async () => {
    const received: Buffer[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const first = 'id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"first"}}\n\n';
    const last = 'id: 2\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n';
    const upstream = createServer((req, res) => {
      const body: Buffer[] = [];
      req.on('data', (c: Buffer) => body.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(body));
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-upstream': 'kept' });
        res.write(first);
        // The rest only once the client has read the first event through the proxy.
        void released.then(() => res.end(last));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as import('node:net').AddressInfo).port;
    try {
      const p = await httpProxied(`http://127.0.0.1:${port}/mcp`);
      const sent = Buffer.from('{"jsonrpc":"2.0","id":7,"method":"ping"}  \n');
      const res = await fetch(p.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: sent });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-upstream')).toBe('kept');
      const reader = res.body!.getReader();
      const chunks: Buffer[] = [];
      while (!Buffer.concat(chunks).toString().includes('"first"')) chunks.push(Buffer.from((await reader.read()).value!));
      release();
      for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(Buffer.from(r.value));
      expect(Buffer.concat(chunks).toString()).toBe(first + last);
      expect(Buffer.concat(received).equals(sent)).toBe(true);
      const { code, report } = await p.stop();
      // The ping's answer came on its stream: the client's frame and the server's two are judged.
      expect(report.wire?.[0]?.frames.map((f) => f.from)).toEqual(['client', 'server', 'server']);
      expect(code).toBe(1);
      // A stream that ends without the priming event a 2025-11-25 server must open it with is not judged
      // here (no version was negotiated); what fails is the initialize the client never sent.
      expect(violations(report)).toEqual(['fail LIFE-INIT-01']);
    } finally {
      upstream.close();
    }
  });

  it.each([
    ['a notification', 'pass', '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'],
    ['a response', 'fail', '{"jsonrpc":"2.0","id":99,"result":{}}'],
  ])('a fresh GET stream carrying %s: HTTP-GET-04 %s', async (_what, status, event) => {
    const answer = (req: IncomingMessage, body: string, res: ServerResponse) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`id: 1\ndata: \n\nid: 2\ndata: ${event}\n\n`);
        return;
      }
      if (!body.includes('"id"')) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'get-04' });
      res.end('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"t","version":"1"}}}');
    };
    await behindProxy(answer, async (p) => {
      const post = (body: string, session?: string) =>
        fetch(p.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}) }, body }).then((r) => r.text());
      await post(INITIALIZE);
      await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', 'get-04');
      await (await fetch(p.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'get-04', 'mcp-protocol-version': '2025-11-25' } })).text();
      const { report } = await p.stop();
      expect(report.checks.find((c) => c.id === 'proxy.HTTP-GET-04')?.status).toBe(status);
      // The stray response answers no request: the session rules say so too.
      expect(violations(report).filter((v) => !v.endsWith('HTTP-GET-04'))).toEqual(status === 'fail' ? ['fail BASE-RES-01'] : []);
    });
  });

  it('a GET answered 200 with JSON instead of an SSE stream (or 405) fails HTTP-GET-02', async () => {
    const answer = (req: IncomingMessage, _body: string, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.method === 'GET' ? '{}' : '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}');
    };
    await behindProxy(answer, async (p) => {
      await (await fetch(p.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: INITIALIZE })).text();
      await (await fetch(p.url, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' } })).text();
      const { report } = await p.stop();
      // Its body `{}` is no JSON-RPC message either (as the 200 of http-notification-200).
      expect(violations(report)).toEqual(['fail BASE-MSG-01', 'fail HTTP-GET-02']);
    });
  });

  it('HTTP-SESS-04: a request without the session id fails while the client holds one, not once the server answered 404 for it', async () => {
    const answer = (req: IncomingMessage, body: string, res: ServerResponse) => {
      if (req.method === 'POST') {
        if (!body.includes('"initialize"')) return void res.writeHead(202).end();
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}');
        return;
      }
      // The session has ended: its id is answered 404, a request without one 400.
      res.writeHead(req.headers['mcp-session-id'] !== undefined ? 404 : 400).end();
    };
    await behindProxy(answer, async (p) => {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
      await (await fetch(p.url, { method: 'POST', headers, body: INITIALIZE })).text();
      await (await fetch(p.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': 's1' }, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
      const get = (session: Record<string, string>) => fetch(p.url, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', ...session } }).then((r) => r.text());
      await get({});
      await get({ 'mcp-session-id': 's1' });
      await get({});
      const { report } = await p.stop();
      const check = report.checks.find((c) => c.requirements.includes('HTTP-SESS-04'));
      expect([check?.status, check?.message]).toEqual(['fail', expect.stringMatching(/^1 violation\(s\): GET #3: expected the issued MCP-Session-Id/)]);
    });
  });

  it.concurrent.each([
    ['the SDK example client', (url: string) => run(process.execPath, [SDK_CLIENT, url])],
    ['Inspector CLI (tools/call)', (url: string) => run(process.execPath, ['index.js', url, '--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=hi'], { cwd: INSPECTOR_BUILD })],
    ['mcp-remote (under Inspector CLI over stdio)', (url: string) => run('sh', ['-c', `MCP_REMOTE_CONFIG_DIR=$(mktemp -d ${dir}/remote-XXXXXX) exec node index.js node ${MCP_REMOTE} ${url} --allow-http --method tools/list`], { cwd: INSPECTOR_BUILD })],
  ])('%s and the reference server: the same output and exit code as directly, no finding, and validate of the transcript agrees on the messages', async (_name, client) => {
    const server = await httpServer((port) => `node ${REFERENCE} --http --port ${port}`);
    try {
      const p = await httpProxied(server.url);
      const [direct, through] = await Promise.all([client(server.url), client(p.url)]);
      expect(through.code, through.stderr).toBe(direct.code);
      const { code, report } = await p.stop();
      expect(code).toBe(0);
      expect(violations(report)).toEqual([]);
      // One transcript per session (mcp-remote opens a session to probe the server first); validate of them all agrees.
      const transcripts = readdirSync(p.transcripts).map((f) => join(p.transcripts, f));
      expect(transcripts.length).toBeGreaterThan(0);
      expect(messageLevel(await validated(...transcripts))).toEqual(messageLevel(report));
      // Every line of them is a record of schemas/transcript.schema.json, and each frame names the exchange that carried it.
      for (const file of transcripts) {
        const records = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
        for (const record of records) expect(transcriptLine(record), JSON.stringify(transcriptLine.errors)).toBe(true);
        const numbers = new Set(records.filter((r) => !('from' in r) && 'exchange' in r).map((r) => r.exchange));
        for (const frame of records.filter((r) => 'from' in r)) expect(numbers.has(frame.exchange)).toBe(true);
      }
      // A section per session, each with its transcript: what it negotiated, who spoke, nothing wrong.
      expect(report.sessions?.map((s) => s.transcript).sort()).toEqual(transcripts.sort());
      for (const s of report.sessions ?? []) {
        expect(s.violations).toEqual([]);
        expect(s.frames).toBeGreaterThan(0);
        if (s.label.startsWith('session ')) expect([s.protocol, s.serverInfo?.name, typeof s.clientInfo?.name]).toEqual(['2025-11-25', 'mcpcheck-reference', 'string']);
      }
    } finally {
      server.stop();
    }
  });

  it('a protected server: the credential is forwarded unchanged and written nowhere; its metadata naming its own URL is a note on the setup, not a finding', async () => {
    const server = await httpServer((port) => withProtectedToken(`node ${REFERENCE} --http --auth --port ${port}`));
    try {
      const p = await httpProxied(server.url);
      const prm = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', p.url));
      expect(prm.status).toBe(200);
      const token = PROTECTED_HEADER.slice('Authorization: '.length);
        const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      // Refused without the token, served with it: the header reached the server as sent.
      expect((await fetch(p.url, { method: 'POST', headers, body: INITIALIZE })).status).toBe(401);
      expect((await fetch(p.url, { method: 'POST', headers: { ...headers, authorization: token }, body: INITIALIZE })).status).toBe(200);
      const { report } = await p.stop();
      expect(report.notes.filter((n) => n.includes('Protected Resource Metadata'))).toEqual([expect.stringMatching(new RegExp(`names its resource "${server.url}", while the client was given ${p.url}`))]);
      expect(violations(report).filter((v) => v.includes('AUTH-'))).toEqual([]);
      const transcripts = readdirSync(p.transcripts).map((f) => readFileSync(join(p.transcripts, f), 'utf8'));
      const written = [JSON.stringify(report), p.log(), ...transcripts].join('\n');
      expect(written).not.toContain(token.slice('Bearer '.length));
      // Each exchange is in its session's transcript, the credential's scheme kept and its value not.
      const exchanges = transcripts.flatMap((t) => t.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)).filter((r) => 'exchange' in r && !('from' in r));
      expect(exchanges.map((x) => [x.method, x.path, x.status, (x.requestHeaders as Record<string, string>).authorization])).toEqual([
        ['GET', '/.well-known/oauth-protected-resource/mcp', 200, undefined],
        ['POST', '/mcp', 401, undefined],
        ['POST', '/mcp', 200, 'Bearer [redacted]'],
      ]);
    } finally {
      server.stop();
    }
  });

  it('2026-07-28 (the SDK v2 client and the 2026 reference server): judged in the stateless era, no finding', async () => {
    const server = await httpServer((port) => `node ${REFERENCE_2026} --http --port ${port}`);
    try {
      const p = await httpProxied(server.url);
      const r = await run(process.execPath, [SDK_V2_CLIENT, p.url]);
      expect(r.code, r.stderr).toBe(0);
      const { report } = await p.stop();
      expect(report.target.description).toContain('stateless era');
      expect(violations(report)).toEqual([]);
    } finally {
      server.stop();
    }
  });

  it.concurrent.each([
    ['server', 'http-wrong-content-type', ['fail HTTP-POST-05']],
    // The 200's body is no JSON-RPC message either.
    ['server', 'http-notification-200', ['fail BASE-MSG-01', 'fail HTTP-POST-03']],
    ['server', 'http-session-id-invalid-chars', ['fail HTTP-SESS-03']],
    ['client', 'accept-json-only', ['fail HTTP-POST-02']],
    ['client', 'get-accept-json', ['fail HTTP-GET-01']],
    ['client', 'no-version-header', ['fail HTTP-VER-01']],
    // A version header that names another revision than the negotiated one: graded as mcpcheck client grades it.
    ['client', 'wrong-version-header', ['warn HTTP-VER-02']],
    ['client', 'no-session-header', ['fail HTTP-SESS-04']],
  ] as const)('%s break %s behind the proxy (the reference pair otherwise): caught by its rule', async (side, name, expected) => {
    const server = await httpServer((port) => `node ${REFERENCE} --http --port ${port}${side === 'server' ? ` --break ${name}` : ''}`);
    try {
      const p = await httpProxied(server.url);
      await run(process.execPath, [side === 'client' ? CLIENT_FIXTURE : SDK_CLIENT, ...(side === 'client' ? ['--break', name] : []), p.url]);
      const { report } = await p.stop();
      expect(violations(report)).toEqual([...expected]);
      // The sessions whose traffic broke the rule name its check, with their findings.
      const named = (report.sessions ?? []).flatMap((s) => s.violations.map((v) => `${v.status} ${v.check.replace(/^proxy\./, '')}`));
      expect([...new Set(named)].sort()).toEqual([...expected]);
    } finally {
      server.stop();
    }
  });

  it.concurrent.each([
    ['(none)', undefined, ['pass HTTP-RESUME-01', 'pass HTTP-SSE-01']],
    ['http-no-priming-event', 'http-no-priming-event', ['warn HTTP-SSE-01']],
    ['http-duplicate-event-ids', 'http-duplicate-event-ids', ['fail HTTP-RESUME-01', 'pass HTTP-SSE-01']],
  ] as const)('a tool call answered on an SSE stream (Inspector CLI, the reference server, break %s): the priming event and unique event ids judged', async (_label, name, expected) => {
    const server = await httpServer((port) => `node ${REFERENCE} --http --port ${port}${name !== undefined ? ` --break ${name}` : ''}`);
    try {
      const p = await httpProxied(server.url);
      const r = await run(process.execPath, ['index.js', p.url, '--method', 'tools/call', '--tool-name', 'slow', '--tool-arg', 'steps=2', '--tool-arg', 'delayMs=10'], { cwd: INSPECTOR_BUILD });
      expect(r.code, r.stderr.toString()).toBe(0);
      const { report } = await p.stop();
      expect(report.checks.filter((c) => /^proxy\.HTTP-(SSE-01|RESUME-01)$/.test(c.id)).map((c) => `${c.status} ${c.requirements[0]}`).sort()).toEqual([...expected]);
      expect(violations(report).filter((v) => !/HTTP-(SSE-01|RESUME-01)$/.test(v))).toEqual([]);
    } finally {
      server.stop();
    }
  });

});
