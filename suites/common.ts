import type { PeerSession, Reply } from '../src/harness/peer-session.js';
import { isObject } from '../src/json.js';

// What scenarios of both roles share.

export { isObject };

/** Up to `max` items joined for a message, with a count of the rest. */
export function list(items: string[], max = 8): string {
  const shown = items.slice(0, max).join('; ');
  return items.length > max ? `${shown}; …and ${items.length - max} more` : shown;
}

export function isEmptyResult(reply: Reply): boolean {
  return reply.kind === 'result' && Object.keys(reply.result).every((k) => k === '_meta');
}

/** PING-01's "promptly". */
export const PING_LIMIT_MS = 2_000;

export async function timedPing(session: PeerSession): Promise<{ reply: Reply; ms: number }> {
  const started = performance.now();
  const reply = await session.request('ping', undefined, 5_000);
  return { reply, ms: Math.round(performance.now() - started) };
}
