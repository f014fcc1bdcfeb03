import { type Finding, show, violation } from './finding.js';

/** An SSE event as an SSE parser (eventsource-parser) dispatches it. */
export interface SseEvent {
  id?: string;
  data: string;
}

/**
 * HTTP-SSE-01 (2025-11-25 transports page): a server that opens an SSE stream "SHOULD immediately
 * send an SSE event consisting of an event ID and an empty data field". Judged on the first event
 * an SSE parser dispatches: it must carry a non-empty id (an empty one resets the client's
 * Last-Event-ID) and a data field that is empty. A block with an id but no data line is no event
 * under the SSE standard (it is never dispatched), so it does not count as the priming event.
 * Returns what is wrong with the stream's opening, or undefined when it is the priming event.
 */
export function primingProblem(first: SseEvent | undefined): string | undefined {
  if (first === undefined) return 'the stream carried no event';
  const id = first.id === undefined || first.id === '' ? (first.id === '' ? 'an empty id' : 'no id') : undefined;
  const data = first.data !== '' ? `data ${show(first.data, 100)}` : undefined;
  if (id === undefined && data === undefined) return undefined;
  return `the first event has ${[id, data].filter((p) => p !== undefined).join(' and ')}`;
}

export const PRIMING_EXPECTED = 'an opening event with an id and an empty data field (the priming event the client resumes from with Last-Event-ID)';

/** Whether an event is that priming event: the same predicate, for code that only needs yes or no. */
export function isPrimingEvent(e: SseEvent): boolean {
  return primingProblem(e) === undefined;
}

export interface SseEventContext {
  /** The stream, for messages: `the SSE stream of POST #3`. */
  what: string;
  /** It is the first event of a POST's stream… */
  first: boolean;
  /** …on a session whose revision has the priming event (2025-11-25 on; the stateless era has none). */
  primingExpected: boolean;
  /** The stream resumes another (GET with Last-Event-ID): its replays carry their old ids. */
  resumed: boolean;
  /** Whether an event id was used on the session's streams before this event. */
  seen: (id: string) => boolean;
}

/**
 * What one SSE event of a server's stream breaks: HTTP-SSE-01 when a POST's stream does not open
 * with the priming event, HTTP-RESUME-01 when a fresh stream reuses an event id of the session's
 * streams (ids identify events across the session, which is what resuming from one relies on).
 */
export function sseEventFindings(e: SseEvent, c: SseEventContext): Finding[] {
  const findings: Finding[] = [];
  const priming = c.first && c.primingExpected ? primingProblem(e) : undefined;
  if (priming !== undefined) findings.push(violation('HTTP-SSE-01', `expected ${c.what} to open with ${PRIMING_EXPECTED}; ${priming}`));
  if (e.id !== undefined && !c.resumed && c.seen(e.id)) {
    findings.push(violation('HTTP-RESUME-01', `SSE event id ${show(e.id, 80)} on ${c.what} was already used on another stream of this session; event ids must be unique across the session's streams`));
  }
  return findings;
}
