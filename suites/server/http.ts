import { randomUUID } from 'node:crypto';
import { type CheckRecorder, clauseSince, describeErrors, describeReply, type HttpChannel, type HttpSendResult, invisibleSessionIdChars, isObject, LATEST_REVISION, PRIMING_EXPECTED, primingProblem, type ProbeRequest, type ProbeResponse, replyFrame, type RequirementId, responseOnGetStream, type Revision, revisionAtLeast, ruling, scenario, type Scenario, type ScenarioContext, type ScenarioNeeds, schemaFor, settledWithin, show } from '../kit.js';

// Streamable HTTP (basic/transports.mdx#streamable-http). Transport-level probes go out as raw
// exchanges (`HttpChannel.request`): they are not frames of the session and leave its state alone,
// so a probe the server wrongly accepts cannot disturb the rest of a scenario.

/** Until response headers arrive; a local server answers in milliseconds. */
export const HEADERS_MS = 5_000;
/** Reading a body after its headers (an SSE answer ends after its response). */
const BODY_MS = 2_000;
/** How long a fresh GET stream is watched for responses that must not be there. */
const GET_WINDOW_MS = 100;
/** How long, after notifications/initialized, a server may take to send a request of its own. */
const SERVER_REQUEST_WINDOW_MS = 500;

const needs = { transport: 'http' } as const;

let probeIds = 0;
/** A JSON-RPC request body with an id no session request uses. */
export function rpc(method: string, params?: unknown): { id: string; body: string } {
  const id = `mcpcheck-http-${++probeIds}`;
  return { id, body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }) };
}

export function probe(channel: HttpChannel, req: ProbeRequest): Promise<ProbeResponse> {
  return channel.request({ timeoutMs: HEADERS_MS, readMs: BODY_MS, ...req });
}

/** "HTTP 400 (application/json): {…}" or "no HTTP response (…)", for messages. */
export function describeProbe(res: ProbeResponse): string {
  if (res.status === 0) return `no HTTP response (${res.error ?? 'unknown error'})`;
  const body = res.body.trim();
  return `HTTP ${res.status}${res.contentType ? ` (${res.contentType})` : ''}${body ? `: ${show(body, 160)}` : ' with an empty body'}`;
}

/** The JSON-RPC response with `id` in a probe's answer: its JSON body, or an event of its SSE stream. */
export function responseIn(res: ProbeResponse, id: string): Record<string, unknown> | undefined {
  const texts = res.sseEvents ? res.sseEvents.map((e) => e.data) : mediaOf(res.contentType) === 'application/json' ? [res.body] : [];
  for (const text of texts) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (isObject(value) && !('method' in value) && value.id === id) return value;
  }
  return undefined;
}

/**
 * Whether the server serves `method` without any MCP-Session-Id: issuing an id is no promise to
 * require it, and the session rules (400 without an id, 404 for an id it does not know) then
 * presume what such a server is not. `res` is the probe, for the messages.
 */
export async function servedWithoutSession(channel: HttpChannel, method: string): Promise<{ served: boolean; res: ProbeResponse }> {
  const { id, body } = rpc(method, method === 'ping' ? undefined : {});
  const res = await probe(channel, { method: 'POST', body, omitSessionId: true });
  const answer = is2xx(res.status) ? responseIn(res, id) : undefined;
  return { served: answer !== undefined && 'result' in answer, res };
}

export function mediaOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase();
}

export const is2xx = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;
const is4xx = (status: number) => status >= 400 && status < 500;

/** The session's HTTP channel, after initializing the session; records an error and returns undefined if that fails. */
async function initialized(ctx: ScenarioContext, capabilities: Record<string, unknown> = {}, withholdInitialized = false): Promise<HttpChannel | undefined> {
  const reply = await ctx.session.initialize({ capabilities, withholdInitialized });
  if (reply.kind !== 'result') {
    ctx.check.error(`initialize failed: ${describeReply(reply)}`);
    return undefined;
  }
  const channel = ctx.session.channel;
  if (channel.kind === 'http') return channel;
  ctx.check.error('needs the http transport');
  return undefined;
}

