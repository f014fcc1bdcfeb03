/**
 * Tests of the hand-written reference MCP server (tests/fixtures/reference). They run the compiled
 * server, so `npm run build` (tsc) must have produced dist/tests/fixtures/reference/server.js.
 */
import { sleep, waitExit, waitUntil } from './waits.js';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import AjvDraft07Module from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { BREAKS } from './fixtures/reference/breaks.js';
import { encode, INVALID_BYTE_MARKER } from './fixtures/reference/jsonrpc.js';
import { isProtectedBreak, PROTECTED_TOKEN } from './server-helpers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = join(ROOT, 'dist/tests/fixtures/reference/server.js');
const WAIT_MS = 5_000;
/** A server process's start: a ceiling, not a measure — a full test run on two cores has taken over 5 s to start one. */
const START_MS = 30_000;
/** Default wait; shortened while checking that the correct server does NOT show a break. */
let defaultWait = WAIT_MS;

// ---------------------------------------------------------------------------------------------
// JSON Schema validation against the official MCP schemas.

type AnyJson = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type ValidateFn = ((data: unknown) => boolean) & { errors?: unknown };
interface AjvLike {
  addSchema(schema: object, key: string): unknown;
  getSchema(ref: string): ValidateFn | undefined;
}
type AjvCtor = new (opts: object) => AjvLike;
const interop = <T>(m: unknown): T => ((m as { default?: T }).default ?? (m as T));
const Ajv2020 = interop<AjvCtor>(Ajv2020Module);
const AjvDraft07 = interop<AjvCtor>(AjvDraft07Module);
const addFormats = interop<(ajv: AjvLike) => void>(addFormatsModule);

const validators = new Map<string, AjvLike>();
function schemaFor(version: string): AjvLike {
  let ajv = validators.get(version);
  if (ajv === undefined) {
    const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/mcp', `${version}.json`), 'utf8')) as object;
    ajv = version >= '2025-11-25' ? new Ajv2020({ strict: false, allErrors: true }) : new AjvDraft07({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(schema, 'mcp');
    validators.set(version, ajv);
  }
  return ajv;
}
function expectValid(version: string, def: string, value: unknown): void {
  const ajv = schemaFor(version);
  const where = version >= '2025-11-25' ? '$defs' : 'definitions';
  const validate = ajv.getSchema(`mcp#/${where}/${def}`);
  if (validate === undefined) throw new Error(`no definition ${def} in ${version}`);
  const ok = validate(value);
  if (!ok) throw new Error(`${def} (${version}) invalid: ${JSON.stringify(validate.errors)}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`);
}

// ---------------------------------------------------------------------------------------------
// Process bookkeeping: everything spawned is killed after each test.

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  children.clear();
});

function startProcess(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env, MCPCHECK_BREAK: env.MCPCHECK_BREAK ?? '' } });
  children.add(child);
  child.stdin?.on('error', () => undefined);
  return child;
}


// ---------------------------------------------------------------------------------------------
// stdio peer

const decoder = new TextDecoder('utf-8');

class StdioPeer {
  readonly messages: AnyJson[] = [];
  readonly nonJsonLines: string[] = [];
  readonly rawChunks: Buffer[] = [];
  stderr = '';
  private buf = Buffer.alloc(0);
  private partial = '';
  private nextId = 1;

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => this.onData(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      if (this.stderr.length < 100_000) this.stderr += chunk.toString('utf8');
    });
  }

  static start(brk?: string): StdioPeer {
    return new StdioPeer(startProcess(brk === undefined ? [] : ['--break', brk]));
  }

  private onData(chunk: Buffer): void {
    this.rawChunks.push(chunk);
    this.buf = Buffer.concat([this.buf, chunk]);
    for (;;) {
      const nl = this.buf.indexOf(0x0a);
      if (nl === -1) break;
      const line = decoder.decode(this.buf.subarray(0, nl));
      this.buf = this.buf.subarray(nl + 1);
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === 'object' && v !== null) {
        this.messages.push(v);
        this.partial = '';
        return;
      }
    } catch {
      /* not a complete JSON value on its own */
    }
    this.nonJsonLines.push(line);
    // Reassemble multi-line (pretty-printed) messages so such variants stay drivable.
    if (this.partial === '') {
      if (/^[[{]/.test(line)) this.partial = line;
      return;
    }
    this.partial = `${this.partial}\n${line}`;
    try {
      this.messages.push(JSON.parse(this.partial));
      this.partial = '';
    } catch {
      /* incomplete */
    }
  }

  sendRaw(text: string | Buffer): void {
    this.child.stdin?.write(text);
  }

  send(msg: unknown): void {
    this.sendRaw(`${JSON.stringify(msg)}\n`);
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Sends a request and returns its id (use `response(id)` to await the answer). */
  start(method: string, params?: unknown, extra: Record<string, unknown> = {}): number {
    const id = this.nextId++;
    this.send(params === undefined ? { jsonrpc: '2.0', id, method, ...extra } : { jsonrpc: '2.0', id, method, params, ...extra });
    return id;
  }

  response(id: unknown, ms = defaultWait): Promise<AnyJson> {
    return waitUntil(() => this.messages.find((m) => m.id === id && ('result' in m || 'error' in m)), ms, `response ${String(id)}`);
  }

  async request(method: string, params?: unknown): Promise<AnyJson> {
    return this.response(this.start(method, params));
  }

  async result(method: string, params?: unknown): Promise<AnyJson> {
    const resp = await this.request(method, params);
    if (!('result' in resp)) throw new Error(`${method} failed: ${JSON.stringify(resp)}`);
    return resp.result;
  }

  /** Waits for the next message (after index `from`) matching `pred`. */
  waitFor(pred: (m: AnyJson) => boolean, ms = defaultWait, from = 0): Promise<AnyJson> {
    return waitUntil(() => this.messages.slice(from).find(pred), ms, 'matching message');
  }

  async initialize(version = '2025-11-25'): Promise<AnyJson> {
    const result = await this.result('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'vitest', version: '0.0.0' } });
    this.notify('notifications/initialized');
    return result;
  }

  closeStdin(): void {
    this.child.stdin?.end();
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP peer (node:http for full control over headers and streaming bodies)

interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

class SseReader {
  readonly events: SseEvent[] = [];
  ended = false;
  private text = '';
  constructor(readonly res: IncomingMessage) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.text += chunk;
      for (;;) {
        const m = /\r?\n\r?\n/.exec(this.text);
        if (m === null) break;
        const block = this.text.slice(0, m.index);
        this.text = this.text.slice(m.index + m[0].length);
        const ev: SseEvent = { data: '' };
        const data: string[] = [];
        for (const line of block.split(/\r?\n/)) {
          if (line.startsWith(':')) continue;
          const idx = line.indexOf(':');
          const field = idx === -1 ? line : line.slice(0, idx);
          let value = idx === -1 ? '' : line.slice(idx + 1);
          if (value.startsWith(' ')) value = value.slice(1);
          if (field === 'id') ev.id = value;
          else if (field === 'event') ev.event = value;
          else if (field === 'data') data.push(value);
        }
        ev.data = data.join('\n');
        this.events.push(ev);
      }
    });
    res.on('end', () => {
      this.ended = true;
    });
    res.on('close', () => {
      this.ended = true;
    });
  }
  messages(): AnyJson[] {
    return this.events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data));
  }
  waitFor(pred: (m: AnyJson) => boolean, ms = defaultWait): Promise<AnyJson> {
    return waitUntil(() => this.messages().find(pred), ms, 'SSE message');
  }
  waitEnd(ms = defaultWait): Promise<true> {
    return waitUntil(() => (this.ended ? true : undefined), ms, 'end of SSE stream');
  }
}

