import type { ClientSession } from '../../src/harness/client-session.js';
import type { RecordedFrame } from '../../src/harness/peer-session.js';
import type { CheckRecorder } from '../../src/runner/checks.js';
import { describeReply, replyFrame } from '../../src/runner/checks.js';
import { scenario } from '../../src/runner/scenario.js';
import { isObject, isResponse, ourRequestIds, stillAnswers, strayResponses } from './helpers.js';

export const nullIdRejected = scenario({
  id: 'server.base.null-id-rejected',
  title: 'A request whose id is null is rejected, not executed',
  requirements: ['ROBUST-01'],
  isolation: 'shared',
  async run({ session, check }) {
    const mark = session.mark;
    await session.send({ jsonrpc: '2.0', id: null, method: 'ping' });
    const barrier = await session.barrier();
    const executed = session.peerFrames(mark).filter((f) => isObject(f.message) && 'result' in f.message && (f.message.id === null || !('id' in f.message)));
    check.expect(executed.length === 0, {
      expected: 'an error (−32600) or no answer to {"jsonrpc":"2.0","id":null,"method":"ping"}, never a result',
      actual: `${executed.length} result frame(s) answering it`,
      frames: executed.map((f) => f.index),
      // Nothing came back is evidence only once the server has answered what followed.
      replies: [barrier],
    });
  },
});

/** An error response without an id (or with the JSON-RPC 2.0 null id): the answer to an unreadable request. */
function isAnonymousError(f: RecordedFrame): boolean {
  const m = f.message;
  return isObject(m) && isObject(m.error) && (!('id' in m) || m.id === null);
}

/**
 * Sends one malformed frame and expects an error with `code`, without an id (the request could
 * not be read) or with `id` when the server could read that much.
 */
async function expectErrorFor(session: ClientSession, check: CheckRecorder, send: () => Promise<unknown>, code: number, what: string, id?: number): Promise<void> {
  const mark = session.mark;
  await send();
  await session.barrier();
  const answers = session.peerFrames(mark).filter((f) => isAnonymousError(f) || (id !== undefined && isObject(f.message) && isObject(f.message.error) && f.message.id === id));
  const codes = answers.map((f) => ((f.message as Record<string, unknown>).error as Record<string, unknown>).code);
  check.expect(codes.includes(code), {
    expected: `a JSON-RPC error with code ${code} for ${what}`,
    actual: answers.length ? `error code(s) ${codes.map(String).join(', ')}` : 'no error response',
    frames: answers.map((f) => f.index),
  });
}

export const parseError = scenario({
  id: 'server.base.parse-error',
  title: 'Unparsable JSON gets a −32700 parse error',
  requirements: ['BASE-ERR-04'],
  isolation: 'shared',
  async run({ session, check }) {
    await expectErrorFor(session, check, () => session.sendFrameText('{"jsonrpc":"2.0","id":'), -32700, 'a frame that is not JSON (parse error, no id)');
  },
});

export const invalidRequest = scenario({
  id: 'server.base.invalid-request',
  title: 'A message that is not a valid request gets −32600',
  requirements: ['BASE-ERR-04'],
  isolation: 'shared',
  async run({ session, check }) {
    const id = session.allocateId();
    await expectErrorFor(session, check, () => session.send({ jsonrpc: '2.0', id, method: 42 }), -32600, '{"jsonrpc":"2.0","id":N,"method":42} (invalid request)', id);
  },
});

export const unknownMethod = scenario({
  id: 'server.base.unknown-method',
  title: 'An unknown method gets −32601 carrying the request id',
  requirements: ['BASE-ERR-04', 'ROBUST-04'],
  isolation: 'shared',
  async run({ session, check }) {
    const reply = await session.request('mcpcheck/no-such-method', {});
    check.errorCode(reply, [-32601], { what: 'request mcpcheck/no-such-method' });
  },
});

export const invalidParams = scenario({
  id: 'server.base.invalid-params',
  title: 'Params of the wrong type get −32602 (or −32600)',
  requirements: ['BASE-ERR-04'],
  isolation: 'shared',
  async run({ session, check, discovery }) {
    const method = 'tools' in discovery.capabilities ? 'tools/call' : 'ping';
    const id = session.allocateId();
    const reply = await session.probe({ jsonrpc: '2.0', id, method, params: 5 });
    check.errorCode(reply, [-32602, -32600], { what: `${method} with "params": 5` });
  },
});

/** Each probe notification, the rules an answer to it would break, and why it must be ignored. */
const NOTIFICATION_PROBES: Array<{ key: string; what: string; message: Record<string, unknown>; requirements: string[] }> = [
  { key: 'unknown', what: 'an unknown notification', message: { jsonrpc: '2.0', method: 'notifications/mcpcheck_unknown', params: { hello: 'world' } }, requirements: ['BASE-NOTIF-02', 'ROBUST-04'] },
  { key: 'cancel-never-sent', what: 'a cancellation of a request never sent', message: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'mcpcheck-never-sent', reason: 'probe' } }, requirements: ['BASE-NOTIF-02', 'CANCEL-08'] },
  { key: 'cancel-malformed-id', what: 'a cancellation with a malformed requestId', message: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } }, requirements: ['BASE-NOTIF-02', 'CANCEL-08'] },
  { key: 'cancel-no-params', what: 'a cancellation without params', message: { jsonrpc: '2.0', method: 'notifications/cancelled' }, requirements: ['BASE-NOTIF-02', 'CANCEL-08'] },
  { key: 'progress-unknown-token', what: 'progress for an unknown token', message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'mcpcheck-unknown-token', progress: 1 } }, requirements: ['BASE-NOTIF-02'] },
];

