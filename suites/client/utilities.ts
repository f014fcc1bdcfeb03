import { clientScenario, type ClientScenario } from '../../src/runner/client-scenario.js';
import { describeReply, replyFrame } from '../../src/runner/checks.js';
import { isEmptyResult, isObject, PING_LIMIT_MS, timedPing } from '../common.js';
import { ASKING_TOOL, askingCall, initialized, release, serveAskingTool, serveHeldTool, WAIT_MS } from './helpers.js';

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

const SLOW_TOOL = { name: 'wait_forever', description: 'Never answers (mcpcheck tests request timeouts with it).', inputSchema: { type: 'object', properties: {} } };
const CLIENT_TIMEOUT_MS = 1_000;

export const clientCancelsOnTimeout = clientScenario({
  id: 'client.utilities.cancel-on-timeout',
  title: 'When a request times out, the client sends notifications/cancelled for it and stops waiting',
  requirements: ['LIFE-TIME-01'],
  steps: [{ do: 'call-tool', name: SLOW_TOOL.name, arguments: {}, timeoutMs: CLIENT_TIMEOUT_MS }],
  serve(session) {
    serveHeldTool(session, SLOW_TOOL);
  },
  async run(ctx) {
    const { session, check } = ctx;
    const call = await session.waitForFrame((f) => isObject(f.message) && f.message.method === 'tools/call' && isObject(f.message.params) && f.message.params.name === SLOW_TOOL.name, WAIT_MS);
    if (!call || !isObject(call.message)) return check.skip(`the client never called ${SLOW_TOOL.name} (it was asked to, with a ${CLIENT_TIMEOUT_MS} ms timeout)`);
    const id = call.message.id;
    const wait = CLIENT_TIMEOUT_MS + WAIT_MS;
    const cancel = await session.waitForFrame((f) => isObject(f.message) && f.message.method === 'notifications/cancelled' && isObject(f.message.params) && f.message.params.requestId === id, wait, call.index);
    check.expect(cancel !== undefined, {
      expected: `notifications/cancelled with requestId ${JSON.stringify(id)} once the client's ${CLIENT_TIMEOUT_MS} ms timeout for the call expired`,
      actual: cancel ? 'sent' : `nothing within ${wait} ms of the call (mcpcheck never answered it)`,
      frames: [cancel?.index ?? call.index],
    });
  },
});

export const clientUtilities: ClientScenario[] = [clientPing, clientCancelsOnTimeout];