interface HttpReply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  json?: AnyJson;
  sse?: SseReader;
}

class HttpPeer {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  initializedAck: HttpReply | undefined;
  private nextId = 1;
  private readonly open = new Set<IncomingMessage>();

  constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(brk?: string, env: Record<string, string> = {}, flags: string[] = []): Promise<HttpPeer> {
    const child = startProcess(['--http', '--port', '0', ...flags, ...(brk === undefined ? [] : ['--break', brk])], env);
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
    });
    const line = await waitUntil(() => (out.includes('\n') ? out.slice(0, out.indexOf('\n')) : undefined), START_MS, 'listening line');
    const m = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(line);
    if (m === null || m[1] === undefined) throw new Error(`unexpected first stdout line: ${line}`);
    return new HttpPeer(child, m[1]);
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  baseHeaders(): OutgoingHttpHeaders {
    const h: OutgoingHttpHeaders = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    if (this.sessionId !== undefined) h['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== undefined) h['mcp-protocol-version'] = this.protocolVersion;
    return h;
  }

  /** One HTTP exchange. JSON bodies are read fully; SSE bodies are returned as a live reader. */
  raw(method: string, body: string | Buffer | undefined, headers: OutgoingHttpHeaders, path = '/mcp'): Promise<HttpReply> {
    const target = new URL(path, this.url);
    return new Promise((resolve, reject) => {
      const req = httpRequest(target, { method, headers, agent: false, timeout: WAIT_MS }, (res) => {
        const type = String(res.headers['content-type'] ?? '');
        if (type.startsWith('text/event-stream')) {
          this.open.add(res);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '', sse: new SseReader(res) });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: AnyJson;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('HTTP request timed out')));
      req.on('error', reject);
      req.end(body);
    });
  }

  post(msg: unknown, headers: OutgoingHttpHeaders = {}): Promise<HttpReply> {
    return this.raw('POST', typeof msg === 'string' ? msg : JSON.stringify(msg), { ...this.baseHeaders(), ...headers });
  }

  get(headers: OutgoingHttpHeaders = {}): Promise<HttpReply> {
    const h = this.baseHeaders();
    delete h['content-type'];
    h.accept = 'text/event-stream';
    return this.raw('GET', undefined, { ...h, ...headers });
  }

  /** Sends a request; returns the JSON-RPC response (from a JSON body or an SSE stream). */
  async request(method: string, params?: unknown): Promise<{ reply: HttpReply; response: AnyJson }> {
    const id = this.nextId++;
    const reply = await this.post(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    if (reply.sse !== undefined) {
      const response = await reply.sse.waitFor((m) => m.id === id && ('result' in m || 'error' in m));
      return { reply, response };
    }
    return { reply, response: reply.json };
  }

  async result(method: string, params?: unknown): Promise<AnyJson> {
    const { response } = await this.request(method, params);
    if (response === undefined || !('result' in response)) throw new Error(`${method} failed: ${JSON.stringify(response)}`);
    return response.result;
  }

  newId(): number {
    return this.nextId++;
  }

  async initialize(version = '2025-11-25'): Promise<AnyJson> {
    const reply = await this.post({
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'vitest', version: '0.0.0' } },
    });
    expect(reply.status).toBe(200);
    const sid = reply.headers['mcp-session-id'];
    expect(typeof sid).toBe('string');
    this.sessionId = sid as string;
    this.protocolVersion = reply.json.result.protocolVersion as string;
    this.initializedAck = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply.json.result;
  }

  closeStreams(): void {
    for (const r of this.open) r.destroy();
    this.open.clear();
  }
}

const httpPeers = new Set<HttpPeer>();
afterEach(() => {
  for (const p of httpPeers) p.closeStreams();
  httpPeers.clear();
});
async function startHttp(brk?: string, env: Record<string, string> = {}, flags: string[] = []): Promise<HttpPeer> {
  const p = await HttpPeer.start(brk, env, flags);
  httpPeers.add(p);
  return p;
}

// ---------------------------------------------------------------------------------------------

beforeAll(() => {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npm run build\` (tsc -p tsconfig.json) first`);
});

describe('invalid-utf8-output', () => {
  it('puts a 0xFF byte where the marker is in its InitializeResult, keeping the line JSON, and nowhere else', () => {
    const initialize = { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'r', version: '1' }, instructions: `a${INVALID_BYTE_MARKER}b` } };
    const bytes = encode(initialize, 'invalid-utf8-output');
    expect(bytes.includes(0xff)).toBe(true);
    expect(() => JSON.parse(new TextDecoder('utf-8', { fatal: false }).decode(bytes))).not.toThrow();
    // A tool echoing generated text that holds the marker answers in valid UTF-8: the variant breaks
    // BASE-MSG-02 once, not TOOL-OUT-03 by chance.
    const echoed = { echo: `a${INVALID_BYTE_MARKER}b` };
    const echo = encode({ jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: JSON.stringify(echoed) }], structuredContent: echoed } }, 'invalid-utf8-output');
    expect(echo.includes(0xff)).toBe(false);
  });
});