/**
 * Judges the body of an HTTP error that "MAY comprise a JSON-RPC error response that has no id":
 * a body that is not JSON is fine; a JSON body must be a JSONRPCErrorResponse without `id`.
 * `"id": null` (JSON-RPC 2.0 style) is a compatibility note, not a failure (ROBUST-08, ruling jsonrpc-null-id).
 */
export function checkErrorBody(check: CheckRecorder, res: ProbeResponse, key: string, requirements: RequirementId[], what: string): void {
  const text = res.body.trim();
  if (mediaOf(res.contentType) !== 'application/json' || text === '') {
    check.expect(true, { key, requirements, expected: `${what}: a body that is not JSON, or a JSON-RPC error response without id`, actual: `a body that is not JSON (${text ? show(text, 80) : 'empty'})` });
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    check.expect(false, { key, requirements, expected: `${what}: a JSON body that is a JSON-RPC error response`, actual: `a body labelled application/json that does not parse: ${show(text, 160)}` });
    return;
  }
  const idNull = isObject(body) && body.id === null;
  const withoutNullId = idNull ? Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([k]) => k !== 'id')) : body;
  const errors = schemaFor(LATEST_REVISION).validate('JSONRPCErrorResponse', withoutNullId);
  const hasId = isObject(body) && 'id' in body && !idNull;
  const hasResult = isObject(body) && 'result' in body;
  check.expect(errors === null && !hasId && !hasResult, {
    key,
    requirements,
    expected: `${what}: a JSON body that is a JSON-RPC error response without id`,
    actual: errors ? describeErrors(errors, '') : hasId ? `an error response with "id": ${show((body as Record<string, unknown>).id)}` : `a body with a result: ${show(body, 160)}`,
  });
  if (idNull && errors === null && !hasResult) {
    check.note(`${what}: the error body has "id": null (JSON-RPC 2.0 style); 2025-11-25 leaves id out — a compatibility note, not a failure (${ruling('jsonrpc-null-id').cite})`);
  }
}

/** An HTTP scenario on a session of its own, initialized before `run` gets the session's channel. */
export function httpScenario(
  s: Omit<Scenario, 'isolation' | 'needs' | 'run'> & {
    needs?: Omit<ScenarioNeeds, 'transport'>;
    /** Why the scenario would exercise nothing, when discovery and the options already tell: it is skipped so, before its session opens. */
    unexercised?(ctx: ScenarioContext): string | undefined;
    run(ctx: ScenarioContext, channel: HttpChannel): Promise<void>;
  },
): Scenario {
  const { unexercised, ...rest } = s;
  return scenario({
    ...rest,
    isolation: 'session',
    needs: { ...s.needs, ...needs },
    async run(ctx) {
      const why = unexercised?.(ctx);
      if (why !== undefined) return ctx.check.skip(why);
      const channel = await initialized(ctx);
      if (channel) await s.run(ctx, channel);
    },
  });
}

// ---------------------------------------------------------------------------------------------

export const sessionId = httpScenario({
  id: 'server.http.session-id',
  title: 'A session id, if any, comes with the InitializeResult and is visible ASCII',
  requirements: ['HTTP-SESS-01', 'HTTP-SESS-03'],
  async run(ctx, channel) {
    const { check } = ctx;
    const id = channel.sessionId;
    if (id === undefined) {
      check.note('the server issued no MCP-Session-Id with the InitializeResult (sessions are optional)');
      // A session id that first shows up on a later response has no defined meaning.
      const ping = rpc('ping');
      const res = await probe(channel, { method: 'POST', body: ping.body });
      const late = res.headers['mcp-session-id'];
      check.expect(late === undefined, {
        key: 'late',
        requirements: ['HTTP-SESS-01'],
        expected: 'a session id only on the response that carries the InitializeResult',
        actual: `MCP-Session-Id ${show(late)} first appeared on the answer to a later ping`,
      });
      return;
    }
    check.note(`the server issued a session id with the InitializeResult (${id.length} characters)`);
    const bad = invisibleSessionIdChars(id);
    check.expect(id.length > 0 && bad.length === 0, {
      key: 'visible-ascii',
      requirements: ['HTTP-SESS-03'],
      expected: 'a session id of visible ASCII characters only (0x21–0x7E)',
      actual: id.length === 0 ? 'an empty MCP-Session-Id' : `${show(id, 100)} contains ${bad.map((c) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join(', ')}`,
    });
  },
});

