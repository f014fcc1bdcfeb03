import { type ClientScenario, clientScenario, isObject, META, MODERN, MODERN_ERRORS, type RecordedFrame, show, waitUntil } from '../kit.js';
import { callOf, requestsSince, WAIT_MS } from './helpers.js';
import { firstRequest, initializeOrExit } from './modern-helpers.js';

function metaOf(frame: RecordedFrame): Record<string, unknown> | undefined {
  const params = isObject(frame.message) && isObject(frame.message.params) ? frame.message.params : undefined;
  return params && isObject(params._meta) ? params._meta : undefined;
}

function methodOf(frame: RecordedFrame): string {
  return isObject(frame.message) ? String(frame.message.method) : '?';
}

export const clientRequestMeta = clientScenario({
  id: 'client.modern.request-meta',
  title: "Every request carries its protocol version and client capabilities (and SHOULD its clientInfo) in params._meta",
  requirements: ['META-REQ-01', 'META-REQ-02'],
  revisions: MODERN,
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { text: 'meta' } }],
  async run({ session, check }) {
    if (!(await firstRequest(session))) return check.skip(`the client sent no request within ${WAIT_MS} ms`);
    await session.waitForMethod('tools/call', WAIT_MS);
    const requests = requestsSince(session, 0);
    const lacking = requests.filter((f) => typeof metaOf(f)?.[META.protocolVersion] !== 'string' || !isObject(metaOf(f)?.[META.clientCapabilities]));
    check.expect(lacking.length === 0, {
      key: 'required',
      requirements: ['META-REQ-01'],
      expected: `params._meta with ${META.protocolVersion} (a string) and ${META.clientCapabilities} (an object) on every request`,
      actual: lacking.length ? lacking.map((f) => `${methodOf(f)} with _meta ${show(metaOf(f))}`).join('; ') : `all ${requests.length} requests had both`,
      frames: (lacking.length ? lacking : requests).map((f) => f.index),
    });
    const anonymous = requests.filter((f) => !isObject(metaOf(f)?.[META.clientInfo]));
    check.expect(anonymous.length === 0, {
      key: 'client-info',
      requirements: ['META-REQ-02'],
      expected: `${META.clientInfo} on every request`,
      actual: anonymous.length ? `${anonymous.map(methodOf).join(', ')} without it` : 'present on all',
      frames: (anonymous.length ? anonymous : requests).map((f) => f.index),
    });
  },
});

export const clientRetriesAfterUnsupportedVersion = clientScenario({
  id: 'client.modern.unsupported-version',
  title: 'After −32022 (UnsupportedProtocolVersion) the client retries with a version from data.supported and does not fall back to initialize',
  requirements: ['VER-NEG-02', 'VER-BC-03'],
  revisions: MODERN,
  steps: [{ do: 'list-tools' }],
  serve(session) {
    const serve = session.serveModern!;
    let refused = false;
    session.serveModern = async (request, next) => {
      if (refused) return serve(request, next);
      refused = true;
      const meta = isObject(request.params) && isObject(request.params._meta) ? request.params._meta : {};
      return { error: { code: MODERN_ERRORS.unsupportedProtocolVersion, message: 'mcpcheck turns the first request down to see the retry', data: { supported: [...session.modernVersions], requested: meta[META.protocolVersion] } } };
    };
  },
  async run({ session, check }) {
    const first = await firstRequest(session);
    if (!first) return check.skip(`the client sent no request within ${WAIT_MS} ms`);
    if (methodOf(first) === 'initialize') return check.skip('the client opened with initialize, so mcpcheck could not answer a modern request with −32022');
    const next = await session.waitForFrame((f) => f.index > first.index && isObject(f.message) && 'id' in f.message && typeof f.message.method === 'string', WAIT_MS);
    if (!next) return check.skip(`the client sent nothing after the −32022 within ${WAIT_MS} ms (it may have reported that no common version exists)`);
    const version = metaOf(next)?.[META.protocolVersion];
    const initialize = methodOf(next) === 'initialize';
    check.expect(!initialize, {
      key: 'no-fallback',
      requirements: ['VER-BC-03'],
      expected: 'no initialize after a recognised modern error (−32022 marks the server as modern)',
      actual: initialize ? 'the next request was initialize' : `the next request was ${methodOf(next)}`,
      frames: [first.index, next.index],
    });
    if (initialize) return;
    check.expect(session.modernVersions.includes(version as string), {
      key: 'listed-version',
      requirements: ['VER-NEG-02'],
      expected: `the retry with a version from data.supported (${session.modernVersions.join(', ')})`,
      actual: `${methodOf(next)} with protocolVersion ${show(version)}`,
      frames: [next.index],
    });
  },
});