describe('break table', () => {
  it('has unique names, known requirement ids and at least 30 entries', () => {
    const ids = new Set(
      (JSON.parse(readFileSync(join(ROOT, 'src/spec/requirements.json'), 'utf8')) as { requirements: Array<{ id: string }> }).requirements.map((r) => r.id),
    );
    const names = BREAKS.map((b) => b.name);
    expect(new Set(names).size).toBe(names.length);
    expect(BREAKS.length).toBeGreaterThanOrEqual(30);
    for (const b of BREAKS) {
      expect(ids.has(b.requirement), `${b.name}: ${b.requirement}`).toBe(true);
      expect(['stdio', 'http', 'both']).toContain(b.transport);
      expect(b.description.length).toBeGreaterThan(10);
    }
  });

  it('rejects an unknown break name and lists the breaks', async () => {
    const bad = startProcess(['--break', 'no-such-break']);
    expect(await waitExit(bad, WAIT_MS)).toBe(2);
    const list = startProcess(['--list-breaks']);
    let out = '';
    list.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    expect(await waitExit(list, WAIT_MS)).toBe(0);
    const parsed = await waitUntil(() => {
      try {
        return JSON.parse(out) as unknown[];
      } catch {
        return undefined;
      }
    }, defaultWait);
    expect(parsed.length).toBe(BREAKS.length);
  });
});

