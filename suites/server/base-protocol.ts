import { allowsBatches, type CheckRecorder, type ClientSession, describeReply, elidedString, type FrameValue, isAnonymousError, isObject, MODERN_ERRORS, type RecordedFrame, type Reply, replyFrame, type RequirementId, ruling, scenario, type SendResult, show } from '../kit.js';
import { DERIVED, isResponse, ourRequestIds, stillAnswers, strayResponses, unansweredErrorSkip } from './helpers.js';

export const nullIdRejected = scenario({
  id: 'server.base.null-id-rejected',
  title: 'A request whose id is null is rejected, not executed',
  requirements: ['ROBUST-01'],
  isolation: 'shared',
  carriedOver: true,
  async run({ session, check }) {
    const mark = session.mark;
    // The era's liveness request (ping, or server/discover with its _meta): one any server would run.
    await session.send(session.compose(null, session.probeMethod));
    const barrier = await session.barrier();
    const executed = session.peerFrames(mark).filter((f) => isObject(f.message) && 'result' in f.message && (f.message.id === null || !('id' in f.message)));
    check.expect(executed.length === 0, {
      expected: `an error (−32600) or no answer to {"jsonrpc":"2.0","id":null,"method":"${session.probeMethod}"}, never a result (${DERIVED})`,
      actual: `${executed.length} result frame(s) answering it`,
      frames: executed.map((f) => f.index),
      // Nothing came back is evidence only once the server has answered what followed.
      replies: [barrier],
    });
  },
});

/**
 * The skip for an HTTP error status whose body holds no JSON-RPC error: HTTP-POST-04 allows that
 * answer, and it carries no code for BASE-ERR-04 to judge (ruling http-error-body).
 */
function httpRefusalSkip(check: CheckRecorder, what: string, status: number, body: string, frames: number[] = [], key?: string): void {
  check.skip(
    `not exercised: ${what} was refused with HTTP ${status} and a body that is no JSON-RPC error (${body ? show(body, 200) : 'empty'}); HTTP-POST-04 lets the body be anything and wins over BASE-ERR-04, which then has no error code to judge (${ruling('http-error-body').cite})`,
    { frames, requirements: ['BASE-ERR-04'], ...(key ? { key } : {}) },
  );
}

/**
 * Sends one malformed frame and expects an error with `code` (the request could not be read, so
 * the error has no id).
 */
async function expectErrorFor(session: ClientSession, check: CheckRecorder, send: () => Promise<SendResult | undefined>, code: number, what: string): Promise<void> {
  const mark = session.mark;
  const sent = await send();
  await session.barrier();
  judgeErrorCode(session, check, { mark, ...(sent?.status !== undefined ? { status: sent.status, body: sent.body } : {}) }, code, what);
}

/**
 * Expects an error with `code` among the answers since `sent.mark`: without an id (the request
 * could not be read) or with `id` when the server could read that much. An HTTP error status
 * (`sent.status`) with no such error is HTTP-POST-04's answer, a skip here.
 */
function judgeErrorCode(session: ClientSession, check: CheckRecorder, sent: { mark: number; status?: number; body?: string | undefined }, code: number, what: string, o: { id?: number; key?: string } = {}): void {
  const { id, key } = o;
  const answers = session.peerFrames(sent.mark).filter((f) => isAnonymousError(f.message) || (id !== undefined && isObject(f.message) && isObject(f.message.error) && f.message.id === id));
  if (answers.length === 0 && sent.status !== undefined && sent.status >= 400) {
    const body = session.peerFrames(sent.mark).find((f) => f.via === 'post-error');
    return httpRefusalSkip(check, what, sent.status, sent.body ?? body?.raw ?? (body ? JSON.stringify(body.message) : ''), body ? [body.index] : [], key);
  }
  const codes = answers.map((f) => ((f.message as Record<string, unknown>).error as Record<string, unknown>).code);
  check.expect(codes.includes(code), {
    ...(key ? { key } : {}),
    requirements: ['BASE-ERR-04'],
    expected: `a JSON-RPC error with code ${code} for ${what}`,
    actual: answers.length ? `error code(s) ${codes.map(String).join(', ')}` : 'no error response',
    frames: answers.map((f) => f.index),
  });
}

