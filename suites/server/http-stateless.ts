import { type ClientSession, MODERN, MODERN_HEADERS, modernRequestHeaders, type ProbeRequest, type ProbeResponse, ruling, scenario, show, type SseEvent } from '../kit.js';
import { findSlowTool } from './helpers.js';
import { checkErrorBody, describeProbe, is2xx, probe } from './http.js';

// The initialize era's Streamable HTTP probes as 2026-07-28 asks them (streamable-http.mdx of
// 2026-07-28): each POST a modern message with its headers, no session, no initialize first.
// Every exchange is raw, so a probe the server wrongly accepts leaves the run's traffic alone.

const needs = { transport: 'http' } as const;
/** How long a request's stream may stay open after its response before it counts as not ended (HTTP-SSE-05's "~1 s"). */
const ENDS_WITHIN_MS = 1_000;
/** The slow tool's duration: long enough to answer on an SSE stream with progress, short enough to cost little. */
const SLOW_TARGET_MS = 300;
const SLOW_MAX_MS = 4_000;

/**
 * POSTs `message` as a conforming 2026-07-28 client would (MCP-Protocol-Version, and Mcp-Method and
 * Mcp-Name from the body when it is a request), with `headers` laid over them.
 */
function postModern(session: ClientSession, message: Record<string, unknown>, headers: Record<string, string> = {}, more: Partial<ProbeRequest> = {}): Promise<ProbeResponse> {
  if (session.channel.kind !== 'http') throw new Error('postModern needs the http transport');
  return probe(session.channel, {
    method: 'POST',
    body: JSON.stringify(message),
    omitProtocolVersion: true,
    omitSessionId: true,
    ...more,
    headers: { [MODERN_HEADERS.protocolVersion]: session.speaks, ...modernRequestHeaders(message), ...headers },
  });
}

/** HTTP-POST-08 (replaces HTTP-POST-03): a notification the server accepts gets 202 and no body. */
export const notificationAccepted = scenario({
  id: 'server.modern.http.notification-accepted',
  title: 'A POSTed notification that the server accepts gets 202 Accepted with no body',
  requirements: ['HTTP-POST-08'],
  isolation: 'shared',
  revisions: MODERN,
  needs,
  async run({ session, check }) {
    // The catalog's probe: a cancellation of a request never sent, which a server ignores (CANCEL-08).
    const message = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'mcpcheck-never-sent', reason: 'mcpcheck: HTTP-POST-08 probe' } };
    const res = await postModern(session, message, { [MODERN_HEADERS.method]: 'notifications/cancelled' });
    if (res.status === 0) return check.error(`could not judge: POST notifications/cancelled got ${describeProbe(res)}`);
    // A notification it cannot accept gets an error status (HTTP-POST-09): then nothing was accepted to judge here.
    if (res.status >= 400) return check.skip(`not exercised: POST notifications/cancelled was not accepted (${describeProbe(res)}), which HTTP-POST-09 allows for a notification a server cannot accept`);
    check.expect(res.status === 202 && res.body === '', {
      expected: 'POST notifications/cancelled (for a request never sent) → 202 Accepted with no body',
      actual: describeProbe(res),
    });
  },
});

/**
 * HTTP-POST-09: clients never send JSON-RPC responses at 2026-07-28 (input travels in a retry's
 * inputResponses), so a POSTed response is input the server cannot accept: an HTTP error status.
 * The body is left alone: the rule only allows an id-less JSON-RPC error there (MAY), and an error
 * echoing the response's id, as JSON-RPC libraries answer, breaks nothing it requires.
 */
export const responseRefused = scenario({
  id: 'server.modern.http.response-refused',
  title: 'A POSTed JSON-RPC response, which no 2026-07-28 client sends, is refused with an HTTP error status',
  requirements: ['HTTP-POST-09'],
  isolation: 'shared',
  revisions: MODERN,
  needs,
  async run({ session, check }) {
    const what = 'POST of a JSON-RPC response (id "mcpcheck-never-asked", result {})';
    const res = await postModern(session, { jsonrpc: '2.0', id: 'mcpcheck-never-asked', result: {} });
    if (res.status === 0) return check.error(`could not judge: ${what} got ${describeProbe(res)}`);
    check.expect(res.status >= 400, { expected: `${what} → an HTTP error status such as 400 (a response is input a 2026-07-28 server cannot accept)`, actual: describeProbe(res) });
  },
});

