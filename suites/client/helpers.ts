import { createServer, type Server } from 'node:net';
import { type CheckOptions, type CheckRecorder, type ClientScenarioContext, DEFAULT_TOOLS, describeReply, type Finding, isObject, type Level, type RecordedFrame, type Reply, replyFrame, type RequirementId, ruling, type ServerSession } from '../kit.js';

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

/**
 * The client's first contact in either era: in the stateful one once it is in session
 * (initialized), in the stateless one its first request (the server/discover probe, or a request
 * of its steps when it sends no probe).
 */
export async function contact(ctx: ClientScenarioContext): Promise<RecordedFrame | undefined> {
  const first = await ctx.session.waitForFrame((f) => methodOf(f) !== undefined, WAIT_MS);
  if (!first || methodOf(first) === 'initialize') return initialized(ctx);
  return first;
}

/**
 * As initialized, in either era: a client that opens with a 2026-07-28 request has no handshake,
 * so its conversation is under way with its first request past the server/discover probe.
 */
export async function conversing(ctx: ClientScenarioContext): Promise<RecordedFrame | undefined> {
  const first = await contact(ctx);
  if (methodOf(first) !== 'server/discover') return first;
  const ready = await ctx.session.waitForFrame((f) => methodOf(f) !== undefined && methodOf(f) !== 'server/discover', WAIT_MS);
  if (!ready) ctx.check.error(`could not run: the client sent no request past server/discover within ${WAIT_MS} ms`);
  return ready;
}

/** What live validation found against `rule` on the given frames (violations only, not notes). */
export function violations(session: ServerSession, rule: RequirementId, frames: ReadonlyArray<number | undefined>): Finding[] {
  const wanted = new Set(frames.filter((f): f is number => f !== undefined));
  return session.findings.filter((f) => f.severity !== 'info' && f.requirements.includes(rule) && f.frame !== undefined && wanted.has(f.frame));
}

/** The client's declared capabilities, in the conversation it began last. */
export function clientCapabilities(session: ServerSession): Record<string, unknown> {
  return session.conversation?.capabilities ?? {};
}

/** Requests (with an id) the client sent from frame `since` on, other than ping. */
export function requestsSince(session: ServerSession, since: number): RecordedFrame[] {
  return session.peerFrames(since).filter((f) => isObject(f.message) && typeof f.message.method === 'string' && 'id' in f.message && f.message.method !== 'ping');
}

export function methodOf(frame: RecordedFrame | undefined): string | undefined {
  return frame && isObject(frame.message) && typeof frame.message.method === 'string' ? frame.message.method : undefined;
}

/** mcpcheck's response to the client's `request` frame, once sent. */
export function answerTo(session: ServerSession, request: RecordedFrame): RecordedFrame | undefined {
  const id = isObject(request.message) ? request.message.id : undefined;
  return session.frames.find((f) => f.from === session.role && f.index > request.index && isObject(f.message) && f.message.id === id && !('method' in f.message));
}

/** Serves `tool` beside the default ones and never answers a call of it (to see what the client does meanwhile). */
export function serveHeldTool(session: ServerSession, tool: { name: string; description: string; inputSchema: Record<string, unknown> }): void {
  session.tools = [...DEFAULT_TOOLS, tool];
  const call = session.handler('tools/call');
  session.handle('tools/call', (params, request) => (params.name === tool.name ? { hold: true } : call(params, request)));
}

/**
 * The tool during whose call mcpcheck sends the client a request of its own. Over HTTP a server
 * can reach a client only on an open stream, and the stream of a pending request is the one every
 * client has (the GET stream is optional), so mcpcheck asks while the client waits for this call.
 */
export const ASKING_TOOL = { name: 'mcpcheck_asks', description: 'While this call runs, the server sends the client a request of its own.', inputSchema: { type: 'object', properties: {} } };

const releases = new WeakMap<ServerSession, () => void>();