/** Why a malformed message with a readable id is owed a response, for the `answered` checks' messages. */
const CALL_ANSWERED = `a message with a readable id is a call, even when it is no valid Request object: JSON-RPC 2.0 §5 answers every call, invalid ones with −32600; ${ruling('invalid-request-answered').cite}`;

export const parseError = scenario({
  id: 'server.base.parse-error',
  title: 'Unparsable JSON gets a −32700 parse error',
  requirements: ['BASE-ERR-04'],
  isolation: 'shared',
  carriedOver: true,
  async run({ session, check }) {
    await expectErrorFor(session, check, () => session.sendFrameText('{"jsonrpc":"2.0","id":'), -32700, 'a frame that is not JSON (parse error, no id)');
  },
});

export const invalidRequest = scenario({
  id: 'server.base.invalid-request',
  title: 'A message that is not a valid request gets −32600',
  requirements: ['BASE-ERR-04', 'BASE-ID-04'],
  isolation: 'shared',
  carriedOver: true,
  async run({ session, check }) {
    const id = session.allocateId();
    const what = '{"jsonrpc":"2.0","id":N,"method":42} (invalid request)';
    const mark = session.mark;
    const reply = await session.requestMessage({ jsonrpc: '2.0', id, method: 42 });
    const refused = reply.kind === 'rejected' ? { status: reply.status, body: reply.body } : {};
    if (reply.kind === 'unanswered') unansweredErrorSkip(check, what, 'answered', { key: 'code', requirements: ['BASE-ERR-04'] });
    else judgeErrorCode(session, check, { mark, ...refused }, -32600, what, { id, key: 'code' });
    check.answered(reply, { key: 'answered', what, sent: mark, why: CALL_ANSWERED });
  },
});

export const unknownMethod = scenario({
  id: 'server.base.unknown-method',
  title: 'An unknown method gets −32601 carrying the request id',
  requirements: ['BASE-ERR-04', 'ROBUST-04'],
  isolation: 'shared',
  carriedOver: true,
  async run({ session, check }) {
    const reply = await session.request('mcpcheck/no-such-method', {});
    check.errorCode(reply, [-32601], { what: 'request mcpcheck/no-such-method' });
  },
});

export const invalidParams = scenario({
  id: 'server.base.invalid-params',
  title: 'Params of the wrong type get −32602 (or −32600)',
  requirements: ['BASE-ERR-04', 'BASE-ID-04'],
  isolation: 'shared',
  carriedOver: true,
  async run({ session, check, discovery }) {
    const method = 'tools' in discovery.capabilities ? 'tools/call' : session.probeMethod;
    const what = `${method} with "params": 5`;
    const id = session.allocateId();
    const mark = session.mark;
    const reply = await session.requestMessage({ jsonrpc: '2.0', id, method, params: 5 });
    if (reply.kind === 'unanswered') unansweredErrorSkip(check, what, 'answered', { key: 'code', requirements: ['BASE-ERR-04'] });
    else if (reply.kind === 'rejected' && reply.error === undefined) httpRefusalSkip(check, what, reply.status, reply.body, reply.frame !== undefined ? [reply.frame] : [], 'code');
    else if (session.transport === 'http' && headerMismatch(reply)) {
      check.expect(true, { key: 'code', requirements: ['BASE-ERR-04'], expected: `${what}: −32602 or −32600, or −32020 over HTTP (params that are no object carry no _meta, so the MCP-Protocol-Version header differs from the body's absent version: ${ruling('missing-meta-error').cite})`, actual: '−32020', frames: [replyFrame(reply)] });
    } else check.errorCode(reply, [-32602, -32600], { key: 'code', requirements: ['BASE-ERR-04'], what });
    check.answered(reply, { key: 'answered', what, sent: mark, why: CALL_ANSWERED });
  },
});