export const acceptedWithoutBody = scenario({
  id: 'server.http.accepted-202',
  title: 'A POSTed notification or response is answered 202 Accepted with no body',
  requirements: ['HTTP-POST-03'],
  isolation: 'session',
  // Most of its time goes on the window in which the server may send a request of its own. After
  // discovery: a session of its own must not race the run's first (a server may serve only one).
  waits: true,
  needs: { ...needs, discovery: true },
  async run(ctx) {
    const { session, check } = ctx;
    // Roots are declared so that a server which asks for them gets a response to accept.
    const channel = await initialized(ctx, { roots: { listChanged: true } }, true);
    if (!channel) return;
    const responses = recordResponsePosts(channel);
    const mark = session.mark;
    const sent = await session.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const initializedAt = performance.now();
    check.expect(sent?.status === 202 && sent.bodyKind === 'empty', {
      key: 'notification',
      expected: 'POST notifications/initialized → 202 Accepted with no body',
      actual: sent === undefined ? 'nothing was sent (the channel is closed)' : sent.error && sent.status === undefined ? sent.error : `HTTP ${sent.status}${sent.contentType ? ` (${sent.contentType})` : ''}${sent.bodyKind !== 'empty' ? ` with a body${sent.body ? `: ${show(sent.body, 120)}` : ''}` : ''}`,
    });

    // A request of the server's own (e.g. roots/list) comes on the GET stream; mcpcheck answers it.
    const get = await channel.openGetStream();
    const isServerRequest = (f: { message?: unknown }) => isObject(f.message) && typeof f.message.method === 'string' && 'id' in f.message;
    const request =
      is2xx(get.status) && mediaOf(get.contentType) === 'text/event-stream'
        ? await session.waitForFrame(isServerRequest, Math.max(0, SERVER_REQUEST_WINDOW_MS - (performance.now() - initializedAt)), mark)
        : session.peerFrames(mark).find(isServerRequest);
    if (!request) {
      check.skip(`the server sent no request of its own within ${SERVER_REQUEST_WINDOW_MS} ms of notifications/initialized, so there was no response to POST`, { key: 'response' });
      return;
    }
    const requestId = (request.message as Record<string, unknown>).id;
    const answer = await waitFor(() => responses.find((r) => r.id === requestId), 1_000);
    if (!answer) return check.error(`mcpcheck did not answer the server's ${show((request.message as Record<string, unknown>).method)} request`, { key: 'response' });
    const result = await answer.sent;
    check.expect(result.status === 202 && result.bodyKind === 'empty', {
      key: 'response',
      expected: `mcpcheck's POSTed response to the server's ${show((request.message as Record<string, unknown>).method)} request → 202 Accepted with no body`,
      actual: result.status === undefined ? (result.error ?? 'no HTTP response') : `HTTP ${result.status}${result.bodyKind !== 'empty' ? ` with a body${result.body ? `: ${show(result.body, 120)}` : ''}` : ''}`,
      frames: [request.index],
    });
  },
});

/** Notes the HTTP answer to every JSON-RPC response the session POSTs (its answers to server requests). */
function recordResponsePosts(channel: HttpChannel): Array<{ id: unknown; sent: Promise<HttpSendResult> }> {
  const posts: Array<{ id: unknown; sent: Promise<HttpSendResult> }> = [];
  const send = channel.send.bind(channel);
  channel.send = (message: unknown) => {
    const sent = send(message);
    if (isObject(message) && !('method' in message) && ('result' in message || 'error' in message)) posts.push({ id: message.id, sent });
    return sent;
  };
  return posts;
}

