/**
 * Sends one fuzz case on a session and observes what the target does with it: the frames it sends
 * until a ping sent after the case is answered, and the live findings about them.
 */
import type { ClientSession } from '../harness/client-session.js';
import type { RecordedFrame } from '../harness/peer-session.js';
import { isObject } from '../json.js';
import { caseId, frameBytes, type FuzzCase } from './case.js';
import type { Observation } from './oracles.js';

export interface SendTimeouts {
  /** How long the case's own response is waited for. */
  responseMs: number;
  /** How long the ping after it may take before the target counts as hanging. */
  pingMs: number;
}

export interface SendOptions extends SendTimeouts {
  /** Whether the case's own answer is waited for in full: only while an oracle still to report reads it. */
  awaitAnswer: boolean;
}

/** The pause between the two halves of a split frame: long enough that they arrive as two reads. */
export const SPLIT_PAUSE_MS = 20;

/**
 * What is written for the case over stdio, in order, SPLIT_PAUSE_MS apart: the frame with its
 * line ending, or its two halves. Text stays text (the session reads what it sends as text, and a
 * frame can be megabytes).
 */
export function stdioWrites(c: FuzzCase): Array<string | Uint8Array> {
  const bytes = frameBytes(c);
  if (c.ending !== 'split') {
    const ending = c.ending === 'crlf' ? '\r\n' : '\n';
    return [typeof bytes === 'string' ? bytes + ending : Buffer.concat([bytes, Buffer.from(ending)])];
  }
  const whole = Buffer.concat([Buffer.from(bytes), Buffer.from('\n')]);
  const half = Math.max(1, Math.floor(whole.length / 2));
  return [whole.subarray(0, half), whole.subarray(half)];
}

/** Waits for `p`, at most `ms`; what it does later is left to it. */
async function atMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Over HTTP: the status of the case's POST, when its response headers came within the wait. */
async function sendFrame(session: ClientSession, c: FuzzCase, waitMs: number): Promise<number | undefined> {
  if (session.transport === 'http') {
    // A server that never starts its answer never sends the POST's response headers either: the
    // case's own wait bounds them (the channel's would be 30 s), and the ping goes on its own POST.
    let status: number | undefined;
    await atMost(session.sendRaw(frameBytes(c), undefined, c.headers).then((r) => (status = r?.status)), waitMs);
    return status;
  }
  const writes = stdioWrites(c);
  for (const [i, w] of writes.entries()) {
    if (i > 0) await session.settle(SPLIT_PAUSE_MS);
    await session.sendRaw(w);
  }
}

/**
 * The request that tells a live target from a hung one, as the session's era has it: ping, or in
 * the stateless era (which has no ping) server/discover with the per-request `_meta`.
 */
export function livenessProbe(session: ClientSession): { method: string; params?: Record<string, unknown> } {
  return session.era === 'stateless' ? { method: 'server/discover', params: { _meta: session.requestMeta() } } : { method: 'ping' };
}

/** `used`: the ids the session carried so far; the ping's id is kept clear of them and added. */
export async function sendCase(session: ClientSession, c: FuzzCase, t: SendOptions, used: Set<unknown>): Promise<Observation> {
  const id = caseId(c);
  // A view, not a copy: a session carries thousands of ids, and the case is judged before the next is sent.
  const earlier = { has: (x: unknown) => x !== id && used.has(x) };
  const mark = session.mark;
  const findingsMark = session.findings.length;
  const started = performance.now();
  const status = await sendFrame(session, c, t.responseMs);
  const answered = (f: RecordedFrame) => isObject(f.message) && f.message.id === id && ('result' in f.message || 'error' in f.message);
  const awaited = id !== undefined && c.expects !== 'survive' && t.awaitAnswer;
  // A tool may run for a while: its answer is waited for before the ping is sent.
  const left = () => Math.max(0, t.responseMs - (performance.now() - started));
  if (awaited && c.method === 'tools/call') await session.waitForFrame(answered, left(), mark);
  const ping = async () => {
    let pingId = session.allocateId();
    while (used.has(pingId)) pingId = session.allocateId();
    used.add(pingId);
    return { pingId, reply: await session.requestMessage({ jsonrpc: '2.0', id: pingId, ...livenessProbe(session) }, t.pingMs) };
  };
  const first = await ping();
  // A server may answer the ping before the frame read with it (one read, fewer awaits): an answer
  // that cannot carry the case's id (a batch, an unreadable frame) could still be on its way. The
  // server read a second ping only after it answered the first, so by its answer all is out.
  if (first.reply.kind === 'result' && (id === undefined || !session.peerFrames(mark).some(answered))) {
    await ping();
  }
  // What the target wrote together with its answer to ping (a second response right behind it,
  // say) still belongs to the case: the reads already taken in are handled before it is judged.
  await session.settle(0);
  // Most servers answer in order, none has to: an answer still missing is given its full time.
  if (awaited && first.reply.kind === 'result') await session.waitForFrame(answered, left(), mark);
  const waitedMs = Math.round(performance.now() - started);
  return { frames: session.peerFrames(mark), pingId: first.pingId, probe: livenessProbe(session).method, earlier, ping: first.reply, findings: session.findings.slice(findingsMark).filter((f) => (f.frame ?? 0) >= mark), waitedMs, ...(status !== undefined ? { status } : {}) };
}
