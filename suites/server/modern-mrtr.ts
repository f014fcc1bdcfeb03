import { cannedCapabilities, cannedInputResponses, type CheckRecorder, type ClientSession, describeReply, isObject, META, MODERN, MODERN_ERRORS, type Reply, replyFrame, scenario, type Scenario, show, type ToolPlan } from '../kit.js';
import { callablePlans, otherArguments, quickArguments } from './helpers.js';

// Multi round-trip requests (basic/patterns/mrtr.mdx): a server that needs client input answers
// with an InputRequiredResult (resultType "input_required", inputRequests and/or requestState),
// asking only for what the request's clientCapabilities declared; the client retries under a new
// id with inputResponses and the requestState echoed unchanged. And a request that cannot be
// served without an undeclared client capability gets −32021 (basic/index.mdx#meta).

/** Tools called per capability set: enough to find one that asks for input, bounded. */
const MAX_TOOLS = 12;
const INPUT_METHODS: Readonly<Record<string, string>> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

/** A tools/call of `plan` with these client capabilities (and any retry fields). */
function call(plan: ToolPlan, capabilities: Record<string, unknown>, retry: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: plan.name, arguments: quickArguments(plan), ...retry, _meta: { [META.clientCapabilities]: capabilities } };
}

/** Input kinds an InputRequiredResult asks for (the client capability each needs). */
function kindsAsked(result: Record<string, unknown>): string[] {
  const requests = isObject(result.inputRequests) ? Object.values(result.inputRequests) : [];
  return [...new Set(requests.map((r) => INPUT_METHODS[isObject(r) ? String(r.method) : '']).filter((k): k is string => k !== undefined))];
}

/** An answer to each input request that is no valid result of its kind (MRTR-ERR-01). */
function malformedAnswers(inputRequests: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(inputRequests).map((key) => [key, { action: 'maybe' }]));
}

function inputRequired(reply: Reply): reply is Extract<Reply, { kind: 'result' }> {
  return reply.kind === 'result' && reply.result.resultType === 'input_required';
}

