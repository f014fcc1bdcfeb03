import { isDeepStrictEqual } from 'node:util';
import { clientScenario, type ClientScenario, describeReply, isObject, type RecordedFrame, replyFrame, show } from '../kit.js';
import { isEmptyResult, PING_LIMIT_MS, timedPing } from '../common.js';
import { ASKING_TOOL, askingCall, callOf, initialized, release, serveAskingTool, serveHeldTool, WAIT_MS } from './helpers.js';

export const clientPing = clientScenario({
  id: 'client.utilities.ping',
  title: 'The client answers a ping from the server promptly with an empty result',
  requirements: ['PING-01'],
  steps: [{ do: 'call-tool', name: ASKING_TOOL.name, arguments: {} }],
  serve: serveAskingTool,
  async run(ctx) {
    if (!(await initialized(ctx)) || !(await askingCall(ctx, 'ping'))) return;
    const { reply, ms } = await timedPing(ctx.session);
    release(ctx.session);
    // Gone within the limit, it had no time to answer; gone later, it had and did not.
    if (reply.kind === 'closed' && ms <= PING_LIMIT_MS) return ctx.check.skip(`the client ended the session ${ms} ms after mcpcheck pinged it, before an answer was due`);
    ctx.check.expect(isEmptyResult(reply) && ms <= PING_LIMIT_MS, {
      expected: `ping answered with {} within ${PING_LIMIT_MS} ms`,
      actual: `${describeReply(reply)} after ${ms} ms`,
      // No `replies`: mcpcheck's wait (5 s) is longer than "promptly", so silence is the client's.
      frames: [replyFrame(reply)],
    });
  },
});

/**
 * What the step passes the call: a call that carries it is the step's call, made with the step's
 * timeout. A client that calls the tool on its own (it lists the tools and calls them, say) shows
 * nothing about that timeout.
 */
const STEP_ARGUMENTS = { step: 'mcpcheck-cancel-on-timeout' };
const SLOW_TOOL = {
  name: 'wait_forever',
  description: 'Never answers (mcpcheck tests request timeouts with it).',
  inputSchema: { type: 'object', properties: { step: { type: 'string', description: 'What the step that calls this tool passes.' } } },
};
const CLIENT_TIMEOUT_MS = 1_000;
/** How long a client that called on its own gets for a timeout of its own to expire and cancel. */
const OWN_TIMEOUT_BOUND_MS = 20_000;
/** What the scenario leaves of its timeout for the report. */
const RESERVE_MS = 2_000;

const isCancelOf = (id: unknown) => (f: RecordedFrame) => isObject(f.message) && f.message.method === 'notifications/cancelled' && isObject(f.message.params) && f.message.params.requestId === id;

export const clientCancelsOnTimeout = clientScenario({
  id: 'client.utilities.cancel-on-timeout',
  title: 'When a request times out, the client sends notifications/cancelled for it and stops waiting',
  requirements: ['LIFE-TIME-01'],
  steps: [{ do: 'call-tool', name: SLOW_TOOL.name, arguments: STEP_ARGUMENTS, timeoutMs: CLIENT_TIMEOUT_MS }],
  serve(session) {
    serveHeldTool(session, SLOW_TOOL);
  },
  async run(ctx) {
    const { session, check } = ctx;
    const call = await session.waitForFrame(callOf(SLOW_TOOL.name), WAIT_MS);
    if (!call || !isObject(call.message)) return check.skip(`the client never called ${SLOW_TOOL.name} (it was asked to, with a ${CLIENT_TIMEOUT_MS} ms timeout)`);
    const id = call.message.id;
    const args = isObject(call.message.params) ? call.message.params.arguments : undefined;
    if (!isDeepStrictEqual(args, STEP_ARGUMENTS)) {
      // Not the step's call: its timeout, if any, is the client's own, so mcpcheck waits for it up to a bound.
      const bound = Math.round(Math.max(0, Math.min(OWN_TIMEOUT_BOUND_MS, ctx.timeLeft() - RESERVE_MS)));
      const cancel = await session.waitForFrame(isCancelOf(id), bound, call.index);
      const onItsOwn = `the client called ${SLOW_TOOL.name} with ${show(args)}, not with the step's arguments ${show(STEP_ARGUMENTS)}, so not under the step's ${CLIENT_TIMEOUT_MS} ms timeout`;
      if (!cancel) return check.skip(`${onItsOwn}; it sent no notifications/cancelled for the call within ${bound} ms (mcpcheck's bound on a timeout of its own)${ctx.client.exit ? ', and exited' : ''}`);
      return void check.expect(true, {
        expected: `notifications/cancelled with requestId ${JSON.stringify(id)} once the client's own timeout for the call expired`,
        actual: `sent ${Math.round(cancel.at - call.at)} ms after the call (${onItsOwn})`,
        frames: [cancel.index],
      });
    }
    const wait = CLIENT_TIMEOUT_MS + WAIT_MS;
    const cancel = await session.waitForFrame(isCancelOf(id), wait, call.index);
    check.expect(cancel !== undefined, {
      expected: `notifications/cancelled with requestId ${JSON.stringify(id)} once the client's ${CLIENT_TIMEOUT_MS} ms timeout for the call expired`,
      actual: cancel ? 'sent' : `nothing within ${wait} ms of the call (mcpcheck never answered it)`,
      frames: [cancel?.index ?? call.index],
    });
  },
});

export const clientUtilities: ClientScenario[] = [clientPing, clientCancelsOnTimeout];
