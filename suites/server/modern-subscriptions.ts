import { type CheckOptions, type CheckRecorder, isObject, META, MODERN, REQUEST_SCOPED, ruling, scenario, type Scenario, show } from '../kit.js';
import { callablePlans, quickArguments } from './helpers.js';
import { listenDuring, listenOnce, type ListenOutcome, modernRequest, ofSubscription } from './modern-exchange.js';

// subscriptions/listen (basic/patterns/subscriptions.mdx): every server accepts it and first
// acknowledges the part of the requested filter it will honour; every message of a subscription
// carries the listen request's id as its subscriptionId, same JSON type and value.

/** How long the acknowledgment may take at an idle pace. */
const ACK_MS = 3_000;
const NOPE = 'mcpcheck://nope/x';

/** The filter flag of each list type, and the capability that advertises it (SUBS-CAP-01). */
const LIST_FLAGS = { toolsListChanged: ['tools', 'listChanged'], promptsListChanged: ['prompts', 'listChanged'], resourcesListChanged: ['resources', 'listChanged'] } as const;

/** The parts of `acknowledged` that the DiscoverResult's capabilities do not advertise (SUBS-CAP-01), as text. */
function unadvertised(acknowledged: Record<string, unknown>, capabilities: Record<string, unknown>): string[] {
  const on = (path: readonly string[]) => {
    const owner = capabilities[path[0]!];
    return isObject(owner) && owner[path[1]!] === true;
  };
  const extra = Object.entries(LIST_FLAGS).filter(([flag, path]) => acknowledged[flag] === true && !on(path)).map(([flag, path]) => `${flag} without ${path.join('.')}: true`);
  const subscribed = acknowledged.resourceSubscriptions;
  if (Array.isArray(subscribed) && subscribed.length > 0 && !on(['resources', 'subscribe'])) extra.push('resourceSubscriptions without resources.subscribe: true');
  return extra;
}

/** The parts of `acknowledged` that were not requested (SUBS-ACK-02), as text. */
function unrequested(acknowledged: Record<string, unknown>, requested: Record<string, unknown>): string[] {
  const extra: string[] = [];
  for (const [key, value] of Object.entries(acknowledged)) {
    const asked = requested[key];
    if (Array.isArray(value)) {
      const outside = value.filter((v) => !Array.isArray(asked) || !asked.includes(v));
      if (outside.length > 0) extra.push(`${key}: ${show(outside)} not requested`);
    } else if (value === true && asked !== true) extra.push(`${key}: true, not requested`);
  }
  return extra;
}

/** HTTP-SSE-11: a response that starts an SSE stream tells proxies not to buffer it. */
function judgeUnbuffered(check: CheckRecorder, key: string, headers: Record<string, string>, shown: string): void {
  if (!(headers['content-type'] ?? '').startsWith('text/event-stream')) return check.skip(`not exercised: the listen response is no SSE stream (${shown})`, { key: `${key}/no-buffering`, requirements: ['HTTP-SSE-11'] });
  check.expect(headers['x-accel-buffering']?.trim().toLowerCase() === 'no', {
    key: `${key}/no-buffering`,
    requirements: ['HTTP-SSE-11'],
    expected: 'the SSE response to subscriptions/listen with the header X-Accel-Buffering: no',
    actual: headers['x-accel-buffering'] === undefined ? 'no X-Accel-Buffering header' : `X-Accel-Buffering: ${headers['x-accel-buffering']}`,
  });
}

