import type { RecordedFrame } from '../../src/harness/peer-session.js';
import type { ServerSession } from '../../src/harness/server-session.js';
import type { ClientScenarioContext } from '../../src/runner/client-scenario.js';
import type { Finding } from '../../src/validate/finding.js';
import { isObject } from '../common.js';

/** How long a client gets for each thing a scenario waits for once it has connected. */
export const WAIT_MS = 5_000;

/** The client's initialize request and its notifications/initialized (undefined: not within WAIT_MS). */
export async function handshake(session: ServerSession): Promise<{ init?: RecordedFrame; initialized?: RecordedFrame }> {
  const init = await session.waitForMethod('initialize', WAIT_MS);
  if (!init) return {};
  const initialized = await session.waitForMethod('notifications/initialized', WAIT_MS, init.index);
  return { init, ...(initialized ? { initialized } : {}) };
}

/**
 * Waits until the client is in session: its notifications/initialized, or else its first other
 * message after the initialize request (a client that skips the notification is judged by
 * client.lifecycle.handshake alone; the other scenarios still run). Records "could not run" when
 * there was no session. Returns the frame that showed it.
 */
export async function initialized(ctx: ClientScenarioContext): Promise<RecordedFrame | undefined> {
  const init = await ctx.session.waitForMethod('initialize', WAIT_MS);
  const ready = init ? await ctx.session.waitForFrame((f) => f.index > init.index && methodOf(f) !== undefined && methodOf(f) !== 'initialize', WAIT_MS, init.index + 1) : undefined;
  if (!ready) ctx.check.error(`could not run: the client ${init ? 'sent nothing after initialize' : 'sent no initialize'} within ${WAIT_MS} ms (see client.lifecycle.handshake)`);
  return ready;
}

/** What live validation found against `rule` on the given frames (violations only, not notes). */
export function violations(session: ServerSession, rule: string, frames: ReadonlyArray<number | undefined>): Finding[] {
  const wanted = new Set(frames.filter((f): f is number => f !== undefined));
  return session.findings.filter((f) => f.severity !== 'info' && f.requirements.includes(rule) && f.frame !== undefined && wanted.has(f.frame));
}

/** The client's declared capabilities (from its initialize request). */
export function clientCapabilities(session: ServerSession): Record<string, unknown> {
  const caps = session.initializeParams?.capabilities;
  return isObject(caps) ? caps : {};
}

/** Requests (with an id) the client sent from frame `since` on, other than ping. */
export function requestsSince(session: ServerSession, since: number): RecordedFrame[] {
  return session.peerFrames(since).filter((f) => isObject(f.message) && typeof f.message.method === 'string' && 'id' in f.message && f.message.method !== 'ping');
}

export function methodOf(frame: RecordedFrame | undefined): string | undefined {
  return frame && isObject(frame.message) && typeof frame.message.method === 'string' ? frame.message.method : undefined;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