describe('reference server over stdio', () => {
  it('handles the lifecycle, tools, resources, prompts, logging and completion', async () => {
    const peer = StdioPeer.start();
    // Before initialize: only ping.
    expect((await peer.request('ping')).result).toEqual({});
    const early = await peer.request('tools/list');
    expect(early.error.code).toBe(-32600);

    const init = await peer.initialize();
    expectValid('2025-11-25', 'InitializeResult', init);
    expect(init.protocolVersion).toBe('2025-11-25');
    expect(init.capabilities).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
      tasks: { cancel: {}, requests: { tools: { call: {} } } },
    });
    expect(init.serverInfo).toMatchObject({ name: 'mcpcheck-reference', version: '1.0.0' });
    expect(init.serverInfo.icons.map((i: AnyJson) => String(i.src).split(':')[0])).toEqual(['https', 'data']);
    expect(typeof init.instructions).toBe('string');

    // Second initialize is refused, the session keeps working.
    const again = await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    expect(again.error.code).toBe(-32600);

    // tools/list pages of 3 with opaque cursors.
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await peer.result('tools/list', cursor === undefined ? {} : { cursor });
      expectValid('2025-11-25', 'ListToolsResult', page);
      expect(page.tools.length).toBeLessThanOrEqual(3);
      names.push(...page.tools.map((t: AnyJson) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 10);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(names).toEqual(['echo', 'add', 'slow', 'batch_job', 'log', 'write_note', 'legacy_lookup', 'get_status', 'ask_llm', 'list_roots', 'clarify']);
    expect((await peer.request('tools/list', { cursor: 'mcpcheck-invalid-cursor' })).error.code).toBe(-32602);

    const echo = await peer.result('tools/call', { name: 'echo', arguments: { message: 'hello' } });
    expectValid('2025-11-25', 'CallToolResult', echo);
    expect(echo.structuredContent).toEqual({ echo: 'hello' });
    expect(JSON.parse(echo.content[0].text)).toEqual({ echo: 'hello' });
    const sum = await peer.result('tools/call', { name: 'add', arguments: { a: 2, b: 3.5 } });
    expect(sum.structuredContent).toEqual({ sum: 5.5 });
    const badArgs = await peer.result('tools/call', { name: 'echo', arguments: { message: 42 } });
    expect(badArgs.isError).toBe(true);
    expect((await peer.request('tools/call', { name: 'mcpcheck_no_such_tool', arguments: {} })).error.code).toBe(-32602);
    expect((await peer.request('tools/call', { arguments: {} })).error.code).toBe(-32602);
    expect((await peer.result('tools/call', { name: 'legacy_lookup', arguments: { key: 'beta' } })).content[0].text).toBe('second');

    // Resources.
    const res1 = await peer.result('resources/list');
    expectValid('2025-11-25', 'ListResourcesResult', res1);
    expect(res1.resources).toHaveLength(2);
    const res2 = await peer.result('resources/list', { cursor: res1.nextCursor });
    expect(res2.resources).toHaveLength(2);
    expect(res2.nextCursor).toBeUndefined();
    const note = await peer.result('resources/read', { uri: 'mcpcheck-ref://notes/1' });
    expectValid('2025-11-25', 'ReadResourceResult', note);
    expect(note.contents[0].text).toContain('note 1');
    const pixel = await peer.result('resources/read', { uri: 'mcpcheck-ref://images/pixel.png' });
    const png = Buffer.from(pixel.contents[0].blob, 'base64');
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(png.toString('base64')).toBe(pixel.contents[0].blob);
    const missing = await peer.request('resources/read', { uri: 'mcpcheck://does-not-exist/x' });
    expect(missing.error.code).toBe(-32002);
    expect(missing.error.data).toEqual({ uri: 'mcpcheck://does-not-exist/x' });
    const templates = await peer.result('resources/templates/list');
    expectValid('2025-11-25', 'ListResourceTemplatesResult', templates);
    expect(templates.resourceTemplates[0].uriTemplate).toBe('mcpcheck-ref://notes/{id}');

    // Subscriptions: updated only for subscribed URIs.
    expect(await peer.result('resources/subscribe', { uri: 'mcpcheck-ref://notes/1' })).toEqual({});
    let mark = peer.messages.length;
    await peer.result('tools/call', { name: 'write_note', arguments: { id: '1', text: 'changed' } });
    await peer.waitFor((m) => m.method === 'notifications/resources/updated' && m.params.uri === 'mcpcheck-ref://notes/1', WAIT_MS, mark);
    mark = peer.messages.length;
    await peer.result('tools/call', { name: 'write_note', arguments: { id: '2', text: 'not subscribed' } });
    await peer.result('ping');
    expect(peer.messages.slice(mark).some((m) => m.method === 'notifications/resources/updated')).toBe(false);
    await peer.result('tools/call', { name: 'write_note', arguments: { id: 'new', text: 'brand new' } });
    await peer.waitFor((m) => m.method === 'notifications/resources/list_changed', WAIT_MS, mark);
    expect(await peer.result('resources/unsubscribe', { uri: 'mcpcheck-ref://notes/1' })).toEqual({});

    // Prompts.
    const prompts = await peer.result('prompts/list');
    expectValid('2025-11-25', 'ListPromptsResult', prompts);
    expect(prompts.prompts.map((p: AnyJson) => p.name)).toEqual(['greet', 'summarize_notes']);
    const greet = await peer.result('prompts/get', { name: 'greet', arguments: { name: 'Ada', style: 'formal' } });
    expectValid('2025-11-25', 'GetPromptResult', greet);
    expect(greet.messages[0].content.text).toContain('Ada');
    const summary = await peer.result('prompts/get', { name: 'summarize_notes' });
    expectValid('2025-11-25', 'GetPromptResult', summary);
    expect((await peer.request('prompts/get', { name: 'mcpcheck_no_such_prompt' })).error.code).toBe(-32602);
    expect((await peer.request('prompts/get', { name: 'greet', arguments: {} })).error.code).toBe(-32602);

    // Completion.
    const comp = await peer.result('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: '' } });
    expectValid('2025-11-25', 'CompleteResult', comp);
    expect(comp.completion.values.length).toBe(100);
    expect(comp.completion).toMatchObject({ total: 150, hasMore: true });
    const ids = await peer.result('completion/complete', { ref: { type: 'ref/resource', uri: 'mcpcheck-ref://notes/{id}' }, argument: { name: 'id', value: '' } });
    expect(ids.completion.values).toEqual(['1', '2', 'new']);
    expect((await peer.request('completion/complete', { ref: { type: 'ref/prompt', name: 'mcpcheck_no_such_prompt' }, argument: { name: 'x', value: '' } })).error.code).toBe(-32602);

    // Logging.
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']) {
      expect(await peer.result('logging/setLevel', { level })).toEqual({});
    }
    expect((await peer.request('logging/setLevel', { level: 'verbose' })).error.code).toBe(-32602);
    await peer.result('logging/setLevel', { level: 'error' });
    mark = peer.messages.length;
    const logResult = await peer.result('tools/call', { name: 'log', arguments: { message: 'hi' } });
    expect(logResult.content[0].text).toContain('Emitted 4');
    const levels = peer.messages.slice(mark).filter((m) => m.method === 'notifications/message').map((m) => m.params.level);
    expect(levels).toEqual(['error', 'critical', 'alert', 'emergency']);

    // Everything the server wrote is a valid JSON-RPC message, one per line.
    expect(peer.nonJsonLines).toEqual([]);
    for (const m of peer.messages) expectValid('2025-11-25', 'JSONRPCMessage', m);
  });

  it('sends increasing progress and honours cancellation', async () => {
    const peer = StdioPeer.start();
    await peer.initialize();
    const id = peer.start('tools/call', { name: 'slow', arguments: { steps: 4, delayMs: 30 }, _meta: { progressToken: 'tok-1' } });
    const done = await peer.response(id);
    expect(done.result.content[0].text).toContain('Completed 4 steps');
    const progress = peer.messages.filter((m) => m.method === 'notifications/progress' && m.params.progressToken === 'tok-1');
    expect(progress.map((m) => m.params.progress)).toEqual([1, 2, 3, 4]);
    expect(progress.every((m) => m.params.total === 4)).toBe(true);
    expect(peer.messages.indexOf(progress[3])).toBeLessThan(peer.messages.indexOf(done));

    const cid = peer.start('tools/call', { name: 'slow', arguments: { steps: 20, delayMs: 50 }, _meta: { progressToken: 99 } });
    await peer.waitFor((m) => m.method === 'notifications/progress' && m.params.progressToken === 99);
    peer.notify('notifications/cancelled', { requestId: cid, reason: 'test' });
    await peer.result('ping');
    const count = peer.messages.filter((m) => m.params?.progressToken === 99).length;
    await sleep(400);
    expect(peer.messages.some((m) => m.id === cid)).toBe(false);
    expect(peer.messages.filter((m) => m.params?.progressToken === 99).length).toBe(count);
    // Invalid cancellations are ignored silently.
    const before = peer.messages.length;
    peer.notify('notifications/cancelled', { requestId: {} });
    peer.notify('notifications/cancelled');
    peer.notify('notifications/cancelled', { requestId: 12345 });
    expect((await peer.request('ping')).result).toEqual({});
    expect(peer.messages.length).toBe(before + 1);
  });

  it('survives hostile input and keeps answering ping', async () => {
    const peer = StdioPeer.start();
    await peer.initialize();
    let mark = peer.messages.length;
    const noId = async (): Promise<AnyJson> => {
      const m = await peer.waitFor((x) => 'error' in x && !('id' in x), WAIT_MS, mark);
      mark = peer.messages.indexOf(m) + 1;
      return m;
    };
    peer.sendRaw('{bad json\n');
    expect((await noId()).error.code).toBe(-32700);
    peer.sendRaw(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    expect((await noId()).error.code).toBe(-32700);
    peer.send({ jsonrpc: '2.0', id: null, method: 'ping' });
    expect((await noId()).error.code).toBe(-32600);
    peer.send([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }]);
    expect((await noId()).error.code).toBe(-32600);
    peer.send({ jsonrpc: '1.0', id: 'v1', method: 'ping' });
    expect((await peer.response('v1')).error.code).toBe(-32600);
    peer.send({ jsonrpc: '2.0', id: 1.5, method: 'ping' });
    expect((await noId()).error.code).toBe(-32600);
    peer.send({ jsonrpc: '2.0', id: 'm1', method: 42 });
    expect((await peer.response('m1')).error.code).toBe(-32600);
    peer.send('just a string');
    expect((await noId()).error.code).toBe(-32600);
    expect((await peer.request('mcpcheck/nope')).error.code).toBe(-32601);
    expect((await peer.request('tools/call', 5)).error.code).toBe(-32602);
    expect((await peer.request('resources/read', { uri: ['x'] })).error.code).toBe(-32602);
    expect((await peer.request('completion/complete', { ref: 'x', argument: null })).error.code).toBe(-32602);
    expect((await peer.request('logging/setLevel', { level: { deep: true } })).error.code).toBe(-32602);
    const wrong = await peer.result('tools/call', { name: 'slow', arguments: { steps: 'many' } });
    expect(wrong.isError).toBe(true);

    // Notifications are never answered, known or unknown.
    const before = peer.messages.length;
    peer.notify('notifications/mcpcheck_unknown', { x: 1 });
    peer.notify('notifications/progress', { progressToken: 'nope', progress: 1 });
    peer.notify('notifications/roots/list_changed');
    expect((await peer.request('ping')).result).toEqual({});
    expect(peer.messages.length).toBe(before + 1);

    // 10,000-deep nesting and a 10 MB string.
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    peer.sendRaw(`{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"x":${deep}}}\n`);
    expect((await peer.response('deep')).result).toEqual({});
    const deepObj = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    peer.sendRaw(`{"jsonrpc":"2.0","id":"deep2","method":"tools/call","params":{"name":"echo","arguments":{"message":${deepObj}}}}\n`);
    expect((await peer.response('deep2')).result.isError).toBe(true);
    peer.sendRaw(`${deep}\n`);
    expect((await noId()).error.code).toBe(-32600);
    const big = 'x'.repeat(10 * 1024 * 1024);
    peer.sendRaw(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"echo","arguments":{"message":"${big}"}}}\n`);
    expect((await peer.response('big', 15_000)).result.isError).toBe(true);
    expect((await peer.request('ping')).result).toEqual({});
    expect(peer.child.exitCode).toBeNull();
  });

  it('negotiates older versions and stays valid against their schemas', async () => {
    for (const version of ['2025-06-18', '2025-03-26', '2024-11-05']) {
      const peer = StdioPeer.start();
      const init = await peer.initialize(version);
      expect(init.protocolVersion).toBe(version);
      expectValid(version, 'InitializeResult', init);
      const tools = await peer.result('tools/list');
      expectValid(version, 'ListToolsResult', tools);
      expectValid(version, 'CallToolResult', await peer.result('tools/call', { name: 'echo', arguments: { message: 'x' } }));
      expectValid(version, 'CallToolResult', await peer.result('tools/call', { name: 'write_note', arguments: { id: '9', text: 'y' } }));
      expectValid(version, 'ListResourcesResult', await peer.result('resources/list'));
      expectValid(version, 'ReadResourceResult', await peer.result('resources/read', { uri: 'mcpcheck-ref://images/pixel.png' }));
      expectValid(version, 'GetPromptResult', await peer.result('prompts/get', { name: 'summarize_notes' }));
      if (version !== '2024-11-05') expect(tools.tools[0].annotations.readOnlyHint).toBe(true);
      if (version < '2025-06-18') expect(tools.tools[0].outputSchema).toBeUndefined();
      peer.closeStdin();
      expect(await waitExit(peer.child, WAIT_MS)).toBe(0);
    }
    // Unsupported version: answered with the newest one.
    const peer = StdioPeer.start();
    expect((await peer.initialize('1999-01-01')).protocolVersion).toBe('2025-11-25');
  });

  it('exits promptly when stdin closes', async () => {
    const peer = StdioPeer.start();
    await peer.initialize();
    peer.start('tools/call', { name: 'slow', arguments: { steps: 100, delayMs: 1000 } });
    peer.closeStdin();
    expect(await waitExit(peer.child, WAIT_MS)).toBe(0);
  });
});

describe('reference server over Streamable HTTP', () => {
  it('serves a session with JSON and SSE answers', async () => {
    const peer = await startHttp();
    // No session yet: requests are refused.
    const noSession = await peer.post({ jsonrpc: '2.0', id: 0, method: 'tools/list' });
    expect(noSession.status).toBe(400);

    const init = await peer.initialize();
    expectValid('2025-11-25', 'InitializeResult', init);
    expect(peer.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(peer.initializedAck?.status).toBe(202);
    expect(peer.initializedAck?.body).toBe('');

    const { reply, response } = await peer.request('tools/list');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(response.result.tools).toHaveLength(3);
    const page2 = await peer.result('tools/list', { cursor: response.result.nextCursor });
    expect(page2.tools.map((t: AnyJson) => t.name)).toEqual(['batch_job', 'log', 'write_note']);

    expect((await peer.result('tools/call', { name: 'echo', arguments: { message: 'over http' } })).structuredContent).toEqual({ echo: 'over http' });
    expect((await peer.result('resources/read', { uri: 'mcpcheck-ref://notes/2' })).contents[0].mimeType).toBe('text/plain');
    expect((await peer.result('prompts/get', { name: 'greet', arguments: { name: 'Grace' } })).messages).toHaveLength(1);
    expect(await peer.result('logging/setLevel', { level: 'warning' })).toEqual({});

    // log answers with SSE: priming event first, then log notifications, then the response.
    const logCall = await peer.request('tools/call', { name: 'log', arguments: {} });
    expect(logCall.reply.headers['content-type']).toMatch(/^text\/event-stream/);
    const sse = logCall.reply.sse!;
    await sse.waitEnd();
    expect(sse.events[0]).toMatchObject({ data: '' });
    expect(sse.events[0]?.id).toBeTruthy();
    const msgs = sse.messages();
    expect(msgs.filter((m) => m.method === 'notifications/message').map((m) => m.params.level)).toEqual(['warning', 'error', 'critical', 'alert', 'emergency']);
    expect(msgs[msgs.length - 1].id).toBe(logCall.response.id);
    const eventIds = sse.events.map((e) => e.id);
    expect(new Set(eventIds).size).toBe(eventIds.length);

    // Notifications and responses: 202, empty body.
    const n = await peer.post({ jsonrpc: '2.0', method: 'notifications/mcpcheck_unknown' });
    expect(n.status).toBe(202);
    expect(n.body).toBe('');
    const r = await peer.post({ jsonrpc: '2.0', id: 'srv-1', result: {} });
    expect(r.status).toBe(202);
  });

  it('streams progress and honours cancellation over SSE', async () => {
    const peer = await startHttp();
    await peer.initialize();
    const { reply, response } = await peer.request('tools/call', { name: 'slow', arguments: { steps: 3, delayMs: 20 }, _meta: { progressToken: 'h1' } });
    expect(reply.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(response.result.content[0].text).toContain('Completed 3 steps');
    expect(reply.sse!.messages().filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress)).toEqual([1, 2, 3]);

    const id = peer.newId();
    const call = await peer.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { steps: 50, delayMs: 50 }, _meta: { progressToken: 'h2' } } });
    const sse = call.sse!;
    await sse.waitFor((m) => m.method === 'notifications/progress');
    const cancel = await peer.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    expect(cancel.status).toBe(202);
    await sse.waitEnd();
    expect(sse.messages().some((m) => m.id === id)).toBe(false);
    expect((await peer.result('ping'))).toEqual({});
  });

  it('enforces sessions, headers, origin and methods', async () => {
    const peer = await startHttp();
    await peer.initialize();
    const ping = { jsonrpc: '2.0', id: 'p', method: 'ping' };

    expect((await peer.post(ping)).status).toBe(200);
    expect((await peer.post(ping, { 'mcp-session-id': 'mcpcheck-00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    const noSid = peer.baseHeaders();
    delete noSid['mcp-session-id'];
    expect((await peer.raw('POST', JSON.stringify(ping), noSid)).status).toBe(400);
    expect((await peer.post(ping, { 'mcp-protocol-version': '1999-01-01' })).status).toBe(400);
    expect((await peer.post(ping, { 'mcp-protocol-version': 'garbage' })).status).toBe(400);
    expect((await peer.post(ping, { 'mcp-protocol-version': '2025-06-18' })).status).toBe(200);

    const evil = await peer.post(ping, { origin: 'http://mcpcheck-evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.json.error.code).toBeTypeOf('number');
    expect('id' in evil.json).toBe(false);
    expect((await peer.post(ping, { origin: 'null' })).status).toBe(403);
    expect((await peer.post(ping, { origin: `http://127.0.0.1:${peer.port}` })).status).toBe(200);
    expect((await peer.post(ping, { origin: `http://localhost:${peer.port}` })).status).toBe(200);

    expect((await peer.post(ping, { accept: 'application/json' })).status).toBe(406);
    expect((await peer.post(ping, { accept: '*/*' })).status).toBe(406);
    expect((await peer.post(ping, { 'content-type': 'text/plain' })).status).toBe(415);
    const bad = await peer.post('{bad json');
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe(-32700);
    const batch = await peer.post([ping]);
    expect(batch.status).toBe(400);
    expect(batch.json.error.code).toBe(-32600);
    const invalidNotif = await peer.post({ jsonrpc: '2.0', method: 42 });
    expect(invalidNotif.status).toBe(400);
    expect('id' in invalidNotif.json).toBe(false);

    expect((await peer.raw('POST', JSON.stringify(ping), peer.baseHeaders(), '/other')).status).toBe(404);
    expect((await peer.raw('PUT', JSON.stringify(ping), peer.baseHeaders())).status).toBe(405);

    // GET stream: SSE, carries resources/updated for subscriptions, never responses.
    const get = await peer.get();
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toMatch(/^text\/event-stream/);
    await peer.result('resources/subscribe', { uri: 'mcpcheck-ref://notes/1' });
    await peer.result('tools/call', { name: 'write_note', arguments: { id: '1', text: 'updated' } });
    await get.sse!.waitFor((m) => m.method === 'notifications/resources/updated' && m.params.uri === 'mcpcheck-ref://notes/1');
    expect(get.sse!.messages().some((m) => 'id' in m)).toBe(false);
    expect((await peer.get({ origin: 'http://mcpcheck-evil.example' })).status).toBe(403);

    // DELETE ends the session.
    const del = await peer.raw('DELETE', undefined, { 'mcp-session-id': peer.sessionId });
    expect(del.status).toBe(200);
    await get.sse!.waitEnd();
    expect((await peer.post(ping)).status).toBe(404);
  });

  it('resumes a dropped SSE stream with Last-Event-ID, polling while the stream is unfinished', async () => {
    const peer = await startHttp();
    await peer.initialize();
    const id = peer.newId();
    const call = await peer.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { steps: 6, delayMs: 60 }, _meta: { progressToken: 'r' } } });
    const first = await call.sse!.waitFor((m) => m.method === 'notifications/progress');
    const lastId = call.sse!.events.filter((e) => e.data !== '').at(-1)?.id;
    expect(first.params.progress).toBe(1);
    call.sse!.res.destroy();
    // Each reconnection replays what is new since its Last-Event-ID; an unfinished stream then closes (after a retry field).
    const progress: number[] = [];
    let last = lastId;
    let response: AnyJson | undefined;
    let polls = 0;
    while (response === undefined && polls++ < 20) {
      const resumed = await peer.get({ 'last-event-id': last });
      expect(resumed.status).toBe(200);
      await resumed.sse!.waitEnd();
      const messages = resumed.sse!.messages();
      progress.push(...messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress as number));
      response = messages.find((m) => m.id === id);
      last = resumed.sse!.events.filter((e) => e.id !== undefined).at(-1)?.id ?? last;
      if (response === undefined) await new Promise((r) => setTimeout(r, 200));
    }
    expect(response?.result.content[0].text).toContain('Completed 6 steps');
    expect(polls).toBeGreaterThan(1);
    // Every later step exactly once, in order: nothing at or before a Last-Event-ID comes again.
    expect(progress).toEqual([2, 3, 4, 5, 6]);
  });

  it('closes everything and exits on SIGTERM', async () => {
    const peer = await startHttp();
    await peer.initialize();
    const get = await peer.get();
    expect(get.status).toBe(200);
    peer.child.kill('SIGTERM');
    expect(await waitExit(peer.child, WAIT_MS)).toBe(0);
    await get.sse!.waitEnd();
  });
});

