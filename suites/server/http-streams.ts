import { type CheckOptions, type CheckRecorder, groupListeners, type HttpChannel, isLoopback, isObject, isPrimingEvent, type ProbeResponse, scenario, type ScenarioContext, show, showSocket, type SseEvent } from '../kit.js';
import { answerSlackMs, findSlowTool } from './helpers.js';
import { describeProbe, httpScenario, is2xx, mediaOf, probe, rpc } from './http.js';

// Streams of the Streamable HTTP transport (basic/transports.mdx#resumability-and-redelivery,
// #multiple-connections) and where a started server listens (#security-warning). Every exchange
// is a raw probe: a stream mcpcheck drops on purpose must not disturb the session's own traffic.

/**
 * The dropped request should outlast the other stream's whole run, so that its resumption comes
 * after the other stream's events exist and while it is still running; both finish well within budget.
 */
const DROPPED_TARGET_MS = 300;
const OTHER_TARGET_MS = 100;
const SLOW_MAX_MS = 4_000;
/**
 * Reading a stream that carries a request's response after the request's own duration (stretched by
 * the run's pace), or answerSlackMs of the other request's measured lateness when that is longer.
 */
const STREAM_GRACE_MS = 1_500;
/** How long a stream may stay open after the response it carried before it counts as not ended (HTTP-SSE-05). */
const ENDS_WITHIN_MS = 500;
/** Reconnections to a stream the server keeps closing before its response (polling, HTTP-SSE-02). */
const MAX_POLLS = 10;
/** The most a `retry` the server asks for is honoured before the next poll. */
const RETRY_CAP_MS = 1_000;
/** The wait before reconnecting when the server gave no retry (EventSource leaves it to the client). */
const DEFAULT_RECONNECT_MS = 250;

interface Outgoing {
  id: string;
  body: string;
  token?: string;
  what: string;
  estimateMs: number;
}

/** A tools/call of a slow tool with a progress token when the policy allows one, else a ping. */
function outgoing(ctx: ScenarioContext, label: string, targetMs: number): Outgoing {
  const { discovery, options } = ctx;
  const found = 'tools' in discovery.capabilities ? findSlowTool(discovery.tools, options.callTools, targetMs) : undefined;
  if (found && found.estimateMs <= SLOW_MAX_MS) {
    const token = `mcpcheck-stream-${label}-${Date.now()}`;
    const { id, body } = rpc('tools/call', { name: found.plan.name, arguments: found.args, _meta: { progressToken: token } });
    return { id, body, token, what: `tools/call ${show(found.plan.name)} ${show(found.args, 60)}`, estimateMs: found.estimateMs };
  }
  const { id, body } = rpc('ping');
  return { id, body, what: 'ping', estimateMs: 0 };
}

interface Delivered {
  event: SseEvent;
  message?: Record<string, unknown>;
  /** The JSON text as sent, to tell one message on two streams from two alike messages. */
  text?: string;
}

function delivered(res: ProbeResponse): Delivered[] {
  if (res.sseEvents) return res.sseEvents.map((event) => ({ event, ...parsed(event.data) }));
  if (mediaOf(res.contentType) === 'application/json') return [{ event: { data: res.body }, ...parsed(res.body) }];
  return [];
}

function parsed(data: string): { message?: Record<string, unknown>; text?: string } {
  if (data === '') return {};
  try {
    const value: unknown = JSON.parse(data);
    return isObject(value) ? { message: value, text: data } : {};
  } catch {
    return {};
  }
}

const isResponseTo = (m: Record<string, unknown> | undefined, id: string) => m !== undefined && !('method' in m) && m.id === id;
/**
 * Reading a stream stops ENDS_WITHIN_MS after it carried the request's response: an ended stream
 * has ended by then. `seen.at` gets the moment the response was read.
 */
const answering = (r: Outgoing, seen: { at?: number } = {}) => ({
  when: (e: SseEvent) => {
    const is = isResponseTo(parsed(e.data).message, r.id);
    if (is) seen.at ??= performance.now();
    return is;
  },
  ms: ENDS_WITHIN_MS,
});
const isResponse = (m: Record<string, unknown> | undefined) => m !== undefined && !('method' in m) && ('result' in m || 'error' in m);
const progressToken = (m: Record<string, unknown> | undefined) =>
  m?.method === 'notifications/progress' && isObject(m.params) ? m.params.progressToken : undefined;