export const listenAcknowledged = scenario({
  id: 'server.modern.subscriptions.acknowledged',
  title: 'subscriptions/listen is accepted and first acknowledged with the part of the requested filter the server honours (asked for everything, and for one type only) and advertises, every message carrying the listen id (a string and an integer) as its subscriptionId',
  requirements: ['SUBS-IMPL-01', 'SUBS-ACK-01', 'SUBS-ACK-02', 'SUBS-ID-01', 'SUBS-CAP-01', 'HTTP-SSE-11'],
  isolation: 'session',
  revisions: MODERN,
  needs: { discovery: true },
  async run({ session, check, connect, discovery }) {
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const listed = discovery.resources.map((r) => r.uri).find((u): u is string => typeof u === 'string');
    const everything = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: [...(listed ? [listed] : []), NOPE] };
    // The second asks for one type only: an acknowledgement of everything supported is then told apart.
    const rounds = [['string-id', 'mcpcheck-sub-1', everything], ['integer-id', 77, { toolsListChanged: true }]] as const;
    for (const [key, id, requested] of rounds) {
      const outcome: ListenOutcome = await listenOnce(session, id, requested, ACK_MS);
      const first = outcome.messages[0];
      const refused = first !== undefined && 'error' in first;
      check.expect(first !== undefined && !refused, {
        key: `${key}/accepted`,
        requirements: ['SUBS-IMPL-01'],
        expected: `subscriptions/listen with id ${show(id)} accepted: a notifications/subscriptions/acknowledged carrying it`,
        actual: outcome.shown,
        frames: outcome.frames,
      });
      if (first === undefined || refused) continue;
      if (outcome.headers) judgeUnbuffered(check, key, outcome.headers, outcome.shown);
      check.expect(first.method === 'notifications/subscriptions/acknowledged', {
        key: `${key}/ack-first`,
        requirements: ['SUBS-ACK-01'],
        expected: `the first message with subscriptionId ${show(id)} is notifications/subscriptions/acknowledged`,
        actual: show(first, 300),
        frames: outcome.frames.slice(0, 1),
      });
      const notices = outcome.messages.filter((m) => typeof m.method === 'string');
      const wrong = notices.filter((m) => !ofSubscription(m, id));
      check.expect(notices.length > 0 && wrong.length === 0, {
        key: `${key}/subscription-id`,
        requirements: ['SUBS-ID-01'],
        expected: `every message of the subscription with _meta["io.modelcontextprotocol/subscriptionId"] equal to the listen id ${show(id)} (a ${typeof id})`,
        actual: `${wrong.length} of ${notices.length} without it, e.g. ${show(wrong[0], 300)}`,
        frames: outcome.frames,
      });
      // The acknowledgment is judged where it came, first or not (SUBS-ACK-01 judged its place).
      const at = outcome.messages.findIndex((m) => m.method === 'notifications/subscriptions/acknowledged');
      const ack = outcome.messages[at];
      if (!ack) {
        for (const [part, requirement] of [['filter-subset', 'SUBS-ACK-02'], ['advertised', 'SUBS-CAP-01']] as const) {
          check.skip(`not exercised: subscription ${show(id)} was not acknowledged (${outcome.shown})`, { key: `${key}/${part}`, requirements: [requirement] });
        }
        continue;
      }
      const ackFrames = outcome.frames.slice(at, at + 1);
      const acknowledged = isObject(ack.params) && isObject(ack.params.notifications) ? ack.params.notifications : undefined;
      const extra = acknowledged ? unrequested(acknowledged, requested) : ['no notifications object'];
      check.expect(extra.length === 0, {
        key: `${key}/filter-subset`,
        requirements: ['SUBS-ACK-02'],
        expected: `an acknowledged filter within the requested one (${show(requested)})`,
        actual: extra.join('; '),
        frames: ackFrames,
      });
      if (!acknowledged) continue;
      const beyond = unadvertised(acknowledged, discovery.capabilities);
      check.expect(beyond.length === 0, {
        key: `${key}/advertised`,
        requirements: ['SUBS-CAP-01'],
        expected: `an acknowledged filter within what server/discover advertised (capabilities ${show(discovery.capabilities, 200)})`,
        actual: beyond.join('; '),
        frames: ackFrames,
      });
    }
  },
});

/** Tools called while a subscription is open: enough to see progress or logs, bounded. */
const MAX_SCOPED_TOOLS = 8;

export const requestScopedOffSubscriptions = scenario({
  id: 'server.modern.subscriptions.request-scoped',
  title: 'While a subscription is open, the progress and log messages of tool calls (with a progressToken and logLevel debug) accompany their own requests only, never the subscription',
  requirements: ['SUBS-SCOPE-01'],
  isolation: 'session',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run({ session, check, connect, discovery, options }) {
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const plans = callablePlans(discovery, options.callTools).slice(0, MAX_SCOPED_TOOLS);
    if (plans.length === 0) return check.skip(`not exercised: no tool may be called (--call-tools ${options.callTools.mode})`);
    const called = plans.map((p) => p.name).join(', ');
    let scoped = 0;
    const id = 'mcpcheck-sub-scope';
    const everything = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };
    const outcome = await listenDuring(session, id, everything, ACK_MS, async () => {
      const mark = session.mark;
      for (const [i, plan] of plans.entries()) {
        await session.request('tools/call', { name: plan.name, arguments: quickArguments(plan), _meta: { progressToken: `mcpcheck-scope-${i}`, [META.logLevel]: 'debug' } });
      }
      await session.settle(50);
      scoped = session.peerFrames(mark).filter((f) => isObject(f.message) && REQUEST_SCOPED.has(String(f.message.method)) && !ofSubscription(f.message, id)).length;
    });
    if (!outcome.ran) return check.skip(`not exercised: the subscription was not acknowledged (${outcome.shown})`);
    const leaked = outcome.messages.filter((m) => REQUEST_SCOPED.has(String(m.method)));
    if (scoped === 0 && leaked.length === 0) return check.skip(`not exercised: no call of ${called} (with a progressToken and logLevel debug) sent progress or log messages`);
    check.expect(leaked.length === 0, {
      expected: `no notifications/progress or notifications/message on subscription ${show(id)} while calling ${called} with a progressToken and logLevel debug (they accompany their own request)`,
      actual: `${leaked.length} on the subscription, e.g. ${show(leaked[0], 200)}`,
      frames: outcome.frames,
    });
  },
});