/** The break's check must fail against the correct server (waits shortened meanwhile). */
async function expectNoBreak(check: () => Promise<void>): Promise<void> {
  defaultWait = 1_500;
  try {
    await expect(check()).rejects.toThrow();
  } finally {
    defaultWait = WAIT_MS;
  }
}

describe('the protected reference server (--auth)', () => {
  it('admits its token only, challenges without one, and serves its resource and authorization server metadata', async () => {
    const peer = await startHttp(undefined, { MCPCHECK_REFERENCE_TOKEN: PROTECTED_TOKEN }, ['--auth']);
    try {
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'vitest', version: '0' } } };
      const bare = await peer.post(init);
      expect(bare.status).toBe(401);
      const prmUrl = `http://127.0.0.1:${peer.port}/.well-known/oauth-protected-resource/mcp`;
      expect(bare.headers['www-authenticate']).toBe(`Bearer resource_metadata="${prmUrl}", scope="mcp:tools mcp:resources"`);
      expect((await peer.post(init, { authorization: 'Bearer not-the-token' })).headers['www-authenticate']).toContain('error="invalid_token"');
      expect((await peer.post(init, { authorization: 'Basic dXNlcjpwYXNz' })).status).toBe(400);
      expect((await peer.post(init, { authorization: `Bearer ${PROTECTED_TOKEN}` })).status).toBe(200);
      const prm = await peer.raw('GET', undefined, {}, '/.well-known/oauth-protected-resource/mcp');
      expect(prm.json).toMatchObject({ resource: peer.url, authorization_servers: [`http://127.0.0.1:${peer.port}`] });
      const as = await peer.raw('GET', undefined, {}, '/.well-known/oauth-authorization-server');
      expect(as.json).toMatchObject({ issuer: `http://127.0.0.1:${peer.port}`, code_challenge_methods_supported: ['S256'] });
    } finally {
      peer.child.kill('SIGKILL');
    }
  });

  it('refuses to start protected without a token to admit', async () => {
    const child = startProcess(['--http', '--auth']);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
  });
});

