import type { ClientExchange } from '../../src/transport/server-channel.js';
import { clientScenario, type ClientScenario, type ClientScenarioContext } from '../../src/runner/client-scenario.js';
import { show } from '../../src/validate/finding.js';
import { initialized, sleep, WAIT_MS } from './helpers.js';

const needs = { transport: 'http' } as const;

/** Lists what broke a rule, exchange by exchange (at most a few). */
function which(bad: ClientExchange[], say: (e: ClientExchange) => string): string {
  return bad.slice(0, 3).map((e) => `${e.method} #${e.exchange}: ${say(e)}`).join('; ') + (bad.length > 3 ? `; …${bad.length - 3} more` : '');
}

/**
 * The exchanges the client began after mcpcheck had answered its first initialize (the first
 * successful POST): only from then on can it know the session id and the negotiated version.
 */
function afterInitialize(exchanges: readonly ClientExchange[]): ClientExchange[] {
  const init = exchanges.find((e) => e.method === 'POST' && e.status < 300);
  return init ? exchanges.filter((e) => e.started > init.at) : [];
}

/** Runs the client to its end (or WAIT_MS), so every exchange it makes is there to judge. */
async function settled(ctx: ClientScenarioContext): Promise<boolean> {
  if (!(await initialized(ctx))) return false;
  await ctx.exited(WAIT_MS);
  return true;
}

const mediaTypes = (accept: string | undefined) => (accept ?? '').split(',').map((p) => p.split(';')[0]!.trim().toLowerCase());

export const clientAccept = clientScenario({
  id: 'client.http.accept',
  title: 'Every POST carries an Accept header naming both application/json and text/event-stream',
  requirements: ['HTTP-POST-02'],
  needs,
  steps: [{ do: 'list-tools' }],
  async run(ctx) {
    if (!(await settled(ctx))) return;
    const posts = ctx.exchanges.filter((e) => e.method === 'POST');
    const ok = (e: ClientExchange) => ['application/json', 'text/event-stream'].every((t) => mediaTypes(e.headers.accept).includes(t));
    const bad = posts.filter((e) => !ok(e));
    ctx.check.expect(posts.length > 0 && bad.length === 0, {
      expected: 'Accept: application/json, text/event-stream on every POST',
      actual: posts.length === 0 ? 'no POST' : bad.length ? which(bad, (e) => `Accept ${show(e.headers.accept ?? '(none)')}`) : `${posts.length} POST(s), all with both`,
    });
  },
});

export const clientGetAccept = clientScenario({
  id: 'client.http.get-accept',
  title: 'A GET that opens a stream carries Accept naming text/event-stream',
  requirements: ['HTTP-GET-01'],
  needs,
  steps: [{ do: 'list-tools' }, { do: 'wait', ms: 500 }],
  async run(ctx) {
    if (!(await settled(ctx))) return;
    const gets = ctx.exchanges.filter((e) => e.method === 'GET');
    if (gets.length === 0) return ctx.check.skip('the client opened no GET stream (it may: the GET stream is optional)');
    const bad = gets.filter((e) => !mediaTypes(e.headers.accept).includes('text/event-stream'));
    ctx.check.expect(bad.length === 0, {
      expected: 'Accept naming text/event-stream on every GET',
      actual: bad.length ? which(bad, (e) => `Accept ${show(e.headers.accept ?? '(none)')}`) : `${gets.length} GET(s), all with it`,
    });
  },
});

export const clientOneMessagePerPost = clientScenario({
  id: 'client.http.one-message-per-post',
  title: 'Each JSON-RPC message from the client is its own HTTP POST',
  requirements: ['HTTP-POST-01'],
  needs,
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { text: 'mcpcheck' } }],
  async run(ctx) {
    if (!(await settled(ctx))) return;
    const posts = ctx.exchanges.filter((e) => e.method === 'POST');
    const bad = posts.filter((e) => e.messages !== undefined && e.messages !== 1);
    ctx.check.expect(posts.length > 0 && bad.length === 0, {
      expected: 'one JSON-RPC message in each POST body',
      actual: posts.length === 0 ? 'no POST' : bad.length ? which(bad, (e) => `${e.messages} messages`) : `${posts.length} POST(s), one message each`,
    });
  },
});