/** Positively of the request's own stream: its response, or progress with its token. */
const belongsTo = (d: Delivered, r: Outgoing) => isResponseTo(d.message, r.id) || (r.token !== undefined && progressToken(d.message) === r.token);

/**
 * Whether a message on A's resumed stream belonged to another stream: B's own (its response or
 * progress), or one `other` (what other streams carried) had, by event id or as the same text.
 * Messages only: another stream's priming event (empty data) carries none, whatever its id.
 */
function foreignTo(a: Outgoing, b: Outgoing, other: readonly Delivered[]): (d: Delivered) => boolean {
  const otherIds = new Set(other.map((d) => d.event.id).filter((id) => id !== undefined));
  const otherTexts = new Set(other.map((d) => d.text).filter((t) => t !== undefined));
  return (d) => d.message !== undefined && !belongsTo(d, a) && ((d.event.id !== undefined && otherIds.has(d.event.id)) || (d.text !== undefined && otherTexts.has(d.text)) || belongsTo(d, b));
}

function describeDelivered(d: Delivered): string {
  if (d.message === undefined || (!('method' in d.message) && !('id' in d.message))) return d.event.data === '' ? `an event with id ${show(d.event.id)} and empty data` : `event data ${show(d.event.data, 80)}`;
  const m = d.message;
  const what = typeof m.method === 'string' ? `${m.method}${progressToken(m) !== undefined ? ` (progressToken ${show(progressToken(m))})` : ''}` : `the response to id ${show(m.id)}`;
  return `${what}${d.event.id !== undefined ? ` (event id ${show(d.event.id)})` : ''}`;
}

const KEYS = {
  foreign: { key: 'no-foreign-events', requirements: ['HTTP-RESUME-04'] },
  cursor: { key: 'after-last-event-id', requirements: ['HTTP-RESUME-02'] },
  responses: { key: 'get-responses', requirements: ['HTTP-GET-04'] },
  answered: { key: 'carries-response', requirements: ['HTTP-SSE-05'] },
  notCancelled: { key: 'not-cancelled', requirements: ['HTTP-SSE-07'] },
  ends: { key: 'ends-after-response', requirements: ['HTTP-SSE-05'] },
  retry: { key: 'retry-before-close', requirements: ['HTTP-SSE-03'] },
} satisfies Record<string, CheckOptions>;
type Key = keyof typeof KEYS;
const ALL_KEYS = Object.keys(KEYS) as Key[];

/** mcpcheck's own probe got no HTTP response in time: nothing could be judged (a harness limit, not the server's failure). */
function couldNotRun(check: CheckRecorder, what: string, res: ProbeResponse): void {
  for (const k of ALL_KEYS) check.error(`could not judge: ${what} got ${describeProbe(res)}`, KEYS[k]);
}

function skipAll(check: CheckRecorder, reason: string): void {
  check.skipEach(reason, ALL_KEYS.map((k) => KEYS[k]));
}

/** One reconnection (GET + Last-Event-ID) and what it brought. */
interface Poll {
  lastEventId: string;
  res: ProbeResponse;
  events: Delivered[];
}

