/**
 * Tests of the hand-written 2026-07-28 reference server (tests/fixtures/reference-2026), driven with
 * raw JSON-RPC over stdio and Streamable HTTP by the small client below (not mcpcheck's harness).
 * Every frame of the correct server is validated against schemas/mcp/2026-07-28.json for its
 * definition; every break gets a focused probe showing it. They run the compiled server, so
 * `npm run build` (tsc) must have produced dist/tests/fixtures/reference-2026/server.js.
 */
import { validateTasksExtension } from '../src/validate/ext-tasks-schema.js';
import { sleep, waitExit, waitUntil } from './waits.js';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { BREAKS } from './fixtures/reference-2026/breaks.js';
import type { BreakName } from './fixtures/reference-2026/breaks.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = join(ROOT, 'dist/tests/fixtures/reference-2026/server.js');
const WAIT_MS = 5_000;
/** What a wait allows by default; shortened while probes run against the correct server, where they must fail. */
let defaultWait = WAIT_MS;

/** Polls until `probe` yields a value, within the test's current wait. */
function until<T>(probe: () => T | undefined, what: string, ms = defaultWait): Promise<T> {
  return waitUntil(probe, ms, what);
}
const VERSION = '2026-07-28';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const SUB_ID = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

type AnyJson = any; // eslint-disable-line @typescript-eslint/no-explicit-any

// ---------------------------------------------------------------------------------------------
// Schema validation (JSON Schema 2020-12, definitions under $defs).

type ValidateFn = ((data: unknown) => boolean) & { errors?: unknown };
interface AjvLike {
  addSchema(schema: object, key: string): unknown;
  getSchema(ref: string): ValidateFn | undefined;
}
const interop = <T>(m: unknown): T => ((m as { default?: T }).default ?? (m as T));
const Ajv2020 = interop<new (opts: object) => AjvLike>(Ajv2020Module);
const addFormats = interop<(ajv: AjvLike) => void>(addFormatsModule);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(JSON.parse(readFileSync(join(ROOT, 'schemas/mcp/2026-07-28.json'), 'utf8')) as object, 'mcp');

function expectValid(def: string, value: unknown): void {
  const validate = ajv.getSchema(`mcp#/$defs/${def}`);
  if (validate === undefined) throw new Error(`no definition ${def}`);
  if (!validate(value)) throw new Error(`${def} invalid: ${JSON.stringify(validate.errors)}\nvalue: ${JSON.stringify(value).slice(0, 1500)}`);
}

/** A value of a definition of the tasks extension's own schema (schemas/ext-tasks). */
function expectTaskValid(def: string, value: unknown): void {
  const errors = validateTasksExtension(def, value);
  if (errors) throw new Error(`${def} invalid (tasks extension): ${JSON.stringify(errors)}\nvalue: ${JSON.stringify(value).slice(0, 1500)}`);
}

/** The results of the tasks extension's requests, in its schema. */
const TASK_RESULT_DEFS: Record<string, string> = { 'tasks/get': 'GetTaskResult', 'tasks/update': 'UpdateTaskResult', 'tasks/cancel': 'CancelTaskResult' };

const RESULT_DEFS: Record<string, string> = {
  'server/discover': 'DiscoverResultResponse',
  'tools/list': 'ListToolsResultResponse',
  'tools/call': 'CallToolResultResponse',
  'prompts/list': 'ListPromptsResultResponse',
  'prompts/get': 'GetPromptResultResponse',
  'resources/list': 'ListResourcesResultResponse',
  'resources/templates/list': 'ListResourceTemplatesResultResponse',
  'resources/read': 'ReadResourceResultResponse',
  'completion/complete': 'CompleteResultResponse',
  'subscriptions/listen': 'SubscriptionsListenResultResponse',
};
/** Errors the schema defines as whole messages. */
const ERROR_MESSAGE_DEFS: Record<number, string> = {
  [-32020]: 'HeaderMismatchError',
  [-32021]: 'MissingRequiredClientCapabilityError',
  [-32022]: 'UnsupportedProtocolVersionError',
};
/** Errors the schema defines as the `error` member only. */
const ERROR_OBJECT_DEFS: Record<number, string> = {
  [-32601]: 'MethodNotFoundError',
  [-32602]: 'InvalidParamsError',
  [-32600]: 'InvalidRequestError',
  [-32700]: 'ParseError',
  [-32603]: 'InternalError',
};

/** Validates one frame the server sent; `method` is that of the request a response answers. */
function expectFrameValid(frame: AnyJson, method: string | undefined): void {
  expectValid('JSONRPCMessage', frame);
  expect('result' in frame && 'error' in frame).toBe(false);
  if ('method' in frame) {
    expect('id' in frame, `the server sent a request: ${JSON.stringify(frame)}`).toBe(false);
    // The extension's notification is in its own schema, not the core one.
    if (frame.method === 'notifications/tasks') return expectTaskValid('TaskStatusNotification', frame);
    return expectValid('ServerNotification', frame);
  }
  if ('error' in frame) {
    expectValid('JSONRPCErrorResponse', frame);
    const code = frame.error.code as number;
    const def = ERROR_MESSAGE_DEFS[code] ?? ERROR_OBJECT_DEFS[code];
    expect(def, `an error code the schema does not define: ${code}`).toBeDefined();
    return expectValid(def ?? '', ERROR_MESSAGE_DEFS[code] === undefined ? frame.error : frame);
  }
  expect(typeof frame.result.resultType).toBe('string');
  if (method !== 'subscriptions/listen') expect(frame.result._meta?.[SERVER_INFO]).toMatchObject({ name: expect.any(String), version: expect.any(String) });
  if (frame.result.resultType === 'input_required') {
    expect(['tools/call', 'prompts/get', 'resources/read']).toContain(method);
    expectValid('InputRequiredResult', frame.result);
    expect(frame.result.inputRequests !== undefined || frame.result.requestState !== undefined).toBe(true);
    expect(frame.result.ttlMs).toBeUndefined();
    for (const req of Object.values(frame.result.inputRequests ?? {})) expectValid('InputRequest', req);
    return;
  }
  if (frame.result.resultType === 'task') {
    expect(method).toBe('tools/call');
    return expectTaskValid('CreateTaskResult', frame.result);
  }
  expect(frame.result.resultType).toBe('complete');
  if (method !== undefined && method in TASK_RESULT_DEFS) return expectTaskValid(TASK_RESULT_DEFS[method]!, frame.result);
  const def = method === undefined ? undefined : RESULT_DEFS[method];
  expect(def, `no definition for ${String(method)}`).toBeDefined();
  expectValid(def ?? '', frame);
}

function meta(caps: AnyJson = {}, extra: AnyJson = {}): AnyJson {
  return { [PV]: VERSION, [CAPS]: caps, 'io.modelcontextprotocol/clientInfo': { name: 'reference-2026-test', version: '1.0.0' }, ...extra };
}

function params(p: AnyJson = {}, caps: AnyJson = {}, extra: AnyJson = {}): AnyJson {
  return { ...p, _meta: meta(caps, extra) };
}

// ---------------------------------------------------------------------------------------------
// Processes: everything spawned is killed after each test (HTTP servers shared by a block, after it).

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
});

function spawnServer(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, MCPCHECK_BREAK: '', ...env } });
  child.stdin?.on('error', () => undefined);
  return child;
}


// ---------------------------------------------------------------------------------------------
// stdio client

class Stdio {
  readonly frames: AnyJson[] = [];
  readonly nonJson: string[] = [];
  /** The method of each request sent, by id, to validate its response. */
  readonly methods = new Map<unknown, string>();
  private buf = '';
  private nextId = 1;

  constructor(readonly child: ChildProcess) {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      this.buf += chunk;
      for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        try {
          this.frames.push(JSON.parse(line));
        } catch {
          this.nonJson.push(line);
        }
      }
    });
  }

  static start(brk?: BreakName, args: string[] = [], owner: Set<ChildProcess> = children): Stdio {
    const child = spawnServer(brk === undefined ? args : [...args, '--break', brk]);
    owner.add(child);
    return new Stdio(child);
  }

  send(msg: AnyJson): void {
    this.child.stdin?.write(`${JSON.stringify(msg)}\n`);
  }

  /** Sends a request (id chosen unless given) and returns its id. */
  begin(method: string, p?: AnyJson, id: unknown = this.nextId++): unknown {
    this.methods.set(id, method);
    this.send(p === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: p });
    return id;
  }

  response(id: unknown, ms = defaultWait): Promise<AnyJson> {
    return until(() => this.frames.find((f) => f.id === id && ('result' in f || 'error' in f)), `response ${String(id)}`, ms);
  }

  request(method: string, p?: AnyJson, id?: unknown): Promise<AnyJson> {
    return this.response(this.begin(method, p, id));
  }

  /** The result of a modern request (with `_meta` for the given capabilities). */
  async result(method: string, p: AnyJson = {}, caps: AnyJson = {}): Promise<AnyJson> {
    const resp = await this.request(method, params(p, caps));
    if (!('result' in resp)) throw new Error(`${method} failed: ${JSON.stringify(resp)}`);
    return resp.result;
  }

  async error(method: string, p: AnyJson = {}, caps: AnyJson = {}): Promise<AnyJson> {
    const resp = await this.request(method, params(p, caps));
    if (!('error' in resp)) throw new Error(`${method} did not fail: ${JSON.stringify(resp)}`);
    return resp.error;
  }

  notifications(method: string): AnyJson[] {
    return this.frames.filter((f) => f.method === method);
  }

  expectAllValid(): void {
    expect(this.nonJson).toEqual([]);
    for (const f of this.frames) expectFrameValid(f, 'id' in f ? this.methods.get(f.id) : undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP client

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  /** A JSON body, or the messages of an SSE body. */
  messages: AnyJson[];
  comments: number;
  text: string;
  /** Set once the response ended. */
  ended: boolean;
  close(): void;
}

function startHttp(brk?: BreakName, args: string[] = [], env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnServer(['--http', ...args, ...(brk === undefined ? [] : ['--break', brk])], env);
  return new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error('the HTTP server printed no URL')), WAIT_MS);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(t);
        resolve({ url: m[1], child });
      }
    });
  });
}