export const clientVersionHeader = clientScenario({
  id: 'client.http.version-header',
  title: 'After initialization, every HTTP request carries MCP-Protocol-Version with the negotiated version',
  requirements: ['HTTP-VER-01', 'HTTP-VER-02'],
  needs,
  steps: [{ do: 'list-tools' }],
  async run(ctx) {
    if (!(await settled(ctx))) return;
    const later = afterInitialize(ctx.exchanges);
    if (later.length === 0) return ctx.check.skip('the client made no HTTP request after initialize');
    const missing = later.filter((e) => e.headers['mcp-protocol-version'] === undefined);
    ctx.check.expect(missing.length === 0, {
      key: 'present',
      requirements: ['HTTP-VER-01'],
      expected: 'MCP-Protocol-Version on every request after initialize',
      actual: missing.length ? which(missing, () => 'no MCP-Protocol-Version') : `${later.length} request(s), all with it`,
    });
    const negotiated = ctx.session.negotiated;
    const wrong = later.filter((e) => e.headers['mcp-protocol-version'] !== undefined && e.headers['mcp-protocol-version'] !== negotiated);
    ctx.check.expect(wrong.length === 0, {
      key: 'negotiated',
      requirements: ['HTTP-VER-02'],
      expected: `MCP-Protocol-Version: ${negotiated}, the negotiated version`,
      actual: wrong.length ? which(wrong, (e) => show(e.headers['mcp-protocol-version'])) : 'the negotiated version throughout',
    });
  },
});

export const clientSessionHeader = clientScenario({
  id: 'client.http.session-id',
  title: 'Once the server issued a session id, the client sends it in MCP-Session-Id on every later request',
  requirements: ['HTTP-SESS-04'],
  needs,
  steps: [{ do: 'list-tools' }],
  async run(ctx) {
    if (!(await settled(ctx))) return;
    const later = afterInitialize(ctx.exchanges);
    if (later.length === 0) return ctx.check.skip('the client made no HTTP request after initialize');
    // The endpoint refuses a request without its session id with 400 and a wrong one with 404.
    const bad = later.filter((e) => e.headers['mcp-session-id'] === undefined || e.status === 404);
    ctx.check.expect(bad.length === 0, {
      expected: 'the issued MCP-Session-Id on every request after initialize',
      actual: bad.length ? which(bad, (e) => (e.headers['mcp-session-id'] === undefined ? 'no MCP-Session-Id' : `an id mcpcheck did not issue (${show(e.headers['mcp-session-id'])})`)) : `${later.length} request(s), all with it`,
    });
  },
});

export const clientReinitializesOn404 = clientScenario({
  id: 'client.http.session-expired',
  title: 'On a 404 to a request that carried a session id, the client starts a new session with a fresh initialize',
  requirements: ['HTTP-SESS-07'],
  needs,
  steps: [{ do: 'list-tools' }, { do: 'wait', ms: 300 }, { do: 'list-tools' }],
  async run(ctx) {
    const { session, check } = ctx;
    const done = await initialized(ctx);
    if (!done) return;
    const listed = await session.waitForMethod('tools/list', WAIT_MS, done.index);
    if (!listed) return check.skip('the client sent no tools/list, so no request met the ended session');
    await sleep(100);
    session.channel.expireSession?.();
    const refused = await waitUntil(() => ctx.exchanges.some((e) => e.status === 404), WAIT_MS);
    if (!refused) return check.skip('the client sent no request after mcpcheck ended its session');
    const fresh = await session.waitForMethod('initialize', WAIT_MS, listed.index + 1);
    check.expect(fresh !== undefined, {
      expected: 'a new initialize after the 404',
      actual: fresh ? 'sent' : `none within ${WAIT_MS} ms`,
      frames: [fresh?.index ?? listed.index],
    });
  },
});