export const resume = httpScenario({
  id: 'server.http.resume',
  title: 'A dropped SSE stream resumes with GET + Last-Event-ID: its own later events only, then its response',
  requirements: ['HTTP-RESUME-04', 'HTTP-RESUME-02', 'HTTP-GET-04', 'HTTP-SSE-05', 'HTTP-SSE-07', 'HTTP-SSE-03', 'HTTP-MULTI-01'],
  // Most of its time goes on waiting for the slow requests it sends, which discovery finds.
  waits: true,
  // A's length and the wait for its response grow with B's lateness and the run's pace: A and B
  // run before every other scenario opens its session.
  headStart: true,
  needs: { discovery: true },
  async run(ctx, channel) {
    const { check } = ctx;
    // A must still be working when B has run and A is resumed, or there is no unfinished stream to
    // poll: on a loaded machine B's round trip stretches, so A's length does too, by the run's pace.
    const a = outgoing(ctx, 'a', Math.min(ctx.session.answerMs(DROPPED_TARGET_MS), SLOW_MAX_MS));
    const b = outgoing(ctx, 'b', OTHER_TARGET_MS);
    const streamMs = b.estimateMs + STREAM_GRACE_MS;

    // A listening GET stream stays open while B runs, so that a broadcast would show (HTTP-MULTI-01).
    const listening = probe(channel, { method: 'GET', readMs: b.estimateMs + 500 });
    // A is cut right after its first event with an id (the priming event, from 2025-11-25 on).
    const sentA = performance.now();
    const cut = await probe(channel, { method: 'POST', body: a.body, stopWhen: (e) => e.id !== undefined && e.id !== '' });
    // B runs to its end on a stream of its own, so that A's resumption could wrongly replay B's events.
    // How late B's response came past its nominal duration sets how long A's is waited for.
    const answeredB: { at?: number } = {};
    const sentB = performance.now();
    const other = await probe(channel, { method: 'POST', body: b.body, readMs: streamMs, endsWithin: answering(b, answeredB) });
    ctx.underway();
    // Never less than the grace at the run's pace: a resumed GET ends as soon as the response is in,
    // so the wait costs only a server that does not redeliver (a MAY), and 300 ms after an on-time B
    // was too short for a loaded machine's GET to bring A's.
    const grace = ctx.session.answerMs(STREAM_GRACE_MS);
    const lateSlackMs = answeredB.at !== undefined ? answerSlackMs(answeredB.at - sentB - b.estimateMs) : undefined;
    const slackMs = Math.max(grace, lateSlackMs ?? 0);
    const before = delivered(cut);
    const first = before.at(-1);
    const resumable = is2xx(cut.status) && cut.sseEvents !== undefined && cut.dropped === true && first?.event.id !== undefined;
    // Once the resumed stream replays B's events, the Last-Event-ID was not mapped back to A's
    // stream (HTTP-RESUME-04 fails on them) and A's response is lost with it: it is waited for
    // only as long as B's measured lateness says, not the grace (which a correct stream's
    // response, coming late on a loaded machine, needs).
    const foreignAfter = lateSlackMs !== undefined ? { elsewhere: foreignTo(a, b, delivered(other)), end: sentA + a.estimateMs + lateSlackMs } : undefined;
    const polls = resumable ? await reconnect(channel, first.event.id!, a, { end: sentA + a.estimateMs + slackMs, slackMs, ...(foreignAfter ? { foreignAfter } : {}) }, cut.retry) : [];
    const get = await listening;
    judgeOneStream(check, { get, cut: before, other: delivered(other), b });

    if (cut.status === 0) return couldNotRun(check, `the POST of ${a.what}`, cut);
    if (!is2xx(cut.status) || !cut.sseEvents) return skipAll(check, `${a.what} was answered ${describeProbe(cut)}, not with an SSE stream, so there was no stream to resume`);
    if (!resumable) {
      return skipAll(check, `the SSE stream answering ${a.what} carried no event with an id (${before.length} event(s)), so there is no Last-Event-ID to resume from (resumability is optional)`);
    }
    if (before.some((d) => isResponseTo(d.message, a.id))) {
      return skipAll(check, `the first event with an id on the SSE stream answering ${a.what} already carried its response, so nothing was left to resume`);
    }
    const dropAt = `after its ${before.length === 1 ? 'first event' : `event ${before.length}`} (id ${show(first.event.id)}${isPrimingEvent(first.event) ? ', the priming event' : ''})`;
    const opened = polls[0]!.res;
    if (opened.status === 0) return couldNotRun(check, `GET with Last-Event-ID ${show(first.event.id)}`, opened);
    if (opened.status === 405) return skipAll(check, `GET with Last-Event-ID ${show(first.event.id)} → 405: the server offers no stream to resume (resumability is optional)`);
    if (!is2xx(opened.status) || !opened.sseEvents) {
      return skipAll(check, `GET with Last-Event-ID ${show(first.event.id)} → ${describeProbe(opened)}, not an SSE stream: the server does not resume (resumability is optional)`);
    }
    const story = `${a.what} on POST, dropped ${dropAt}, resumed with GET + Last-Event-ID (${polls.length} reconnection(s)) after ${b.what} ran on a second POST`;
    judgeResumed(check, { a, b, before, other: [...delivered(other), ...delivered(get)], polls, story, retryBefore: cut.retry, waitedMs: Math.round(a.estimateMs + slackMs), plainGet: get });
  },
});

/**
 * Reconnects until the request's response comes, the server stops closing early, or polls run
 * out; its response is waited for until `end` (its duration and the slack are over), and every
 * reconnection is read for the slack at least.
 */