/** Sends one HTTP request; resolves when the headers came, the body keeps filling `messages`. */
function send(url: string, method: string, body: AnyJson | undefined, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const req = httpRequest(url, { method, headers: { ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) }), ...headers } }, (res: IncomingMessage) => {
      const reply: Reply = { status: res.statusCode ?? 0, headers: res.headers, messages: [], comments: 0, text: '', ended: false, close: () => req.destroy() };
      const sse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        reply.text += chunk;
        if (!sse) return;
        pending += chunk;
        for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
          const ev = pending.slice(0, end);
          pending = pending.slice(end + 2);
          for (const line of ev.split('\n')) {
            if (line.startsWith(':')) reply.comments++;
            else if (line.startsWith('data: ') && line.length > 6) reply.messages.push(JSON.parse(line.slice(6)));
          }
        }
      });
      res.on('end', () => {
        if (!sse && reply.text !== '') reply.messages.push(JSON.parse(reply.text));
        reply.ended = true;
      });
      res.on('error', () => undefined);
      resolve(reply);
    });
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    req.end(payload);
  });
}

const ACCEPT = 'application/json, text/event-stream';
const NAME_MEMBER: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** The standard headers of a modern request POST, matching its body. */
function standardHeaders(method: string, p: AnyJson): Record<string, string> {
  const h: Record<string, string> = { Accept: ACCEPT, 'MCP-Protocol-Version': String(p?._meta?.[PV] ?? VERSION), 'Mcp-Method': method };
  const member = NAME_MEMBER[method];
  if (member !== undefined) h['Mcp-Name'] = String(p[member]);
  return h;
}

let httpIds = 1;
/** Every POST of a modern request made with `post`, validated after each test of the correct server. */
const httpExchanges: Array<{ reply: Reply; method: string }> = [];

/** POSTs a modern request with matching headers (overridden or removed by `headers`; undefined removes) and waits for its end. */
async function post(url: string, method: string, p: AnyJson, headers: Record<string, string | undefined> = {}, id: unknown = httpIds++): Promise<Reply> {
  const merged: Record<string, string | undefined> = { ...standardHeaders(method, p), ...headers };
  const h = Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
  const reply = await send(url, 'POST', { jsonrpc: '2.0', id, method, params: p }, h);
  await until(() => (reply.ended ? true : undefined), `end of ${method}`);
  httpExchanges.push({ reply, method });
  return reply;
}

/** The one response of a finished POST, validated for its method. */
function single(reply: Reply, method: string): AnyJson {
  const resp = reply.messages.find((m) => 'result' in m || 'error' in m);
  expect(resp, `no response in ${reply.text}`).toBeDefined();
  for (const m of reply.messages) expectFrameValid(m, method);
  return resp;
}

// ---------------------------------------------------------------------------------------------
// MRTR helpers

const ELICIT = { elicitation: {} };

function nameAnswer(name: string): AnyJson {
  return { user_name: { action: 'accept', content: { name } } };
}

function tamper(state: string): string {
  const last = state.at(-1) === 'A' ? 'B' : 'A';
  return `${state.slice(0, -1)}${last}`;
}

// =============================================================================================