export const mrtrRoundTrip = scenario({
  id: 'server.modern.mrtr.round-trip',
  title: 'A tool needing client input asks only for declared kinds in a well-formed InputRequiredResult, and its retry completes; malformed, missing or tampered retry fields get an error or a fresh InputRequiredResult; a requestState is honoured only for the request it was issued for; an undeclared required capability gets −32021',
  requirements: ['MRTR-SRV-05', 'META-REQ-05', 'META-REQ-04', 'MRTR-SRV-03', 'MRTR-SRV-04', 'MRTR-ERR-01', 'MRTR-ERR-03', 'MRTR-SEC-01', 'MRTR-SEC-02'],
  isolation: 'session',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run({ session, check, connect, discovery, options }) {
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const plans = callablePlans(discovery, options.callTools).slice(0, MAX_TOOLS);
    const called = plans.map((p) => p.name).join(', ') || `none (--call-tools ${options.callTools.mode})`;

    // With no client capability declared, no tool may ask for input; it may need one (−32021).
    const undeclared: string[] = [];
    const bare = new Map<string, Reply>();
    for (const plan of plans) {
      const reply = await session.request('tools/call', call(plan, {}));
      bare.set(plan.name, reply);
      if (inputRequired(reply) && isObject(reply.result.inputRequests) && Object.keys(reply.result.inputRequests).length > 0) undeclared.push(`${plan.name}: ${show(reply.result.inputRequests, 200)}`);
    }
    if (plans.length === 0) check.skip(`not exercised: no tool was called (${called})`, { key: 'undeclared-kinds', requirements: ['MRTR-SRV-05'] });
    else check.expect(undeclared.length === 0, { key: 'undeclared-kinds', requirements: ['MRTR-SRV-05'], expected: `tools called with clientCapabilities {} (${called}): no inputRequests`, actual: undeclared.join('; ') });

    // With every input kind declared, the tools that ask for input.
    const declared = cannedCapabilities();
    const asking: Array<{ plan: ToolPlan; reply: Extract<Reply, { kind: 'result' }> }> = [];
    for (const plan of plans) {
      const reply = await session.request('tools/call', call(plan, declared));
      if (inputRequired(reply)) asking.push({ plan, reply });
    }
    judgeMissingCapability(check, bare, asking, called);
    const keys = ['earlier-capabilities', 'well-formed', 'input-requests', 'retry', 'malformed-responses', 'malformed-entries', 'missing-responses', 'tampered-state', 'other-arguments', 'other-tool'] as const;
    const first = asking[0];
    if (!first) {
      for (const key of keys) check.skip(`not exercised: no tool called (${called}) answered input_required with elicitation, sampling and roots declared`, { key, requirements: [REQUIREMENT_OF[key]] });
      return;
    }
    const { plan, reply } = first;
    // What earlier requests declared is not this one's (META-REQ-04): the tool that asked, called again declaring nothing.
    const again = await session.request('tools/call', call(plan, {}));
    const askedAgain = inputRequired(again) && isObject(again.result.inputRequests) && Object.keys(again.result.inputRequests).length > 0;
    check.expect(!askedAgain, {
      key: 'earlier-capabilities',
      requirements: ['META-REQ-04', 'MRTR-SRV-05'],
      expected: `${plan.name} called again with clientCapabilities {}, after calls that declared elicitation, sampling and roots: no inputRequests (only the capabilities of the request being processed count)`,
      actual: describeReply(again),
      replies: [again],
      frames: [replyFrame(again)],
    });
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
    const retry = await session.request('tools/call', call(plan, declared, { inputResponses: cannedInputResponses(requests), ...state }));
    check.expect(retry.kind === 'result', {
      key: 'retry',
      requirements: ['MRTR-SRV-03'],
      expected: `the retry of ${plan.name} (a new id, inputResponses answering each input request, requestState echoed): a result (complete, or another InputRequiredResult)`,
      actual: describeReply(retry),
      replies: [retry],
      frames: [replyFrame(retry)],
    });
    const malformed = await session.request('tools/call', call(plan, declared, { inputResponses: 5, ...state }));
    check.expect(errorOrAsk(malformed), { key: 'malformed-responses', requirements: ['MRTR-ERR-01'], expected: 'a retry with inputResponses 5: a JSON-RPC error (−32602 expected) or a fresh InputRequiredResult', actual: describeReply(malformed), replies: [malformed], frames: [replyFrame(malformed)] });
    if (Object.keys(requests).length === 0) check.skip('not exercised: the InputRequiredResult asked for no input whose answer could be malformed', { key: 'malformed-entries', requirements: ['MRTR-ERR-01'] });
    else {
      const entries = await session.request('tools/call', call(plan, declared, { inputResponses: malformedAnswers(requests), ...state }));
      check.expect(errorOrAsk(entries), { key: 'malformed-entries', requirements: ['MRTR-ERR-01'], expected: `a retry answering each input request with {"action":"maybe"} (no valid result of its kind): a JSON-RPC error (−32602 expected) or a fresh InputRequiredResult`, actual: describeReply(entries), replies: [entries], frames: [replyFrame(entries)] });
    }
    const missing = await session.request('tools/call', call(plan, declared, state));
    check.expect(inputRequired(missing), { key: 'missing-responses', requirements: ['MRTR-ERR-03'], expected: 'a retry that echoes requestState without inputResponses: a fresh InputRequiredResult asking again', actual: describeReply(missing), replies: [missing], frames: [replyFrame(missing)] });
    if (typeof requestState !== 'string') {
      for (const key of ['tampered-state', 'other-arguments', 'other-tool'] as const) check.skip('not exercised: the InputRequiredResult carried no requestState to tamper with or replay', { key, requirements: [REQUIREMENT_OF[key]] });
      return;
    }
    const tampered = await session.request('tools/call', call(plan, declared, { inputResponses: cannedInputResponses(requests), requestState: `${requestState}mcpcheck` }));
    const sameAsUntampered = tampered.kind === 'result' && retry.kind === 'result' && JSON.stringify(tampered.result) === JSON.stringify(retry.result);
    check.expect(errorOrAsk(tampered) || sameAsUntampered, {
      key: 'tampered-state',
      requirements: ['MRTR-SEC-01'],
      expected: 'a retry whose requestState was extended: an error or a fresh InputRequiredResult, never a successful outcome differing from the untampered retry',
      actual: describeReply(tampered),
      replies: [tampered],
      frames: [replyFrame(tampered)],
    });
    // Replay protection means something only for a state the server verifies: one that honours an altered state protects none.
    if (!errorOrAsk(tampered)) {
      const why = `not judged: the server honoured a requestState extended by "mcpcheck" (${describeReply(tampered)}), so it does not verify its state and binding it to its request (MRTR-SEC-02) cannot be told; whether it must protect it is MRTR-SEC-01's question`;
      for (const key of ['other-arguments', 'other-tool'] as const) check.skip(why, { key, requirements: ['MRTR-SEC-02'] });
      return;
    }
    await judgeReplays(session, check, first, asking.slice(1), declared, requestState);
  },
});