async function reconnect(
  channel: HttpChannel,
  lastEventId: string,
  a: Outgoing,
  until: { end: number; slackMs: number; foreignAfter?: { elsewhere: (d: Delivered) => boolean; end: number } },
  retry: number | undefined,
): Promise<Poll[]> {
  const polls: Poll[] = [];
  let last = lastEventId;
  let wait = retry;
  const { end, slackMs, foreignAfter } = until;
  while (polls.length < MAX_POLLS) {
    if (polls.length > 0) await new Promise((r) => setTimeout(r, Math.min(wait ?? DEFAULT_RECONNECT_MS, RETRY_CAP_MS)));
    const readMs = Math.max(slackMs, end - performance.now());
    const foreign = foreignAfter ? readingUntilForeign(foreignAfter) : undefined;
    const res = await probe(channel, { method: 'GET', headers: { 'Last-Event-ID': last }, readMs, endsWithin: answering(a), ...(foreign ?? {}) }).finally(() => foreign?.cancel());
    const events = delivered(res);
    polls.push({ lastEventId: last, res, events });
    if (!is2xx(res.status) || !res.sseEvents) break;
    if (events.some((d) => isResponseTo(d.message, a.id))) break;
    // Kept open until readMs, or broken: this stream will not bring more.
    if (res.incomplete || res.error !== undefined || performance.now() >= end) break;
    // The cursor moves only with events known to be A's: a foreign event's id would resume another stream.
    last = events.findLast((d) => d.event.id !== undefined && belongsTo(d, a))?.event.id ?? last;
    wait = res.retry ?? wait;
  }
  return polls;
}

/**
 * A reading of a resumed stream that stops at `end`, or ENDS_WITHIN_MS after the first foreign
 * event when that is later (a replay comes in one burst: A's own response, if it is in it, is read
 * with it), once an event of another stream has come; until then it reads as it would.
 */
function readingUntilForeign(f: { elsewhere: (d: Delivered) => boolean; end: number }): { onEvent: (e: SseEvent) => void; until: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let stop!: () => void;
  const until = new Promise<void>((resolve) => (stop = resolve));
  return {
    until,
    onEvent: (e) => {
      if (timer !== undefined || !f.elsewhere({ event: e, ...parsed(e.data) })) return;
      timer = setTimeout(stop, Math.max(f.end - performance.now(), ENDS_WITHIN_MS));
    },
    cancel: () => clearTimeout(timer),
  };
}