async function waitFor<T>(get: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined || performance.now() >= deadline) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const requestAnswers = httpScenario({
  id: 'server.http.request-answers',
  title: 'A POSTed request is answered with JSON or an SSE stream that starts with a priming event',
  requirements: ['HTTP-POST-05', 'HTTP-SSE-01'],
  async run(ctx, channel) {
    const { check, discovery } = ctx;
    const methods = ['ping', ...(['tools', 'prompts', 'resources'] as const).filter((c) => c in discovery.capabilities).map((c) => `${c}/list`)];
    let sse = 0;
    for (const method of methods) {
      const { id, body } = rpc(method, method === 'ping' ? undefined : {});
      const res = await probe(channel, { method: 'POST', body });
      const media = mediaOf(res.contentType);
      const okType = is2xx(res.status) && (media === 'application/json' || media === 'text/event-stream');
      if (!check.expect(okType, {
        key: method,
        requirements: ['HTTP-POST-05'],
        expected: `POST ${method} → 2xx with Content-Type application/json or text/event-stream`,
        actual: describeProbe(res),
      })) continue;
      if (media === 'application/json') {
        let answer: unknown;
        try {
          answer = JSON.parse(res.body);
        } catch {
          answer = undefined;
        }
        check.expect(isObject(answer) && answer.id === id && ('result' in answer || 'error' in answer), {
          key: `${method}-body`,
          requirements: ['HTTP-POST-05'],
          expected: `the JSON body is the response to the ${method} request (id ${show(id)})`,
          actual: `body ${show(res.body, 160)}`,
        });
        continue;
      }
      sse++;
      const priming = primingProblem(res.sseEvents?.[0]);
      check.expect(priming === undefined, {
        key: `${method}-priming`,
        requirements: ['HTTP-SSE-01'],
        expected: `the SSE stream answering ${method} to open with ${PRIMING_EXPECTED}`,
        actual: priming ?? '',
      });
    }
    if (sse === 0) check.skip('every request was answered with application/json; the priming event applies to SSE streams only', { key: 'priming', requirements: ['HTTP-SSE-01'] });
  },
});

export const unacceptableInput = httpScenario({
  id: 'server.http.unacceptable-input',
  title: 'A notification that is not valid JSON-RPC, or a body that is not JSON, gets an HTTP error',
  requirements: ['HTTP-POST-04'],
  async run(ctx, channel) {
    const { check } = ctx;
    const cases = [
      { key: 'bad-method', body: '{"jsonrpc":"2.0","method":42}', what: 'POST {"jsonrpc":"2.0","method":42}' },
      { key: 'invalid-json', body: '{"jsonrpc":"2.0",', what: 'POST of invalid JSON {"jsonrpc":"2.0",' },
    ];
    for (const c of cases) {
      const res = await probe(channel, { method: 'POST', body: c.body });
      if (!check.expect(res.status >= 400, { key: c.key, expected: `${c.what} → an HTTP error status (4xx, e.g. 400 Bad Request)`, actual: describeProbe(res) })) continue;
      if (res.status >= 500) {
        check.expect(false, {
          key: `${c.key}-5xx`,
          requirements: ['ROBUST-05'],
          expected: `${c.what}: a 4xx client error (a 5xx is an error status, as HTTP-POST-04 asks, but suggests the server failed on the input)`,
          actual: describeProbe(res),
        });
      }
      checkErrorBody(check, res, `${c.key}-body`, ['HTTP-POST-04'], c.what);
    }
  },
});

export const sessionRequired = httpScenario({
  id: 'server.http.session-required',
  title: 'A server that requires a session answers requests without its id with 400',
  requirements: ['HTTP-SESS-05'],
  async run(ctx, channel) {
    const { check, discovery } = ctx;
    if (channel.sessionId === undefined) return check.skip('the server issued no MCP-Session-Id at initialize, so it does not require a session (HTTP-SESS-05 covers servers that require one)');
    const method = 'tools' in discovery.capabilities ? 'tools/list' : 'ping';
    const { served, res } = await servedWithoutSession(channel, method);
    if (served) {
      return check.skip(`not judged: POST ${method} without MCP-Session-Id was served (${describeProbe(res)}), so the server does not require a session (it issued one at initialize, which sessions allow but do not oblige); HTTP-SESS-05 covers servers that require one`);
    }
    check.expect(res.status === 400, {
      expected: `POST ${method} without MCP-Session-Id → 400 Bad Request (the server issued a session id at initialize and did not serve the request without it)`,
      actual: describeProbe(res),
    });
  },
});