/** The requirement each key of the round-trip scenario judges. */
const REQUIREMENT_OF = {
  'earlier-capabilities': 'META-REQ-04',
  'well-formed': 'MRTR-SRV-03',
  'input-requests': 'MRTR-SRV-04',
  retry: 'MRTR-SRV-03',
  'malformed-responses': 'MRTR-ERR-01',
  'malformed-entries': 'MRTR-ERR-01',
  'missing-responses': 'MRTR-ERR-03',
  'tampered-state': 'MRTR-SEC-01',
  'other-arguments': 'MRTR-SEC-02',
  'other-tool': 'MRTR-SEC-02',
} as const;

function errorOrAsk(r: Reply): boolean {
  return r.kind === 'error' || r.kind === 'rejected' || inputRequired(r);
}

type Asking = { plan: ToolPlan; reply: Extract<Reply, { kind: 'result' }> };

/**
 * META-REQ-05: a tool that asks for input of a kind when it is declared, and with nothing declared
 * answers an error, cannot be processed without that capability: the error is −32021 with
 * data.requiredCapabilities. Only the declared capabilities differ between the two calls.
 */
function judgeMissingCapability(check: CheckRecorder, bare: ReadonlyMap<string, Reply>, asking: readonly Asking[], called: string): void {
  const problems: string[] = [];
  let exercised = 0;
  for (const { plan, reply } of asking) {
    const without = bare.get(plan.name);
    if (without?.kind !== 'error' && without?.kind !== 'rejected') continue;
    exercised++;
    const error = without.error;
    const data = error && 'data' in error && isObject(error.data) ? error.data : undefined;
    if (error?.code !== MODERN_ERRORS.missingClientCapability) problems.push(`${plan.name}: asks for ${kindsAsked(reply.result).join(', ') || 'input'} when declared, and with clientCapabilities {} got ${describeReply(without)}`);
    else if (!isObject(data?.requiredCapabilities)) problems.push(`${plan.name}: −32021 without data.requiredCapabilities (${describeReply(without)})`);
  }
  if (exercised === 0) return check.skip(`not exercised: no tool called (${called}) both asked for input with the input kinds declared and refused the call with none declared`, { key: 'missing-capability', requirements: ['META-REQ-05'] });
  check.expect(problems.length === 0, {
    key: 'missing-capability',
    requirements: ['META-REQ-05'],
    expected: 'a tool that asks for client input when its kind is declared, called with clientCapabilities {} and refused: −32021 with data.requiredCapabilities (a ClientCapabilities object)',
    actual: problems.join('; '),
  });
}

/**
 * MRTR-SEC-02: a requestState the server verifies is also bound to its originating request: the
 * state of one call, replayed on the retry of the same tool with other arguments or on another
 * tool's retry (each with valid answers), gets an error or a fresh InputRequiredResult.
 */
async function judgeReplays(session: ClientSession, check: CheckRecorder, first: Asking, others: readonly Asking[], declared: Record<string, unknown>, requestState: string): Promise<void> {
  const { plan, reply } = first;
  const answers = cannedInputResponses(isObject(reply.result.inputRequests) ? reply.result.inputRequests : {});
  const varied = otherArguments(plan, quickArguments(plan));
  if (!varied) check.skip(`not exercised: ${plan.name} has no free-form string argument mcpcheck could change`, { key: 'other-arguments', requirements: ['MRTR-SEC-02'] });
  else {
    const replay = await session.request('tools/call', { name: plan.name, arguments: varied, inputResponses: answers, requestState, _meta: { [META.clientCapabilities]: declared } });
    check.expect(errorOrAsk(replay), {
      key: 'other-arguments',
      requirements: ['MRTR-SEC-02'],
      expected: `the requestState of ${plan.name} with ${show(quickArguments(plan), 120)}, replayed on its retry with arguments ${show(varied, 120)}: an error or a fresh InputRequiredResult (the state is bound to its originating request)`,
      actual: describeReply(replay),
      replies: [replay],
      frames: [replyFrame(replay)],
    });
  }
  const other = others[0];
  if (!other) return check.skip(`not exercised: only ${plan.name} asked for input, so no other tool's retry could carry its state`, { key: 'other-tool', requirements: ['MRTR-SEC-02'] });
  const otherRequests = isObject(other.reply.result.inputRequests) ? other.reply.result.inputRequests : {};
  const replay = await session.request('tools/call', call(other.plan, declared, { inputResponses: cannedInputResponses(otherRequests), requestState }));
  check.expect(errorOrAsk(replay), {
    key: 'other-tool',
    requirements: ['MRTR-SEC-02'],
    expected: `the requestState of ${plan.name}, replayed on a retry of ${other.plan.name} (its own input answered): an error or a fresh InputRequiredResult`,
    actual: describeReply(replay),
    replies: [replay],
    frames: [replyFrame(replay)],
  });
}

export const modernMrtr: Scenario[] = [mrtrRoundTrip];