/** Serves ASKING_TOOL first (a client on the official contract calls the first tool) and holds its calls until `release`. */
export function serveAskingTool(session: ServerSession): void {
  session.tools = [ASKING_TOOL, ...DEFAULT_TOOLS];
  const call = session.handler('tools/call');
  session.handle('tools/call', (params, request) =>
    params.name === ASKING_TOOL.name ? new Promise((resolve) => releases.set(session, () => resolve({ result: { content: [{ type: 'text', text: 'done' }] } }))) : call(params, request),
  );
}

/** Matches the client's calls of the tool named `name`. */
export function callOf(name: string): (frame: RecordedFrame) => boolean {
  return (f) => isObject(f.message) && f.message.method === 'tools/call' && isObject(f.message.params) && f.message.params.name === name;
}

export const isAskingCall = callOf(ASKING_TOOL.name);

/** Waits for the client's call of ASKING_TOOL; records a skip when it never came. */
export async function askingCall(ctx: ClientScenarioContext, what: string): Promise<RecordedFrame | undefined> {
  const call = await ctx.session.waitForFrame(isAskingCall, WAIT_MS);
  if (!call) ctx.check.skip(`the client never called ${ASKING_TOOL.name}, so no request of its was open to carry mcpcheck's ${what}`);
  return call;
}

/** Lets the held ASKING_TOOL call finish. */
export function release(session: ServerSession): void {
  releases.get(session)?.();
}

/** The client calls the asking tool; mcpcheck asks its question while that call is open. */
export const ASKED = { steps: [{ do: 'call-tool' as const, name: ASKING_TOOL.name, arguments: {} }], serve: serveAskingTool };

/**
 * Runs `body` during the client's call of the asking tool, when the client declared what `needs`
 * looks for (else a skip with its reason); undefined when the scenario cannot go on.
 */
export async function whileAsking<T>(ctx: ClientScenarioContext, needs: (caps: Record<string, unknown>) => string | undefined, what: string, body: () => Promise<T>): Promise<T | undefined> {
  if (!(await initialized(ctx)) || !(await askingCall(ctx, what))) return undefined;
  // Read once the call came: by then the session the client works in has begun (a client may
  // have opened another one first, to test the connection).
  const missing = needs(clientCapabilities(ctx.session));
  if (missing) {
    release(ctx.session);
    ctx.check.skip(missing);
    return undefined;
  }
  try {
    return await body();
  } finally {
    release(ctx.session);
  }
}

/** Sends a server→client request during the client's call of the asking tool; undefined when the scenario cannot go on. */
export function ask(ctx: ClientScenarioContext, needs: (caps: Record<string, unknown>) => string | undefined, method: string, params: Record<string, unknown>): Promise<Reply | undefined> {
  return whileAsking(ctx, needs, method, () => ctx.session.request(method, params, WAIT_MS));
}

/** Why form-mode elicitation cannot be asked for (undefined: it can). */
export function formOnly(caps: Record<string, unknown>): string | undefined {
  const e = caps.elicitation;
  if (!isObject(e)) return 'the client did not declare elicitation';
  // An empty object means form only (ELIC-CAP-01).
  return Object.keys(e).length === 0 || 'form' in e ? undefined : 'the client declared elicitation without form mode';
}

/**
 * What −32601 to a request for a capability the client declared is judged by (ruling
 * declared-capability-served): the method's result rule at SHOULD, since no keyword requires a
 * declaring client to serve it; for elicitation, ELIC-CAP-01 (a client that declared it "supports
 * at least one mode"). LIFE-OP-02 binds the sender of a request, never the client answering it.
 */
const SERVED = {
  'roots/list': { requirements: ['ROOTS-LIST-01'], level: 'SHOULD' },
  'sampling/createMessage': { requirements: ['SAMP-RES-01'], level: 'SHOULD' },
  'elicitation/create': { requirements: ['ELIC-CAP-01'] },
} as const satisfies Record<string, { requirements: readonly string[]; level?: Level }>;

