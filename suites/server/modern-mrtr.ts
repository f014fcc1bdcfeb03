import { cannedCapabilities, DEFAULT_CANNED, describeReply, isObject, META, MODERN_ERRORS, planToolCall, type Reply, replyFrame, scenario, type Scenario, show, type ToolPlan } from '../kit.js';
import { argumentContext, quickArguments } from './helpers.js';

// Multi round-trip requests (basic/patterns/mrtr.mdx): a server that needs client input answers
// with an InputRequiredResult (resultType "input_required", inputRequests and/or requestState),
// asking only for what the request's clientCapabilities declared; the client retries under a new
// id with inputResponses and the requestState echoed unchanged. And a request that cannot be
// served without an undeclared client capability gets −32021 (basic/index.mdx#meta).

const MODERN = { introduced: '2026-07-28' } as const;
/** Tools called per capability set: enough to find one that asks for input, bounded. */
const MAX_TOOLS = 12;
const INPUT_METHODS: Readonly<Record<string, string>> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

/** A tools/call of `plan` with these client capabilities (and any retry fields). */
function call(plan: ToolPlan, capabilities: Record<string, unknown>, retry: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: plan.name, arguments: quickArguments(plan), ...retry, _meta: { [META.clientCapabilities]: capabilities } };
}

function inputRequired(reply: Reply): reply is Extract<Reply, { kind: 'result' }> {
  return reply.kind === 'result' && reply.result.resultType === 'input_required';
}

/** The canned answer mcpcheck gives each input request, by its method. */
function answersTo(inputRequests: Record<string, unknown>): Record<string, unknown> {
  const canned: Record<string, unknown> = { 'elicitation/create': DEFAULT_CANNED.elicitation, 'sampling/createMessage': DEFAULT_CANNED.sampling, 'roots/list': { roots: DEFAULT_CANNED.roots } };
  return Object.fromEntries(Object.entries(inputRequests).map(([key, r]) => [key, canned[isObject(r) ? String(r.method) : ''] ?? {}]));
}

