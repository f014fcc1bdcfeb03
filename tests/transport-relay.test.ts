import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelClosed, IncomingFrame } from '../src/transport/channel.js';
import type { StdioClientEvent } from '../src/transport/server-channel.js';
import { StdioRelayChannel, type StdioRelayOptions } from '../src/transport/stdio-relay.js';
import type { Finding } from '../src/validate/finding.js';

// The relay is the built `mcpcheck relay` (dist/src/cli.js), started the way a client starts it:
// from the channel's `address`, split on whitespace.

const cli = fileURLToPath(new URL('../dist/src/cli.js', import.meta.url));

interface Recorded {
  channel: StdioRelayChannel;
  frames: IncomingFrame[];
  findings: Finding[];
  events: StdioClientEvent[];
  closes: ChannelClosed[];
}

const channels: StdioRelayChannel[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(channels.splice(0).map((c) => c.close()));
});

async function open(options: StdioRelayOptions = {}): Promise<Recorded> {
  const channel = await StdioRelayChannel.open(options);
  channels.push(channel);
  const r: Recorded = { channel, frames: [], findings: [], events: [], closes: [] };
  channel.onFrame((f) => r.frames.push(f));
  channel.onFinding((f) => r.findings.push(f));
  channel.onStdioEvent((e) => r.events.push(e));
  channel.onClose((c) => r.closes.push(c));
  return r;
}

function commandOf(channel: StdioRelayChannel): { command: string; args: string[] } {
  const [command, ...args] = channel.address.split(/\s+/);
  return { command: command!, args };
}

/** Answers initialize and tools/list the way a minimal server would. */
function serve(r: Recorded): void {
  r.channel.onFrame((f) => {
    const m = f.message as { id?: number | string; method?: string; params?: { protocolVersion?: string } } | undefined;
    if (m?.id === undefined || m.method === undefined) return;
    if (m.method === 'initialize') {
      void r.channel.send({
        jsonrpc: '2.0',
        id: m.id,
        result: { protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'relay-test', version: '1.0.0' } },
      });
    } else if (m.method === 'tools/list') {
      void r.channel.send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
    }
  });
}