export type DeclaredMethod = keyof typeof SERVED;

/**
 * −32601 to a `method` request for a capability the client declared says it does not serve what
 * it declared: recorded under the key `served`. Returns whether it was that.
 */
export function refusedDeclared(ctx: ClientScenarioContext, method: DeclaredMethod, reply: Reply): boolean {
  if (reply.kind !== 'error' || reply.error.code !== -32601) return false;
  const served: { requirements: readonly RequirementId[]; level?: Level } = SERVED[method];
  ctx.check.expect(false, {
    key: 'served',
    requirements: [...served.requirements],
    ...(served.level ? { level: served.level } : {}),
    expected: `${method} served, since the client declared the capability it needs (${ruling('declared-capability-served').cite})`,
    actual: describeReply(reply),
    frames: [replyFrame(reply)],
  });
  return true;
}

/** A loopback port that counts the connections made to it (what a fetch of an icon there would be). */
export interface Listener {
  port: number;
  connections: number;
}

/** Holds mcpcheck's answers to `method` until the returned function is called (to act while the client waits for one). */
export function holdAnswers(session: ServerSession, method: string): () => void {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const answer = session.handler(method);
  session.handle(method, async (params, request) => {
    await opened;
    return answer(params, request);
  });
  return open;
}

/** A counting listener that closes with the session's channel. */
export async function sessionListener(session: ServerSession): Promise<Listener> {
  const { listener, server } = await countingListener();
  session.channel.onClose(() => server.close());
  return listener;
}

export async function countingListener(): Promise<{ listener: Listener; server: Server }> {
  const listener: Listener = { port: 0, connections: 0 };
  const server = createServer((socket) => {
    listener.connections++;
    socket.destroy();
  });
  listener.port = await listenOnLoopback(server);
  return { listener, server };
}

/** Starts `server` on a free port of 127.0.0.1 (never another address) and gives that port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** Cursors the client sent with `method` (a list request), and whether each was one mcpcheck handed out, verbatim. */
export function cursorsSent(session: ServerSession, method = 'tools/list') {
  return session.requestsFor(method).flatMap((f) => {
    const params = isObject(f.message) && isObject(f.message.params) ? f.message.params : {};
    return 'cursor' in params ? [{ frame: f.index, cursor: params.cursor, known: typeof params.cursor === 'string' && session.cursors.has(params.cursor) }] : [];
  });
}

/** The cursors the client sent with `method` once its walk of `pages` pages ended (or it sent one mcpcheck never made); undefined when its conversation never started. */
export async function walked(ctx: ClientScenarioContext, pages: number, method = 'tools/list'): Promise<ReturnType<typeof cursorsSent> | undefined> {
  const { session } = ctx;
  if (!(await conversing(ctx))) return undefined;
  // Every frame is a chance to see the last page asked for (or a cursor refused).
  const sent = () => cursorsSent(session, method);
  await session.waitForFrame(() => sent().length >= pages - 1 || sent().some((c) => !c.known), WAIT_MS);
  await session.settle(100);
  return sent();
}

/**
 * Expects every cursor the client sent (`sent`, at least one) to be one mcpcheck handed out,
 * verbatim; `expected` says so for the rule at hand. The cursors it altered.
 */
export function expectCursorsUnchanged(check: CheckRecorder, sent: ReturnType<typeof cursorsSent>, o: CheckOptions & { expected: string }): ReturnType<typeof cursorsSent> {
  const altered = sent.filter((c) => !c.known);
  check.expect(altered.length === 0, {
    ...o,
    actual: altered.length ? `sent ${altered.map((c) => JSON.stringify(c.cursor)).join(', ')}, which mcpcheck never handed out` : 'all unchanged',
    frames: [altered[0]?.frame ?? sent[0]!.frame],
  });
  return altered;
}