export const sessionEnded = httpScenario({
  id: 'server.http.session-ended',
  title: 'DELETE ends a session (or is refused with 405); an ended or unknown session id gets 404',
  requirements: ['HTTP-SESS-06', 'HTTP-SESS-09'],
  async run(ctx, channel) {
    const { check } = ctx;
    const issued = channel.sessionId;
    if (issued === undefined) return check.skip('the server issued no session id, so there is no session to end');
    const unknown = `mcpcheck-${randomUUID()}`;
    const { id: pingId, body: pingBody } = rpc('ping');
    const res = await probe(channel, { method: 'POST', body: pingBody, sessionIdOverride: unknown });
    const servedUnknown = is2xx(res.status) && responseIn(res, pingId) !== undefined;
    const bare = servedUnknown ? await servedWithoutSession(channel, 'ping') : undefined;
    if (bare?.served) {
      // The ruling treats a never-issued id as an ended session; a server that needs no session
      // serves a request whatever id it carries, as it serves one with none.
      check.skip(
        `not judged: POST ping with MCP-Session-Id ${unknown}, an id the server never issued, was served (${describeProbe(res)}), and so was a ping without any session id (${describeProbe(bare.res)}): the server does not require a session, so an id it does not know is no ended session (${ruling('session-never-issued').cite})`,
        { key: 'unknown-id', requirements: ['HTTP-SESS-06'] },
      );
    } else {
      check.expect(res.status === 404, {
        key: 'unknown-id',
        requirements: ['HTTP-SESS-06'],
        // The spec's letter covers ended sessions only: the never-issued id is the ruling's, hence SHOULD.
        level: 'SHOULD',
        expected: `POST ping with MCP-Session-Id ${unknown}, an id the server never issued → 404 Not Found (the spec requires 404 for sessions the server ended; a never-issued id is treated the same at SHOULD level, ${ruling('session-never-issued').cite})`,
        actual: describeProbe(res),
      });
    }

    const del = await channel.deleteSession(HEADERS_MS);
    const refused = del.status === 405;
    if (!check.expect(is2xx(del.status) || refused, {
      key: 'delete',
      requirements: ['HTTP-SESS-09'],
      expected: 'DELETE with the session id → 2xx (session ended) or 405 Method Not Allowed (the server does not let clients end sessions)',
      actual: del.status === undefined ? (del.error ?? 'no HTTP response') : `HTTP ${del.status}${del.body ? `: ${show(del.body, 120)}` : ''}`,
    }) || refused) {
      if (refused) check.skip('the server refuses DELETE with 405, so reuse of an ended session cannot be tested', { key: 'reuse', requirements: ['HTTP-SESS-06'] });
      return;
    }
    const again = await probe(channel, { method: 'POST', body: rpc('ping').body });
    check.expect(again.status === 404, {
      key: 'reuse',
      requirements: ['HTTP-SESS-06'],
      expected: 'POST ping with the session id of a session the server ended (DELETE accepted) → 404 Not Found',
      actual: describeProbe(again),
    });
  },
});

export const badVersionHeader = httpScenario({
  id: 'server.http.bad-version-header',
  title: 'An invalid or unsupported MCP-Protocol-Version header gets 400',
  requirements: ['HTTP-VER-04'],
  async run(ctx, channel) {
    const { check } = ctx;
    for (const [key, value] of [['unsupported', '1999-01-01'], ['invalid', 'garbage']] as const) {
      const res = await probe(channel, { method: 'POST', body: rpc('ping').body, headers: { 'MCP-Protocol-Version': value } });
      check.expect(res.status === 400, {
        key,
        expected: `POST ping in an initialized session with MCP-Protocol-Version: ${value} → 400 Bad Request`,
        actual: describeProbe(res),
      });
    }
  },
});

/**
 * What a present but invalid Origin must get in a session of `revision`. "MUST validate the Origin
 * header" holds in every revision; that the refusal is 403 Forbidden (and its body, if JSON, an
 * error without id) is a clause added in 2025-11-25: before it, any refusal meets the rule.
 */
function originRefusal(revision: Revision): { ok: (status: number) => boolean; what: string; forbidden: boolean } {
  const since = clauseSince('HTTP-ORIGIN-01', '403');
  if (revisionAtLeast(revision, since)) return { ok: (status) => status === 403, what: '403 Forbidden', forbidden: true };
  return { ok: is4xx, what: `a 4xx refusal (any: this session negotiated ${revision}, and 403 Forbidden is asked from ${since} on)`, forbidden: false };
}