describe('reference-2026 server over stdio (correct)', () => {
  it('lists its breaks as data, each citing a 2026-07-28 catalog id with a description', () => {
    // The revision's catalog and the tasks extension's, which the reference server also serves.
    const catalogs = ['src/spec/requirements-2026-07-28.json', 'src/spec/requirements-ext-tasks-2026-07-28.json'].map((f) => JSON.parse(readFileSync(join(ROOT, f), 'utf8')) as { requirements: Array<{ id: string; binds: string }> });
    const binds = new Map(catalogs.flatMap((c) => c.requirements.map((r) => [r.id, r.binds] as const)));
    expect(BREAKS.length).toBeGreaterThanOrEqual(35);
    expect(new Set(BREAKS.map((b) => b.name)).size).toBe(BREAKS.length);
    for (const b of BREAKS) {
      // A server's break cites a 2026-07-28 rule that binds servers.
      expect(['server', 'both'], `${b.name}: ${b.requirement}`).toContain(binds.get(b.requirement));
      expect(b.description.length).toBeGreaterThan(20);
    }
  });

  it('prints its break table with --list-breaks and refuses an unknown break', async () => {
    const list = spawnServer(['--list-breaks']);
    children.add(list);
    let out = '';
    list.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    expect(await waitExit(list, WAIT_MS)).toBe(0);
    expect(JSON.parse(out)).toEqual(BREAKS);
    const bad = spawnServer(['--break', 'no-such-break']);
    children.add(bad);
    expect(await waitExit(bad, WAIT_MS)).toBe(2);
  });

  it('answers discover, the lists (paginated, one cacheScope), reads, completion and prompts with valid, cacheable results', async () => {
    const s = Stdio.start();
    const d = await s.result('server/discover');
    expect(d.supportedVersions).toEqual([VERSION]);
    expect(d.capabilities).toEqual({ tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {}, extensions: { [TASKS]: {} } });
    expect(d).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number), cacheScope: 'public' });
    const tools = await s.result('tools/list');
    expect(tools.tools.map((t: AnyJson) => t.name)).toEqual(['echo', 'greet', 'ask_llm', 'list_roots', 'slow', 'stats', 'log', 'forecast', 'mutate', 'report', 'confirm', 'quota']);
    expect(tools.ttlMs).toBeGreaterThanOrEqual(0);
    const uris: string[] = [];
    const scopes = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await s.result('resources/list', cursor === undefined ? {} : { cursor });
      pages++;
      scopes.add(page.cacheScope);
      uris.push(...page.resources.map((r: AnyJson) => r.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThan(1);
    expect([...scopes]).toEqual(['public']);
    for (const uri of uris) expect((await s.result('resources/read', { uri })).contents[0].uri).toBe(uri);
    expect(await s.error('resources/read', { uri: 'mcpcheck-2026://nonexistent' })).toMatchObject({ code: -32602, data: { uri: 'mcpcheck-2026://nonexistent' } });
    expect((await s.error('resources/list', { cursor: 'mcpcheck-nonexistent' })).code).toBe(-32602);
    expect((await s.result('resources/templates/list')).resourceTemplates[0].uriTemplate).toBe('mcpcheck-2026://notes/{name}');
    expect((await s.result('prompts/list')).prompts.map((p: AnyJson) => p.name)).toEqual(['code_review', 'personal_greeting']);
    expect((await s.result('prompts/get', { name: 'code_review', arguments: { language: 'go', code: 'x := 1' } })).messages).toHaveLength(1);
    expect((await s.error('prompts/get', { name: 'code_review', arguments: {} })).code).toBe(-32602);
    expect((await s.result('completion/complete', { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 'ty' } })).completion.values).toEqual(['typescript']);
    expect((await s.result('completion/complete', { ref: { type: 'ref/resource', uri: 'mcpcheck-2026://notes/{name}' }, argument: { name: 'name', value: 'b' } })).completion.values).toEqual(['beta']);
    expect((await s.result('tools/call', { name: 'echo', arguments: { text: 'hi' } })).content).toEqual([{ type: 'text', text: 'hi' }]);
    s.expectAllValid();
  });

  it('checks each request on its own _meta: missing fields −32602, unsupported version −32022, unknown logLevel −32602, legacy methods −32601', async () => {
    const s = Stdio.start();
    expect((await s.request('tools/list')).error.code).toBe(-32602);
    expect((await s.request('tools/list', { _meta: { [PV]: VERSION } })).error.code).toBe(-32602);
    expect((await s.request('tools/list', { _meta: { [CAPS]: {} } })).error.code).toBe(-32602);
    const unsupported = await s.request('server/discover', { _meta: { ...meta(), [PV]: '1999-01-01' } });
    expect(unsupported.error).toMatchObject({ code: -32022, data: { supported: [VERSION], requested: '1999-01-01' } });
    expect((await s.request('tools/call', params({ name: 'log', arguments: {} }, {}, { 'io.modelcontextprotocol/logLevel': 'verbose' }))).error.code).toBe(-32602);
    for (const m of ['ping', 'logging/setLevel', 'resources/subscribe', 'tasks/list', 'mcpcheck/nonexistent']) expect((await s.error(m)).code).toBe(-32601);
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const init = await s.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } });
    expect(init.error).toMatchObject({ code: -32022, data: { supported: [VERSION] } });
    // Context never carries over: a capability declared once is not assumed on the next request.
    expect((await s.result('tools/call', { name: 'ask_llm', arguments: { question: 'q' } }, { sampling: {} })).resultType).toBe('input_required');
    expect((await s.error('tools/call', { name: 'ask_llm', arguments: { question: 'q' } })).code).toBe(-32021);
    s.expectAllValid();
  });

  it('runs MRTR rounds: input_required with an HMAC requestState, a retry completes, missing answers ask again, tampered state fails, no capability −32021', async () => {
    const s = Stdio.start();
    const call = { name: 'greet', arguments: { greeting: 'Hi' } };
    expect(await s.error('tools/call', call)).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    const first = await s.result('tools/call', call, ELICIT);
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests.user_name).toMatchObject({ method: 'elicitation/create', params: { mode: 'form' } });
    expect(typeof first.requestState).toBe('string');
    const done = await s.result('tools/call', { ...call, inputResponses: nameAnswer('Ada'), requestState: first.requestState }, ELICIT);
    expect(done).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hi, Ada!' }] });
    const again = await s.result('tools/call', { ...call, inputResponses: {}, requestState: first.requestState }, ELICIT);
    expect(again.resultType).toBe('input_required');
    expect(again.inputRequests.user_name).toBeDefined();
    expect((await s.error('tools/call', { ...call, inputResponses: nameAnswer('Eve'), requestState: tamper(first.requestState) }, ELICIT)).code).toBe(-32602);
    // Malformed answers are protocol errors (MRTR-ERR-01); answers nobody asked for are ignored (MRTR-ERR-02).
    expect((await s.error('tools/call', { ...call, inputResponses: 5, requestState: first.requestState }, ELICIT)).code).toBe(-32602);
    expect((await s.error('tools/call', { ...call, inputResponses: { user_name: { action: 'maybe' } }, requestState: first.requestState }, ELICIT)).code).toBe(-32602);
    const extra = await s.result('tools/call', { ...call, inputResponses: { ...nameAnswer('Ada'), other: { action: 'maybe' } }, requestState: first.requestState }, ELICIT);
    expect(extra.content[0].text).toBe('Hi, Ada!');
    // State bound to its arguments: another call's state does not complete this one.
    expect((await s.error('tools/call', { name: 'greet', arguments: { greeting: 'Yo' }, inputResponses: nameAnswer('Eve'), requestState: first.requestState }, ELICIT)).code).toBe(-32602);
    // Only form elicitation is asked for: a client declaring only URL mode cannot give it.
    expect((await s.error('tools/call', call, { elicitation: { url: {} } })).code).toBe(-32021);

    const ask = { name: 'ask_llm', arguments: { question: 'Capital of France?' } };
    const sampling = await s.result('tools/call', ask, { sampling: {} });
    expect(sampling.inputRequests.answer.method).toBe('sampling/createMessage');
    const answered = await s.result('tools/call', { ...ask, requestState: sampling.requestState, inputResponses: { answer: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' } } }, { sampling: {} });
    expect(answered.content[0].text).toContain('Paris');

    const roots = await s.result('tools/call', { name: 'list_roots', arguments: {} }, { roots: {} });
    expect(roots.inputRequests.roots).toEqual({ method: 'roots/list' });
    const listed = await s.result('tools/call', { name: 'list_roots', arguments: {}, requestState: roots.requestState, inputResponses: { roots: { roots: [{ uri: 'file:///work', name: 'work' }] } } }, { roots: {} });
    expect(listed.content[0].text).toContain('file:///work');

    const prompt = await s.result('prompts/get', { name: 'personal_greeting' }, ELICIT);
    expect(prompt.resultType).toBe('input_required');
    const got = await s.result('prompts/get', { name: 'personal_greeting', requestState: prompt.requestState, inputResponses: nameAnswer('Grace') }, ELICIT);
    expect(got.messages[0].content.text).toContain('Grace');
    // MRTR fields where they do not belong are ignored (ROBUST-09).
    expect((await s.result('tools/list', { inputResponses: {}, requestState: 'x' })).tools.length).toBeGreaterThan(0);
    s.expectAllValid();
  });

  it('serves the tasks extension: handles only to a client that declared it (−32021 otherwise), tasks/get with each status\'s payload, input through tasks/update, a failed task, cancel, unknown ids −32602', async () => {
    const s = Stdio.start();
    expect((await s.error('tools/call', { name: 'report', arguments: {} })).data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) expect((await s.error(method, { taskId: 'nope', inputResponses: {} })).code, method).toBe(-32021);
    expect((await s.request('subscriptions/listen', params({ notifications: { taskIds: ['nope'] } }))).error.code).toBe(-32021);
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) expect((await s.error(method, { taskId: 'nope', inputResponses: {} }, WITH_TASKS)).code, method).toBe(-32602);

    const report = await startTask(s, 'report', { ms: 30 });
    expect(await s.result('tasks/get', { taskId: report }, WITH_TASKS)).toMatchObject({ resultType: 'complete', status: 'working', ttlMs: expect.any(Number), pollIntervalMs: expect.any(Number) });
    expect((await taskIn(s, report, 'completed')).result).toEqual({ content: [{ type: 'text', text: 'Report ready: 3 pages.' }], isError: false });

    const confirm = await startTask(s, 'confirm', { item: 'the order' });
    const asking = await taskIn(s, confirm, 'input_required');
    expect(asking.inputRequests.confirm.method).toBe('elicitation/create');
    // An answer to a key it did not ask is ignored; the one it asked moves it on.
    expect(await s.result('tasks/update', { taskId: confirm, inputResponses: { other: { action: 'accept' } } }, WITH_TASKS)).toMatchObject({ resultType: 'complete' });
    expect((await s.result('tasks/get', { taskId: confirm }, WITH_TASKS)).status).toBe('input_required');
    await s.result('tasks/update', { taskId: confirm, inputResponses: { confirm: { action: 'accept', content: { ok: true } } } }, WITH_TASKS);
    expect((await taskIn(s, confirm, 'completed')).result.content[0].text).toBe('Confirmation: accept');

    const quota = await taskIn(s, await startTask(s, 'quota'), 'failed');
    expect(quota).toMatchObject({ error: { code: -32603 }, statusMessage: expect.any(String) });

    const cancelled = await startTask(s, 'report', { ms: 5_000 });
    expect(await s.result('tasks/cancel', { taskId: cancelled }, WITH_TASKS)).toMatchObject({ resultType: 'complete' });
    await taskIn(s, cancelled, 'cancelled');
    expect((await s.result('tasks/get', { taskId: cancelled }, WITH_TASKS)).status).toBe('cancelled');

    // A listen for task ids agrees to the tasks it holds and carries their status, as tasks/get shows it.
    const watched = await startTask(s, 'report', { ms: 200 });
    s.begin('subscriptions/listen', params({ notifications: { taskIds: [watched, 'nope'] } }, WITH_TASKS), 'tasks-stream');
    const onStream = () => s.frames.filter((f) => f.params?._meta?.[SUB_ID] === 'tasks-stream');
    await until(() => onStream().find((f) => f.method === 'notifications/tasks' && f.params.status === 'completed'), 'the completed status on the stream');
    expect(onStream().map((f) => f.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tasks']);
    expect(onStream()[0].params.notifications).toEqual({ taskIds: [watched] });
    expect(onStream()[1].params).toMatchObject({ taskId: watched, status: 'completed', result: { isError: false } });
    s.expectAllValid();
  });

  it('serves subscriptions/listen: acknowledgement first with the honoured filter, the listen id on every message, only opted-in types, cancel ends one, shutdown answers the rest', async () => {
    const s = Stdio.start();
    s.begin('subscriptions/listen', params({ notifications: { toolsListChanged: true } }), 'tools-sub');
    s.begin('subscriptions/listen', params({ notifications: { resourceSubscriptions: ['mcpcheck-2026://counter'], promptsListChanged: false } }), 77);
    const acks = await until(() => {
      const a = s.notifications('notifications/subscriptions/acknowledged');
      return a.length === 2 ? a : undefined;
    }, 'two acknowledgements');
    const ackOf = (id: unknown): AnyJson => acks.find((a) => a.params._meta[SUB_ID] === id);
    expect(ackOf('tools-sub').params.notifications).toEqual({ toolsListChanged: true });
    expect(ackOf(77).params.notifications).toEqual({ resourceSubscriptions: ['mcpcheck-2026://counter'] });
    await s.result('tools/call', { name: 'mutate', arguments: {} });
    const onTools = s.frames.filter((f) => f.params?._meta?.[SUB_ID] === 'tools-sub').map((f) => f.method);
    const on77 = s.frames.filter((f) => f.params?._meta?.[SUB_ID] === 77).map((f) => f.method);
    expect(onTools).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed']);
    expect(on77).toEqual(['notifications/subscriptions/acknowledged', 'notifications/resources/updated']);
    expect((await s.result('tools/list')).tools.map((t: AnyJson) => t.name)).toContain('added_1');
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'tools-sub' } });
    await sleep(50);
    await s.result('tools/call', { name: 'mutate', arguments: {} });
    expect(s.frames.filter((f) => f.params?._meta?.[SUB_ID] === 'tools-sub')).toHaveLength(2);
    s.child.stdin?.end();
    expect(await waitExit(s.child, WAIT_MS)).toBe(0);
    expect(s.frames.find((f) => f.id === 77)?.result).toEqual({ resultType: 'complete', _meta: { [SUB_ID]: 77 } });
    expect(s.frames.find((f) => f.id === 'tools-sub')).toBeUndefined();
    s.expectAllValid();
  });

  it('logs only with a logLevel and at or above it; progress rises; a cancelled request gets nothing more', async () => {
    const s = Stdio.start();
    await s.result('tools/call', { name: 'log', arguments: {} });
    expect(s.notifications('notifications/message')).toEqual([]);
    await s.request('tools/call', params({ name: 'log', arguments: {} }, {}, { 'io.modelcontextprotocol/logLevel': 'warning' }));
    expect(s.notifications('notifications/message').map((n) => n.params.level)).toEqual(['warning', 'error']);
    await s.request('tools/call', params({ name: 'slow', arguments: { steps: 3, stepMs: 20 } }, {}, { progressToken: 'p1' }));
    expect(s.notifications('notifications/progress').map((n) => n.params.progress)).toEqual([1, 2, 3]);
    const id = s.begin('tools/call', params({ name: 'slow', arguments: { steps: 50, stepMs: 20 } }, {}, { progressToken: 'p2' }));
    await until(() => s.notifications('notifications/progress').find((n) => n.params.progressToken === 'p2'), 'first progress of p2');
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'test' } });
    const seen = s.frames.length;
    await sleep(150);
    expect(s.frames.slice(seen)).toEqual([]);
    expect((await s.result('tools/call', { name: 'stats', arguments: {} })).structuredContent).toEqual({ slowCompleted: 1, slowCancelled: 1 });
    s.expectAllValid();
  });

  it('survives hostile input (invalid UTF-8, deep nesting, a batch, wrong types) and answers server/discover afterwards', async () => {
    const s = Stdio.start();
    s.child.stdin?.write(Buffer.from([0xff, 0xfe, 0x0a]));
    s.child.stdin?.write(`${'['.repeat(10_000)}${']'.repeat(10_000)}\n`);
    s.send([{ jsonrpc: '2.0', id: 'b1', method: 'server/discover', params: params() }]);
    s.send({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { _meta: 5, name: ['x'] } });
    expect((await s.response('w')).error.code).toBe(-32602);
    expect((await s.result('server/discover')).resultType).toBe('complete');
    expect(s.frames.filter((f) => 'error' in f && !('id' in f)).map((f) => f.error.code)).toEqual([-32700, -32600, -32600]);
    s.expectAllValid();
  });

  it('--dual-era hands an initialize to the 2025-11-25 reference server and serves modern requests otherwise', async () => {
    const legacy = Stdio.start(undefined, ['--dual-era']);
    const init = await legacy.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } });
    expect(init.result.protocolVersion).toBe('2025-11-25');
    legacy.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect((await legacy.request('ping')).result).toEqual({});
    const modern = Stdio.start(undefined, ['--dual-era']);
    const d = await modern.result('server/discover');
    expect(d.supportedVersions).toEqual(expect.arrayContaining([VERSION, '2025-11-25']));
    modern.expectAllValid();
  });
});

