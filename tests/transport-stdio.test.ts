import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelClosed, IncomingFrame } from '../src/transport/channel.js';
import { processAlive, StdioChannel, TargetDidNotStart, type StdioChannelOptions } from '../src/transport/index.js';
import type { Finding } from '../src/validate/finding.js';

const fixtures = fileURLToPath(new URL('./fixtures/transport/', import.meta.url));
const root = fileURLToPath(new URL('../', import.meta.url));
const node = JSON.stringify(process.execPath);
const fixture = (name: string, ...args: string[]): string => [node, JSON.stringify(join(fixtures, name)), ...args].join(' ');

interface Recorded {
  channel: StdioChannel;
  frames: IncomingFrame[];
  findings: Finding[];
  closes: ChannelClosed[];
}

const open: StdioChannel[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function start(command: string, options: Partial<StdioChannelOptions> = {}): Promise<Recorded> {
  const channel = await StdioChannel.start({ command, killGraceMs: 500, ...options });
  open.push(channel);
  return record(channel);
}

function record(channel: StdioChannel): Recorded {
  const r: Recorded = { channel, frames: [], findings: [], closes: [] };
  channel.onFrame((f) => r.frames.push(f));
  channel.onFinding((f) => r.findings.push(f));
  channel.onClose((c) => r.closes.push(c));
  return r;
}

async function until(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const ids = (f: Finding[]) => f.map((x) => `${x.requirements[0]}:${x.severity}`);

describe('StdioChannel framing', () => {
  it('sends one line per message and delivers each response line as a frame', async () => {
    const r = await start(fixture('echo-server.mjs'));
    expect(await r.channel.send(ping(1))).toEqual({});
    expect(await r.channel.send(ping(2))).toEqual({});
    await until('two frames', () => r.frames.length === 2);
    expect(r.frames.map((f) => (f.message as { id: number }).id)).toEqual([1, 2]);
    expect(r.frames[0]!.via).toBe('stdout');
    expect(r.frames[0]!.raw).toBe(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { echo: ping(1) } }));
    expect(r.findings).toEqual([]);
  });

  it('reports a banner line under STDIO-OUT-01 and still delivers the messages after it', async () => {
    const r = await start(fixture('echo-server.mjs', '--banner'));
    await r.channel.send(ping(1));
    await until('the response', () => r.frames.some((f) => f.message !== undefined));
    expect(ids(r.findings)).toEqual(['STDIO-OUT-01:fail']);
    expect(r.findings[0]!.message).toContain('"Echo server v1 starting..."');
    expect(r.frames[0]).toMatchObject({ raw: 'Echo server v1 starting...', via: 'stdout' });
    expect(r.frames[0]!.parseError).toBeTruthy();
    expect(r.frames[1]!.message).toMatchObject({ id: 1 });
  });

  it('detects pretty-printed output (STDIO-FRAME-01) and delivers the joined value', async () => {
    const r = await start(fixture('echo-server.mjs', '--pretty'));
    await r.channel.send(ping(7));
    await until('the response', () => r.frames.length === 1);
    expect(r.frames[0]!.message).toMatchObject({ id: 7, result: { echo: ping(7) } });
    expect(ids(r.findings)).toEqual(['STDIO-FRAME-01:fail']);
    expect(r.findings[0]!.message).toMatch(/spread over stdout lines 1–\d+/);
  });

  it('accepts \\r\\n line ends with a single info note', async () => {
    const r = await start(fixture('echo-server.mjs', '--crlf', '--banner'));
    await r.channel.send(ping(1));
    await r.channel.send(ping(2));
    await until('two responses', () => r.frames.filter((f) => f.message !== undefined).length === 2);
    expect(ids(r.findings)).toEqual(['STDIO-FRAME-01:info', 'STDIO-OUT-01:fail']);
    expect(r.frames[0]!.raw).toBe('Echo server v1 starting...');
  });

  it('reports blank lines under STDIO-OUT-01 without delivering them', async () => {
    const r = await start(fixture('echo-server.mjs', '--blank'));
    await r.channel.send(ping(1));
    await until('the response', () => r.frames.length === 1);
    await until('the finding', () => r.findings.length === 1);
    expect(r.findings[0]).toMatchObject({ requirements: ['STDIO-OUT-01'], severity: 'fail' });
    expect(r.findings[0]!.message).toContain('blank line');
  });

  it('delivers a top-level array as a frame and leaves judging it to the validators', async () => {
    const r = await start(fixture('echo-server.mjs'));
    await r.channel.sendRaw(JSON.stringify([ping(1), ping(2)]) + '\n');
    await until('the batch reply', () => r.frames.length === 1);
    expect(Array.isArray(r.frames[0]!.message)).toBe(true);
    expect(r.findings).toEqual([]);
  });

  it('reports invalid UTF-8 (BASE-MSG-02) and a BOM, and keeps going', async () => {
    const r = await start(fixture('bad-bytes.mjs'));
    await until('three frames', () => r.frames.length === 3);
    expect(ids(r.findings)).toEqual(['BASE-MSG-02:fail', 'BASE-MSG-02:warn']);
    expect(r.findings[0]!.message).toContain('line 1 is not valid UTF-8');
    expect(r.frames[0]!.raw).toContain('\uFFFD');
    expect(r.frames[1]!.message).toMatchObject({ params: { data: 'n2' } });
    expect(r.frames[2]!.message).toMatchObject({ params: { data: 'n3' } });
  });
});

