import type { Side } from '../message.js';
import { KeySet } from './key-set.js';

/**
 * A request id or progress token as a ledger key. The value itself: Map and Set keep 1 and "1"
 * apart (and, as JSON does not, 0 and -0 together), and a number key costs no string per frame.
 */
export type Key = string | number;

export function isKey(v: unknown): v is Key {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

export function other(side: Side): Side {
  return side === 'client' ? 'server' : 'client';
}

/** A request as the session keeps it. Every member is always set (undefined when absent): one object shape for every request. */
export interface Pending {
  id: Key;
  method: string;
  params: Record<string, unknown> | undefined;
  frame: number;
  cancelled: boolean;
  progressToken: Key | undefined;
  /** Not a valid Request object, but its id is readable: a call all the same (ruling invalid-request-answered). */
  malformed: boolean;
  /** The frame of the peer's answer to a ping sent after this request while it was still unanswered: evidence of a live peer's silence. */
  silentBefore: number | undefined;
}

export function pending(id: Key, method: string, params: Record<string, unknown> | undefined, frame: number, malformed = false): Pending {
  return { id, method, params, frame, cancelled: false, progressToken: undefined, malformed, silentBefore: undefined };
}

/** The per-direction ledger: one side's requests as the other side sees them. */
export class Ledger {
  readonly used = new KeySet();
  readonly pending = new Map<Key, Pending>();
  readonly answered = new KeySet();
  /** Frames from this side that could not be read as requests: an error without id may answer them. */
  unreadable = 0;
  /** The request ids of each batch this side sent: an array of their answers, or one error without id refusing it whole, is the other side's reaction. */
  readonly batches: Array<Set<Key>> = [];
}
