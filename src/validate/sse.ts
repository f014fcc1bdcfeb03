// Pure predicates on SSE events as an SSE parser dispatches them (eventsource-parser's shape).

export interface SseEventLike {
  id?: string;
  data: string;
}

/**
 * The priming event of 2025-11-25 (HTTP-SSE-01): "an event ID and an empty data field", sent so
 * the client can reconnect with that id as Last-Event-ID.
 */
export function isPrimingEvent(e: SseEventLike): boolean {
  return e.id !== undefined && e.id !== '' && e.data === '';
}