export const originValidated = scenario({
  id: 'server.http.origin',
  title: 'A POST, GET or DELETE with a foreign Origin, or Origin: null, is refused (with 403 Forbidden from 2025-11-25 on)',
  requirements: ['HTTP-ORIGIN-01'],
  isolation: 'session',
  needs,
  async run(ctx) {
    const { check, options } = ctx;
    const origin = options.originProbe;
    const configurable = `which origins are valid is the server's choice: if ${origin} is meant to be allowed, rerun with --origin-probe set to an origin the server refuses (${ruling('origin-probe-configurable').cite})`;
    const init = JSON.stringify({ jsonrpc: '2.0', id: `mcpcheck-http-origin-${randomUUID()}`, method: 'initialize', params: { protocolVersion: LATEST_REVISION, capabilities: {}, clientInfo: { name: 'mcpcheck', version: '0.1.0' } } });
    const probeChannel = ctx.session.channel;
    if (probeChannel.kind !== 'http') return check.error('needs the http transport');
    // The probe goes before the session's own initialize, so that a server holding one session at
    // a time cannot refuse it for being a second session.
    const res = await probe(probeChannel, { method: 'POST', body: init, headers: { Origin: origin }, omitSessionId: true, omitProtocolVersion: true });
    const accepted = res.headers['mcp-session-id'];
    // A session the server opened for the probe is closed again.
    if (is2xx(res.status) && accepted !== undefined) await probe(probeChannel, { method: 'DELETE', sessionIdOverride: accepted, omitProtocolVersion: true });

    // Judged once the session has negotiated the revision the probe asked for too. The scenario
    // applies to every revision and judges by it per check (any refusal, or 403 from 2025-11-25).
    // Without a session (initialized() recorded why) there is no revision to judge the probe by.
    const channel = await initialized(ctx);
    if (!channel) return;
    const refusal = originRefusal(ctx.session.revision);
    const refused = check.expect(refusal.ok(res.status), {
      key: 'initialize',
      expected: `POST initialize with Origin: ${origin} → ${refusal.what} (${configurable})`,
      actual: describeProbe(res),
    });
    if (refused && refusal.forbidden) checkErrorBody(check, res, 'initialize-body', ['HTTP-ORIGIN-01'], `403 to initialize with Origin: ${origin}`);

    const ping = await probe(channel, { method: 'POST', body: rpc('ping').body, headers: { Origin: origin } });
    check.expect(refusal.ok(ping.status), {
      key: 'in-session',
      expected: `POST ping in an initialized session with Origin: ${origin} → ${refusal.what} (${configurable})`,
      actual: describeProbe(ping),
    });
    // Every incoming connection, not only POST. `null` is what browsers send from sandboxed frames
    // and file: pages: it names no site, so no allow-list can make it valid. DELETE goes last: a
    // server that wrongly accepts it has ended the session.
    const others = [
      { key: 'get', method: 'GET', value: origin, readMs: GET_WINDOW_MS },
      { key: 'null-origin', method: 'POST', value: 'null', body: rpc('ping').body },
      { key: 'delete', method: 'DELETE', value: origin },
    ];
    for (const o of others) {
      const res = await probe(channel, { method: o.method, headers: { Origin: o.value }, ...(o.body ? { body: o.body } : {}), ...(o.readMs ? { readMs: o.readMs } : {}) });
      // A method the endpoint does not serve at all is refused whatever the Origin: nothing to judge.
      if (o.method !== 'POST' && (res.status === 405 || res.status === 404)) {
        check.skip(`not judged: ${o.method} with Origin: ${o.value} got ${describeProbe(res)}; the server does not serve ${o.method}, so the Origin made no difference`, { key: o.key });
        continue;
      }
      check.expect(refusal.ok(res.status), {
        key: o.key,
        expected: `${o.method}${o.body ? ' ping' : ''} in an initialized session with Origin: ${o.value} → ${refusal.what}${o.value === 'null' ? ' (the opaque origin of sandboxed or file: documents can never be a valid one)' : ` (${configurable})`}`,
        actual: describeProbe(res),
      });
    }
  },
});

