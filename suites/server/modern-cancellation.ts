import { isObject, MODERN, planToolCall, scenario, type Scenario, show, timedArguments } from '../kit.js';
import { argumentContext } from './helpers.js';

// Cancellation in the stateless era (basic/patterns/cancellation.mdx): a server sends
// notifications/cancelled only to end a subscriptions/listen subscription, naming that listen
// request; never for anything else, such as echoing the cancel of a client's own request.

/** How long the cancelled call would have run: long enough to be in flight when the cancel comes. */
const CALL_MS = 1_000;
/** How long the server's messages are watched after the cancel. */
const AFTER_MS = 300;

export const serverCancelsOnlyListens = scenario({
  id: 'server.modern.cancellation.server-cancel',
  title: 'When the client cancels an in-flight tools/call (stdio), the server sends no notifications/cancelled of its own naming that call',
  requirements: ['CANCEL-11'],
  isolation: 'session',
  revisions: MODERN,
  needs: { transport: 'stdio', capabilities: ['tools'] },
  async run({ session, check, connect, discovery, options }) {
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const context = argumentContext(discovery);
    // A call with a time-like argument stays in flight long enough for the cancel to find it.
    const timed = discovery.tools
      .map((t) => planToolCall(t, options.callTools, context))
      .filter((p) => p.call)
      .map((p) => ({ plan: p, args: timedArguments(p.tool.inputSchema, p.args, CALL_MS)?.args }))
      .find((c) => c.args !== undefined);
    if (!timed?.args) return check.skip(`not exercised: no tool mcpcheck may call (--call-tools ${options.callTools.mode}) has a time-like argument, so no call is surely in flight when cancelled`);
    const id = session.allocateId();
    const mark = session.mark;
    await session.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: timed.plan.name, arguments: timed.args, _meta: session.requestMeta() } });
    await session.notify('notifications/cancelled', { requestId: id, reason: 'mcpcheck: cancelling on purpose' });
    await session.settle(AFTER_MS);
    const echoed = session.peerFrames(mark).filter((f) => isObject(f.message) && f.message.method === 'notifications/cancelled' && isObject(f.message.params) && f.message.params.requestId === id);
    check.expect(echoed.length === 0, {
      expected: `after mcpcheck cancelled tools/call ${timed.plan.name} (id ${id}, arguments ${show(timed.args, 120)}): no notifications/cancelled from the server naming it (a server cancels only a listen request)`,
      actual: show(echoed[0]?.message, 200),
      frames: echoed.map((f) => f.index),
    });
  },
});

export const modernCancellation: Scenario[] = [serverCancelsOnlyListens];
