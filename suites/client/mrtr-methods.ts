import { type ClientScenario, clientScenario, type ClientScenarioContext, isObject, MODERN, type RecordedFrame, show } from '../kit.js';
import { WAIT_MS } from './helpers.js';
import { askFirst, coreParams, declaresForm, FORM_REQUEST, sameJson } from './modern-helpers.js';

/** A prompt and a resource whose first request mcpcheck answers with an InputRequiredResult (MRTR-CLI-06 names both methods). */
const PROMPT = { name: 'mcpcheck_prompt_needs_input', description: 'Asks the client for input (an InputRequiredResult) before it answers.', arguments: [{ name: 'topic', required: false }] };
const RESOURCE = { uri: 'mcpcheck://needs-input', name: 'mcpcheck_resource_needs_input', mimeType: 'text/plain' };

interface Target {
  method: 'prompts/get' | 'resources/read';
  /** The scenario id's last part. */
  area: string;
  /** The params member naming what is asked for, and its value. */
  member: 'name' | 'uri';
  value: string;
  /** The capability mcpcheck declares to serve it. */
  capability: 'prompts' | 'resources';
  complete: Record<string, unknown>;
  step: ClientScenario['steps'][number];
  /** The complete listing of it, for a client that lists before it asks. */
  list: { method: string; result: Record<string, unknown> };
}

const TARGETS: Target[] = [
  {
    method: 'prompts/get',
    area: 'prompts-get',
    member: 'name',
    value: PROMPT.name,
    capability: 'prompts',
    complete: { messages: [{ role: 'user', content: { type: 'text', text: 'mcpcheck got its input' } }] },
    step: { do: 'get-prompt', name: PROMPT.name, arguments: { topic: 'mcpcheck' } },
    list: { method: 'prompts/list', result: { prompts: [PROMPT] } },
  },
  {
    method: 'resources/read',
    area: 'resources-read',
    member: 'uri',
    value: RESOURCE.uri,
    capability: 'resources',
    complete: { contents: [{ uri: RESOURCE.uri, mimeType: 'text/plain', text: 'mcpcheck got its input' }] },
    step: { do: 'read-resource', uri: RESOURCE.uri },
    list: { method: 'resources/list', result: { resources: [RESOURCE] } },
  },
];

function paramsOf(frame: RecordedFrame): Record<string, unknown> {
  return isObject(frame.message) && isObject(frame.message.params) ? frame.message.params : {};
}

/** The client's requests for the target, the first one and its retries in order. */
function asked(ctx: ClientScenarioContext, t: Target): RecordedFrame[] {
  return ctx.session.requestsFor(t.method).filter((f) => paramsOf(f)[t.member] === t.value);
}

async function nth(ctx: ClientScenarioContext, t: Target, n: number): Promise<RecordedFrame | undefined> {
  const seen = await ctx.session.waitForFrame(() => asked(ctx, t).length > n, WAIT_MS);
  return seen ? asked(ctx, t)[n] : undefined;
}

/**
 * The retry of prompts/get or resources/read after an InputRequiredResult, judged as tools/call's
 * is (suites/client/mrtr.ts): understood as not final, the input given, the state echoed, a new id,
 * the same request.
 */
function inputRequiredOn(t: Target): ClientScenario {
  const state = `mcpcheck-${t.area}-1 +/= ü`;
  return clientScenario({
    id: `client.modern.mrtr.${t.area}`,
    title: `Given an InputRequiredResult to ${t.method}, the client retries it under a new id with the same params, the requestState echoed and an ElicitResult for the form it was asked`,
    requirements: ['MRTR-CLI-06', 'MRTR-CLI-01', 'MRTR-CLI-02', 'MRTR-CLI-03', 'MRTR-CLI-05'],
    revisions: MODERN,
    steps: [t.step],
    serve(session) {
      session.capabilities = { ...session.capabilities, [t.capability]: {} };
      session.handle(t.list.method, () => ({ result: t.list.result }));
      // Only what the request declared is asked for (MRTR-SRV-05 binds mcpcheck): without elicitation, state alone.
      askFirst(session, t.method, (params) => params[t.member] === t.value, (n, request) => (n === 0 ? { ...(declaresForm(request) ? { inputRequests: { mcpcheck_form: FORM_REQUEST } } : {}), requestState: state } : undefined), () => t.complete);
    },
    async run(ctx) {
      const { check } = ctx;
      const first = await nth(ctx, t, 0);
      if (!first) return check.skip(`the client sent no ${t.method} for ${show(t.value)} within ${WAIT_MS} ms`);
      const retry = await nth(ctx, t, 1);
      // A client may instead report that input is required, which is not on the wire.
      if (!retry) return check.skip(`not observable: no retry of ${t.method} within ${WAIT_MS} ms; whether the client reported that input is required or took the result as final cannot be told on the wire`);
      const frames = [first.index, retry.index];
      check.expect(true, { key: 'understood', requirements: ['MRTR-CLI-06'], expected: `the InputRequiredResult to ${t.method} taken as not final: a retry`, actual: 'a retry', frames });
      const params = paramsOf(retry);
      check.expect(params.requestState === state, { key: 'echoed', requirements: ['MRTR-CLI-02'], expected: `requestState sent back exactly as given (${show(state)})`, actual: `requestState ${show(params.requestState)}`, frames });
      const ids = [first, retry].map((f) => (isObject(f.message) ? f.message.id : undefined));
      check.expect(ids[0] !== ids[1], { key: 'new-id', requirements: ['MRTR-CLI-03'], expected: "the retry under an id other than the original request's", actual: `both with id ${show(ids[0])}`, frames });
      const keys = isObject(params.inputResponses) ? Object.keys(params.inputResponses) : [];
      check.expect(sameJson(coreParams(first), coreParams(retry)) && (!declaresForm(first.message) || (keys.length === 1 && keys[0] === 'mcpcheck_form')), {
        key: 'same-request',
        requirements: ['MRTR-CLI-05'],
        expected: `the retry's params (without _meta, inputResponses, requestState) equal the original's ${show(coreParams(first))}${declaresForm(first.message) ? ', with inputResponses keyed exactly mcpcheck_form' : ''}`,
        actual: `params ${show(coreParams(retry))}, inputResponses keys ${show(keys)}`,
        frames,
      });
      if (!declaresForm(first.message)) return check.skip(`the ${t.method} declared no form-mode elicitation, so mcpcheck asked for no input`, { key: 'answered', requirements: ['MRTR-CLI-01'] });
      const answer = isObject(params.inputResponses) ? params.inputResponses.mcpcheck_form : undefined;
      check.expect(isObject(answer) && ['accept', 'decline', 'cancel'].includes(answer.action as string), {
        key: 'answered',
        requirements: ['MRTR-CLI-01'],
        expected: 'inputResponses.mcpcheck_form an ElicitResult (action accept, decline or cancel)',
        actual: `inputResponses ${show(params.inputResponses)}`,
        frames,
      });
    },
  });
}

export const clientMrtrMethods: ClientScenario[] = TARGETS.map(inputRequiredOn);
