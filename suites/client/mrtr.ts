import { type ClientScenario, clientScenario, isObject, MODERN, type RecordedFrame, show } from '../kit.js';
import { WAIT_MS } from './helpers.js';
import { coreParams, declared, declaresForm, FORM_REQUEST, INPUT_TOOL, inputToolCalls, namedBy, nthInputCall, sameJson, serveInputRequired, TRICKY_STATE } from './modern-helpers.js';

const CALL_INPUT_TOOL = [{ do: 'call-tool' as const, name: INPUT_TOOL.name, arguments: { topic: 'mcpcheck' } }];

function paramsOf(frame: RecordedFrame): Record<string, unknown> {
  return isObject(frame.message) && isObject(frame.message.params) ? frame.message.params : {};
}

export const clientAnswersElicitation = clientScenario({
  id: 'client.mrtr.form-elicitation',
  title: 'Given a form elicitation in an InputRequiredResult, the client retries the same request with an ElicitResult under the same key',
  requirements: ['MRTR-CLI-01', 'MRTR-CLI-05', 'ELIC-REQ-02'],
  revisions: MODERN,
  steps: CALL_INPUT_TOOL,
  // Only what the call declared is asked for (MRTR-SRV-05 binds mcpcheck): without elicitation, state alone.
  serve: (session) => serveInputRequired(session, (n, request) => (n === 0 && declaresForm(request) ? { inputRequests: { mcpcheck_form: FORM_REQUEST }, requestState: 'mcpcheck-form-1' } : undefined)),
  async run(ctx) {
    const { check } = ctx;
    const first = await nthInputCall(ctx, 0);
    if (!first) return check.skip(`the client never called ${INPUT_TOOL.name}`);
    if (!declaresForm(first.message)) return check.skip('the client did not declare form-mode elicitation in its call, so mcpcheck asked for none');
    const retry = await nthInputCall(ctx, 1);
    if (!retry) return check.skip(`the client sent no retry of ${INPUT_TOOL.name} within ${WAIT_MS} ms (it may have reported that input is required)`);
    const responses = paramsOf(retry).inputResponses;
    const answer = isObject(responses) ? responses.mcpcheck_form : undefined;
    check.expect(isObject(answer) && ['accept', 'decline', 'cancel'].includes(answer.action as string), {
      key: 'answered',
      requirements: ['MRTR-CLI-01'],
      expected: 'inputResponses.mcpcheck_form an ElicitResult (action accept, decline or cancel)',
      actual: `inputResponses ${show(responses)}`,
      frames: [first.index, retry.index],
    });
    // The elicitation names no mode: only an accept shows which mode the client took it for (a URL-mode accept carries no content).
    if (isObject(answer) && answer.action === 'accept') {
      check.expect(isObject(answer.content), {
        key: 'mode-less-as-form',
        requirements: ['ELIC-REQ-02'],
        expected: 'the elicitation without mode accepted as a form: with content answering its requestedSchema',
        actual: `an accept without content ${show(answer)}, as a URL-mode elicitation is answered`,
        frames: [first.index, retry.index],
      });
    } else {
      check.skip(`not exercised: the elicitation without mode was not accepted (${show(answer)}), so which mode the client took it for does not show`, { key: 'mode-less-as-form', requirements: ['ELIC-REQ-02'] });
    }
    const keys = isObject(responses) ? Object.keys(responses) : [];
    check.expect(sameJson(coreParams(first), coreParams(retry)) && keys.length === 1 && keys[0] === 'mcpcheck_form', {
      key: 'same-request',
      requirements: ['MRTR-CLI-05'],
      expected: `the retry's params (without _meta, inputResponses, requestState) equal the original's ${show(coreParams(first))}, with inputResponses keyed exactly mcpcheck_form`,
      actual: `params ${show(coreParams(retry))}, inputResponses keys ${show(keys)}`,
      frames: [first.index, retry.index],
    });
  },
});