/** A 2026-07-28 HeaderMismatchError over HTTP. */
function headerMismatch(reply: Reply): boolean {
  return (reply.kind === 'error' || reply.kind === 'rejected') && reply.error?.code === MODERN_ERRORS.headerMismatch;
}

/** Each probe notification, the rules an answer to it would break, and why it must be ignored. */
const NOTIFICATION_PROBES: Array<{ key: string; what: string; message: Record<string, unknown>; requirements: RequirementId[] }> = [
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
  carriedOver: true,
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
      expected: `the session stays healthy (${session.probeMethod} answered) after invalid cancellations`,
      actual: barrier ? describeReply(barrier) : 'no ping sent',
      frames: [barrier ? replyFrame(barrier) : undefined],
    });
  },
});

/** What came back to a batch of pings: how often each id was answered, in which frames, and refusals. */
interface BatchReaction {
  /** Answers per request id of the batch (alone or inside an array). */
  answers: Map<unknown, number>;
  /** Frames that carry answers, and whether each is an array. */
  answerFrames: RecordedFrame[];
  /** Errors without id (or with id null): the batch refused as a whole. */
  refusals: RecordedFrame[];
  /** Over HTTP: the status of the POST that carried the batch. */
  status?: number;
  body?: string;
}

function batchReaction(session: ClientSession, mark: number, ids: number[], sent: SendResult | undefined): BatchReaction {
  const answers = new Map<unknown, number>(ids.map((id) => [id, 0]));
  const answerFrames: RecordedFrame[] = [];
  const refusals: RecordedFrame[] = [];
  for (const f of session.peerFrames(mark)) {
    const members = Array.isArray(f.message) ? f.message : [f.message];
    let answering = false;
    for (const m of members) {
      if (!isObject(m) || 'method' in m || !('result' in m || 'error' in m)) continue;
      if (answers.has(m.id)) {
        answers.set(m.id, answers.get(m.id)! + 1);
        answering = true;
      } else if ('error' in m && (!('id' in m) || m.id === null)) refusals.push(f);
    }
    if (answering) answerFrames.push(f);
  }
  return { answers, answerFrames, refusals, ...(sent?.status !== undefined ? { status: sent.status } : {}), ...(sent?.body !== undefined ? { body: sent.body } : {}) };
}

/**
 * Sends a batch of two pings and collects the reaction. Answers may still be on their way (an
 * SSE stream) when the ping after them is answered: the rest is awaited a while, scaled to how
 * long that ping took.
 */
async function sendBatch(session: ClientSession): Promise<{ ids: number[]; mark: number; reaction: BatchReaction; barrier: Reply }> {
  const mark = session.mark;
  const ids = [session.allocateId(), session.allocateId()];
  const sent = await session.send(ids.map((id) => session.compose(id, session.probeMethod)));
  const started = performance.now();
  const barrier = await session.barrier();
  let reaction = batchReaction(session, mark, ids, sent);
  const settled = (r: BatchReaction) => r.refusals.length > 0 || (r.status !== undefined && r.status >= 400) || [...r.answers.values()].every((n) => n > 0);
  if (!settled(reaction) && barrier.kind === 'result') {
    const waitMs = Math.min(5_000, Math.max(1_000, 4 * (performance.now() - started)));
    await session.waitForFrame(() => settled(batchReaction(session, mark, ids, sent)), waitMs, mark);
    reaction = batchReaction(session, mark, ids, sent);
  }
  return { ids, mark, reaction, barrier };
}

function describeReaction(r: BatchReaction): string {
  const counts = [...r.answers.values()];
  const parts = [`${counts.filter((n) => n > 0).length} of ${counts.length} request(s) answered${counts.some((n) => n > 1) ? ' (some more than once)' : ''}`];
  const arrays = r.answerFrames.filter((f) => Array.isArray(f.message)).length;
  if (r.answerFrames.length > 0) parts.push(`in ${r.answerFrames.length} frame(s), ${arrays} of them an array`);
  if (r.refusals.length > 0) parts.push(`${r.refusals.length} error(s) without id`);
  if (r.status !== undefined) parts.push(`HTTP ${r.status}${r.body ? ` with body ${show(r.body, 120)}` : ''}`);
  return parts.join('; ');
}

