import { type ClientScenarioContext, DEFAULT_TOOLS, describeReply, type RecordedFrame, type Reply, waitUntil } from '../kit.js';
import { isAnswer, PING_LIMIT_MS } from '../common.js';
import { initialized, type Listener, WAIT_MS } from './helpers.js';

// What the icon scenarios share: the evidence that a client renders icons at all, and how long it gets.

/** How long a client that renders icons gets to fetch them after listing the tools. */
export const FETCH_MS = 1_500;
/** How long a client that renders icons may take to fetch the first one after it listed the tools. */
export const RENDER_START_MS = 8_000;

/** An https: icon at a counting listener: a connection there shows the client renders icons at all. */
export function evidenceIcon(listener: Listener): { src: string; mimeType: string } {
  return { src: `https://127.0.0.1:${listener.port}/icon.png`, mimeType: 'image/png' };
}

/** Why nothing was shown when the client fetched not even the https: icon. */
export function rendersNoIcons(what: string): string {
  return `the client fetched no icon at all (not even the https: one), so it renders no icons and showed nothing about ${what}`;
}

/** The default tools, the first of them carrying `icons`. */
export function toolsWithIcons(icons: unknown[]): unknown[] {
  return [{ ...DEFAULT_TOOLS[0]!, icons }, ...DEFAULT_TOOLS.slice(1)];
}

/**
 * Waits until the client fetched the https: evidence icon, then gives it FETCH_MS for the icons
 * listed after it: the clock starts when rendering does, so a client slowed by a loaded machine
 * has still reached them. False when it fetched nothing within RENDER_START_MS (it renders no
 * icons); that wait is long because a loaded machine delays the first fetch most. A client that
 * has exited fetches nothing more, so neither wait outlasts it.
 */
export async function rendered(ctx: ClientScenarioContext, evidence: Listener): Promise<boolean> {
  const gone = () => ctx.client.exit !== undefined;
  await waitUntil(() => evidence.connections > 0 || gone(), RENDER_START_MS);
  if (evidence.connections === 0) return false;
  await waitUntil(gone, FETCH_MS);
  return true;
}

/** The client's tools/list, once it had time to fetch the icons; records a skip or "could not run" when it never listed. */
export async function listedAndFetched(ctx: ClientScenarioContext, evidence: Listener): Promise<RecordedFrame | undefined> {
  if (!(await initialized(ctx))) return undefined;
  const listed = await ctx.session.waitForMethod('tools/list', WAIT_MS);
  if (!listed) return void ctx.check.skip('the client did not list the tools, so it saw no icons');
  await rendered(ctx, evidence);
  return listed;
}

/** A response of any kind within PING_LIMIT_MS: the client was there to answer (what it answered is PING-01's business). */
export function answeredInTime({ reply, ms }: { reply: Reply; ms: number }): boolean {
  return isAnswer(reply) && ms <= PING_LIMIT_MS;
}

/** What came back for a ping, and when (a timeout says its own wait). */
export function describeTimed({ reply, ms }: { reply: Reply; ms: number }): string {
  return reply.kind === 'timeout' ? describeReply(reply) : `${describeReply(reply)} after ${ms} ms`;
}

/**
 * Over HTTP mcpcheck reaches the client only on an open stream: for certain, the SSE stream of a
 * request of the client's that mcpcheck holds. Without one, a ping may wait in mcpcheck's queue,
 * and its silence says nothing of the client.
 */
export function pingReachedAtOnce(ctx: ClientScenarioContext, requestHeld: boolean): boolean {
  return ctx.transport === 'stdio' || (requestHeld && ctx.session.channel.policy?.answerWith === 'sse');
}