describe('StdioChannel process handling', () => {
  it('fails fast and clearly when the command does not exist', async () => {
    const t0 = Date.now();
    const err = await StdioChannel.start({ command: 'mcpcheck-no-such-command-4711 --stdio' }).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(err).toBeInstanceOf(TargetDidNotStart);
    const e = err as TargetDidNotStart;
    expect(e.message).toContain('target did not start');
    expect(e.message).toContain('exited with code 127');
    expect(e.message).toMatch(/not found/);
    expect(e.exit?.code).toBe(127);
  });

  it('fails clearly when the working directory does not exist', async () => {
    const err = await StdioChannel.start({ command: 'true', cwd: '/nonexistent/mcpcheck' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetDidNotStart);
    expect((err as Error).message).toContain('cannot run');
  });

  it('a target that exits once it was written to is said to have exited, not to have failed to start', async () => {
    const r = await start('read line; exit 1', { startupWindowMs: 0 });
    await r.channel.send(ping(1));
    await until('the close', () => r.closes.length === 1);
    expect(r.closes[0]).toMatchObject({ reason: 'exit', code: 1 });
    expect(r.closes[0]!.detail).toMatch(/^the target exited: `read line; exit 1` exited with code 1 once mcpcheck had written to its stdin, before writing anything to stdout/);
  });

  it('reports a target that dies after start as a close with reason exit, and sends do not throw', async () => {
    const r = await start(`${fixture('echo-server.mjs')}; exit 3`, { startupWindowMs: 0 });
    r.channel.process.closeStdin();
    await until('the close', () => r.closes.length === 1);
    expect(r.closes[0]).toMatchObject({ reason: 'exit', code: 3 });
    expect(r.closes[0]!.detail).toContain('target did not start');
    expect(r.channel.didNotStart).toBeInstanceOf(TargetDidNotStart);
    const res = await r.channel.send(ping(1));
    expect(res.error).toMatch(/closed/);
  });

  it('closes stdin and sees the target exit on its own (the ROBUST-03 mechanism)', async () => {
    const r = await start(fixture('echo-server.mjs'));
    r.channel.process.closeStdin();
    expect(await r.channel.process.waitForExit(5000)).toEqual({ code: 0, signal: null });

    const stays = await start(fixture('echo-server.mjs', '--stay'));
    stays.channel.process.closeStdin();
    expect(await stays.channel.process.waitForExit(300)).toBeUndefined();
  });

  it('does not throw when writing to a process that is gone (EPIPE)', async () => {
    const r = await start(`${node} -e "setTimeout(() => process.exit(0), 50)"`, { startupWindowMs: 0 });
    await r.channel.process.waitForExit(5000);
    const big = 'x'.repeat(1024 * 1024);
    const results = await Promise.all([r.channel.sendRaw(big), r.channel.sendRaw(big)]);
    for (const res of results) expect(res.error).toBeTruthy();
  });

  it('waits for drain and gives up after the write timeout when the target does not read', async () => {
    const r = await start(fixture('no-read.mjs'), { writeTimeoutMs: 300 });
    const res = await r.channel.sendRaw('x'.repeat(4 * 1024 * 1024));
    expect(res.error).toMatch(/did not read its stdin within 300 ms/);
  });

  it('kills the whole process group on close, grandchildren included', async () => {
    const r = await start(fixture('spawns-grandchild.mjs'));
    await until('the pid report', () => r.frames.length === 1);
    const { leader, grandchild } = (r.frames[0]!.message as { params: { data: { leader: number; grandchild: number } } }).params.data;
    expect(processAlive(grandchild)).toBe(true);
    await r.channel.close();
    expect(processAlive(leader)).toBe(false);
    expect(processAlive(grandchild)).toBe(false);
    expect(r.channel.process.groupAlive()).toBe(false);
    expect(r.closes).toEqual([expect.objectContaining({ reason: 'closed' })]);
  });

  it('kills what a leader left behind when it exited on its own', async () => {
    const r = await start(fixture('spawns-grandchild.mjs', '--leader-exits'), { startupWindowMs: 0 });
    await until('the exit', () => r.closes.length === 1);
    expect(r.closes[0]).toMatchObject({ reason: 'exit', code: 0 });
    const { grandchild } = (r.frames[0]!.message as { params: { data: { grandchild: number } } }).params.data;
    expect(processAlive(grandchild)).toBe(true);
    await r.channel.close();
    expect(processAlive(grandchild)).toBe(false);
  });

  it('keeps only the tail of stderr and counts what it dropped', async () => {
    const r = await start(fixture('flood.mjs', 'stderr', '5'), { stderrLimit: 1024 * 1024 });
    await until('the message after the flood', () => r.frames.length === 1, 10_000);
    const { text, dropped } = r.channel.stderr();
    expect(text.length).toBe(1024 * 1024);
    expect(dropped).toBe(4 * 1024 * 1024);
    expect(r.findings).toEqual([]);
  });

  it('drops an over-long line without buffering it, then carries on', async () => {
    const r = await start(fixture('flood.mjs', 'long-line', '8'), { maxLineBytes: 1024 * 1024 });
    await until('the message after the long line', () => r.frames.length === 1, 10_000);
    expect(r.frames[0]!.message).toMatchObject({ params: { data: 'after' } });
    expect(ids(r.findings)).toEqual(['STDIO-FRAME-01:info']);
    expect(r.findings[0]!.message).toContain(`is ${8 * 1024 * 1024} bytes long`);
  });

  it('stops reading and closes the channel when total stdout exceeds its bound', async () => {
    const r = await start(fixture('flood.mjs', 'many-lines', '64'), { maxStdoutBytes: 2 * 1024 * 1024 });
    await until('the close', () => r.closes.length === 1, 10_000);
    expect(r.closes[0]).toMatchObject({ reason: 'error' });
    expect(r.closes[0]!.detail).toContain('exceeded');
    // 32 lines of 65525 bytes fit in 2 MiB; the cut-off 33rd is not delivered.
    expect(r.frames.length).toBeLessThanOrEqual(32);
    await until('the target to be stopped', () => !r.channel.process.groupAlive(), 5000);
  });
});

describe('process-group cleanup when mcpcheck itself goes away', () => {
  // process.ts imports only stderr-gist.ts, which imports nothing: both are transpiled and run in a bare Node process.
  function driver(mode: 'exit' | 'sigterm'): { dir: string; script: string } {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-transport-'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    for (const name of ['process', 'stderr-gist']) {
      const source = readFileSync(join(root, `src/transport/${name}.ts`), 'utf8');
      const js = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      writeFileSync(join(dir, `${name}.js`), js);
    }
    const script = join(dir, 'driver.mjs');
    writeFileSync(
      script,
      `import { TargetProcess } from './process.js';
const t = new TargetProcess({ command: ${JSON.stringify(fixture('spawns-grandchild.mjs'))}, killGraceMs: 300 });
t.onStdout((chunk) => {
  process.stdout.write(chunk);
  ${mode === 'exit' ? 'process.exit(0);' : "process.kill(process.pid, 'SIGTERM');"}
});
setInterval(() => {}, 1000);
`,
    );
    return { dir, script };
  }

  for (const mode of ['exit', 'sigterm'] as const) {
    it(`kills every live group on ${mode === 'exit' ? 'process exit' : 'SIGTERM, then dies of the signal'}`, async () => {
      const { dir, script } = driver(mode);
      try {
        const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('driver did not exit')), 10_000);
          child.on('exit', (code, signal) => {
            clearTimeout(timer);
            resolve({ code, signal });
          });
        });
        if (mode === 'exit') expect(exit).toEqual({ code: 0, signal: null });
        else expect(exit).toEqual({ code: null, signal: 'SIGTERM' });
        const { leader, grandchild } = (JSON.parse(out.trim()) as { params: { data: { leader: number; grandchild: number } } }).params.data;
        await until('the group to be gone', () => !processAlive(leader) && !processAlive(grandchild), 3000);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('against @modelcontextprotocol/server-everything (stdio)', () => {
  it('initializes', async () => {
    const entry = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const r = await start(`${node} ${JSON.stringify(entry)} stdio`);
    await r.channel.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcpcheck-test', version: '0.0.0' } },
    });
    await until('the InitializeResult', () => r.frames.some((f) => (f.message as { id?: number })?.id === 1), 20_000);
    const reply = r.frames.find((f) => (f.message as { id?: number })?.id === 1)!.message as {
      result: { protocolVersion: string; serverInfo: { name: string } };
    };
    expect(reply.result.serverInfo.name).toBeTruthy();
    expect(typeof reply.result.protocolVersion).toBe('string');
    expect(r.findings).toEqual([]);
    await r.channel.close();
    expect(r.channel.process.groupAlive()).toBe(false);
  });
});