describe('deliberate breaks', () => {
  const startsAndInitializes = async (b: (typeof BREAKS)[number]): Promise<void> => {
    if (b.transport === 'http') {
      // The authorization breaks (and task isolation's) are of a protected server: it serves the request that bears its token.
      const auth = isProtectedBreak(b.name);
      const peer = await startHttp(b.name, auth ? { MCPCHECK_REFERENCE_TOKEN: PROTECTED_TOKEN } : {});
      const init = await peer.post(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'vitest', version: '0' } },
        },
        auth ? { authorization: `Bearer ${PROTECTED_TOKEN}` } : {},
      );
      expect(init.status, b.name).toBe(200);
      expect(init.json.result.protocolVersion, b.name).toBe('2025-11-25');
      peer.child.kill('SIGKILL');
    } else {
      const peer = StdioPeer.start(b.name);
      // The first answer waits for the process to start as well.
      const init = await peer.response(peer.start('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'vitest', version: '0' } }), START_MS);
      expect('result' in init, b.name).toBe(true);
      peer.child.kill('SIGKILL');
    }
  };

  // Some 140 processes started: a ceiling of 3 minutes, as a full test run on two cores shares them (it once went past 60 s).
  it('every break starts and still initializes (stdio or HTTP)', async () => {
    // Four at a time: each mostly waits for a process to start.
    const queue = [...BREAKS];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let b = queue.shift(); b !== undefined; b = queue.shift()) await startsAndInitializes(b);
      }),
    );
  }, 180_000);

  it('MCPCHECK_BREAK selects a break like --break', async () => {
    const peer = new StdioPeer(startProcess([], { MCPCHECK_BREAK: 'ping-not-empty' }));
    await peer.initialize();
    expect(await peer.result('ping')).toEqual({ pong: true });
  });

  const stdioCases: Array<[string, (p: StdioPeer) => Promise<void>]> = [
    [
      'null-id-executed',
      async (p) => {
        p.send({ jsonrpc: '2.0', id: null, method: 'ping' });
        const m = await p.waitFor((x) => 'result' in x || 'error' in x);
        expect(m.result).toEqual({});
        expect(m.id).toBeNull();
      },
    ],
    [
      'parse-error-code',
      async (p) => {
        p.sendRaw('{bad\n');
        expect((await p.waitFor((x) => 'error' in x)).error.code).toBe(-32603);
      },
    ],
    [
      'error-without-id',
      async (p) => {
        p.start('mcpcheck/nope');
        const m = await p.waitFor((x) => 'error' in x);
        expect('id' in m).toBe(false);
      },
    ],
    [
      'batch-executed',
      async (p) => {
        p.sendRaw(`${JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', id: 'b', method: 'ping' }])}\n`);
        await waitUntil(() => (p.messages.some((m) => Array.isArray(m)) ? true : undefined), defaultWait);
        expect(p.messages.find((m) => Array.isArray(m))).toHaveLength(2);
      },
    ],
    ['ping-not-empty', async (p) => expect(await p.result('ping')).toEqual({ pong: true })],
    [
      'version-not-echoed',
      async (p) => {
        expect((await p.result('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'v', version: '1' } })).protocolVersion).toBe('2025-11-25');
      },
    ],
    [
      'requests-before-init',
      async (p) => {
        expect((await p.result('tools/list')).tools).toHaveLength(3);
      },
    ],
    [
      'stdout-banner',
      async (p) => {
        await p.result('ping');
        expect(p.nonJsonLines[0]).toMatch(/reference server/);
      },
    ],
    [
      'pretty-printed',
      async (p) => {
        await p.result('ping');
        expect(p.nonJsonLines.length).toBeGreaterThan(1);
      },
    ],
    [
      'ignores-stdin-close',
      async (p) => {
        p.closeStdin();
        expect(await waitExit(p.child, 1500)).toBe('timeout');
      },
    ],
    [
      'crash-on-deep-nesting',
      async (p) => {
        p.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${'['.repeat(1500)}${']'.repeat(1500)}}}\n`);
        expect(await waitExit(p.child, defaultWait)).toBe(70);
      },
    ],
    [
      'invalid-utf8-output',
      async (p) => {
        await p.initialize();
        expect(Buffer.concat(p.rawChunks).includes(0xff)).toBe(true);
      },
    ],
  ];
  const initializedCases: Array<[string, (p: StdioPeer) => Promise<void>]> = [
    [
      'unknown-tool-succeeds',
      async (p) => {
        expect((await p.request('tools/call', { name: 'mcpcheck_no_such_tool', arguments: {} })).result).toBeDefined();
      },
    ],
    [
      'structured-content-mismatch',
      async (p) => {
        expect((await p.result('tools/call', { name: 'echo', arguments: { message: 'x' } })).structuredContent).toEqual({ echoed: 'x' });
      },
    ],
    [
      'invalid-cursor-accepted',
      async (p) => {
        expect((await p.request('tools/list', { cursor: 'mcpcheck-invalid-cursor' })).result.tools).toHaveLength(3);
      },
    ],
    [
      'cursor-loop',
      async (p) => {
        let cursor: string | undefined;
        for (let i = 0; i < 4; i++) {
          const page = await p.result('tools/list', cursor === undefined ? {} : { cursor });
          cursor = page.nextCursor;
        }
        expect(cursor).toBeDefined();
        const again = await p.result('tools/list', { cursor });
        expect(again.tools[0].name).toBe('echo');
      },
    ],
    [
      'too-many-completions',
      async (p) => {
        const r = await p.result('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: '' } });
        expect(r.completion.values.length).toBe(150);
      },
    ],
    [
      'log-level-ignored',
      async (p) => {
        await p.result('logging/setLevel', { level: 'emergency' });
        const mark = p.messages.length;
        await p.result('tools/call', { name: 'log', arguments: {} });
        expect(p.messages.slice(mark).filter((m) => m.method === 'notifications/message')).toHaveLength(8);
      },
    ],
    [
      'resource-missing-code',
      async (p) => {
        expect((await p.request('resources/read', { uri: 'mcpcheck://does-not-exist/x' })).error.code).toBe(-32603);
      },
    ],
    [
      'bad-blob',
      async (p) => {
        const blob: string = (await p.result('resources/read', { uri: 'mcpcheck-ref://images/pixel.png' })).contents[0].blob;
        expect(Buffer.from(blob, 'base64').toString('base64')).not.toBe(blob);
      },
    ],
    [
      'progress-not-increasing',
      async (p) => {
        await p.result('tools/call', { name: 'slow', arguments: { steps: 3, delayMs: 10 }, _meta: { progressToken: 't' } });
        expect(p.messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress)).toEqual([3, 2, 1]);
      },
    ],
    [
      'cancel-ignored',
      async (p) => {
        const id = p.start('tools/call', { name: 'slow', arguments: { steps: 3, delayMs: 100 }, _meta: { progressToken: 'c' } });
        await p.waitFor((m) => m.method === 'notifications/progress');
        p.notify('notifications/cancelled', { requestId: id });
        expect((await p.response(id)).result).toBeDefined();
      },
    ],
    [
      'answers-notifications',
      async (p) => {
        p.notify('notifications/mcpcheck_unknown');
        expect((await p.waitFor((m) => 'error' in m)).error.code).toBe(-32601);
      },
    ],
    [
      'notification-with-id',
      async (p) => {
        await p.result('tools/call', { name: 'log', arguments: {} });
        expect(p.messages.filter((m) => m.method === 'notifications/message').every((m) => 'id' in m)).toBe(true);
      },
    ],
    [
      'responds-twice',
      async (p) => {
        const id = p.start('ping');
        await waitUntil(() => (p.messages.filter((m) => m.id === id).length === 2 ? true : undefined), defaultWait);
      },
    ],
  ];

  for (const [name, check] of stdioCases) {
    it(`stdio break ${name} changes behaviour (and the correct server does not)`, async () => {
      await check(StdioPeer.start(name));
      await expectNoBreak(() => check(StdioPeer.start()));
    });
  }
  for (const [name, check] of initializedCases) {
    it(`stdio break ${name} changes behaviour after initialize (and the correct server does not)`, async () => {
      const broken = StdioPeer.start(name);
      await broken.initialize();
      await check(broken);
      const good = StdioPeer.start();
      await good.initialize();
      await expectNoBreak(() => check(good));
    });
  }

  const httpCases: Array<[string, (p: HttpPeer) => Promise<void>]> = [
    ['http-get-404', async (p) => expect((await p.get()).status).toBe(404)],
    ['http-origin-ignored', async (p) => expect((await p.post({ jsonrpc: '2.0', id: 9, method: 'ping' }, { origin: 'http://mcpcheck-evil.example' })).status).toBe(200)],
    ['http-origin-400', async (p) => expect((await p.post({ jsonrpc: '2.0', id: 9, method: 'ping' }, { origin: 'http://mcpcheck-evil.example' })).status).toBe(400)],
    ['http-accept-ignored', async (p) => expect((await p.post({ jsonrpc: '2.0', id: 9, method: 'ping' }, { accept: 'application/json' })).status).toBe(200)],
    ['http-content-type-ignored', async (p) => expect((await p.post({ jsonrpc: '2.0', id: 9, method: 'ping' }, { 'content-type': 'text/plain' })).status).toBe(200)],
    [
      'http-no-session-required',
      async (p) => {
        const h = p.baseHeaders();
        delete h['mcp-session-id'];
        expect((await p.raw('POST', JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }), h)).status).toBe(200);
      },
    ],
    ['http-unknown-session-accepted', async (p) => expect((await p.post({ jsonrpc: '2.0', id: 9, method: 'ping' }, { 'mcp-session-id': 'mcpcheck-unknown' })).status).toBe(200)],
    ['http-bad-version-header-accepted', async (p) => expect((await p.post({ jsonrpc: '2.0', id: 9, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' })).status).toBe(200)],
    [
      'http-notification-200',
      async (p) => {
        const r = await p.post({ jsonrpc: '2.0', method: 'notifications/mcpcheck_unknown' });
        expect(r.status).toBe(200);
        expect(r.body).not.toBe('');
      },
    ],
    ['http-wrong-content-type', async (p) => expect((await p.request('ping')).reply.headers['content-type']).toMatch(/^text\/plain/)],
    [
      'http-no-priming-event',
      async (p) => {
        const { reply } = await p.request('tools/call', { name: 'log', arguments: {} });
        await reply.sse!.waitEnd();
        expect(reply.sse!.events[0]?.data).not.toBe('');
      },
    ],
    [
      'http-duplicate-event-ids',
      async (p) => {
        const { reply } = await p.request('tools/call', { name: 'log', arguments: {} });
        await reply.sse!.waitEnd();
        const ids = reply.sse!.events.map((e) => e.id);
        expect(new Set(ids).size).toBeLessThan(ids.length);
      },
    ],
    ['http-sequential-session-id', async (p) => expect(p.sessionId).toBe('1')],
    ['http-session-id-invalid-chars', async (p) => expect(p.sessionId).toMatch(/ /)],
    ['http-short-session-id', async (p) => expect(p.sessionId).toMatch(/^[0-9a-f]{10}$/)],
  ];
  for (const [name, check] of httpCases) {
    it(`HTTP break ${name} changes behaviour (and the correct server does not)`, async () => {
      const broken = await startHttp(name);
      await broken.initialize();
      await check(broken);
      const good = await startHttp();
      await good.initialize();
      await expectNoBreak(() => check(good));
    });
  }
});