describe('reference-2026 server over Streamable HTTP (correct)', () => {
  let url = '';
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    ({ url, child } = await startHttp(undefined, [], { MCPCHECK_KEEPALIVE_MS: '100' }));
  });
  afterAll(() => {
    child?.kill('SIGKILL');
  });
  afterEach(() => {
    for (const { reply, method } of httpExchanges.splice(0)) for (const m of reply.messages) expectFrameValid(m, method);
  });

  it('answers a modern POST with JSON and no session id; GET and DELETE 405; notifications 202; foreign Origin 403; unknown method 404 −32601', async () => {
    const d = await post(url, 'server/discover', params());
    expect(d.status).toBe(200);
    expect(d.headers['content-type']).toBe('application/json');
    expect(d.headers['mcp-session-id']).toBeUndefined();
    expect(single(d, 'server/discover').result.supportedVersions).toEqual([VERSION]);
    const withSession = await post(url, 'tools/list', params(), { 'Mcp-Session-Id': 'mcpcheck-1234', 'Last-Event-ID': '1' });
    expect(withSession.status).toBe(200);
    expect(withSession.headers['mcp-session-id']).toBeUndefined();
    expect((await send(url, 'GET', undefined, { Accept: 'text/event-stream' })).status).toBe(405);
    expect((await send(url, 'DELETE', undefined)).status).toBe(405);
    const note = await send(url, 'POST', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }, { Accept: ACCEPT, 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'notifications/cancelled' });
    expect(note.status).toBe(202);
    const evil = await post(url, 'server/discover', params(), { Origin: 'http://mcpcheck-evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.messages[0].id).toBeUndefined();
    const unknown = await post(url, 'mcpcheck/nonexistent', params());
    expect(unknown.status).toBe(404);
    expect(single(unknown, 'mcpcheck/nonexistent').error.code).toBe(-32601);
    const ping = await post(url, 'ping', params());
    expect(ping.status).toBe(404);
    const init = await send(url, 'POST', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'l', version: '1' } } }, { Accept: ACCEPT });
    await until(() => (init.ended ? true : undefined), 'initialize');
    expect(init.status).toBe(400);
    expect(init.messages[0].error).toMatchObject({ code: -32022, data: { supported: [VERSION] } });
    expectFrameValid(init.messages[0], 'initialize');
  });

  it('validates headers against the body: mismatches and missing headers 400 −32020, names case-insensitive, values exact, Base64 sentinel decoded', async () => {
    const call = params({ name: 'echo', arguments: { text: 'x' } });
    const expectMismatch = async (headers: Record<string, string | undefined>, method = 'tools/call', p: AnyJson = call): Promise<void> => {
      const r = await post(url, method, p, headers);
      expect(r.status, JSON.stringify(headers)).toBe(400);
      expect(single(r, method).error.code).toBe(-32020);
    };
    await expectMismatch({ 'Mcp-Name': 'other' });
    await expectMismatch({ 'Mcp-Name': undefined });
    await expectMismatch({ 'Mcp-Method': 'tools/list' });
    await expectMismatch({ 'Mcp-Method': undefined });
    await expectMismatch({ 'Mcp-Method': 'Tools/Call' });
    await expectMismatch({ 'MCP-Protocol-Version': undefined }, 'server/discover', params());
    await expectMismatch({ 'MCP-Protocol-Version': '2025-11-25' }, 'server/discover', params());
    await expectMismatch({ 'Mcp-Name': 'mcpcheck-2026://other' }, 'resources/read', params({ uri: 'mcpcheck-2026://info' }));
    await expectMismatch({ 'Mcp-Name': `=?base64?${Buffer.from('other').toString('base64')}?=` });
    const sentinel = await post(url, 'tools/call', call, { 'Mcp-Name': `=?base64?${Buffer.from('echo').toString('base64')}?=` });
    expect(sentinel.status).toBe(200);
    const lower = await send(url, 'POST', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: call }, { accept: ACCEPT, 'mcp-protocol-version': VERSION, 'MCP-METHOD': 'tools/call', 'mcp-name': 'echo' });
    await until(() => (lower.ended ? true : undefined), 'lower-case headers');
    expect(lower.status).toBe(200);
    // Version header and body both unsupported: −32022, 400.
    const old = await post(url, 'server/discover', { _meta: { ...meta(), [PV]: '1999-01-01' } });
    expect(old.status).toBe(400);
    expect(single(old, 'server/discover').error).toMatchObject({ code: -32022, data: { requested: '1999-01-01' } });
    // Missing body field: −32602 with 400 (ruling 4 of §19).
    const bare = await post(url, 'tools/list', { _meta: { [PV]: VERSION } });
    expect(bare.status).toBe(400);
    expect(single(bare, 'tools/list').error.code).toBe(-32602);
  });

  it('checks Mcp-Param-* headers of x-mcp-header arguments (integers numerically)', async () => {
    const forecast = params({ name: 'forecast', arguments: { region: 'Nord', days: 3, metric: true } });
    const ok = await post(url, 'tools/call', forecast, { 'Mcp-Param-Region': 'Nord', 'Mcp-Param-Days': '3.0', 'Mcp-Param-Metric': 'true' });
    expect(ok.status).toBe(200);
    expect(single(ok, 'tools/call').result.content[0].text).toContain('Nord');
    for (const bad of [{ 'Mcp-Param-Region': 'Sued', 'Mcp-Param-Days': '3', 'Mcp-Param-Metric': 'true' }, { 'Mcp-Param-Region': 'Nord', 'Mcp-Param-Metric': 'true' }, { 'Mcp-Param-Region': 'Nord', 'Mcp-Param-Days': '3', 'Mcp-Param-Metric': 'True' }]) {
      const r = await post(url, 'tools/call', forecast, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(single(r, 'tools/call').error.code).toBe(-32020);
    }
    const encoded = await post(url, 'tools/call', params({ name: 'forecast', arguments: { region: 'Zürich' } }), { 'Mcp-Param-Region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=` });
    expect(encoded.status).toBe(200);
    // Raw non-ASCII bytes are invalid characters, whatever they spell.
    const raw = await post(url, 'tools/call', params({ name: 'forecast', arguments: { region: 'Zürich' } }), { 'Mcp-Param-Region': 'Zürich' });
    expect(raw.status).toBe(400);
    expect(single(raw, 'tools/call').error.code).toBe(-32020);
    // A null or absent argument needs no header.
    expect((await post(url, 'tools/call', params({ name: 'forecast', arguments: { region: 'Nord', days: null } }), { 'Mcp-Param-Region': 'Nord' })).status).toBe(200);
  });

  it('streams progress over SSE (X-Accel-Buffering: no) and ends the stream with the response; closing the stream cancels', async () => {
    const slow = await post(url, 'tools/call', params({ name: 'slow', arguments: { steps: 3, stepMs: 20 } }, {}, { progressToken: 7 }));
    expect(slow.headers['content-type']).toBe('text/event-stream');
    expect(slow.headers['x-accel-buffering']).toBe('no');
    expect(slow.messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'response']);
    single(slow, 'tools/call');
    const before = single(await post(url, 'tools/call', params({ name: 'stats', arguments: {} })), 'tools/call').result.structuredContent;
    const p = params({ name: 'slow', arguments: { steps: 10, stepMs: 30 } }, {}, { progressToken: 8 });
    const stream = await send(url, 'POST', { jsonrpc: '2.0', id: 'slow-2', method: 'tools/call', params: p }, standardHeaders('tools/call', p));
    await until(() => (stream.messages.length > 0 ? true : undefined), 'first progress');
    stream.close();
    await sleep(100);
    const after = single(await post(url, 'tools/call', params({ name: 'stats', arguments: {} })), 'tools/call').result.structuredContent;
    expect(after).toEqual({ slowCompleted: before.slowCompleted, slowCancelled: before.slowCancelled + 1 });
    const logged = await post(url, 'tools/call', params({ name: 'log', arguments: {} }, {}, { 'io.modelcontextprotocol/logLevel': 'error' }));
    expect(logged.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.level)).toEqual(['error']);
    const quiet = await post(url, 'tools/call', params({ name: 'log', arguments: {} }));
    expect(quiet.headers['content-type']).toBe('application/json');
  });

  it('holds a listen stream: acknowledgement first, keep-alive comments, notifications of another request with the listen id', async () => {
    const p = params({ notifications: { toolsListChanged: true, promptsListChanged: true } });
    const listen = await send(url, 'POST', { jsonrpc: '2.0', id: 'l-1', method: 'subscriptions/listen', params: p }, standardHeaders('subscriptions/listen', p));
    expect(listen.headers['content-type']).toBe('text/event-stream');
    expect(listen.headers['x-accel-buffering']).toBe('no');
    await until(() => (listen.messages.length > 0 ? true : undefined), 'acknowledgement');
    expect(listen.messages[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true, promptsListChanged: true }, _meta: { [SUB_ID]: 'l-1' } } });
    await until(() => (listen.comments > 0 ? true : undefined), 'a keep-alive comment');
    await post(url, 'tools/call', params({ name: 'mutate', arguments: {} }));
    await until(() => (listen.messages.length >= 3 ? true : undefined), 'list_changed notifications');
    expect(listen.messages.slice(1).map((m) => m.method)).toEqual(['notifications/tools/list_changed', 'notifications/prompts/list_changed']);
    for (const m of listen.messages) expectFrameValid(m, 'subscriptions/listen');
    expect(listen.ended).toBe(false);
    listen.close();
  });

  it('ends listen streams with their result at shutdown (SIGTERM)', async () => {
    const own = await startHttp();
    const p = params({ notifications: { resourcesListChanged: true } });
    const listen = await send(own.url, 'POST', { jsonrpc: '2.0', id: 9, method: 'subscriptions/listen', params: p }, standardHeaders('subscriptions/listen', p));
    await until(() => (listen.messages.length > 0 ? true : undefined), 'acknowledgement');
    own.child.kill('SIGTERM');
    await until(() => (listen.ended ? true : undefined), 'end of the listen stream');
    expect(listen.messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 9, result: { resultType: 'complete', _meta: { [SUB_ID]: 9 } } });
  });

  it('--dual-era serves an initialize session (legacy) and modern requests on one endpoint', async () => {
    const dual = await startHttp(undefined, ['--dual-era']);
    children.add(dual.child);
    const init = await send(dual.url, 'POST', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'l', version: '1' } } }, { Accept: ACCEPT });
    await until(() => (init.ended ? true : undefined), 'initialize');
    expect(init.status).toBe(200);
    const sid = String(init.headers['mcp-session-id']);
    expect(init.messages[0].result.protocolVersion).toBe('2025-11-25');
    const legacyList = await send(dual.url, 'POST', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { Accept: ACCEPT, 'MCP-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' });
    await until(() => (legacyList.ended ? true : undefined), 'legacy tools/list');
    expect(legacyList.messages[0].result.tools.length).toBeGreaterThan(0);
    const d = await post(dual.url, 'server/discover', params());
    expect(single(d, 'server/discover').result.supportedVersions).toContain(VERSION);
    expect(d.headers['mcp-session-id']).toBeUndefined();
  });
});