function judgeResumed(
  check: CheckRecorder,
  s: { a: Outgoing; b: Outgoing; before: Delivered[]; other: Delivered[]; polls: Poll[]; story: string; retryBefore: number | undefined; waitedMs: number; plainGet: ProbeResponse },
): void {
  const { a, b, before, other, polls, story } = s;
  const resumed = polls.filter((p) => p.res.sseEvents).flatMap((p) => p.events);
  const otherIds = new Set(other.map((d) => d.event.id).filter((id) => id !== undefined));
  const elsewhere = foreignTo(a, b, other);
  const foreign = resumed.filter(elsewhere);
  check.expect(foreign.length === 0, {
    ...KEYS.foreign,
    expected: `${story}: the resumed stream replays only events of the dropped stream, none that belonged to another stream (${b.what} had ${other.length} message(s) on its own)`,
    actual: `${foreign.length} event(s) of another stream: ${foreign.slice(0, 4).map(describeDelivered).join('; ')}`,
  });

  // The cursor: nothing up to the Last-Event-ID sent. Later events a reconnection sends again were
  // never acknowledged by a Last-Event-ID, so a second copy of those is no fault.
  const order: string[] = before.flatMap((d) => (d.event.id !== undefined ? [d.event.id] : []));
  const repeated: Delivered[] = [];
  let judged = 0;
  for (const p of polls) {
    const had = new Set(order.slice(0, order.indexOf(p.lastEventId) + 1));
    for (const d of p.events) {
      // Judged on the dropped stream's own events: another stream's priming event is RESUME-04's business if anyone's.
      if (d.event.id === undefined || elsewhere(d) || (otherIds.has(d.event.id) && !belongsTo(d, a))) continue;
      judged++;
      if (had.has(d.event.id)) repeated.push(d);
      else if (!order.includes(d.event.id)) order.push(d.event.id);
    }
  }
  if (judged === 0) check.skip(`${story}: the resumed stream carried no event of the dropped stream, so there was no replay to judge`, KEYS.cursor);
  else {
    check.expect(repeated.length === 0, {
      ...KEYS.cursor,
      expected: `${story}: only events after the Last-Event-ID sent, each once (event ids as a cursor within the stream)`,
      actual: `${repeated.length} event(s) the client already had: ${repeated.slice(0, 4).map(describeDelivered).join('; ')}`,
    });
  }

  const strayResponses = resumed.filter((d) => isResponse(d.message) && !isResponseTo(d.message, a.id) && !elsewhere(d));
  check.expect(strayResponses.length === 0, {
    ...KEYS.responses,
    expected: `${story}: on the resumed GET stream, no JSON-RPC response other than the one to the dropped stream's request (id ${show(a.id)})`,
    actual: `${strayResponses.length} other response(s): ${strayResponses.slice(0, 4).map(describeDelivered).join('; ')}`,
  });

  const answeredIn = polls.findIndex((p) => p.events.some((d) => isResponseTo(d.message, a.id)));
  const answered = answeredIn !== -1;
  // A slow request was still running at the drop: its answer shows the drop was not taken as a cancel.
  const running = a.token !== undefined;
  const [answerKey, unjudged] = running ? (['notCancelled', 'answered'] as const) : (['answered', 'notCancelled'] as const);
  check.skip(running ? 'judged as HTTP-SSE-07: the request was still running when its connection dropped' : `${a.what} had finished before the drop, so its answer says nothing about cancellation`, KEYS[unjudged]);
  const reconnections = `${polls.length} reconnection(s): ${polls.map((p) => `${describeProbe(p.res)}${p.res.incomplete ? ' (still open)' : ''}`).join('; ')}`.slice(0, 600);
  if (answered) {
    // Redelivery after a resume is what the spec allows ("MAY ... replay"), not what it asks.
    check.expect(true, {
      ...KEYS[answerKey],
      level: 'MAY',
      expected: `${story}: the response to the dropped stream's request (id ${show(a.id)}) comes on the resumed stream (redelivery after a resume is a MAY, and the server did it${running ? '; the drop was not taken as a cancellation' : ''})`,
      actual: '',
    });
  } else if (foreign.length > 0) {
    check.skip(
      `not judged: ${story}: the resumed stream replayed ${foreign.length} event(s) of another stream (HTTP-RESUME-04), so the Last-Event-ID was not mapped back to the dropped stream; that its response to id ${show(a.id)} did not come on it (read until the other request's measured lateness was past) follows from that, and shows no cancellation`,
      KEYS[answerKey],
    );
  } else {
    const ended = running ? endedWithoutResponse(polls, a, s.plainGet) : undefined;
    if (ended !== undefined) {
      check.expect(false, {
        ...KEYS[answerKey],
        expected: `${story}: the request, still running when its connection dropped, is not cancelled by the drop: its stream goes on (with its response, or open to be polled)`,
        actual: `${ended} — the drop was taken as a cancellation (${reconnections})`,
      });
    } else {
      check.skip(
        `not judged: ${story}: the response to id ${show(a.id)} did not come on the resumed stream within ${s.waitedMs} ms of the request; redelivery after a resume is a MAY (basic/transports.mdx#resumability-and-redelivery), so a missing one is no failure, and nothing showed the request cancelled (${reconnections})`,
        KEYS[answerKey],
      );
    }
  }

  if (!answered) check.skip('the response never came, so the end of the stream after it could not be watched', KEYS.ends);
  else if (foreign.length > 0) {
    check.skip(
      `not judged: ${story}: the stream that carried the response also replayed another stream's events (HTTP-RESUME-04), so it was not the dropped stream alone; whether it ends after the response says nothing about the dropped stream`,
      KEYS.ends,
    );
  } else {
    const last = polls[answeredIn]!.res;
    check.expect(!last.incomplete, {
      ...KEYS.ends,
      expected: `${story}: the server ends the stream after the response to id ${show(a.id)}`,
      actual: `the stream stayed open for ${ENDS_WITHIN_MS} ms or more after it`,
    });
  }

  // A close before the response that a later reconnection continued was the server polling (HTTP-SSE-02).
  const earlyCloses = polls.slice(0, -1).map((p, i) => ({ p, i })).filter(({ p, i }) => p.res.sseEvents && !p.res.incomplete && polls.slice(i + 1).some((q) => q.events.length > 0));
  if (earlyCloses.length === 0) return check.skip(`${story}: the server never closed a connection before its stream was finished`, KEYS.retry);
  const withoutRetry = earlyCloses.filter(({ p, i }) => p.res.retry === undefined && s.retryBefore === undefined && polls.slice(0, i).every((q) => q.res.retry === undefined));
  check.expect(withoutRetry.length === 0, {
    ...KEYS.retry,
    expected: `${story}: before closing a connection of an unfinished stream (${earlyCloses.length} time(s)), the server sends an SSE retry field`,
    actual: `${withoutRetry.length} such close(s) with no retry field sent on the stream before`,
  });
}