/** How long a server may take to exit after its stdin closed (stretched by its measured pace). */
const EXIT_WAIT_MS = 5_000;

export const endedAtShutdown = scenario({
  id: 'server.modern.subscriptions.end-at-shutdown',
  title: 'A server that ends an open subscription at shutdown (stdin closed) first answers the listen request with its result or, at least, sends notifications/cancelled naming it',
  requirements: ['SUBS-END-01', 'SUBS-END-02'],
  isolation: 'process',
  waits: true,
  revisions: MODERN,
  needs: { transport: 'stdio' },
  async run({ session, check, connect }) {
    const channel = session.channel;
    if (channel.kind !== 'stdio') return;
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const id = 'mcpcheck-sub-shutdown';
    const mark = session.mark;
    await session.send(modernListen(session, id));
    const ack = await session.waitForFrame((f) => ofSubscription(f.message, id), session.answerMs(ACK_MS), mark);
    const keys: CheckOptions[] = [{ key: 'result', requirements: ['SUBS-END-01'] }, { key: 'ended', requirements: ['SUBS-END-02'] }];
    if (!ack) {
      return check.skipEach(`not exercised: the subscription was not acknowledged within ${session.answerMs(ACK_MS)} ms`, keys);
    }
    channel.process.closeStdin();
    // Exited and its stdout read to the end: 'exit' can come before the last frames it wrote.
    const exit = await channel.process.waitForFinished(session.processMs(EXIT_WAIT_MS));
    await session.settle(50);
    const frames = session.peerFrames(mark);
    const result = frames.find((f) => isObject(f.message) && f.message.id === id && 'result' in f.message);
    const cancel = frames.find((f) => isObject(f.message) && f.message.method === 'notifications/cancelled' && isObject(f.message.params) && f.message.params.requestId === id);
    if (!result && !cancel && exit === undefined) {
      return check.skipEach(`not exercised: the server neither ended the subscription nor exited within ${session.processMs(EXIT_WAIT_MS)} ms of its stdin closing`, keys);
    }
    const listenResult = result && isObject(result.message) && isObject(result.message.result) ? result.message.result : undefined;
    const wellFormed = listenResult?.resultType === 'complete' && isObject(listenResult._meta) && listenResult._meta[META.subscriptionId] === id;
    check.expect(wellFormed, {
      key: 'result',
      requirements: ['SUBS-END-01'],
      expected: `before the server closed, a result for subscriptions/listen ${show(id)} with resultType "complete" and _meta["${META.subscriptionId}"] ${show(id)} (${ruling('subscription-end').cite})`,
      actual: result ? show(result.message, 200) : cancel ? 'only notifications/cancelled naming the listen request' : 'neither the listen result nor notifications/cancelled',
      frames: [result?.index ?? cancel?.index],
    });
    check.expect(result !== undefined || cancel !== undefined, {
      key: 'ended',
      requirements: ['SUBS-END-02'],
      // Closing stdin is the client's shutdown (stdio.mdx#shutdown), the server's teardown only by a reading the spec does not settle.
      level: 'SHOULD',
      expected: `the listen result or notifications/cancelled naming ${show(id)} before the server ${exit ? 'exited' : 'ended the subscription'} (${ruling('subscription-end').cite})`,
      actual: `neither came; the server ${exit ? `exited (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})` : 'was still running'}`,
    });
  },
});

/** A subscriptions/listen request for every list type (its id set by the caller). */
function modernListen(session: Parameters<typeof modernRequest>[0], id: string): Record<string, unknown> {
  return { ...modernRequest(session, 'subscriptions/listen', { notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true } }), id };
}

export const modernSubscriptions: Scenario[] = [listenAcknowledged, requestScopedOffSubscriptions, endedAtShutdown];