export const notificationsUnanswered = scenario({
  id: 'server.base.notifications-unanswered',
  title: 'Notifications, known or unknown, are never answered',
  requirements: ['BASE-NOTIF-02', 'ROBUST-04', 'CANCEL-07', 'CANCEL-08'],
  isolation: 'shared',
  async run({ session, check }) {
    let barrier: Awaited<ReturnType<typeof session.barrier>> | undefined;
    for (const probe of NOTIFICATION_PROBES) {
      const mark = session.mark;
      await session.send(probe.message);
      barrier = await session.barrier();
      // Only responses that answer none of our requests can be answers to the notification.
      const stray = strayResponses(session, mark, ourRequestIds(session));
      check.expect(stray.length === 0, {
        key: probe.key,
        requirements: probe.requirements,
        expected: `no response to ${probe.what}`,
        actual: `${stray.length} response frame(s) that answer no request`,
        frames: [session.mark - 1, ...stray.map((f) => f.index)].filter((n) => n >= mark),
        replies: [barrier],
      });
    }
    check.expect(barrier?.kind === 'result', {
      key: 'still-healthy',
      requirements: ['CANCEL-07'],
      expected: 'the session stays healthy (ping answered) after invalid cancellations',
      actual: barrier ? describeReply(barrier) : 'no ping sent',
      frames: [barrier ? replyFrame(barrier) : undefined],
    });
  },
});

export const batchRejected = scenario({
  id: 'server.base.batch-rejected',
  title: 'A JSON-RPC batch is rejected or dropped, never answered with a batch',
  requirements: ['BASE-MSG-05', 'ROBUST-05'],
  isolation: 'shared',
  async run({ session, check }) {
    const mark = session.mark;
    const ids = [session.allocateId(), session.allocateId()];
    await session.send(ids.map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })));
    const barrier = await session.barrier();
    const arrays = session.peerFrames(mark).filter((f) => Array.isArray(f.message));
    const executed = session.peerFrames(mark).filter((f) => isObject(f.message) && 'result' in f.message && ids.includes(f.message.id as number));
    check.expect(executed.length === 0, {
      key: 'not-executed',
      requirements: ['ROBUST-05'],
      expected: 'the requests inside a batch refused (an error) or dropped, since MCP has no batches since 2025-06-18',
      actual: `${executed.length} of them executed and answered one by one`,
      frames: executed.map((f) => f.index),
      replies: [barrier],
    });
    check.expect(arrays.length === 0, {
      key: 'no-batch-answer',
      requirements: ['BASE-MSG-05'],
      expected: 'an error or nothing in answer to a batch array, never a batch (arrays are not MCP messages)',
      actual: `${arrays.length} array frame(s)`,
      frames: arrays.map((f) => f.index),
      replies: [barrier],
    });
    await stillAnswers(session, check, 'a batch', 'alive');
  },
});

/**
 * A ping whose `_meta` carries a 10 MB string, as text and as the value it parses to: the padding
 * is joined into the text of the message without it rather than stringified, and the value saves
 * parsing it back (each cost tens of ms).
 */
function hugeStringPing(id: number): { text: string; value: { parsed: unknown } } {
  const padding = 'x'.repeat(10 * 1024 * 1024);
  const message = (p: string) => ({ jsonrpc: '2.0', id, method: 'ping', params: { _meta: { 'dev.mcpcheck/padding': p } } });
  // The only "" in the text is the empty padding.
  const text = JSON.stringify(message('')).replace('""', () => `"${padding}"`);
  return { text, value: { parsed: message(padding) } };
}

/** Values that would trip a careless server; each is sent alone, then ping must still work. */
function hostileFrames(id: () => number): Array<{ key: string; what: string; text: string | Uint8Array; value?: { parsed: unknown } }> {
  const deep = 10_000;
  return [
    { key: 'invalid-utf8', what: 'a line of invalid UTF-8', text: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]) },
    { key: 'huge-string', what: 'a 10 MB string', ...hugeStringPing(id()) },
    { key: 'deep-nesting', what: '10,000-deep nesting', text: `{"jsonrpc":"2.0","id":${id()},"method":"ping","params":{"_meta":{"dev.mcpcheck/deep":${'['.repeat(deep)}${']'.repeat(deep)}}}}` },
    { key: 'envelope-types', what: 'wrong types in the envelope', text: JSON.stringify({ jsonrpc: 2, id: {}, method: [] }) },
    { key: 'params-types', what: 'wrong types in params', text: JSON.stringify({ jsonrpc: '2.0', id: id(), method: 'tools/list', params: { cursor: { evil: true } } }) },
    { key: 'json-string', what: 'a JSON string instead of an object', text: '"mcpcheck"' },
  ];
}

export const hostileInput = scenario({
  id: 'server.base.hostile-input',
  title: 'Hostile input is survived: the server keeps answering ping',
  requirements: ['ROBUST-05'],
  isolation: 'process',
  waits: true,
  async run({ session, check }) {
    const init = await session.initialize({ capabilities: {} });
    if (init.kind !== 'result') return check.error(`initialize failed: ${describeReply(init)}`);
    for (const probe of hostileFrames(() => session.allocateId())) {
      await session.sendFrameText(probe.text, probe.value);
      if (!(await stillAnswers(session, check, probe.what, probe.key))) return;
    }
    const stray = session.peerFrames(0).filter((f) => Array.isArray(f.message) || (f.raw !== undefined && !isResponse(f)));
    if (stray.length > 0) check.note(`${stray.length} frame(s) the server sent were not JSON-RPC messages (see the live checks)`);
  },
});

export const baseProtocol = [nullIdRejected, parseError, invalidRequest, unknownMethod, invalidParams, notificationsUnanswered, batchRejected, hostileInput];