const executed = (r: BatchReaction) => [...r.answers.values()].every((n) => n === 1) && r.refusals.length === 0;
const refused = (r: BatchReaction) => [...r.answers.values()].every((n) => n === 0) && (r.refusals.length === 1 || (r.refusals.length === 0 && r.status !== undefined && r.status >= 400 && r.status < 500));

export const batch = scenario({
  id: 'server.base.batch',
  title: 'A JSON-RPC batch on the negotiated revision is executed (one answer per request) or refused with one error; the server survives it',
  requirements: ['ROBUST-05'],
  isolation: 'shared',
  carriedOver: true,
  async run({ session, check }) {
    const { reaction, barrier } = await sendBatch(session);
    // A branch per check, not a declared span of revisions: the revisions without batches are not
    // one span (2024-11-05, then 2025-06-18 on), and the skip reports what the batch got.
    if (allowsBatches(session.speaks)) {
      // One defect, one finding: a session on a revision with batches is what batch-2025-03-26 judges.
      check.skip(`judged by server.base.batch-2025-03-26: this session negotiated ${session.speaks}, where batches are part of the protocol and must be processed (${describeReaction(reaction)})`, { key: 'executed-or-refused' });
    } else {
      check.expect(executed(reaction) || refused(reaction), {
        key: 'executed-or-refused',
        expected: `the batch of two ${session.probeMethod} requests either executed (each answered once, one by one or in one array) or refused with one error (HTTP: a 4xx), since batches are no MCP message on ${session.speaks} (${DERIVED}; ${ruling('batch-reaction').cite})`,
        actual: describeReaction(reaction),
        frames: [...reaction.answerFrames, ...reaction.refusals].map((f) => f.index),
        replies: [barrier],
      });
    }
    await stillAnswers(session, check, 'a batch', 'alive');
  },
});

export const batch20250326 = scenario({
  id: 'server.base.batch-2025-03-26',
  title: 'On a session that negotiated 2025-03-26, a JSON-RPC batch is processed: one answer per request, in a batch response',
  requirements: ['ROBUST-05'],
  isolation: 'session',
  async run({ session, check }) {
    const init = await session.initialize({ protocolVersion: '2025-03-26', capabilities: {} });
    if (init.kind !== 'result' || init.result.protocolVersion !== '2025-03-26') {
      const answered = init.kind === 'result' ? `protocolVersion ${show(init.result.protocolVersion)}` : describeReply(init);
      return check.skip(`not exercised: initialize for 2025-03-26 was answered with ${answered}, so no session runs on it (server.lifecycle.version-negotiation judges that answer)`, { frames: [replyFrame(init)] });
    }
    const { reaction, barrier } = await sendBatch(session);
    // Over HTTP the 2025-03-26 transport lets the responses on the stream be batched or not.
    const oneArray = session.transport === 'http' || (reaction.answerFrames.length === 1 && Array.isArray(reaction.answerFrames[0]!.message));
    check.expect(executed(reaction) && oneArray, {
      expected: `the batch of two pings processed, each answered once${session.transport === 'stdio' ? ', in one array (JSON-RPC 2.0 §6)' : ''}, since 2025-03-26 has JSON-RPC batches (${ruling('batch-reaction').cite})`,
      actual: describeReaction(reaction),
      frames: [...reaction.answerFrames, ...reaction.refusals].map((f) => f.index),
      replies: [barrier],
    });
  },
});

/** Where a probe's bulk goes in its text: a `_meta` value stands in for it, then gives way. */
const PLACEHOLDER = 'mcpcheck-placeholder';

/**
 * The era's liveness request (ping, or server/discover) whose `_meta` carries `key`, as text with
 * `bulk` put in place of its value (joined into the text rather than stringified: a 10 MB string
 * cost tens of ms each way), and the message with the placeholder.
 */