export const clientEchoesRequestState = clientScenario({
  id: 'client.mrtr.request-state',
  title: 'The retry echoes requestState byte for byte when one was given, and carries none when none was given',
  requirements: ['MRTR-CLI-02'],
  revisions: MODERN,
  steps: CALL_INPUT_TOOL,
  serve: (session) =>
    serveInputRequired(session, (n, request) => {
      if (n === 0) return { requestState: TRICKY_STATE };
      // Input requests without state need a capability the call declared.
      if (n === 1 && declaresForm(request)) return { inputRequests: { mcpcheck_form: FORM_REQUEST } };
      return undefined;
    }),
  async run(ctx) {
    const { check } = ctx;
    const first = await nthInputCall(ctx, 0);
    if (!first) return check.skip(`the client never called ${INPUT_TOOL.name}`);
    const retry = await nthInputCall(ctx, 1);
    if (!retry) return check.skip(`the client sent no retry of ${INPUT_TOOL.name} within ${WAIT_MS} ms (a requestState-only result may be reported instead)`);
    const echoed = paramsOf(retry).requestState;
    check.expect(echoed === TRICKY_STATE, {
      key: 'echoed',
      expected: `requestState sent back exactly as given (${TRICKY_STATE.length} characters with spaces at both ends, +/=, non-ASCII and JSON-looking text)`,
      actual: typeof echoed === 'string' ? `${echoed.length} characters, ${echoed === TRICKY_STATE.trim() ? 'trimmed' : `starting ${show(echoed.slice(0, 60))}`}` : `requestState ${show(echoed)}`,
      frames: [retry.index],
    });
    if (!declaresForm(retry.message)) return check.skip('the retry declared no form-mode elicitation, so mcpcheck could not ask for input without state', { key: 'none-when-none' });
    const next = await nthInputCall(ctx, 2);
    if (!next) return check.skip(`the client sent no second retry within ${WAIT_MS} ms`, { key: 'none-when-none' });
    check.expect(!('requestState' in paramsOf(next)), {
      key: 'none-when-none',
      expected: 'no requestState on the retry of an InputRequiredResult that gave none',
      actual: `requestState ${show(paramsOf(next).requestState)}`,
      frames: [next.index],
    });
  },
});

export const clientRetriesWithNewId = clientScenario({
  id: 'client.mrtr.new-id',
  title: 'An MRTR retry is a new request with an id of its own',
  requirements: ['MRTR-CLI-03'],
  revisions: MODERN,
  steps: CALL_INPUT_TOOL,
  serve: (session) => serveInputRequired(session, (n) => (n === 0 ? { requestState: 'mcpcheck-new-id' } : undefined)),
  async run(ctx) {
    const { check } = ctx;
    const first = await nthInputCall(ctx, 0);
    const retry = first && (await nthInputCall(ctx, 1));
    if (!first || !retry) return check.skip(`the client sent ${first ? 'no retry' : `no call of ${INPUT_TOOL.name}`} within ${WAIT_MS} ms`);
    const ids = [first, retry].map((f) => (isObject(f.message) ? f.message.id : undefined));
    check.expect(ids[0] !== ids[1], { expected: 'the retry under an id other than the original request\'s', actual: `both with id ${show(ids[0])}`, frames: [first.index, retry.index] });
  },
});

export const clientUnderstandsStateOnly = clientScenario({
  id: 'client.mrtr.state-only',
  title: 'An InputRequiredResult carrying only requestState is not taken for the final result: the client retries with the state',
  requirements: ['MRTR-CLI-06'],
  revisions: MODERN,
  steps: CALL_INPUT_TOOL,
  serve: (session) => serveInputRequired(session, (n) => (n === 0 ? { requestState: 'mcpcheck-state-only' } : undefined)),
  async run(ctx) {
    const { check } = ctx;
    const first = await nthInputCall(ctx, 0);
    if (!first) return check.skip(`the client never called ${INPUT_TOOL.name}`);
    const retry = await nthInputCall(ctx, 1);
    // A client may instead report that input is required, which is not on the wire.
    if (!retry) return check.skip(`not observable: no retry within ${WAIT_MS} ms; whether the client reported that input is required or took the result as final cannot be told on the wire`);
    check.expect(paramsOf(retry).requestState === 'mcpcheck-state-only', { expected: 'a retry carrying requestState "mcpcheck-state-only"', actual: `a retry with requestState ${show(paramsOf(retry).requestState)}`, frames: [first.index, retry.index] });
  },
});

