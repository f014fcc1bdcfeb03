import { type ClientExchange, clientScenario, type ClientScenario, show, sleep, waitUntil } from '../kit.js';
import { initialized, WAIT_MS } from './helpers.js';

const needs = { transport: 'http' } as const;

// Accept, one message per POST and the version and session headers hold on every request, so
// they are judged on every scenario's traffic (src/validate/client-http.ts, live.HTTP-*); the
// scenarios here make the client meet what a plain conversation never shows it.

/** The exchanges with the MCP endpoint itself: the transport's rules say nothing of other URLs. */
function endpointExchanges(exchanges: readonly ClientExchange[]): ClientExchange[] {
  return exchanges.filter((e) => e.toEndpoint);
}

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
    // A DELETE refused with 404 is a client ending the session anyway: nothing to start again.
    const refused = await waitUntil(() => ctx.exchanges.some((e) => e.toEndpoint && e.status === 404 && e.method !== 'DELETE'), WAIT_MS);
    if (!refused) return check.skip('the client sent no request after mcpcheck ended its session (other than a DELETE ending it)');
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
    const del = endpointExchanges(ctx.exchanges).find((e) => e.method === 'DELETE');
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
  alias: 'sse-retry',
  title: 'After the server drops an SSE stream, the client waits the retry time and resumes with GET and Last-Event-ID',
  requirements: ['HTTP-RESUME-03', 'HTTP-SSE-02', 'HTTP-SSE-04'],
  needs,
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { text: 'resumed' } }],
  serve(session) {
    const policy = session.channel.policy;
    if (policy) Object.assign(policy, { answerWith: 'sse', priming: true, retryMs: RETRY_MS });
    session.channel.onExchange?.((e) => {
      if (resumes(e, session) && !resumedAt.has(session)) resumedAt.set(session, Date.now());
    });
    const call = session.handler('tools/call');
    session.handle('tools/call', async (params, request) => {
      if (!dropped.has(session)) dropped.set(session, { at: Date.now(), streams: session.channel.dropStreamOf?.(request.id as string | number) ?? [] });
      return call(params, request);
    });
  },
  async run(ctx) {
    const { session, check } = ctx;
    if (!(await initialized(ctx))) return;
    const called = await session.waitForMethod('tools/call', WAIT_MS);
    if (!called) return check.skip('the client made no tools/call, so no stream was dropped');
    const resumed = await waitUntil(() => ctx.exchanges.some((e) => resumes(e, session)), RETRY_MS + WAIT_MS);
    const get = ctx.exchanges.find((e) => resumes(e, session));
    check.expect(resumed && get !== undefined, {
      key: 'resumed',
      // The connection dropped after an event with an id: reconnecting to go on (HTTP-SSE-02) is this GET.
      requirements: ['HTTP-RESUME-03', 'HTTP-SSE-02'],
      expected: 'a GET with Last-Event-ID after the stream carrying tools/call was dropped',
      actual: get ? `GET with Last-Event-ID ${show(get.headers['last-event-id'])}` : `no resuming GET within ${RETRY_MS + WAIT_MS} ms`,
      frames: [called.index],
    });
    if (!get) return;
    const waited = (resumedAt.get(session) ?? Date.now()) - (dropped.get(session)?.at ?? 0);
    check.expect(waited >= RETRY_MS - 50, {
      key: 'retry',
      requirements: ['HTTP-SSE-04'],
      expected: `the resuming GET at least retry: ${RETRY_MS} ms after the drop`,
      actual: `${waited} ms after it`,
      frames: [called.index],
    });
  },
});

// When the stream was dropped (and which), and when the client came back for it, per session, by the same clock.
const dropped = new WeakMap<object, { at: number; streams: string[] }>();
const resumedAt = new WeakMap<object, number>();

/** A GET on the MCP endpoint whose Last-Event-ID names the dropped stream (not another one the client resumes). */
function resumes(e: ClientExchange, session: object): boolean {
  const last = e.headers['last-event-id'];
  return e.toEndpoint && e.method === 'GET' && last !== undefined && (dropped.get(session)?.streams ?? []).some((p) => last.startsWith(p));
}


export const clientHttp: ClientScenario[] = [clientReinitializesOn404, clientDeletesSession, clientJsonResponses, clientResumes];