function livenessWith(session: ClientSession, key: string, bulk: string): { text: string; message: { params: { _meta: Record<string, unknown> } } } {
  const message = session.compose(session.allocateId(), session.probeMethod, { _meta: { [key]: PLACEHOLDER } }) as { params: { _meta: Record<string, unknown> } };
  return { text: JSON.stringify(message).replace(`"${PLACEHOLDER}"`, () => bulk), message };
}

/**
 * A liveness request whose `_meta` carries a 10 MB string, as bytes and as the value it parses to,
 * that string cut as the frame's record keeps it (which saves parsing it back). Each pass over
 * 10 MB of fresh memory cost some 30 ms of the run's last, lone scenario: the bytes are written
 * once, in place, and the whole string is never made.
 */
function hugeStringProbe(session: ClientSession): { text: Uint8Array; value: FrameValue } {
  const size = 10 * 1024 * 1024;
  const { text, message } = livenessWith(session, 'dev.mcpcheck/padding', PLACEHOLDER_MARK);
  const [head, tail] = text.split(PLACEHOLDER_MARK) as [string, string];
  const before = Buffer.from(`${head}"`);
  const after = Buffer.from(`"${tail}`);
  const bytes = Buffer.allocUnsafe(before.length + size + after.length);
  before.copy(bytes, 0);
  bytes.fill('x', before.length, before.length + size);
  after.copy(bytes, before.length + size);
  message.params._meta['dev.mcpcheck/padding'] = elidedString(size, (n) => bytes.toString('latin1', before.length, before.length + n));
  return { text: bytes, value: { elided: message } };
}

/** Where hugeStringProbe's bytes go in the text (no JSON text holds it). */
const PLACEHOLDER_MARK = '\u0000mcpcheck-bulk\u0000';

/** Values that would trip a careless server; each is sent alone, then the era's liveness request must still work. */
function hostileFrames(session: ClientSession): Array<{ key: string; what: string; text: string | Uint8Array; value?: FrameValue }> {
  const deep = 10_000;
  return [
    { key: 'invalid-utf8', what: 'a line of invalid UTF-8', text: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]) },
    { key: 'huge-string', what: 'a 10 MB string', ...hugeStringProbe(session) },
    { key: 'deep-nesting', what: '10,000-deep nesting', text: livenessWith(session, 'dev.mcpcheck/deep', `${'['.repeat(deep)}${']'.repeat(deep)}`).text },
    { key: 'envelope-types', what: 'wrong types in the envelope', text: JSON.stringify({ jsonrpc: 2, id: {}, method: [] }) },
    { key: 'params-types', what: 'wrong types in params', text: JSON.stringify(session.compose(session.allocateId(), 'tools/list', { cursor: { evil: true } })) },
    { key: 'json-string', what: 'a JSON string instead of an object', text: '"mcpcheck"' },
  ];
}

export const hostileInput = scenario({
  id: 'server.base.hostile-input',
  title: 'Hostile input is survived: the server keeps answering ping (server/discover in 2026-07-28)',
  requirements: ['ROBUST-05'],
  isolation: 'process',
  carriedOver: true,
  waits: true,
  async run({ session, connect, check }) {
    const init = await connect(session);
    if (!init.ok) return check.error(`${init.opening} failed: ${describeReply(init.reply)}`);
    for (const probe of hostileFrames(session)) {
      const sent = performance.now();
      await session.sendFrameText(probe.text, probe.value);
      if (!(await stillAnswers(session, check, probe.what, probe.key, undefined, performance.now() - sent))) return;
    }
    const stray = session.peerFrames(0).filter((f) => Array.isArray(f.message) || (f.raw !== undefined && !isResponse(f)));
    if (stray.length > 0) check.note(`${stray.length} frame(s) the server sent were not JSON-RPC messages (see the live checks)`);
  },
});

export const baseProtocol = [nullIdRejected, parseError, invalidRequest, unknownMethod, invalidParams, notificationsUnanswered, batch, batch20250326, hostileInput];