export const clientKeepsStateToItsRequest = clientScenario({
  id: 'client.mrtr.no-leak',
  title: 'requestState and inputResponses go only on retries of the request they were issued for, never on other requests',
  requirements: ['MRTR-CLI-04'],
  revisions: MODERN,
  steps: [...CALL_INPUT_TOOL, { do: 'call-tool', name: 'echo', arguments: { text: 'after' } }, { do: 'list-tools' }],
  serve: (session) => serveInputRequired(session, (n) => (n === 0 ? { requestState: 'mcpcheck-issued-for-needs-input' } : undefined)),
  async run(ctx) {
    const { session, check } = ctx;
    if (!(await nthInputCall(ctx, 0))) return check.skip(`the client never called ${INPUT_TOOL.name}`);
    await session.waitForFrame((f) => isObject(f.message) && f.message.method === 'tools/list' && f.index > inputToolCalls(session)[0]!.index, WAIT_MS);
    // Every frame carrying MRTR fields must retry something mcpcheck asked input for.
    const asked = new Set(inputToolCalls(session).map(namedBy));
    const carrying = session.peerFrames().filter((f) => isObject(f.message) && 'id' in f.message && ('requestState' in paramsOf(f) || 'inputResponses' in paramsOf(f)));
    if (carrying.length === 0) return check.skip('the client sent no request carrying requestState or inputResponses, not even a retry');
    const stray = carrying.filter((f) => !asked.has(namedBy(f)));
    check.expect(stray.length === 0, {
      expected: `requestState and inputResponses only on retries of ${INPUT_TOOL.name}`,
      actual: stray.length ? `${stray.map((f) => `${isObject(f.message) ? String(f.message.method) : '?'} ${show(coreParams(f))}`).join('; ')} carried them` : 'only its retries did',
      frames: stray.length ? stray.map((f) => f.index) : carrying.map((f) => f.index),
    });
  },
});

/** The input kinds beyond form elicitation, each asked of a client whose call declared it (MRTR-SRV-05 binds mcpcheck). */
const OTHER_KINDS = [
  {
    capability: 'sampling',
    key: 'mcpcheck_sampling',
    request: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'mcpcheck asks for one word' } }], maxTokens: 16 } },
  },
  { capability: 'roots', key: 'mcpcheck_roots', request: { method: 'roots/list', params: {} } },
] as const;

export const clientAnswersSamplingAndRoots = clientScenario({
  id: 'client.mrtr.sampling-and-roots',
  title: 'Given a sampling or roots input request it declared, the client retries with an answer for each under its key',
  requirements: ['MRTR-CLI-01'],
  revisions: MODERN,
  steps: CALL_INPUT_TOOL,
  serve: (session) =>
    serveInputRequired(session, (n, request) => {
      const asked = n === 0 ? OTHER_KINDS.filter((k) => isObject(declared(request)[k.capability])) : [];
      return asked.length > 0 ? { inputRequests: Object.fromEntries(asked.map((k) => [k.key, k.request])), requestState: 'mcpcheck-kinds-1' } : undefined;
    }),
  async run(ctx) {
    const { check } = ctx;
    const first = await nthInputCall(ctx, 0);
    if (!first) return check.skip(`the client never called ${INPUT_TOOL.name}`);
    const capabilities = declared(first.message);
    const asked = OTHER_KINDS.filter((k) => isObject(capabilities[k.capability]));
    const retry = asked.length > 0 ? await nthInputCall(ctx, 1) : undefined;
    const responses = retry ? paramsOf(retry).inputResponses : undefined;
    for (const k of OTHER_KINDS) {
      const key = `${k.capability}-answered`;
      if (!asked.includes(k)) check.skip(`the client declared no ${k.capability} in its call, so mcpcheck asked for none`, { key });
      else if (!retry) check.skip(`the client sent no retry of ${INPUT_TOOL.name} within ${WAIT_MS} ms (it may have reported that input is required)`, { key, frames: [first.index] });
      else {
        check.expect(isObject(responses) && isObject(responses[k.key]), {
          key,
          expected: `inputResponses.${k.key}: the answer to ${k.request.method} (its shape is judged live, MRTR-CLI-05)`,
          actual: `inputResponses ${show(responses)}`,
          frames: [first.index, retry.index],
        });
      }
    }
  },
});

export const clientMrtr: ClientScenario[] = [clientAnswersElicitation, clientAnswersSamplingAndRoots, clientEchoesRequestState, clientRetriesWithNewId, clientUnderstandsStateOnly, clientKeepsStateToItsRequest];
