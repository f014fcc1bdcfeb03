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
 * Waits for the handshake and records "could not run" when there was none: what a scenario
 * judges afterwards needs a session. Returns the notifications/initialized frame.
 */
export async function initialized(ctx: ClientScenarioContext): Promise<RecordedFrame | undefined> {
  const { init, initialized: done } = await handshake(ctx.session);
  if (!init || !done) ctx.check.error(`could not run: the client ${init ? 'sent no notifications/initialized' : 'sent no initialize'} within ${WAIT_MS} ms (see client.lifecycle.handshake)`);
  return done;
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
