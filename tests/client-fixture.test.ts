/**
 * The client fixture (tests/fixtures/client/) and the SDK example client (examples/) on their own,
 * without mcpcheck's harness: against an SDK server they complete a steps script over both
 * transports, and a few of the fixture's breaks are seen on the wire as described. The harness
 * tests judge the verdicts; this shows the clients under test do what they claim.
 * Needs `npm run build` (runs dist/tests/fixtures/client/client.js).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bindsRole, findRequirement } from '../src/spec/catalog.js';
import { SDK_EXAMPLE as EXAMPLE } from './real-clients.js';

const ROOT = resolve(import.meta.dirname, '..');
const FIXTURE = join(ROOT, 'dist/tests/fixtures/client/client.js');
const TEE = join(ROOT, 'dist/tests/fixtures/client/tee-server.js');
const SDK_SERVER = `${process.execPath} ${join(ROOT, 'dist/tests/fixtures/sdk/server.js')}`;
const STEPS = JSON.stringify([{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { message: 'hi' } }, { do: 'wait', ms: 100 }]);

interface Run {
  code: number | null;
  stderr: string;
}

function run(script: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [script, ...args], { env: { ...process.env, MCPCHECK_STEPS: STEPS, ...env }, timeout: 45_000 }, (err, _stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stderr });
    });
  });
}

/** One HTTP request as the in-test server received it. */
interface Seen {
  method: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  at: number;
}

/** An SDK server on 127.0.0.1 that records every request before serving it. */
class RecordingServer {
  readonly seen: Seen[] = [];
  private readonly http: Server;
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();

  constructor() {
    this.http = createServer((req, res) => {
      void this.serve(req, res).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(e));
      });
    });
  }

  get url(): string {
    const address = this.http.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.http.listen(0, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    for (const t of this.sessions.values()) void t.close();
    this.http.closeAllConnections();
    return new Promise((resolve) => this.http.close(() => resolve()));
  }

  /** The JSON-RPC messages POSTed so far. */
  posted(): Array<Record<string, unknown>> {
    return this.seen.filter((s) => s.method === 'POST').map((s) => s.body as Record<string, unknown>);
  }

  private async serve(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body: unknown = text === '' ? undefined : JSON.parse(text);
    this.seen.push({ method: req.method ?? '', headers: req.headers, body, at: Date.now() });
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? this.sessions.get(id) : undefined;
    if (!transport) {
      if (typeof id === 'string') {
        res.writeHead(404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void this.sessions.set(sid, created),
        eventStore: new InMemoryEventStore(),
        retryInterval: RETRY_MS,
      });
      await testServer((sid) => this.sessions.delete(sid)).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }
}

const RETRY_MS = 300;
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/** Tools that make the server do to the client what the scenarios will: ask, hang, drop the stream, end the session. */
function testServer(expire: (sessionId: string) => void): McpServer {
  const server = new McpServer({ name: 'client-fixture-test-server', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes', inputSchema: { message: z.string() } }, async ({ message }) => text(message));
  server.registerTool('ask', { description: 'Asks the client everything it declared' }, async (extra) => {
    const related = { relatedRequestId: extra.requestId };
    await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);
    await server.server.listRoots(undefined, related);
    await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 }, related);
    const requestedSchema = {
      type: 'object' as const,
      properties: { name: { type: 'string' as const }, count: { type: 'integer' as const, default: 3 }, color: { type: 'string' as const, enum: ['red', 'blue'] } },
      required: ['name', 'color'],
    };
    await server.server.elicitInput({ mode: 'form', message: 'Who?', requestedSchema }, related);
    await server.server.elicitInput({ mode: 'url', message: 'Open', url: 'https://example.com/consent', elicitationId: 'e-1' }, related);
    return text('asked');
  });
  server.registerTool('hang', { description: 'Answers only when cancelled' }, (extra) => new Promise((resolve) => extra.signal.addEventListener('abort', () => resolve(text('cancelled')))));
  server.registerTool('change', { description: 'Says the tool list changed' }, async (extra) => {
    await extra.sendNotification({ method: 'notifications/tools/list_changed' });
    return text('changed');
  });
  server.registerTool('drop', { description: 'Drops its SSE stream, then answers' }, async (extra) => {
    extra.closeSSEStream?.();
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS + 200));
    return text('after the drop');
  });
  server.registerTool('expire', { description: 'Ends the session right after answering' }, async (extra) => {
    setTimeout(() => expire(extra.sessionId ?? ''), 50);
    return text('expiring');
  });
  return server;
}

