import { type ClientScenario, clientScenario, isObject, MODERN, type RecordedFrame, show } from '../kit.js';
import { methodOf, requestsSince, WAIT_MS } from './helpers.js';
import { declared } from './modern-helpers.js';

/** What a request uses of an extension: a method of one (tasks/*), or the tasks extension's `task` parameter. */
function extensionUse(frame: RecordedFrame): string | undefined {
  const method = methodOf(frame) ?? '';
  if (method.startsWith('tasks/')) return `method ${method}`;
  const params = isObject(frame.message) && isObject(frame.message.params) ? frame.message.params : {};
  return 'task' in params ? `${method} with params.task ${show(params.task)}` : undefined;
}

export const clientKeepsToCore = clientScenario({
  id: 'client.modern.extensions.one-sided',
  title: 'An extension the client advertises but mcpcheck does not (its DiscoverResult names none) is not used: no extension methods, no extension-only params',
  requirements: ['EXT-NEG-01', 'EXT-NEG-02'],
  revisions: MODERN,
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { text: 'core' } }],
  async run({ session, check }) {
    const call = await session.waitForFrame((f) => methodOf(f) === 'tools/call', WAIT_MS);
    if (!call) return check.skip(`the client made no tools/call within ${WAIT_MS} ms`);
    const requests = requestsSince(session, 0);
    const advertised = [...new Set(requests.flatMap((f) => Object.keys(isObject(declared(f.message).extensions) ? (declared(f.message).extensions as Record<string, unknown>) : {})))];
    const used = requests.flatMap((f) => {
      const use = extensionUse(f);
      return use ? [{ f, use }] : [];
    });
    // Only one side supporting an extension is what the rule is about: a client advertising none has none to keep to itself.
    if (used.length === 0 && advertised.length === 0) return check.skip('not exercised: the client advertised no extension in its clientCapabilities, so none was supported by it alone');
    check.expect(used.length === 0, {
      expected: `core behaviour only: mcpcheck advertises no extension (capabilities.extensions absent), so no extension method or extension-only parameter${advertised.length ? `, though the client advertised ${advertised.join(', ')}` : ''}`,
      actual: used.length ? used.map((u) => u.use).join('; ') : `${requests.length} requests, none using an extension`,
      frames: (used.length ? used.map((u) => u.f) : requests).map((f) => f.index),
    });
  },
});

export const clientEndsSubscription = clientScenario({
  id: 'client.modern.subscriptions.ended',
  title: 'Over stdio a client ends a subscription with notifications/cancelled naming the subscriptions/listen request',
  requirements: ['SUBS-CANCEL-01'],
  revisions: MODERN,
  needs: { transport: 'stdio' },
  steps: [{ do: 'listen', ms: 300 }, { do: 'list-tools' }],
  async run({ session, check }) {
    const listen = await session.waitForMethod('subscriptions/listen', WAIT_MS);
    if (!listen) return check.skip('the client opened no subscription (it was asked to listen for tools list changes)');
    const id = isObject(listen.message) ? listen.message.id : undefined;
    const after = await session.waitForFrame((f) => f.index > listen.index && methodOf(f) === 'tools/list', WAIT_MS);
    if (!after) return check.skip(`not exercised: the client sent no request after its subscription within ${WAIT_MS} ms (it was asked to end it, then list tools)`);
    // It may come after the next request too: waited for until the client exits.
    const cancel = await session.waitForFrame((f) => methodOf(f) === 'notifications/cancelled' && isObject(f.message) && isObject(f.message.params) && f.message.params.requestId === id, WAIT_MS, listen.index + 1);
    check.expect(cancel !== undefined, {
      expected: `notifications/cancelled with requestId ${show(id)} (the listen request's id), the stdio way to end a subscription, which the client was asked to end while staying connected`,
      actual: cancel ? 'it came' : `none within ${WAIT_MS} ms; the client went on to tools/list without it`,
      frames: [listen.index, ...(cancel ? [cancel.index] : []), after.index],
    });
  },
});

export const clientModernNegotiation: ClientScenario[] = [clientKeepsToCore, clientEndsSubscription];