export const clientFallsBackToInitialize = clientScenario({
  id: 'client.modern.legacy-fallback',
  title: 'A dual-era client whose modern request an initialize-era server turns down (HTTP: 400 with an empty body; stdio: an error that is no modern one) falls back to initialize',
  requirements: ['HTTP-BC-03', 'STDIO-BC-02'],
  revisions: MODERN,
  steps: [{ do: 'list-tools' }],
  serve(session) {
    session.serves = 'stateful';
    if (session.channel.policy) session.channel.policy.eras = 'stateful';
  },
  async run(ctx) {
    const { session, check, exchanges, transport } = ctx;
    // The rule of the switch on this transport: over HTTP the 400 is refused before it is read, so only the exchange shows it.
    const requirements = transport === 'http' ? (['HTTP-BC-03'] as const) : (['STDIO-BC-02'] as const);
    const first = transport === 'stdio' ? await firstRequest(session) : undefined;
    const probed = transport === 'http' ? await waitUntil(() => exchanges.some((e) => e.modern), WAIT_MS) : first !== undefined && methodOf(first) !== 'initialize';
    if (!probed) return check.skip('the client sent no modern request that mcpcheck could turn down as an initialize-era server', { requirements: [...requirements] });
    const init = await initializeOrExit(ctx);
    // A modern-only client cannot fall back: these rules bind dual-era clients, which cannot be told apart on the wire.
    if (!init) return check.skip(`no initialize within ${WAIT_MS} ms after the refusal: the client may support 2026-07-28 only (${requirements[0]} binds dual-era clients)`, { requirements: [...requirements] });
    check.expect(true, { requirements: [...requirements], expected: 'initialize after the refusal of its modern request', actual: 'initialize', frames: [init.index] });
  },
});

export const clientTakesUntypedResultAsComplete = clientScenario({
  id: 'client.modern.result-without-type',
  title: 'A result without resultType (from an older server) is taken as complete: the client uses the listed tools and the call result normally',
  requirements: ['BASE-RES-05'],
  revisions: MODERN,
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'add_numbers', arguments: { a: 2, b: 3 } }, { do: 'call-tool', name: 'echo', arguments: { text: 'next' } }],
  serve(session) {
    const serve = session.serveModern!;
    // undefined drops the member from the JSON: the result goes without resultType, as an older server's would.
    session.serveModern = async (request, next) => {
      const outcome = await serve(request, next);
      return 'result' in outcome && request.method !== 'server/discover' ? { result: { ...outcome.result, resultType: undefined } } : outcome;
    };
  },
  async run({ session, check }) {
    const add = await session.waitForFrame(callOf('add_numbers'), WAIT_MS);
    if (!add) return check.skip('the client never called add_numbers after the untyped tools/list');
    const echo = await session.waitForFrame((f) => f.index > add.index && methodOf(f) === 'tools/call', WAIT_MS);
    if (!echo) return check.skip('the client sent no call after the untyped result of add_numbers');
    const params = isObject(echo.message) && isObject(echo.message.params) ? echo.message.params : {};
    const retried = 'requestState' in params || 'inputResponses' in params || params.name === 'add_numbers';
    check.expect(!retried, {
      expected: 'the next step (a call of echo) after the untyped result, not a retry of add_numbers',
      actual: `a tools/call with params ${show(params)}`,
      frames: [add.index, echo.index],
    });
  },
});