export const clientDeletesSession = clientScenario({
  id: 'client.http.delete',
  title: 'A client done with a session sends HTTP DELETE with its MCP-Session-Id',
  requirements: ['HTTP-SESS-08'],
  needs,
  steps: [{ do: 'list-tools' }],
  async run(ctx) {
    if (!(await initialized(ctx))) return;
    const exit = await ctx.exited(WAIT_MS);
    const del = ctx.exchanges.find((e) => e.method === 'DELETE');
    if (!del && !exit) return ctx.check.skip(`the client was still running ${WAIT_MS} ms after its last step: it may keep sessions open while it runs`);
    ctx.check.expect(del !== undefined && del.headers['mcp-session-id'] !== undefined, {
      expected: 'DELETE with the MCP-Session-Id before the client went away',
      actual: del ? (del.headers['mcp-session-id'] ? 'sent' : 'DELETE without MCP-Session-Id') : 'no DELETE',
    });
  },
});

export const clientJsonResponses = clientScenario({
  id: 'client.http.json-responses',
  title: 'The client handles requests answered with a JSON body (as well as with SSE)',
  requirements: ['HTTP-POST-06'],
  needs,
  steps: [{ do: 'list-tools' }],
  serve(session) {
    if (session.channel.policy) session.channel.policy.answerWith = 'json';
  },
  async run(ctx) {
    const done = await initialized(ctx);
    if (!done) return;
    const next = await ctx.session.waitForMethod('tools/list', WAIT_MS, done.index);
    ctx.check.expect(next !== undefined, {
      expected: 'the handshake completed from JSON answers and the client went on to tools/list',
      actual: next ? 'it did' : `no tools/list within ${WAIT_MS} ms`,
      frames: [next?.index ?? done.index],
    });
  },
});

const RETRY_MS = 800;

export const clientResumes = clientScenario({
  id: 'client.http.resume',
  title: 'After the server drops an SSE stream, the client waits the retry time and resumes with GET and Last-Event-ID',
  requirements: ['HTTP-RESUME-03', 'HTTP-SSE-04'],
  needs,
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { text: 'resumed' } }],
  serve(session) {
    const policy = session.channel.policy;
    if (policy) Object.assign(policy, { answerWith: 'sse', priming: true, retryMs: RETRY_MS });
    session.channel.onExchange?.((e) => {
      if (e.method === 'GET' && e.headers['last-event-id'] !== undefined && !resumedAt.has(session)) resumedAt.set(session, Date.now());
    });
    const call = session.handler('tools/call');
    session.handle('tools/call', async (params, request) => {
      dropped.set(session, Date.now());
      session.channel.dropStreamOf?.(request.id as string | number);
      return call(params, request);
    });
  },
  async run(ctx) {
    const { session, check } = ctx;
    if (!(await initialized(ctx))) return;
    const called = await session.waitForMethod('tools/call', WAIT_MS);
    if (!called) return check.skip('the client made no tools/call, so no stream was dropped');
    const resumed = await waitUntil(() => ctx.exchanges.some((e) => e.method === 'GET' && e.headers['last-event-id'] !== undefined), RETRY_MS + WAIT_MS);
    const get = ctx.exchanges.find((e) => e.method === 'GET' && e.headers['last-event-id'] !== undefined);
    check.expect(resumed && get !== undefined, {
      key: 'resumed',
      requirements: ['HTTP-RESUME-03'],
      expected: 'a GET with Last-Event-ID after the stream carrying tools/call was dropped',
      actual: get ? `GET with Last-Event-ID ${show(get.headers['last-event-id'])}` : `no resuming GET within ${RETRY_MS + WAIT_MS} ms`,
      frames: [called.index],
    });
    if (!get) return;
    const waited = (resumedAt.get(session) ?? Date.now()) - (dropped.get(session) ?? 0);
    check.expect(waited >= RETRY_MS - 50, {
      key: 'retry',
      requirements: ['HTTP-SSE-04'],
      expected: `the resuming GET at least retry: ${RETRY_MS} ms after the drop`,
      actual: `${waited} ms after it`,
      frames: [called.index],
    });
  },
});

// When the stream was dropped and when the client came back, per session, by the same clock.
const dropped = new WeakMap<object, number>();
const resumedAt = new WeakMap<object, number>();

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}


export const clientHttp: ClientScenario[] = [clientAccept, clientGetAccept, clientOneMessagePerPost, clientVersionHeader, clientSessionHeader, clientReinitializesOn404, clientDeletesSession, clientJsonResponses, clientResumes];