export const getStream = httpScenario({
  id: 'server.http.get-stream',
  title: 'GET on the MCP endpoint opens an SSE stream or gets 405, and that stream carries no responses',
  requirements: ['HTTP-GET-02', 'HTTP-EP-01', 'HTTP-GET-04'],
  async run(ctx, channel) {
    const { session, check } = ctx;
    const mark = session.mark;
    const get = await channel.openGetStream();
    const media = mediaOf(get.contentType);
    const sse = is2xx(get.status) && media === 'text/event-stream';
    const got = get.status === undefined ? (get.error ?? 'no HTTP response') : `HTTP ${get.status}${get.contentType ? ` (${get.contentType})` : ''}${get.body ? `: ${show(get.body, 120)}` : ''}`;
    check.expect(get.status !== 404 && get.status !== undefined, {
      key: 'endpoint',
      requirements: ['HTTP-EP-01'],
      expected: 'the MCP endpoint that answers POST also handles GET (an SSE stream or 405), never 404',
      actual: got,
    });
    check.expect(sse || get.status === 405, {
      key: 'sse-or-405',
      requirements: ['HTTP-GET-02'],
      expected: 'GET with Accept: text/event-stream and the session id → 200 with Content-Type text/event-stream, or 405 Method Not Allowed',
      actual: got,
    });
    if (!sse) return check.skip('no GET stream was opened, so nothing could be watched on it', { key: 'no-responses', requirements: ['HTTP-GET-04'] });

    // Requests on POST while the stream is open: their responses belong on the POST answers only.
    const replies = await Promise.all([session.request('ping', undefined, HEADERS_MS), session.request('ping', undefined, HEADERS_MS)]);
    await session.settle(GET_WINDOW_MS);
    const onGet = session.peerFrames(mark).filter((f) => f.via === 'get-sse' && responseOnGetStream(f.message, false));
    check.expect(onGet.length === 0, {
      key: 'no-responses',
      requirements: ['HTTP-GET-04'],
      expected: `no JSON-RPC response on a fresh GET stream (no Last-Event-ID) while two pings were answered on their POSTs (${replies.map(describeReply).join('; ')})`,
      actual: `${onGet.length} response frame(s) on the GET stream`,
      frames: [...onGet.map((f) => f.index), ...replies.map(replyFrame)],
    });
  },
});

export const unacceptableMediaTypes = httpScenario({
  id: 'server.http.media-types-enforced',
  title: 'A POST whose body is not labelled JSON is refused with a 4xx',
  requirements: ['ROBUST-06'],
  // Only the Content-Type half: the Accept rule binds the client, and RFC 9110 lets a server
  // disregard Accept, so serving a request whose Accept lacks a type is no finding.
  async run(ctx, channel) {
    const res = await probe(channel, { method: 'POST', body: rpc('ping').body, headers: { 'Content-Type': 'text/plain' } });
    ctx.check.expect(is4xx(res.status), {
      // The key the check had beside the Accept half, so its id stays what baselines name.
      key: 'content-type',
      expected: 'POST ping with Content-Type: text/plain → a 4xx refusal (SDKs use 415)',
      actual: describeProbe(res),
    });
  },
});

// accepted-202 goes first: it waits longest (for a request of the server's own), so it overlaps the rest.
const SESSION_SAMPLE = 20;

/** What makes ids guessable from the ids already seen (SEC-SESS-02's "non-deterministic"): a repeat, or counting up. */
function sessionIdPattern(ids: string[]): string | undefined {
  if (new Set(ids).size !== ids.length) return 'the same id was issued twice';
  const numbers = ids.map((id) => id.match(/\d+/g)?.join('') ?? '');
  if (numbers.every((n) => n !== '' && n.length < 16)) {
    // In order of value: sessions opened at once may get their answers in another order than their ids.
    const values = numbers.map(Number).sort((a, b) => a - b);
    const steps = values.slice(1).map((v, i) => v - values[i]!);
    if (steps.every((d) => d > 0 && d < 1_000_000)) return 'the ids count up (sequential or time-ordered)';
  }
  return undefined;
}