async function sdkClient(r: Recorded): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({ ...commandOf(r.channel), stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'relay-test-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

interface RawRelay {
  child: ChildProcessWithoutNullStreams;
  stdout: () => Buffer;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A client that writes to the relay whatever the test wants, bytes and all. */
function rawRelay(command: string, args: string[]): RawRelay {
  const child = spawn(command, args, { stdio: 'pipe' });
  children.push(child);
  const out: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  child.stdin.on('error', () => {});
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => Buffer.concat(out), stderr: () => err, exit };
}

function rawClient(r: Recorded): RawRelay {
  const { command, args } = commandOf(r.channel);
  return rawRelay(command, args);
}

async function until(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const kinds = (r: Recorded) => r.events.map((e) => e.kind);
const methods = (r: Recorded) => r.frames.map((f) => (f.message as { method?: string } | undefined)?.method);

describe('StdioRelayChannel with the SDK client', () => {
  it('carries the handshake, answers a server ping, passes stderr, and sees stdin closed before SIGTERM', async () => {
    const r = await open();
    serve(r);
    const { client, stderr } = await sdkClient(r);
    expect(await r.channel.connected(1000)).toBe(true);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(methods(r)).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    expect(r.frames.every((f) => f.via === 'stdin')).toBe(true);

    expect(await r.channel.send({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' })).toEqual({});
    await until('the ping response', () => r.frames.some((f) => (f.message as { id?: string }).id === 'srv-1'));
    expect(r.frames.at(-1)!.message).toEqual({ jsonrpc: '2.0', id: 'srv-1', result: {} });

    await r.channel.stderr('a log line from the server\n');
    await until('stderr on the client side', () => stderr().includes('a log line from the server\n'));

    // The SDK ends stdin, waits up to 2 s for the process to exit, then sends SIGTERM: this
    // channel does not exit on EOF by itself, so all three steps show.
    await client.close();
    await until('relay-exit', () => kinds(r).includes('relay-exit'));
    expect(kinds(r)).toEqual(['stdin-closed', 'signal', 'relay-exit']);
    const [closed, signal] = r.events;
    expect(signal!.signal).toBe('SIGTERM');
    expect(signal!.at - closed!.at).toBeGreaterThan(1500);
    expect(r.findings).toEqual([]);
    expect(r.closes).toMatchObject([{ reason: 'exit', signal: 'SIGTERM' }]);
  });

  it('lets the harness act as a server that exits on EOF: the SDK client closes without signalling', async () => {
    const r = await open();
    serve(r);
    r.channel.onStdioEvent((e) => {
      if (e.kind === 'stdin-closed') void r.channel.die(0);
    });
    const { client } = await sdkClient(r);
    const started = Date.now();
    await client.close();
    expect(Date.now() - started).toBeLessThan(1500);
    await until('relay-exit', () => kinds(r).includes('relay-exit'));
    expect(kinds(r)).toEqual(['stdin-closed', 'relay-exit']);
    expect(r.closes).toMatchObject([{ reason: 'exit', code: 0 }]);
  });

  it('die(): the relay exits, and the SDK client sees its transport close', async () => {
    const r = await open();
    serve(r);
    const { client, transport } = await sdkClient(r);
    let closed = false;
    transport.onclose = () => (closed = true);
    await r.channel.die(3);
    await until('the SDK transport to close', () => closed);
    await expect(client.listTools()).rejects.toThrow();
    expect(r.closes).toMatchObject([{ reason: 'exit', code: 3 }]);
    expect((await r.channel.send({ jsonrpc: '2.0', method: 'x' })).error).toMatch(/exited/);
  });
});

describe('StdioRelayChannel with a raw client', () => {
  it('judges noise on stdin (STDIO-IN-01), writes raw bytes exactly, reports EOF, and close() ends the relay', async () => {
    const r = await open();
    expect(statSync(r.channel.dir).mode & 0o777).toBe(0o700);
    const relay = rawClient(r);
    expect(await r.channel.connected(5000)).toBe(true);
    relay.child.stdin.write('this is not json\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await until('two frames', () => r.frames.length === 2);
    expect(r.frames[0]).toMatchObject({ raw: 'this is not json', via: 'stdin' });
    expect(r.frames[0]!.parseError).toBeDefined();
    expect(r.frames[1]!.message).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(r.findings.map((f) => `${f.requirements[0]}:${f.severity}`)).toEqual(['STDIO-IN-01:fail']);
    expect(r.findings[0]!.message).toContain('stdin line 1');

    const big = Buffer.alloc(200_000, 0x61); // several records on the socket
    expect(await r.channel.sendRaw('{"jsonrpc":"2.0","method":"x"}')).toEqual({});
    expect(await r.channel.sendRaw(big)).toEqual({});
    const expected = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"x"}'), big]);
    await until('the raw bytes on stdout', () => relay.stdout().length >= expected.length);
    expect(relay.stdout().equals(expected)).toBe(true);

    relay.child.stdin.end();
    await until('stdin-closed', () => kinds(r).includes('stdin-closed'));
    const dir = r.channel.dir;
    await r.channel.close();
    expect(await relay.exit).toEqual({ code: 0, signal: null });
    expect(kinds(r)).toEqual(['stdin-closed', 'relay-exit']);
    expect(r.closes).toMatchObject([{ reason: 'closed', code: 0 }]);
    expect(existsSync(dir)).toBe(false);
    expect((await r.channel.send({ jsonrpc: '2.0', method: 'x' })).error).toBeDefined();
  });

  it('reports a signal the client sends and exits like a server would (128 + n)', async () => {
    const r = await open();
    const relay = rawClient(r);
    expect(await r.channel.connected(5000)).toBe(true);
    relay.child.kill('SIGINT');
    expect(await relay.exit).toEqual({ code: 130, signal: null });
    await until('relay-exit', () => kinds(r).includes('relay-exit'));
    expect(r.events.map((e) => e.signal ?? e.kind)).toEqual(['SIGINT', 'relay-exit']);
    expect(r.closes).toMatchObject([{ reason: 'exit', signal: 'SIGINT' }]);
  });

  it('a relay killed outright shows as relay-exit alone', async () => {
    const r = await open();
    const relay = rawClient(r);
    expect(await r.channel.connected(5000)).toBe(true);
    relay.child.kill('SIGKILL');
    await until('relay-exit', () => kinds(r).includes('relay-exit'));
    expect(kinds(r)).toEqual(['relay-exit']);
    expect(r.closes).toMatchObject([{ reason: 'exit', code: null, signal: null }]);
    expect(r.closes[0]!.detail).toMatch(/without being told/);
  });

  it('bounds what a hostile client writes: an over-long line is dropped, too much input stops the relay', async () => {
    const r = await open({ maxLineBytes: 1024, maxStdinBytes: 64 * 1024 });
    const relay = rawClient(r);
    expect(await r.channel.connected(5000)).toBe(true);
    relay.child.stdin.write('x'.repeat(5000) + '\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await until('the ping after the long line', () => r.frames.length === 1);
    expect(r.findings.map((f) => f.message)).toEqual([expect.stringMatching(/stdin line 1 is 5000 bytes long/)]);

    relay.child.stdin.write('y'.repeat(100 * 1024));
    expect(await relay.exit).toEqual({ code: 1, signal: null });
    expect(r.findings.at(-1)).toMatchObject({ requirements: ['STDIO-IN-01'], severity: 'info' });
    expect(r.closes).toMatchObject([{ reason: 'error' }]);
  });

  it('refuses a second relay in one channel (a note), and that relay exits at once', async () => {
    const r = await open();
    const first = rawClient(r);
    expect(await r.channel.connected(5000)).toBe(true);
    const second = rawClient(r);
    expect(await second.exit).toEqual({ code: 1, signal: null });
    expect(second.stderr()).toMatch(/^mcpcheck relay: .*\n$/);
    expect(r.findings).toMatchObject([{ requirements: ['LIFE-SHUT-01'], severity: 'info', unjudged: true }]);
    expect(first.child.exitCode).toBeNull();
  });

  it('connected() says false when no client started the relay, and sends are refused until one does', async () => {
    const r = await open();
    expect(await r.channel.connected(50)).toBe(false);
    expect((await r.channel.send({ jsonrpc: '2.0', method: 'x' })).error).toMatch(/not started/);
    const dir = r.channel.dir;
    await r.channel.close();
    expect(await r.channel.connected(5000)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    expect(r.closes).toMatchObject([{ reason: 'closed' }]);
  });

  // No timed test: its start-up shows in `npm run bench` (the client bench's CPU of client processes and their relays); what keeps it near bare Node's is that it loads no package.
  it('loads no package from node_modules: a client starting it waits for Node and the CLI bundle alone', async () => {
    const r = await open();
    const { command, args } = commandOf(r.channel);
    const relay = rawRelay(command, ['--require', fileURLToPath(new URL('fixtures/loaded-packages.cjs', import.meta.url)), ...args]);
    expect(await r.channel.connected(5000)).toBe(true);
    await r.channel.close();
    await relay.exit;
    expect(/^mcpcheck-test-loaded: (.*)$/m.exec(relay.stderr())?.[1]).toBe('');
  });
});

describe('mcpcheck relay (the process)', () => {
  it('exits 2 with one line on bad arguments, 1 when the harness cannot be reached or goes away', async () => {
    const usage = rawRelay(process.execPath, [cli, 'relay']);
    expect(await usage.exit).toEqual({ code: 2, signal: null });
    expect(usage.stderr()).toMatch(/^mcpcheck relay: usage: [^\n]*\n$/);

    const dir = mkdtempSync(join(tmpdir(), 'relay-test-'));
    try {
      const unreachable = rawRelay(process.execPath, [cli, 'relay', '--socket', join(dir, 'none.sock')]);
      expect(await unreachable.exit).toEqual({ code: 1, signal: null });
      expect(unreachable.stderr()).toMatch(/^mcpcheck relay: cannot reach the harness at .*\(ENOENT\)\n$/);

      // A harness that accepts and then vanishes: the relay must not linger.
      const path = join(dir, 'gone.sock');
      const server = createServer((socket) => setTimeout(() => socket.destroy(), 50));
      await new Promise<void>((resolve) => server.listen(path, resolve));
      try {
        const orphan = rawRelay(process.execPath, [cli, 'relay', '--socket', path]);
        const started = Date.now();
        expect(await orphan.exit).toEqual({ code: 1, signal: null });
        expect(Date.now() - started).toBeLessThan(3000);
        expect(orphan.stderr()).toBe('mcpcheck relay: the harness closed the connection\n');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