/**
 * Evidence that the server gave up the dropped request: it ended the resumed stream (closed it
 * with neither the response nor a retry field announcing another poll), and that stream was the
 * dropped one's — it carried the request's own events, or it ended where a plain GET stream stayed
 * open. Undefined when nothing shows more than a response that was not redelivered.
 */
function endedWithoutResponse(polls: Poll[], a: Outgoing, plainGet: ProbeResponse): string | undefined {
  const last = polls.at(-1)!.res;
  if (!last.sseEvents || last.incomplete || last.error !== undefined || last.retry !== undefined) return undefined;
  const own = polls.some((p) => p.events.some((d) => belongsTo(d, a)));
  const plainStayedOpen = is2xx(plainGet.status) && plainGet.sseEvents !== undefined && plainGet.incomplete;
  if (!own && !plainStayedOpen) return undefined;
  return `the server ended the resumed stream without the response and without a retry field (${own ? 'after events of the request itself' : 'while a plain GET stream stayed open'})`;
}

/** HTTP-MULTI-01: while a GET stream and two POST streams were open, no message went out on two of them. */
function judgeOneStream(check: CheckRecorder, s: { get: ProbeResponse; cut: Delivered[]; other: Delivered[]; b: Outgoing }): void {
  const o: CheckOptions = { key: 'one-stream', requirements: ['HTTP-MULTI-01'] };
  if (!is2xx(s.get.status) || !s.get.sseEvents) return check.skip(`no listening GET stream was open (GET → ${describeProbe(s.get)}), so only one stream at a time carried messages`, o);
  const streams = [s.get.sseEvents.map((event) => ({ event, ...parsed(event.data) })), s.cut, s.other];
  const count = new Map<string, number>();
  for (const stream of streams) for (const text of new Set(stream.map((d) => d.text).filter((t) => t !== undefined))) count.set(text, (count.get(text) ?? 0) + 1);
  const messages = [...count.keys()].length;
  if (messages === 0) return check.skip('none of the open streams carried a message', o);
  const twice = [...count.entries()].filter(([, n]) => n > 1).map(([text]) => text);
  check.expect(twice.length === 0, {
    ...o,
    expected: `each of ${messages} message(s) on exactly one stream, while a GET stream and the POST stream of ${s.b.what} were open`,
    actual: `${twice.length} message(s) on more than one stream: ${twice.slice(0, 3).map((t) => show(t, 120)).join('; ')}`,
  });
}

export const bindLoopback = scenario({
  id: 'server.http.bind-loopback',
  title: 'A server mcpcheck started listens on loopback only, not on all interfaces',
  requirements: ['HTTP-BIND-01'],
  isolation: 'shared',
  // Where the started server listens, whichever era it speaks.
  carriedOver: true,
  needs: { transport: 'http' },
  async run({ check, target }) {
    const group = target.startedGroup;
    if (group === undefined) return check.skip('mcpcheck did not start this server (no --start), so it cannot see where the server listens; only a server running locally is bound by this rule');
    const found = groupListeners(group);
    if (!found.ok) return check.skip(`the listening sockets of the started server could not be read: ${found.reason}`);
    if (found.sockets.length === 0) return check.skip(`no process of the started group (pids ${found.pids.join(', ')}) holds a listening TCP socket (it may serve from another process or namespace)`);
    const open = found.sockets.filter((sock) => !isLoopback(sock));
    check.expect(open.length === 0, {
      expected: `every TCP socket the server, as started by --start, listens on is bound to loopback (127.0.0.1 or ::1), not to all interfaces (pids ${found.pids.join(', ')} listen on ${found.sockets.map(showSocket).join(', ')})`,
      actual: `listening on ${open.map(showSocket).join(', ')}${open.some((sock) => sock.address === '0.0.0.0' || sock.address === '0:0:0:0:0:0:0:0') ? ' (all interfaces)' : ''}`,
    });
  },
});

export const httpStreams = [resume, bindLoopback];
