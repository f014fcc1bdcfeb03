import { allowedInEmptyResult, type CheckRecorder, type PeerSession, type PropertyOutcome, type Reply, ruling } from './kit.js';

// What scenarios of both roles share.

/** The peer answered (a result, a malformed one or an error), as opposed to silence or a closed connection. */
export function isAnswer(reply: Reply): reply is Extract<Reply, { kind: 'result' | 'malformed-result' | 'error' }> {
  return reply.kind === 'result' || reply.kind === 'malformed-result' || reply.kind === 'error';
}

/**
 * A result with no members but the ones every Result may carry: `_meta`, and the `resultType`
 * "complete" that 2026-07-28 puts on every result and dual-era servers send on older revisions too
 * (ruling empty-result-members).
 */
/** What an expected empty result may hold, for the messages of the checks that expect one. */
export const EMPTY_RESULT = `{} (only _meta, and resultType "complete", allowed: ${ruling('empty-result-members').cite})`;

export function isEmptyResult(reply: Reply): boolean {
  return reply.kind === 'result' && Object.entries(reply.result).every(([k, v]) => allowedInEmptyResult(k, v));
}

/** PING-01's "promptly". */
export const PING_LIMIT_MS = 2_000;

/** How long the era's liveness request (ping, or server/discover where there is no ping) took. */
export async function timedPing(session: PeerSession): Promise<{ reply: Reply; ms: number }> {
  const started = performance.now();
  const reply = await session.request(session.probeMethod, undefined, 5_000);
  return { reply, ms: Math.round(performance.now() - started) };
}

/** Pings sent in all, at most, when each answer comes later than PING_LIMIT_MS. */
const PING_TRIES = 3;

/**
 * PING-01's ping, timed: one answered later than PING_LIMIT_MS is sent again, up to PING_TRIES in
 * all, and the fastest answer is judged. On a loaded machine one round trip can take seconds no
 * server spent (a correct server's ping, before initialized, once took 2.3 s in a full test run);
 * a server slow at ping is slow each time. `says`: the time judged, and those of the others, for the message.
 */
export async function promptPing(session: PeerSession): Promise<{ reply: Reply; ms: number; says: string }> {
  const tries = [await timedPing(session)];
  while (tries.length < PING_TRIES && tries.every((t) => t.reply.kind === 'result' && t.ms > PING_LIMIT_MS)) {
    const next = await timedPing(session);
    if (next.reply.kind !== 'result') break;
    tries.push(next);
  }
  const best = tries.reduce((a, b) => (b.ms < a.ms ? b : a));
  const others = tries.filter((t) => t !== best).map((t) => t.ms);
  const again = others.length > 0 ? ` (the fastest of ${tries.length}: it was sent again after an answer later than ${PING_LIMIT_MS} ms; the others took ${others.join(', ')} ms)` : '';
  return { ...best, says: `after ${best.ms} ms${again}` };
}

/**
 * A property's outcome as one check: the shrunk counterexample fails (with seed and path, so it
 * can be replayed), a run that judged no case is a skip with the reasons, else a pass that says
 * how many generated cases held.
 */
export function recordProperty<T>(check: CheckRecorder, outcome: PropertyOutcome<T>, o: { expected: string; asked: number; what: string; show(value: T): string }): void {
  const where = `seed ${outcome.seed}`;
  const f = outcome.failure;
  if (f) {
    check.expect(false, {
      expected: o.expected,
      actual: `${f.reason}; smallest failing ${o.what} (after ${f.shrinks} shrink step(s)${outcome.cutShort ? ', shrinking cut short by its budget' : ''}${outcome.unjudgedShrinks ? `, ${outcome.unjudgedShrinks} smaller candidate(s) passed by as not judged: ${outcome.inconclusive.join('; ')}` : ''}): ${o.show(f.counterexample)}; ${where}, fast-check path ${f.path}`,
    });
    return;
  }
  if (outcome.judged === 0) return check.skip(`no generated case could be judged (${where}): ${outcome.inconclusive.join('; ') || 'the budget ran out'}`);
  const judged = `${outcome.judged} generated case(s) judged${outcome.cutShort ? ` of ${o.asked} asked for (the budget ran out)` : ''}`;
  check.expect(true, { expected: `${o.expected} (${where}; ${judged})`, actual: judged });
}