export const mrtrRoundTrip = scenario({
  id: 'server.modern.mrtr.round-trip',
  title: 'A tool needing client input asks only for declared kinds in a well-formed InputRequiredResult, and its retry completes; malformed, missing or tampered retry fields get an error or a fresh InputRequiredResult; an undeclared required capability gets −32021',
  requirements: ['MRTR-SRV-05', 'META-REQ-05', 'MRTR-SRV-03', 'MRTR-SRV-04', 'MRTR-ERR-01', 'MRTR-ERR-03', 'MRTR-SEC-01'],
  isolation: 'session',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run({ session, check, connect, discovery, options }) {
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const context = argumentContext(discovery);
    const plans = discovery.tools.map((t) => planToolCall(t, options.callTools, context)).filter((p) => p.call).slice(0, MAX_TOOLS);
    const called = plans.map((p) => p.name).join(', ') || `none (--call-tools ${options.callTools.mode})`;

    // With no client capability declared, no tool may ask for input; it may need one (−32021).
    const undeclared: string[] = [];
    const needing: string[] = [];
    for (const plan of plans) {
      const reply = await session.request('tools/call', call(plan, {}));
      if (inputRequired(reply) && isObject(reply.result.inputRequests) && Object.keys(reply.result.inputRequests).length > 0) undeclared.push(`${plan.name}: ${show(reply.result.inputRequests, 200)}`);
      if (reply.kind === 'error' && reply.error.code === MODERN_ERRORS.missingClientCapability) {
        const data = isObject(reply.error.data) ? reply.error.data : undefined;
        needing.push(isObject(data?.requiredCapabilities) ? '' : `${plan.name}: −32021 without data.requiredCapabilities (${describeReply(reply)})`);
      }
    }
    if (plans.length === 0) check.skip(`not exercised: no tool was called (${called})`, { key: 'undeclared-kinds', requirements: ['MRTR-SRV-05'] });
    else check.expect(undeclared.length === 0, { key: 'undeclared-kinds', requirements: ['MRTR-SRV-05'], expected: `tools called with clientCapabilities {} (${called}): no inputRequests`, actual: undeclared.join('; ') });
    if (needing.length === 0) check.skip(`not exercised: no tool called (${called}) answered −32021 for a client capability mcpcheck did not declare`, { key: 'missing-capability', requirements: ['META-REQ-05'] });
    else check.expect(needing.every((n) => n === ''), { key: 'missing-capability', requirements: ['META-REQ-05'], expected: '−32021 with data.requiredCapabilities (a ClientCapabilities object)', actual: needing.filter(Boolean).join('; ') });

    // With every input kind declared, find a tool that asks for input.
    const declared = cannedCapabilities();
    let asking: { plan: ToolPlan; reply: Extract<Reply, { kind: 'result' }> } | undefined;
    for (const plan of plans) {
      const reply = await session.request('tools/call', call(plan, declared));
      if (inputRequired(reply)) {
        asking = { plan, reply };
        break;
      }
    }
    const keys = ['well-formed', 'input-requests', 'retry', 'malformed-responses', 'missing-responses', 'tampered-state'] as const;
    if (!asking) {
      for (const key of keys) check.skip(`not exercised: no tool called (${called}) answered input_required with elicitation, sampling and roots declared`, { key, requirements: [key === 'malformed-responses' ? 'MRTR-ERR-01' : key === 'missing-responses' ? 'MRTR-ERR-03' : key === 'tampered-state' ? 'MRTR-SEC-01' : key === 'input-requests' ? 'MRTR-SRV-04' : 'MRTR-SRV-03'] });
      return;
    }
    const { plan, reply } = asking;
    const { inputRequests, requestState } = reply.result;
    check.expect((isObject(inputRequests) && Object.keys(inputRequests).length > 0) || typeof requestState === 'string', {
      key: 'well-formed',
      requirements: ['MRTR-SRV-03'],
      expected: `${plan.name}'s InputRequiredResult with inputRequests or a string requestState`,
      actual: show(reply.result, 300),
      frames: [reply.frame],
    });
    const requests = isObject(inputRequests) ? inputRequests : {};
    const bad = Object.entries(requests).filter(([, r]) => !isObject(r) || !(String(r.method) in INPUT_METHODS) || !isObject(r.params) || 'jsonrpc' in r || 'id' in r);
    check.expect(bad.length === 0, {
      key: 'input-requests',
      requirements: ['MRTR-SRV-04'],
      expected: 'each inputRequests value an elicitation/create, sampling/createMessage or roots/list request (method and params; no jsonrpc, no id)',
      actual: bad.map(([k, r]) => `${k}: ${show(r, 120)}`).join('; '),
      frames: [reply.frame],
    });
    const state = typeof requestState === 'string' ? { requestState } : {};
    const retry = await session.request('tools/call', call(plan, declared, { inputResponses: answersTo(requests), ...state }));
    check.expect(retry.kind === 'result', {
      key: 'retry',
      requirements: ['MRTR-SRV-03'],
      expected: `the retry of ${plan.name} (a new id, inputResponses answering each input request, requestState echoed): a result (complete, or another InputRequiredResult)`,
      actual: describeReply(retry),
      replies: [retry],
      frames: [replyFrame(retry)],
    });
    const errorOrAsk = (r: Reply) => r.kind === 'error' || r.kind === 'rejected' || inputRequired(r);
    const malformed = await session.request('tools/call', call(plan, declared, { inputResponses: 5, ...state }));
    check.expect(errorOrAsk(malformed), { key: 'malformed-responses', requirements: ['MRTR-ERR-01'], expected: 'a retry with inputResponses 5: a JSON-RPC error (−32602 expected) or a fresh InputRequiredResult', actual: describeReply(malformed), replies: [malformed], frames: [replyFrame(malformed)] });
    const missing = await session.request('tools/call', call(plan, declared, state));
    check.expect(inputRequired(missing), { key: 'missing-responses', requirements: ['MRTR-ERR-03'], expected: 'a retry that echoes requestState without inputResponses: a fresh InputRequiredResult asking again', actual: describeReply(missing), replies: [missing], frames: [replyFrame(missing)] });
    if (typeof requestState !== 'string') return check.skip('not exercised: the InputRequiredResult carried no requestState to tamper with', { key: 'tampered-state', requirements: ['MRTR-SEC-01'] });
    const tampered = await session.request('tools/call', call(plan, declared, { inputResponses: answersTo(requests), requestState: `${requestState}mcpcheck` }));
    const sameAsUntampered = tampered.kind === 'result' && retry.kind === 'result' && JSON.stringify(tampered.result) === JSON.stringify(retry.result);
    check.expect(errorOrAsk(tampered) || sameAsUntampered, {
      key: 'tampered-state',
      requirements: ['MRTR-SEC-01'],
      expected: 'a retry whose requestState was extended: an error or a fresh InputRequiredResult, never a successful outcome differing from the untampered retry',
      actual: describeReply(tampered),
      replies: [tampered],
      frames: [replyFrame(tampered)],
    });
  },
});

export const modernMrtr: Scenario[] = [mrtrRoundTrip];