// =============================================================================================
// Every break shows. Each probe starts its own server with the break and asserts the violation.

/** Starts servers with one break (or none), each killed when its probe ends (probes run concurrently). */
class BreakTarget {
  readonly owned = new Set<ChildProcess>();
  constructor(readonly brk: BreakName | undefined) {}

  stdio(): Stdio {
    return Stdio.start(this.brk, [], this.owned);
  }

  async http(env: Record<string, string> = {}, args: string[] = []): Promise<string> {
    const h = await startHttp(this.brk, args, env);
    this.owned.add(h.child);
    return h.url;
  }

  close(): void {
    for (const c of this.owned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    httpExchanges.length = 0; // a break's frames are not the correct server's
  }
}

// ---------------------------------------------------------------------------------------------
// The tasks extension

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { elicitation: {}, extensions: { [TASKS]: {} } };

/** A task handle of `tool`, for a client declaring the extension. */
async function startTask(s: Stdio, tool: string, args: AnyJson = {}): Promise<string> {
  const handle = await s.result('tools/call', { name: tool, arguments: args }, WITH_TASKS);
  expect(handle.resultType).toBe('task');
  return handle.taskId;
}

/** tasks/get until the task shows `status` (or fails the wait). */
async function taskIn(s: Stdio, taskId: string, status: string, and: (task: AnyJson) => boolean = () => true): Promise<AnyJson> {
  for (let i = 0; i < 100; i++) {
    const task = await s.result('tasks/get', { taskId }, WITH_TASKS);
    if (task.status === status && and(task)) return task;
    await sleep(20);
  }
  throw new Error(`task ${taskId} never showed ${status}`);
}

async function listenOn(s: Stdio, id: unknown, filter: AnyJson): Promise<void> {
  s.begin('subscriptions/listen', params({ notifications: filter }), id);
  await until(() => s.frames.find((f) => f.method === 'notifications/subscriptions/acknowledged' && f.params._meta[SUB_ID] !== undefined && String(f.params._meta[SUB_ID]) === String(id)), 'acknowledgement');
}

async function greetState(s: Stdio): Promise<string> {
  return (await s.result('tools/call', { name: 'greet', arguments: {} }, ELICIT)).requestState;
}

/** A `<capability>-undeclared` break: server/discover leaves the capability out while its `<capability>/list` serves some. */
function listedUndeclared(capability: 'tools' | 'resources' | 'prompts'): (t: BreakTarget) => Promise<void> {
  return async (t) => {
    const s = t.stdio();
    expect((await s.result('server/discover')).capabilities[capability]).toBeUndefined();
    expect((await s.result(`${capability}/list`))[capability].length).toBeGreaterThan(0);
  };
}

const PROBES: Record<BreakName, (t: BreakTarget) => Promise<void>> = {
  'no-discover': async (t) => {
    expect((await t.stdio().request('server/discover', params())).error.code).toBe(-32601);
  },
  'discover-no-server-info': async (t) => {
    const s = t.stdio();
    expect((await s.result('server/discover'))._meta?.[SERVER_INFO]).toBeUndefined();
    expect((await s.result('tools/list'))._meta[SERVER_INFO]).toBeDefined();
  },
  'discover-versions-untrue': async (t) => {
    expect((await t.stdio().result('server/discover')).supportedVersions).not.toContain(VERSION);
  },
  'result-without-server-info': async (t) => {
    expect((await t.stdio().result('tools/list'))._meta?.[SERVER_INFO]).toBeUndefined();
  },
  'no-result-type': async (t) => {
    const r = await t.stdio().result('tools/call', { name: 'echo', arguments: { text: 'x' } });
    expect(r.resultType).toBeUndefined();
  },
  'unsupported-version-accepted': async (t) => {
    expect((await t.stdio().request('server/discover', { _meta: { ...meta(), [PV]: '1999-01-01' } })).result).toBeDefined();
  },
  'unsupported-version-no-data': async (t) => {
    const e = (await t.stdio().request('server/discover', { _meta: { ...meta(), [PV]: '1999-01-01' } })).error;
    expect(e.code).toBe(-32022);
    expect(e.data).toBeUndefined();
  },
  'missing-meta-accepted': async (t) => {
    expect((await t.stdio().request('tools/list', undefined)).result.tools).toBeDefined();
  },
  'call-meta-unchecked': async (t) => {
    expect((await t.stdio().request('tools/call', { name: 'echo', arguments: { text: 'x' } })).result.content).toBeDefined();
    expect((await t.stdio().request('tools/list', undefined)).error.code).toBe(-32602);
  },
  'missing-capability-wrong-code': async (t) => {
    expect((await t.stdio().request('tools/call', params({ name: 'ask_llm', arguments: { question: 'q' } }))).error.code).toBe(-32602);
  },
  'bad-log-level-accepted': async (t) => {
    expect((await t.stdio().request('tools/call', params({ name: 'log', arguments: {} }, {}, { 'io.modelcontextprotocol/logLevel': 'verbose' }))).result).toBeDefined();
  },
  'initialize-answered': async (t) => {
    const r = await t.stdio().request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'l', version: '1' } });
    expect(r.result.protocolVersion).toBe('2025-11-25');
  },
  'initialize-error-no-versions': async (t) => {
    const r = await t.stdio().request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'l', version: '1' } });
    expect(r.error.data).toBeUndefined();
    expect(r.error.message).not.toContain(VERSION);
  },
  'ping-answered': async (t) => {
    expect((await t.stdio().request('ping', params())).result).toBeDefined();
  },
  'tools-undeclared': listedUndeclared('tools'),
  'resources-undeclared': listedUndeclared('resources'),
  'prompts-undeclared': listedUndeclared('prompts'),
  'completions-undeclared': async (t) => {
    const s = t.stdio();
    expect((await s.result('server/discover')).capabilities.completions).toBeUndefined();
    expect((await s.result('completion/complete', { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: '' } })).completion.values.length).toBeGreaterThan(0);
  },
  'undeclared-refused-32602': async (t) => {
    const s = t.stdio();
    expect((await s.result('server/discover')).capabilities.prompts).toBeUndefined();
    expect((await s.error('prompts/list')).code).toBe(-32602);
  },
  'logging-undeclared': async (t) => {
    const s = t.stdio();
    expect((await s.result('server/discover')).capabilities.logging).toBeUndefined();
    await s.request('tools/call', params({ name: 'log', arguments: {} }, {}, { 'io.modelcontextprotocol/logLevel': 'debug' }));
    expect(s.notifications('notifications/message').length).toBeGreaterThan(0);
  },
  'reserved-meta-key': async (t) => {
    expect((await t.stdio().result('tools/list'))._meta['io.modelcontextprotocol/mcpcheck-note']).toBeDefined();
  },
  'server-info-unversioned': async (t) => {
    expect((await t.stdio().result('tools/list'))._meta[SERVER_INFO]).toEqual({ name: 'mcpcheck-reference-2026' });
  },
  'bad-traceparent': async (t) => {
    expect((await t.stdio().result('tools/list'))._meta.traceparent).toBe('00-mcpcheck-reference');
  },
  'unknown-method-32600': async (t) => {
    expect((await t.stdio().error('mcpcheck/nonexistent')).code).toBe(-32600);
  },
  'reserved-error-code': async (t) => {
    expect((await t.stdio().error('tools/call', { name: 'mcpcheck_nonexistent', arguments: {} })).code).toBe(-32030);
  },
  'error-without-id': async (t) => {
    const s = t.stdio();
    s.begin('mcpcheck/nonexistent', params());
    const e = await until(() => s.frames.find((f) => 'error' in f), 'an error response');
    expect('id' in e).toBe(false);
  },
  'result-and-error': async (t) => {
    const r = await t.stdio().request('mcpcheck/nonexistent', params());
    expect('result' in r && 'error' in r).toBe(true);
  },
  'tools-order-rotates': async (t) => {
    const s = t.stdio();
    const names = async (): Promise<string[]> => (await s.result('tools/list')).tools.map((x: AnyJson) => x.name);
    expect(await names()).not.toEqual(await names());
  },
  'tool-name-with-space': async (t) => {
    expect((await t.stdio().result('tools/list')).tools.map((x: AnyJson) => x.name)).toContain('shout loud');
  },
  'structured-mismatch': async (t) => {
    expect((await t.stdio().result('tools/call', { name: 'stats', arguments: {} })).structuredContent.slowCompleted).toBe('0');
  },
  'completion-over-100': async (t) => {
    const r = await t.stdio().result('completion/complete', { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: '' } });
    expect(r.completion.values.length).toBeGreaterThan(100);
  },
  'state-unbound': async (t) => {
    const s = t.stdio();
    const first = await s.result('tools/call', { name: 'greet', arguments: { greeting: 'Hi' } }, ELICIT);
    const r = await s.result('tools/call', { name: 'greet', arguments: { greeting: 'Yo' }, requestState: first.requestState, inputResponses: nameAnswer('Eve') }, ELICIT);
    expect(r.content[0].text).toBe('Yo, Eve!');
  },
  'progress-after-response': async (t) => {
    const s = t.stdio();
    await s.request('tools/call', params({ name: 'slow', arguments: { steps: 1, stepMs: 5 } }, {}, { progressToken: 'p' }));
    await until(() => (s.notifications('notifications/progress').length === 2 ? true : undefined), 'a late progress notification');
  },
  'server-cancel': async (t) => {
    const s = t.stdio();
    const id = s.begin('tools/call', params({ name: 'slow', arguments: { steps: 20, stepMs: 20 } }));
    await sleep(30);
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    expect((await until(() => s.notifications('notifications/cancelled')[0], 'a server cancel')).params.requestId).toBe(id);
  },
  'pretty-printed': async (t) => {
    const s = t.stdio();
    s.begin('server/discover', params());
    await until(() => (s.nonJson.length > 3 ? true : undefined), 'a message over several lines');
  },
  'http-wrong-content-type': async (t) => {
    const u = await t.http();
    expect((await post(u, 'server/discover', params())).headers['content-type']).toBe('text/plain');
  },
  'server-request': async (t) => {
    const s = t.stdio();
    await s.result('tools/call', { name: 'ask_llm', arguments: { question: 'q' } }, { sampling: {} });
    expect(s.frames.some((f) => f.method === 'sampling/createMessage' && 'id' in f)).toBe(true);
  },
  'http-server-request': async (t) => {
    const r = await post(await t.http(), 'tools/call', params({ name: 'ask_llm', arguments: { question: 'q' } }, { sampling: {} }));
    expect(r.messages.some((m) => m.method === 'sampling/createMessage' && 'id' in m)).toBe(true);
  },
  'input-required-on-complete': async (t) => {
    const r = await t.stdio().result('completion/complete', { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: '' } });
    expect(r.resultType).toBe('input_required');
  },
  'input-required-empty': async (t) => {
    const r = await t.stdio().result('tools/call', { name: 'greet', arguments: {} }, ELICIT);
    expect(r).toEqual({ resultType: 'input_required', _meta: expect.any(Object) });
  },
  'elicitation-without-schema': async (t) => {
    const r = await t.stdio().result('tools/call', { name: 'greet', arguments: {} }, ELICIT);
    expect(r.inputRequests.user_name.params).toEqual({ mode: 'form', message: 'What is your name?' });
  },
  'input-request-with-id': async (t) => {
    const r = await t.stdio().result('tools/call', { name: 'greet', arguments: {} }, ELICIT);
    expect(r.inputRequests.user_name).toMatchObject({ jsonrpc: '2.0', id: 'user_name' });
  },
  'input-kind-undeclared': async (t) => {
    const r = await t.stdio().result('tools/call', { name: 'ask_llm', arguments: { question: 'q' } });
    expect(r.inputRequests.answer.method).toBe('sampling/createMessage');
  },
  'capabilities-remembered': async (t) => {
    const s = t.stdio();
    await s.result('tools/call', { name: 'greet', arguments: {} }, ELICIT);
    expect((await s.result('tools/call', { name: 'greet', arguments: {} })).inputRequests.user_name.method).toBe('elicitation/create');
  },
  'tampered-state-accepted': async (t) => {
    const s = t.stdio();
    const state = await greetState(s);
    const r = await s.result('tools/call', { name: 'greet', arguments: {}, requestState: tamper(state), inputResponses: nameAnswer('Eve') }, ELICIT);
    expect(r.content[0].text).toContain('Eve');
  },
  'missing-response-error': async (t) => {
    const s = t.stdio();
    const state = await greetState(s);
    expect((await s.error('tools/call', { name: 'greet', arguments: {}, requestState: state, inputResponses: {} }, ELICIT)).code).toBe(-32602);
  },
  'malformed-response-accepted': async (t) => {
    const s = t.stdio();
    const state = await greetState(s);
    const r = await s.result('tools/call', { name: 'greet', arguments: {}, requestState: state, inputResponses: { user_name: { action: 'maybe' } } }, ELICIT);
    expect(r.content[0].text).toBe('No name was given.');
  },
  'input-required-cacheable': async (t) => {
    const r = await t.stdio().result('tools/call', { name: 'greet', arguments: {} }, ELICIT);
    expect(r).toMatchObject({ resultType: 'input_required', ttlMs: 0, cacheScope: 'private' });
  },
  'no-ttl': async (t) => {
    expect((await t.stdio().result('tools/list')).ttlMs).toBeUndefined();
  },
  'negative-ttl': async (t) => {
    expect((await t.stdio().result('resources/read', { uri: 'mcpcheck-2026://info' })).ttlMs).toBe(-1);
  },
  'mixed-cache-scope': async (t) => {
    const s = t.stdio();
    const first = await s.result('resources/list');
    const second = await s.result('resources/list', { cursor: first.nextCursor });
    expect([first.cacheScope, second.cacheScope]).toEqual(['public', 'private']);
  },
  'invalid-cursor-accepted': async (t) => {
    expect((await t.stdio().result('resources/list', { cursor: 'mcpcheck-nonexistent' })).resources.length).toBeGreaterThan(0);
  },
  'listen-refused': async (t) => {
    expect((await t.stdio().request('subscriptions/listen', params({ notifications: {} }))).error.code).toBe(-32601);
  },
  'ack-not-first': async (t) => {
    const s = t.stdio();
    await listenOn(s, 1, { toolsListChanged: true });
    expect(s.frames.filter((f) => f.params?._meta?.[SUB_ID] === 1)[0].method).toBe('notifications/tools/list_changed');
  },
  'ack-broader': async (t) => {
    const s = t.stdio();
    await listenOn(s, 1, { toolsListChanged: true });
    expect(s.notifications('notifications/subscriptions/acknowledged')[0].params.notifications.promptsListChanged).toBe(true);
  },
  'ack-undeclared-type': async (t) => {
    const s = t.stdio();
    expect((await s.result('server/discover')).capabilities.tools.listChanged).toBeUndefined();
    await listenOn(s, 1, { toolsListChanged: true });
    expect(s.notifications('notifications/subscriptions/acknowledged')[0].params.notifications.toolsListChanged).toBe(true);
  },
  'wrong-subscription-id': async (t) => {
    const s = t.stdio();
    await listenOn(s, 7, { toolsListChanged: true });
    expect(s.notifications('notifications/subscriptions/acknowledged')[0].params._meta[SUB_ID]).toBe('7');
  },
  'unrequested-notification': async (t) => {
    const s = t.stdio();
    await listenOn(s, 1, { resourcesListChanged: true });
    await s.result('tools/call', { name: 'mutate', arguments: {} });
    expect(s.notifications('notifications/tools/list_changed')).toHaveLength(1);
  },
  'progress-on-listen': async (t) => {
    const s = t.stdio();
    await listenOn(s, 'sub', { toolsListChanged: true });
    await s.request('tools/call', params({ name: 'slow', arguments: { steps: 2, stepMs: 10 } }, {}, { progressToken: 'p' }));
    expect(s.notifications('notifications/progress').some((n) => n.params._meta?.[SUB_ID] === 'sub')).toBe(true);
  },
  'listen-cancelled-at-shutdown': async (t) => {
    const s = t.stdio();
    await listenOn(s, 1, { toolsListChanged: true });
    s.child.stdin?.end();
    expect(await waitExit(s.child, WAIT_MS)).toBe(0);
    expect(s.frames.find((f) => f.id === 1)).toBeUndefined();
    expect(s.notifications('notifications/cancelled')[0].params.requestId).toBe(1);
  },
  'listen-dropped-at-shutdown': async (t) => {
    const s = t.stdio();
    await listenOn(s, 1, { toolsListChanged: true });
    s.child.stdin?.end();
    expect(await waitExit(s.child, WAIT_MS)).toBe(0);
    expect(s.frames.filter((f) => f.id === 1 || f.method === 'notifications/cancelled')).toEqual([]);
  },
  'listen-cancel-malformed': async (t) => {
    const s = t.stdio();
    await listenOn(s, 1, { toolsListChanged: true });
    s.child.stdin?.end();
    expect(await waitExit(s.child, WAIT_MS)).toBe(0);
    expect(s.notifications('notifications/cancelled')[0].params).toMatchObject({ requestId: 1, reason: 503 });
  },
  'logs-without-level': async (t) => {
    const s = t.stdio();
    await s.result('tools/call', { name: 'log', arguments: {} });
    expect(s.notifications('notifications/message').length).toBeGreaterThan(0);
  },
  'log-on-unasked-stream': async (t) => {
    const r = await post(await t.http(), 'tools/call', params({ name: 'log', arguments: {} }));
    expect(r.messages.some((m) => m.method === 'notifications/message')).toBe(true);
  },
  'log-on-listen': async (t) => {
    const s = t.stdio();
    await listenOn(s, 'sub', { toolsListChanged: true });
    await s.request('tools/call', params({ name: 'log', arguments: {} }, {}, { 'io.modelcontextprotocol/logLevel': 'debug' }));
    expect(s.notifications('notifications/message').some((n) => n.params._meta?.[SUB_ID] === 'sub')).toBe(true);
  },
  'logs-below-level': async (t) => {
    const s = t.stdio();
    await s.request('tools/call', params({ name: 'log', arguments: {} }, {}, { 'io.modelcontextprotocol/logLevel': 'warning' }));
    expect(s.notifications('notifications/message').map((n) => n.params.level)).toContain('debug');
  },
  'progress-decreasing': async (t) => {
    const s = t.stdio();
    await s.request('tools/call', params({ name: 'slow', arguments: { steps: 3, stepMs: 10 } }, {}, { progressToken: 'p' }));
    expect(s.notifications('notifications/progress').map((n) => n.params.progress)).toEqual([3, 2, 1]);
  },
  'cancel-ignored': async (t) => {
    const s = t.stdio();
    const id = s.begin('tools/call', params({ name: 'slow', arguments: { steps: 4, stepMs: 20 } }));
    await sleep(30);
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    expect((await s.response(id)).result).toBeDefined();
  },
  'ignores-stdin-close': async (t) => {
    const s = t.stdio();
    await s.result('server/discover');
    s.child.stdin?.end();
    expect(await waitExit(s.child, 1_000)).toBe('timeout');
  },
  'answers-notifications': async (t) => {
    const s = t.stdio();
    s.send({ jsonrpc: '2.0', method: 'notifications/mcpcheck_nonexistent' });
    expect((await until(() => s.frames[0], 'an answer')).error.code).toBe(-32601);
  },
  'stdout-banner': async (t) => {
    const s = t.stdio();
    await s.result('server/discover');
    expect(s.nonJson.length).toBe(1);
  },
  'null-id-executed': async (t) => {
    const r = await t.stdio().request('server/discover', params(), null);
    expect(r).toMatchObject({ id: null, result: { resultType: 'complete' } });
  },
  'http-name-mismatch-accepted': async (t) => {
    const u = await t.http();
    expect((await post(u, 'tools/call', params({ name: 'echo', arguments: { text: 'x' } }), { 'Mcp-Name': 'other' })).status).toBe(200);
  },
  'http-version-header-optional': async (t) => {
    const u = await t.http();
    expect((await post(u, 'server/discover', params(), { 'MCP-Protocol-Version': undefined })).status).toBe(200);
  },
  'http-version-mismatch-accepted': async (t) => {
    const u = await t.http();
    expect((await post(u, 'server/discover', params(), { 'MCP-Protocol-Version': '2025-11-25' })).status).toBe(200);
  },
  'http-header-values-folded': async (t) => {
    const u = await t.http();
    expect((await post(u, 'tools/call', params({ name: 'echo', arguments: { text: 'x' } }), { 'Mcp-Method': 'Tools/Call' })).status).toBe(200);
  },
  'http-param-header-ignored': async (t) => {
    const u = await t.http();
    expect((await post(u, 'tools/call', params({ name: 'forecast', arguments: { region: 'Nord' } }), { 'Mcp-Param-Region': 'Sued' })).status).toBe(200);
  },
  'x-mcp-header-on-number': async (t) => {
    const tools = (await t.stdio().result('tools/list')).tools;
    expect(tools.find((t: AnyJson) => t.name === 'forecast').inputSchema.properties.threshold).toMatchObject({ type: 'number', 'x-mcp-header': 'Threshold' });
  },
  'http-session-id': async (t) => {
    const u = await t.http();
    expect((await post(u, 'server/discover', params())).headers['mcp-session-id']).toBeDefined();
  },
  'auth-offline-access': async (t) => {
    const u = new URL(await t.http({ MCPCHECK_REFERENCE_TOKEN: 'reference-2026-probe-token' }, ['--auth']));
    const metadata = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', u))).json()) as { scopes_supported?: string[] };
    expect(metadata.scopes_supported).toContain('offline_access');
  },
  'auth-handle-is-credential': async (t) => {
    const u = await t.http({ MCPCHECK_REFERENCE_TOKEN: 'reference-2026-user-1' }, ['--auth']);
    const handle = single(await post(u, 'tools/call', params({ name: 'report', arguments: { ms: 5_000 } }, WITH_TASKS), { Authorization: 'Bearer reference-2026-user-1' }), 'tools/call').result;
    // Naming the task is enough: no token at all gets its status.
    const read = single(await post(u, 'tasks/get', params({ taskId: handle.taskId }, WITH_TASKS)), 'tasks/get');
    expect(read.result).toMatchObject({ taskId: handle.taskId });
  },
  'auth-scope-hierarchy-ignored': async (t) => {
    const u = await t.http({ MCPCHECK_REFERENCE_TOKEN: 'reference-2026-user-1', MCPCHECK_REFERENCE_BROAD_TOKEN: 'reference-2026-broad' }, ['--auth']);
    // The parent scope's token is refused the tool call its child scope allows.
    const reply = await post(u, 'tools/call', params({ name: 'echo', arguments: { message: 'hi' } }), { Authorization: 'Bearer reference-2026-broad' });
    expect(reply.status).toBe(403);
  },
  'task-any-principal': async (t) => {
    const u = await t.http({ MCPCHECK_REFERENCE_TOKEN: 'reference-2026-user-1', MCPCHECK_REFERENCE_SECOND_TOKEN: 'reference-2026-user-2' }, ['--auth']);
    const as = (user: string) => ({ Authorization: `Bearer reference-2026-${user}` });
    const handle = single(await post(u, 'tools/call', params({ name: 'report', arguments: { ms: 5_000 } }, WITH_TASKS), as('user-1')), 'tools/call').result;
    // The other user reads the task the first one made.
    const read = single(await post(u, 'tasks/get', params({ taskId: handle.taskId }, WITH_TASKS), as('user-2')), 'tasks/get');
    expect(read.result).toMatchObject({ taskId: handle.taskId, status: 'working' });
  },
  'http-get-served': async (t) => {
    const u = await t.http();
    const r = await send(u, 'GET', undefined, { Accept: 'text/event-stream' });
    expect(r.status).toBe(200);
    r.close();
  },
  'http-unknown-method-200': async (t) => {
    const u = await t.http();
    const r = await post(u, 'mcpcheck/nonexistent', params());
    expect(r.status).toBe(200);
    expect(r.messages[0].error.code).toBe(-32601);
  },
  'http-notification-200': async (t) => {
    const u = await t.http();
    const r = await send(u, 'POST', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, { Accept: ACCEPT, 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'notifications/cancelled' });
    expect(r.status).toBe(200);
  },
  'http-response-accepted': async (t) => {
    const u = await t.http();
    const r = await send(u, 'POST', { jsonrpc: '2.0', id: 'never-asked', result: {} }, { Accept: ACCEPT, 'MCP-Protocol-Version': VERSION });
    expect(r.status).toBe(202);
  },
  'http-origin-ignored': async (t) => {
    const u = await t.http();
    expect((await post(u, 'server/discover', params(), { Origin: 'http://mcpcheck-evil.example' })).status).toBe(200);
  },
  'http-no-accel-header': async (t) => {
    const u = await t.http();
    const r = await post(u, 'tools/call', params({ name: 'slow', arguments: { steps: 1, stepMs: 5 } }, {}, { progressToken: 1 }));
    expect(r.headers['content-type']).toBe('text/event-stream');
    expect(r.headers['x-accel-buffering']).toBeUndefined();
  },
  'http-listen-no-keepalive': async (t) => {
    const u = await t.http({ MCPCHECK_KEEPALIVE_MS: '50' });
    const p = params({ notifications: { toolsListChanged: true } });
    const r = await send(u, 'POST', { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: p }, standardHeaders('subscriptions/listen', p));
    await sleep(300);
    expect(r.messages.length).toBe(1);
    expect(r.comments).toBe(0);
    r.close();
  },
  'http-stream-left-open': async (t) => {
    const u = await t.http();
    const p = params({ name: 'slow', arguments: { steps: 1, stepMs: 5 } }, {}, { progressToken: 1 });
    const r = await send(u, 'POST', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: p }, standardHeaders('tools/call', p));
    await until(() => r.messages.find((m) => m.id === 1), 'the response');
    await sleep(200);
    expect(r.ended).toBe(false);
    r.close();
  },
  'task-tool-undeclared-32602': async (t) => {
    expect((await t.stdio().error('tools/call', { name: 'report', arguments: {} })).code).toBe(-32602);
  },
  'task-handle-undeclared': async (t) => {
    expect((await t.stdio().result('tools/call', { name: 'report', arguments: {} })).resultType).toBe('task');
  },
  'task-get-undeclared': async (t) => {
    expect((await t.stdio().error('tasks/get', { taskId: 'nope' })).code).toBe(-32602);
  },
  'task-listen-undeclared': async (t) => {
    await listenOn(t.stdio(), 'task-listen', { taskIds: ['nope'] });
  },
  'task-listen-log': async (t) => {
    const s = t.stdio();
    const taskId = await startTask(s, 'report', { ms: 300 });
    s.begin('subscriptions/listen', params({ notifications: { taskIds: [taskId] } }, WITH_TASKS), 'task-stream');
    const onStream = (method: string) => s.frames.find((f) => f.method === method && f.params?._meta?.[SUB_ID] === 'task-stream');
    await until(() => onStream('notifications/tasks'), 'the task\'s status on its stream');
    expect(onStream('notifications/message')).toMatchObject({ params: { level: 'info', data: expect.stringContaining(taskId) } });
  },
  'task-handle-early': async (t) => {
    const s = t.stdio();
    const taskId = await startTask(s, 'report', { ms: 5_000 });
    expect((await s.error('tasks/get', { taskId }, WITH_TASKS)).code).toBe(-32602);
  },
  'task-id-repeats': async (t) => {
    const s = t.stdio();
    expect(await startTask(s, 'report')).toBe(await startTask(s, 'report'));
  },
  'task-ids-counted': async (t) => {
    const s = t.stdio();
    expect([await startTask(s, 'report'), await startTask(s, 'report')]).toEqual(['mcpcheck-task-1', 'mcpcheck-task-2']);
  },
  'task-get-unknown-32603': async (t) => {
    expect((await t.stdio().error('tasks/get', { taskId: 'nope' }, WITH_TASKS)).code).toBe(-32603);
  },
  'task-unknown-update-acknowledged': async (t) => {
    expect(await t.stdio().result('tasks/cancel', { taskId: 'nope' }, WITH_TASKS)).toMatchObject({ resultType: 'complete' });
  },
  'task-update-refused': async (t) => {
    const s = t.stdio();
    const taskId = await startTask(s, 'confirm');
    await taskIn(s, taskId, 'input_required');
    expect((await s.error('tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { ok: true } } } }, WITH_TASKS)).code).toBe(-32603);
  },
  'task-completed-without-result': async (t) => {
    const s = t.stdio();
    const task = await taskIn(s, await startTask(s, 'report', { ms: 1 }), 'completed');
    expect(task.result).toBeUndefined();
  },
  'task-key-reused': async (t) => {
    const s = t.stdio();
    const taskId = await startTask(s, 'confirm');
    const first = await taskIn(s, taskId, 'input_required');
    await s.result('tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { ok: true } } } }, WITH_TASKS);
    // Asked again once it has worked on the answer (a brief "working" a loaded machine's polls may not see).
    const again = await taskIn(s, taskId, 'input_required', (task) => JSON.stringify(task.inputRequests?.confirm) !== JSON.stringify(first.inputRequests.confirm));
    expect(Object.keys(again.inputRequests)).toEqual(Object.keys(first.inputRequests));
  },
  'task-result-not-call-result': async (t) => {
    const s = t.stdio();
    expect((await taskIn(s, await startTask(s, 'report', { ms: 1 }), 'completed')).result).toEqual({ report: '3 pages' });
  },
  'task-stray-input-fails': async (t) => {
    const s = t.stdio();
    const taskId = await startTask(s, 'confirm');
    await taskIn(s, taskId, 'input_required');
    await s.result('tasks/update', { taskId, inputResponses: { never: { action: 'accept' } } }, WITH_TASKS);
    expect((await s.result('tasks/get', { taskId }, WITH_TASKS)).status).toBe('failed');
  },
  'task-revives': async (t) => {
    const s = t.stdio();
    const taskId = await startTask(s, 'report', { ms: 5_000 });
    await s.result('tasks/cancel', { taskId }, WITH_TASKS);
    await taskIn(s, taskId, 'cancelled');
    expect((await s.result('tasks/get', { taskId }, WITH_TASKS)).status).toBe('working');
  },
  'http-disconnect-ignored': async (t) => {
    const u = await t.http();
    const p = params({ name: 'slow', arguments: { steps: 4, stepMs: 25 } }, {}, { progressToken: 1 });
    const r = await send(u, 'POST', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: p }, standardHeaders('tools/call', p));
    await until(() => (r.messages.length > 0 ? true : undefined), 'first progress');
    r.close();
    await sleep(200);
    const stats = single(await post(u, 'tools/call', params({ name: 'stats', arguments: {} })), 'tools/call').result.structuredContent;
    expect(stats).toEqual({ slowCompleted: 1, slowCancelled: 0 });
  },
};

const NAMES = BREAKS.map((b) => [b.name as BreakName, b.requirement] as const);

async function probe(name: BreakName, brk: BreakName | undefined): Promise<void> {
  const t = new BreakTarget(brk);
  try {
    await PROBES[name](t);
  } finally {
    t.close();
  }
}

describe('reference-2026 breaks: each one shows', () => {
  it.concurrent.each(NAMES)('%s (%s)', async (name) => {
    await probe(name, name);
  });
});

describe('reference-2026 breaks: no probe passes on the correct server (no break is inert)', () => {
  beforeAll(() => {
    defaultWait = 500;
  });
  afterAll(() => {
    defaultWait = WAIT_MS;
  });
  it.concurrent.each(NAMES)('%s (%s)', async (name) => {
    await expect(probe(name, undefined)).rejects.toThrow();
  });
});