let server: RecordingServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcpcheck-client-fixture-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withServer<T>(body: (s: RecordingServer) => Promise<T>): Promise<T> {
  server = new RecordingServer();
  await server.listen();
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

/** The resuming GETs (the SDK's event ids start with their stream's id; the listening stream's is _GET_stream) and the POST they resume. */
function resumption(s: RecordingServer): { resumed: Seen[]; call: Seen | undefined } {
  return {
    resumed: s.seen.filter((x) => x.method === 'GET' && typeof x.headers['last-event-id'] === 'string' && !String(x.headers['last-event-id']).startsWith('_GET_stream')),
    call: s.seen.find((x) => (x.body as { method?: string } | undefined)?.method === 'tools/call'),
  };
}

/** What the client wrote to its stdio server, through tee-server. */
function teeLog(name: string): { command: string; entries: () => Array<{ line?: string; event?: string; signal?: string }> } {
  const log = join(dir, `${name}.jsonl`);
  return {
    command: `${process.execPath} ${TEE} ${log} ${SDK_SERVER}`,
    entries: () =>
      readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { line?: string; event?: string; signal?: string }),
  };
}

describe.each([
  ['the client fixture', FIXTURE],
  ['the SDK example client', EXAMPLE],
])('%s', (_name, script) => {
  it('completes the steps over Streamable HTTP and ends its session with DELETE', async () => {
    await withServer(async (s) => {
      const r = await run(script, [s.url]);
      expect(r.code, r.stderr).toBe(0);
      const methods = s.posted().map((m) => m.method);
      expect(methods.slice(0, 2)).toEqual(['initialize', 'notifications/initialized']);
      expect(methods).toContain('tools/list');
      expect(methods).toContain('tools/call');
      const last = s.seen[s.seen.length - 1];
      expect(last?.method).toBe('DELETE');
      expect(last?.headers['mcp-session-id']).toBe(s.seen[1]?.headers['mcp-session-id']);
      for (const post of s.seen.filter((x) => x.method === 'POST')) expect(post.headers.accept).toMatch(/application\/json.*text\/event-stream|text\/event-stream.*application\/json/);
      for (const later of s.seen.slice(1)) expect(later.headers['mcp-protocol-version']).toBe('2025-11-25');
    });
  });

  it('completes the steps over stdio and closes the server\'s stdin to end', async () => {
    const tee = teeLog(`ok-${script === FIXTURE ? 'fixture' : 'example'}`);
    // The command line as separate words, as `{stdio}` may reach it (the break tests pass one string).
    const r = await run(script, tee.command.split(' '));
    expect(r.code, r.stderr).toBe(0);
    const entries = tee.entries();
    const methods = entries.filter((e) => e.line !== undefined).map((e) => (JSON.parse(e.line ?? '{}') as { method?: string }).method);
    expect(methods).toEqual(expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']));
    expect(entries[entries.length - 1]).toEqual({ event: 'stdin-closed' });
  });

  it('answers ping, roots/list, sampling and both elicitation modes as the contract says', async () => {
    await withServer(async (s) => {
      const r = await run(script, [s.url], { MCPCHECK_STEPS: '[{"do":"call-tool","name":"ask"}]' });
      expect(r.code, r.stderr).toBe(0);
      const results = s.posted().filter((m) => 'result' in m || 'error' in m).map((m) => m.result);
      expect(results).toHaveLength(5);
      const [ping, roots, sampled, form, url] = results as Array<Record<string, unknown>>;
      expect(ping).toEqual({});
      expect((roots?.roots as Array<{ uri: string }>)[0]?.uri).toMatch(/^file:\/\//);
      expect(sampled).toMatchObject({ role: 'assistant', content: { type: 'text' }, model: expect.any(String) });
      expect(form).toEqual({ action: 'accept', content: { name: expect.any(String), count: 3, color: 'red' } });
      expect(url).toEqual({ action: 'accept' });
    });
  });

  it('cancels a call that outlives its timeoutMs, and lists tools again on list_changed', async () => {
    await withServer(async (s) => {
      const steps = [{ do: 'call-tool', name: 'hang', timeoutMs: 300 }, { do: 'call-tool', name: 'change' }, { do: 'wait', ms: 300 }];
      const r = await run(script, [s.url], { MCPCHECK_STEPS: JSON.stringify(steps) });
      expect(r.code, r.stderr).toBe(0);
      const posted = s.posted();
      const hang = posted.find((m) => m.method === 'tools/call' && (m.params as { name?: string }).name === 'hang');
      expect(posted).toContainEqual(expect.objectContaining({ method: 'notifications/cancelled', params: expect.objectContaining({ requestId: hang?.id }) }));
      expect(posted.filter((m) => m.method === 'tools/list').length).toBeGreaterThanOrEqual(1);
    });
  });

  it('resumes a dropped SSE stream with GET and Last-Event-ID after retry, without POSTing the call again', async () => {
    await withServer(async (s) => {
      const r = await run(script, [s.url], { MCPCHECK_STEPS: '[{"do":"call-tool","name":"drop","timeoutMs":5000}]' });
      expect(r.code, r.stderr).toBe(0);
      const { resumed, call } = resumption(s);
      expect(resumed).toHaveLength(1);
      expect(s.posted().filter((m) => m.method === 'tools/call')).toHaveLength(1);
      expect((resumed[0]?.at ?? 0) - (call?.at ?? 0)).toBeGreaterThanOrEqual(RETRY_MS);
    });
  });

  it('exits 1 promptly when the server cannot be reached', async () => {
    const closed = await withServer(async (s) => s.url);
    const started = Date.now();
    const r = await run(script, [closed]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/lost the server/);
    // On its own, well before the run's 45 s limit: a loaded machine once took 6.5 s over the
    // start and exit of a process that takes 0.3 s idle, so the bound leaves room for that.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('the client fixture over HTTP', () => {
  it('starts a new session after a 404 for its session and goes on', async () => {
    await withServer(async (s) => {
      const r = await run(FIXTURE, [s.url], { MCPCHECK_STEPS: '[{"do":"call-tool","name":"expire"},{"do":"wait","ms":100},{"do":"list-tools"}]' });
      expect(r.code, r.stderr).toBe(0);
      const inits = s.seen.filter((x) => x.method === 'POST' && (x.body as { method?: string }).method === 'initialize');
      expect(inits).toHaveLength(2);
      expect(inits[1]?.headers['mcp-session-id']).toBeUndefined();
      expect(s.posted().at(-1)).toMatchObject({ method: 'tools/list' });
    });
  });
});

describe('the client fixture reads tool schemas', () => {
  it('refuses, before sending it, a call whose arguments do not fit the listed inputSchema, and goes on', async () => {
    await withServer(async (s) => {
      const steps = [{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { message: 5 } }, { do: 'call-tool', name: 'echo', arguments: { message: 'fits' } }];
      const r = await run(FIXTURE, [s.url], { MCPCHECK_STEPS: JSON.stringify(steps) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/not calling echo: the arguments do not fit its inputSchema/);
      const calls = s.posted().filter((m) => m.method === 'tools/call');
      expect(calls.map((m) => m.params)).toEqual([{ name: 'echo', arguments: { message: 'fits' } }]);
    });
  });
});

describe('the client fixture\'s breaks', () => {
  it('has at least 20, each naming one client-bound rule of the catalog', async () => {
    const out = await new Promise<string>((done) => execFile(process.execPath, [FIXTURE, '--list-breaks'], (_e, stdout) => done(stdout)));
    const { breaks } = JSON.parse(out) as { breaks: Array<{ name: string; requirement: string }> };
    expect(breaks.length).toBeGreaterThanOrEqual(20);
    for (const b of breaks) {
      const rule = findRequirement(b.requirement);
      expect(rule && bindsRole(rule, 'client'), `${b.name} → ${b.requirement}`).toBe(true);
    }
    expect(new Set(breaks.map((b) => b.name)).size).toBe(breaks.length);
  });

  it('accept-json-only: POSTs accept application/json only', async () => {
    await withServer(async (s) => {
      await run(FIXTURE, ['--break', 'accept-json-only', s.url]);
      expect(s.seen[0]?.headers.accept).toBe('application/json');
    });
  });

  it('null-id: a ping with "id": null right after the handshake, the real requests untouched', async () => {
    await withServer(async (s) => {
      await run(FIXTURE, ['--break', 'null-id', s.url], { MCPCHECK_STEPS: '[{"do":"list-tools"}]' });
      expect(s.posted().find((m) => m.method === 'ping')).toHaveProperty('id', null);
      expect(s.posted().find((m) => m.method === 'tools/list')?.id).toEqual(expect.any(Number));
    });
  });

  it('no-delete: the session is left without DELETE', async () => {
    await withServer(async (s) => {
      const r = await run(FIXTURE, [s.url], { MCPCHECK_FIXTURE_BREAK: 'no-delete' });
      expect(r.code, r.stderr).toBe(0);
      expect(s.seen.map((x) => x.method)).not.toContain('DELETE');
    });
  });

  it('disconnects (exit 1) when the server chooses a version it does not support', async () => {
    // unsupported-version asks for 2024-01-01, which this reference variant echoes.
    const reference = `${process.execPath} ${join(ROOT, 'dist/tests/fixtures/reference/server.js')} --break echoes-any-version`;
    const r = await run(FIXTURE, ['--break', 'unsupported-version', reference], { MCPCHECK_STEPS: '[{"do":"list-tools"}]' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/chose protocol version 2024-01-01, which this client does not support/);
  });

  it('ignores-retry: the dropped stream is resumed at once, not after retry', async () => {
    await withServer(async (s) => {
      await run(FIXTURE, ['--break', 'ignores-retry', s.url], { MCPCHECK_STEPS: '[{"do":"call-tool","name":"drop","timeoutMs":5000}]' });
      const { resumed, call } = resumption(s);
      expect(resumed.length).toBeGreaterThanOrEqual(1);
      expect((resumed[0]?.at ?? Infinity) - (call?.at ?? 0)).toBeLessThan(RETRY_MS);
    });
  });

  it('stdin-noise: a line that is not JSON goes to the server\'s stdin', async () => {
    const tee = teeLog('stdin-noise');
    await run(FIXTURE, ['--break', 'stdin-noise', tee.command]);
    expect(tee.entries()).toContainEqual({ line: 'hello from the client' });
  });

  it('sigterm-without-closing-stdin: the server gets SIGTERM with its stdin still open', async () => {
    const tee = teeLog('sigterm');
    const r = await run(FIXTURE, ['--break', 'sigterm-without-closing-stdin', tee.command]);
    expect(r.code, r.stderr).toBe(0);
    const events = tee.entries().filter((e) => e.event !== undefined);
    expect(events[0]).toEqual({ event: 'signal', signal: 'SIGTERM' });
  });

  it('a stdio-only break leaves an HTTP session correct (batch acts in the transport-neutral session)', async () => {
    await withServer(async (s) => {
      const r = await run(FIXTURE, ['--break', 'batch', s.url], { MCPCHECK_STEPS: '[{"do":"list-tools"}]' });
      expect(r.code, r.stderr).toBe(0);
      expect(s.posted().some((m) => Array.isArray(m))).toBe(false);
      expect(s.posted().map((m) => m.method)).toContain('tools/list');
    });
  });

  it('batch: over stdio a ping goes as a one-element array right after the handshake', async () => {
    const tee = teeLog('batch');
    await run(FIXTURE, ['--break', 'batch', tee.command], { MCPCHECK_STEPS: '[{"do":"call-tool","name":"echo","arguments":{"message":"x"},"timeoutMs":300}]' });
    const lines = tee.entries().flatMap((e) => (e.line === undefined ? [] : [JSON.parse(e.line) as unknown]));
    expect(lines).toContainEqual([expect.objectContaining({ method: 'ping' })]);
    expect(lines).toContainEqual(expect.objectContaining({ method: 'tools/call' }));
  });
});