/** HTTP-ORIGIN-01 in 2026-07-28: a present but invalid Origin gets 403, on any request. */
export const originRefused = scenario({
  id: 'server.modern.http.origin',
  title: 'A POST with a foreign Origin, or Origin: null, is refused with 403 Forbidden',
  requirements: ['HTTP-ORIGIN-01'],
  isolation: 'shared',
  revisions: MODERN,
  needs,
  async run({ session, check, options }) {
    const origin = options.originProbe;
    const configurable = `which origins are valid is the server's choice: if ${origin} is meant to be allowed, rerun with --origin-probe set to an origin the server refuses (${ruling('origin-probe-configurable').cite})`;
    // `null` is what browsers send from sandboxed frames and file: pages: no allow-list can make it valid.
    const probes = [
      { key: 'foreign', value: origin, why: configurable },
      { key: 'null-origin', value: 'null', why: 'the opaque origin of sandboxed or file: documents can never be a valid one' },
    ];
    for (const p of probes) {
      const res = await postModern(session, session.compose(`mcpcheck-origin-${p.key}`, 'server/discover'), { Origin: p.value });
      if (res.status === 0) {
        check.error(`could not judge: POST server/discover with Origin: ${p.value} got ${describeProbe(res)}`, { key: p.key });
        continue;
      }
      const refused = check.expect(res.status === 403, { key: p.key, expected: `POST server/discover with Origin: ${p.value} → 403 Forbidden (${p.why})`, actual: describeProbe(res) });
      if (refused) checkErrorBody(check, res, `${p.key}-body`, ['HTTP-ORIGIN-01'], `403 to server/discover with Origin: ${p.value}`);
    }
  },
});

function responseTo(e: SseEvent, id: string): boolean {
  try {
    const m: unknown = JSON.parse(e.data);
    return typeof m === 'object' && m !== null && !('method' in m) && (m as Record<string, unknown>).id === id;
  } catch {
    return false;
  }
}

/**
 * HTTP-SSE-05: the SSE stream of a request ends with its response. A slow tool called with a
 * progress token is what makes a server answer on a stream; a server that answers it with JSON
 * opened no stream to judge.
 */
export const streamEnds = scenario({
  id: 'server.modern.http.stream-ends',
  title: "A request's SSE stream carries its response once and ends after it",
  requirements: ['HTTP-SSE-05'],
  isolation: 'shared',
  revisions: MODERN,
  waits: true,
  needs: { ...needs, capabilities: ['tools'] },
  async run({ session, check, discovery, options }) {
    const slow = findSlowTool(discovery.tools, options.callTools, SLOW_TARGET_MS);
    if (!slow || slow.estimateMs > SLOW_MAX_MS) {
      return check.skip(`not exercised: no permitted slow tool under --call-tools ${options.callTools.mode} (looked for a tool named or described as slow/long/sleep/delay/wait/progress with a duration-like argument), so no request could be made to answer on an SSE stream`);
    }
    const id = `mcpcheck-stream-${session.allocateId()}`;
    const what = `tools/call ${show(slow.plan.name)} ${show(slow.args, 60)} with a progressToken`;
    const message = session.compose(id, 'tools/call', { name: slow.plan.name, arguments: slow.args, _meta: { progressToken: id } });
    const res = await postModern(session, message, {}, { readMs: slow.estimateMs + session.answerMs(2_000), endsWithin: { when: (e) => responseTo(e, id), ms: ENDS_WITHIN_MS } });
    if (res.status === 0) return check.error(`could not judge: ${what} got ${describeProbe(res)}`);
    if (!is2xx(res.status) || !res.sseEvents) return check.skip(`not exercised: ${what} was answered ${describeProbe(res)}, not on an SSE stream`);
    const answers = res.sseEvents.filter((e) => responseTo(e, id)).length;
    check.expect(answers === 1 && !res.incomplete, {
      expected: `${what}: its SSE stream carries the response once and ends within ${ENDS_WITHIN_MS} ms after it`,
      actual: answers !== 1 ? `${answers} response(s) to id ${show(id)} on the stream (${res.sseEvents.length} event(s))` : `the stream stayed open for ${ENDS_WITHIN_MS} ms or more after the response`,
    });
  },
});

/** ROBUST-06 in 2026-07-28: only the Content-Type half (RFC 9110 lets a server disregard Accept). */
export const mediaTypesEnforced = scenario({
  id: 'server.modern.http.media-types-enforced',
  title: 'A POST whose body is not labelled JSON is refused with a 4xx',
  requirements: ['ROBUST-06'],
  isolation: 'shared',
  revisions: MODERN,
  needs,
  async run({ session, check }) {
    const res = await postModern(session, session.compose('mcpcheck-media-type', 'server/discover'), { 'Content-Type': 'text/plain' });
    if (res.status === 0) return check.error(`could not judge: POST server/discover with Content-Type: text/plain got ${describeProbe(res)}`, { key: 'content-type' });
    // The key the initialize era's check has, so that baselines name both alike.
    check.expect(res.status >= 400 && res.status < 500, { key: 'content-type', expected: 'POST server/discover with Content-Type: text/plain → a 4xx refusal (SDKs use 415)', actual: describeProbe(res) });
  },
});

export const httpStateless = [notificationAccepted, responseRefused, originRefused, streamEnds, mediaTypesEnforced];