/** Heuristics for "globally unique and cryptographically secure" (HTTP-SESS-02): what a sample can show. */
function sessionIdWeakness(ids: string[]): string | undefined {
  const pattern = sessionIdPattern(ids);
  if (pattern) return pattern;
  const shortest = Math.min(...ids.map((id) => id.length));
  // A random UUID has 122 random bits in 32 hex digits; fewer than 22 characters cannot hold that many.
  if (shortest < 22) return `an id only ${shortest} characters long cannot carry ~122 random bits`;
  const prefix = ids.reduce((p, id) => { let n = 0; while (n < p.length && p[n] === id[n]) n++; return p.slice(0, n); }, ids[0]!);
  if (ids[0]!.length - prefix.length < 16) return `all ids share the prefix ${show(prefix)} and differ only in their last ${ids[0]!.length - prefix.length} characters`;
  return undefined;
}

const SESSION_ID_CHECKS = [
  { key: 'random', requirements: ['HTTP-SESS-02'] },
  { key: 'not-predictable', requirements: ['SEC-SESS-02'] },
] as const satisfies ReadonlyArray<{ key: string; requirements: RequirementId[] }>;

/**
 * Until the rest of the run is done, within half the scenario's budget: the sessions the run opens
 * meanwhile are a sample of the server's ids that costs it no session more.
 */
function whileTheRunLasts(ctx: ScenarioContext): Promise<void> {
  return settledWithin(ctx.restOfRun, Math.max(0, ctx.timeLeft() / 2));
}

export const sessionIdsUnguessable = httpScenario({
  id: 'server.http.session-ids-unguessable',
  title: 'Session ids are unique, look cryptographically random, and cannot be predicted from earlier ones',
  requirements: ['HTTP-SESS-02', 'SEC-SESS-02'],
  waits: true,
  lingers: true,
  async run(ctx, channel) {
    if (channel.sessionId === undefined) return ctx.check.skipEach('the server issues no session ids', SESSION_ID_CHECKS);
    await whileTheRunLasts(ctx);
    // The ids the run's sessions got (this one's among them), in the order they came.
    const issued = [...(ctx.target.issuedSessionIds?.() ?? [channel.sessionId])];
    // Whatever the sample still lacks comes from sessions opened for it alone, at once.
    const bodies = Array.from({ length: Math.max(0, SESSION_SAMPLE + 1 - issued.length) }, () => JSON.stringify({ jsonrpc: '2.0', id: `mcpcheck-http-sess-${randomUUID()}`, method: 'initialize', params: { protocolVersion: LATEST_REVISION, capabilities: {}, clientInfo: { name: 'mcpcheck', version: '0.1.0' } } }));
    const answers = await Promise.all(bodies.map((body) => probe(channel, { method: 'POST', body, omitSessionId: true, omitProtocolVersion: true })));
    const opened = answers.map((a) => a.headers['mcp-session-id']).filter((v): v is string => v !== undefined);
    // Sessions opened only to sample their ids are ended again.
    await Promise.all(opened.map((id) => probe(channel, { method: 'DELETE', sessionIdOverride: id })));
    const ids = [...issued, ...opened];
    const asked = issued.length + bodies.length;
    if (ids.length < SESSION_SAMPLE) return ctx.check.skipEach(`only ${ids.length} of ${asked} initialize requests got a session id; too few to judge`, SESSION_ID_CHECKS);
    const sample = `e.g. ${ids.slice(0, 3).map((id) => show(id, 60)).join(', ')}`;
    const from = `${ids.length} session ids (${issued.length} the run's sessions got${opened.length > 0 ? `, ${opened.length} from initialize requests sent at once for the sample` : ''})`;
    const weakness = sessionIdWeakness(ids);
    ctx.check.expect(weakness === undefined, {
      ...SESSION_ID_CHECKS[0],
      expected: `${from}, distinct and random-looking (no shared structure, no counting, ≥ 122 bits' worth of characters)`,
      actual: `${weakness}; ${sample}`,
    });
    const pattern = sessionIdPattern(ids);
    ctx.check.expect(pattern === undefined, {
      ...SESSION_ID_CHECKS[1],
      expected: `${from}, none of which follows from the others (no repeat, no counting up): a session id is what a hijacker would guess`,
      actual: `${pattern}; ${sample}`,
    });
  },
});

export const http = [acceptedWithoutBody, sessionIdsUnguessable, sessionId, requestAnswers, unacceptableInput, sessionRequired, sessionEnded, badVersionHeader, originValidated, getStream, unacceptableMediaTypes];