export const clientRefusesUnknownResultType = clientScenario({
  id: 'client.modern.result.unknown-type',
  title: 'A result whose resultType the client does not recognise is invalid, not a success: the client does not repeat the request in a storm',
  requirements: ['BASE-RES-06'],
  revisions: MODERN,
  steps: [{ do: 'call-tool', name: 'echo', arguments: { text: 'unknown' } }, { do: 'list-tools' }],
  serve(session) {
    const call = session.handler('tools/call');
    // A valid CallToolResult body under a resultType neither core nor of an extension (mcpcheck advertises none).
    session.handle('tools/call', async (params, request) => {
      const outcome = await call(params, request);
      return params.name === 'echo' && 'result' in outcome ? { result: { ...outcome.result, resultType: 'mcpcheck_unknown' } } : outcome;
    });
  },
  async run(ctx) {
    const { session, check } = ctx;
    const echoes = () => session.requestsFor('tools/call').filter(callOf('echo'));
    const first = await session.waitForFrame(() => echoes().length > 0, WAIT_MS);
    if (!first) return check.skip('the client never called echo');
    // Its next step (tools/list), its exit, or WAIT_MS: by then a storm has shown.
    await Promise.race([session.waitForMethod('tools/list', WAIT_MS, first.index), ctx.exited(WAIT_MS)]);
    const calls = echoes();
    if (calls.length <= 2) return check.skip(`not observable: the client called echo ${calls.length === 1 ? 'once' : 'twice'} and did not repeat it further; whether it surfaced an error or handed the result on as a success cannot be told on the wire`);
    check.expect(false, { expected: 'no retry storm on a result of unknown resultType (at most 2 calls), which is invalid, not a success', actual: `${calls.length} calls of echo`, frames: calls.map((f) => f.index) });
  },
});

export const clientListens = clientScenario({
  id: 'client.modern.listen',
  title: 'A subscriptions/listen request carries a notification filter as the schema defines it',
  requirements: ['SUBS-REQ-01'],
  revisions: MODERN,
  steps: [{ do: 'listen', ms: 300 }],
  async run({ session, check }) {
    const listen = await session.waitForMethod('subscriptions/listen', WAIT_MS);
    if (!listen) return check.skip('the client opened no subscription (it was asked to listen for tools list changes)');
    const params = isObject(listen.message) && isObject(listen.message.params) ? listen.message.params : {};
    const filter = params.notifications;
    const booleans = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'];
    const wrong = !isObject(filter)
      ? ['notifications is not an object']
      : [
          ...booleans.filter((k) => k in filter && typeof filter[k] !== 'boolean').map((k) => `${k} is not a boolean`),
          ...('resourceSubscriptions' in filter && !(Array.isArray(filter.resourceSubscriptions) && filter.resourceSubscriptions.every((u) => typeof u === 'string')) ? ['resourceSubscriptions is not an array of URI strings'] : []),
        ];
    check.expect(wrong.length === 0, { expected: 'params.notifications: optional booleans and an optional array of URI strings', actual: wrong.length ? `${wrong.join('; ')}: ${show(filter)}` : show(filter), frames: [listen.index] });
  },
});

export const clientIgnoresSseComments = clientScenario({
  id: 'client.modern.sse-comments',
  title: 'The client ignores SSE comment lines (keep-alives) on a subscription stream and reads the events around them',
  requirements: ['HTTP-SSE-13'],
  revisions: MODERN,
  needs: { transport: 'http' },
  steps: [{ do: 'listen', ms: 300 }, { do: 'list-tools' }],
  serve(session) {
    // Every SSE stream opens with `:` and carries `: keep-alive` before each event (the acknowledgement first).
    if (session.channel.policy) session.channel.policy.comments = true;
  },
  async run({ session, check, exchanges }) {
    const listen = await session.waitForMethod('subscriptions/listen', WAIT_MS);
    if (!listen) return check.skip('the client opened no subscription (it was asked to listen for tools list changes), so no stream carried comment lines');
    // The comment lines went out only if mcpcheck answered the subscription with a stream.
    const streamed = await waitUntil(() => exchanges.some((e) => e.exchange === listen.exchange && e.answer === 'sse'), WAIT_MS);
    if (!streamed) return check.skip('mcpcheck did not answer the subscription with an SSE stream, so no comment line reached the client');
    const next = await session.waitForFrame((f) => f.index > listen.index && isObject(f.message) && f.message.method === 'tools/list', WAIT_MS);
    check.expect(next !== undefined, {
      expected: 'after a subscription stream whose acknowledgement came between `:` and `: keep-alive` comment lines, the client goes on as asked: it ends the subscription and lists tools',
      actual: next ? 'it did' : `no tools/list within ${WAIT_MS} ms of the subscription`,
      frames: [listen.index, ...(next ? [next.index] : [])],
    });
  },
});

export const clientModern: ClientScenario[] = [clientRequestMeta, clientRetriesAfterUnsupportedVersion, clientFallsBackToInitialize, clientTakesUntypedResultAsComplete, clientRefusesUnknownResultType, clientListens, clientIgnoresSseComments];
