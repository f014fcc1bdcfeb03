import { type ClientSession, describeReply, isObject, list, type ListMethod, planToolCall, type RecordedFrame, type Reply, replyFrame, type RequirementId, scenario, show, type ToolPlan, type ToolPolicy, walkList } from '../kit.js';
import { notificationParams, quickArguments, watchWhile } from './helpers.js';

// ---- Tools that change what the server serves, found by what they say about themselves ---------

/** Says it updates, writes or switches something about resources or subscriptions. */
const UPDATER = /updat|writ|modif|edit|chang|toggl|touch|save|replac/i;
const ABOUT_RESOURCES = /resource|subscri|note|file|document/i;
/** Switches something on or off: calling it again undoes the first call. */
const SWITCH = /toggl|start|stop|enabl|disabl/i;
/** Says it creates, adds or removes something (a resource, a tool, a prompt). */
const MUTATOR = /creat|add|regist|remov|delet|writ|new/i;

function describes(tool: Record<string, unknown>): string {
  return `${String(tool.name)} ${typeof tool.description === 'string' ? tool.description : ''}`;
}

/**
 * A tool that may change a resource, called only when the user allowed side effects explicitly
 * (--call-tools all or by name): a tool's own word is no guarantee it is harmless.
 */
function mutatingPlans(tools: Array<Record<string, unknown>>, policy: ToolPolicy, pattern: (text: string) => boolean): ToolPlan[] {
  if (policy.mode !== 'all' && policy.mode !== 'named') return [];
  return tools.filter((t) => pattern(describes(t))).map((t) => planToolCall(t, policy)).filter((p) => p.call);
}

/** Expands a level-1 RFC 6570 template ({name} only) from the values of `args`; undefined when a variable has none. */
function expandSimple(template: string, args: Record<string, unknown>): string | undefined {
  let complete = true;
  const uri = template.replace(/\{([^}]*)\}/g, (_, name: string) => {
    const v = args[name];
    if (typeof v !== 'string' && typeof v !== 'number') complete = false;
    return encodeURIComponent(String(v));
  });
  return complete ? uri : undefined;
}

/** The resource a call with `args` is about: a template filled from its arguments, else the first listed resource. */
function targetUri(plan: ToolPlan | undefined, args: Record<string, unknown>, templates: Array<Record<string, unknown>>, listed: string[]): string | undefined {
  if (plan) {
    for (const t of templates) {
      if (typeof t.uriTemplate !== 'string' || !t.uriTemplate.includes('{')) continue;
      const uri = expandSimple(t.uriTemplate, args);
      if (uri !== undefined) return uri;
    }
  }
  return listed[0];
}

function updatedUri(frame: RecordedFrame): unknown {
  return notificationParams(frame, 'notifications/resources/updated')?.uri;
}

function covers(subscribed: string, uri: unknown): boolean {
  return typeof uri === 'string' && (uri === subscribed || uri.startsWith(subscribed.endsWith('/') ? subscribed : subscribed + '/'));
}

const CALL_WAIT_MS = 1_500;
/**
 * No barrier can show that an update will not come by itself: the window a skip says it waited.
 * It lasts as long as the rest of the run does, within these bounds, so in a full run it costs
 * no time; run alone, the scenario watches for the shortest.
 */
const SPONTANEOUS_MIN_MS = 600;
const SPONTANEOUS_MAX_MS = 3_000;
/** How long mcpcheck waits to see a periodic update recur (to learn its period). */
const PERIOD_MAX_MS = 6_500;

export const resourceUpdates = scenario({
  id: 'server.resources.updates',
  title: 'A subscribed resource gets notifications/resources/updated for its own URI only, and none after unsubscribe',
  requirements: ['RES-SUB-02'],
  isolation: 'session',
  waits: true,
  lingers: true,
  needs: { capabilities: ['resources.subscribe'] },
  async run({ session, connect, check, discovery, options, note, restOfRun }) {
    const init = await connect(session);
    if (!init.ok) return check.skip(`not exercised: ${init.opening} got ${describeReply(init.reply)}`, { key: 'subscribed' });
    await session.listen();
    const listed = discovery.resources.map((r) => r.uri).filter((u): u is string => typeof u === 'string');
    const updaters = mutatingPlans(discovery.tools, options.callTools, (text) => UPDATER.test(text) && ABOUT_RESOURCES.test(text));
    const plan = updaters[0];
    const args = plan ? quickArguments(plan) : {};
    const uri = targetUri(plan, args, discovery.resourceTemplates, listed);
    if (uri === undefined) return check.skip('not exercised: the server lists no resource and no tool names one to subscribe to', { key: 'subscribed' });
    const sub = await session.request('resources/subscribe', { uri }, 5_000);
    // RES-SUB-01 judges the subscribe answer itself (server.resources.subscribe).
    if (sub.kind !== 'result') return check.skip(`not exercised: resources/subscribe ${show(uri)} got ${describeReply(sub)}`, { key: 'subscribed', frames: [replyFrame(sub)] });

    const isSwitch = plan !== undefined && SWITCH.test(String(plan.name));
    const cause = async (): Promise<Reply | undefined> => (plan ? session.request('tools/call', { name: plan.name, arguments: args }) : undefined);
    const why = options.callTools.mode === 'all' || options.callTools.mode === 'named' ? 'no permitted tool says it updates a resource' : 'tools that change resources are called only under --call-tools all or by name';
    if (!plan) note(`resources/updated was watched for after subscribing, with no tool to cause one (${why})`);

    const mark = session.mark;
    const subscribedAt = performance.now();
    const first = await cause();
    const isUpdate = (f: RecordedFrame) => covers(uri, updatedUri(f));
    const firstUpdate = plan ? await session.waitForFrame(isUpdate, CALL_WAIT_MS, mark) : await watchWhile(session, isUpdate, mark, { minMs: SPONTANEOUS_MIN_MS, maxMs: SPONTANEOUS_MAX_MS, lasting: restOfRun });
    const how = plan
      ? `after tools/call ${show(plan.name)} ${show(args, 80)} (${plan.why})`
      : `within ${Math.round(performance.now() - subscribedAt)} ms of subscribing, with no tool to cause one (${why})`;
    if (!firstUpdate) {
      const got = first ? `; the call got ${describeReply(first)}` : '';
      return check.skip(`not exercised: no notifications/resources/updated for the subscribed ${show(uri)} came ${how}${got}`, { key: 'subscribed', frames: [replyFrame(sub), first && replyFrame(first)] });
    }
    // A periodic update (a switch, or one the server sends by itself) must recur for its absence after unsubscribing to mean anything.
    const periodic = !plan || isSwitch;
    const second = periodic ? await session.waitForFrame((f) => f.index > firstUpdate.index && covers(uri, updatedUri(f)), PERIOD_MAX_MS, firstUpdate.index + 1) : undefined;
    const subscribedPhase = session.peerFrames(mark).filter((f) => updatedUri(f) !== undefined);
    const strangers = subscribedPhase.filter((f) => !covers(uri, updatedUri(f)));
    check.expect(strangers.length === 0, {
      key: 'subscribed',
      expected: `while subscribed to ${show(uri)} only, resources/updated only for it (${subscribedPhase.length - strangers.length} came ${how})`,
      actual: `${strangers.length} for other URIs: ${list(strangers.map((f) => show(updatedUri(f), 80)))}`,
      frames: [firstUpdate.index, ...strangers.map((f) => f.index)],
      replies: first ? [sub, first] : [sub],
    });

    const unsub = await session.request('resources/unsubscribe', { uri }, 5_000);
    if (unsub.kind !== 'result') return check.skip(`not exercised: resources/unsubscribe ${show(uri)} got ${describeReply(unsub)}`, { key: 'unsubscribed', frames: [replyFrame(unsub)] });
    if (periodic && !second) {
      if (isSwitch) await cause();
      return check.skip(`not exercised: the update for ${show(uri)} did not recur within ${PERIOD_MAX_MS} ms, so its absence after unsubscribing would show nothing`, { key: 'unsubscribed', frames: [firstUpdate.index] });
    }
    const after = session.mark;
    let again: Reply | undefined;
    let window: string;
    if (periodic) {
      const period = second!.at - firstUpdate.at;
      const waitMs = Math.min(PERIOD_MAX_MS, Math.round(period * 1.5) + 200);
      await session.settle(waitMs);
      window = `in the ${waitMs} ms after unsubscribing (the update recurred every ${period} ms before)`;
      if (isSwitch) await cause();
    } else {
      again = await cause();
      await session.barrier(3_000);
      window = `after unsubscribing and repeating tools/call ${show(plan!.name)}`;
    }
    const late = session.peerFrames(after).filter((f) => covers(uri, updatedUri(f)));
    check.expect(late.length === 0, {
      key: 'unsubscribed',
      expected: `no resources/updated for ${show(uri)} ${window}`,
      actual: `${late.length} such notification(s)`,
      frames: [replyFrame(unsub), ...late.map((f) => f.index)],
      replies: again ? [unsub, again] : [unsub],
    });
  },
});

// ---- list_changed, then a re-list -----------------------------------------------------------------

const LIST_KINDS: Array<{ capability: string; method: ListMethod; notification: string; requirement: RequirementId }> = [
  { capability: 'tools', method: 'tools/list', notification: 'notifications/tools/list_changed', requirement: 'TOOL-LC-01' },
  { capability: 'resources', method: 'resources/list', notification: 'notifications/resources/list_changed', requirement: 'RES-LC-01' },
  { capability: 'prompts', method: 'prompts/list', notification: 'notifications/prompts/list_changed', requirement: 'PROMPT-LC-01' },
];

/** The identity of each listed item (its name, or its uri for resources). */
function identities(items: Array<Record<string, unknown>>): string[] {
  return items.map((i) => String(i.uri ?? i.name)).sort();
}

async function snapshot(session: ClientSession, method: ListMethod): Promise<string[] | undefined> {
  const walk = await walkList(session, method);
  return walk.end === 'complete' ? identities(walk.items) : undefined;
}

function difference(before: string[], after: string[]): string {
  const added = after.filter((x) => !before.includes(x));
  const removed = before.filter((x) => !after.includes(x));
  return [added.length ? `added ${list(added.map((x) => show(x, 60)), 4)}` : '', removed.length ? `removed ${list(removed.map((x) => show(x, 60)), 4)}` : ''].filter(Boolean).join(', ');
}

export const listChanged = scenario({
  id: 'server.notifications.list-changed',
  title: 'A server that declared listChanged notifies when a list changes; the re-list after a notification shows the change',
  requirements: ['TOOL-LC-01', 'RES-LC-01', 'PROMPT-LC-01'],
  isolation: 'session',
  async run({ session, connect, check, discovery, options, note }) {
    const kinds = LIST_KINDS.filter((k) => {
      const cap = discovery.capabilities[k.capability];
      return isObject(cap) && cap.listChanged === true;
    });
    if (kinds.length === 0) return check.skip('not exercised: the server declares listChanged for none of tools, resources, prompts', { key: 'tools' });
    const init = await connect(session);
    if (!init.ok) return check.skip(`not exercised: ${init.opening} got ${describeReply(init.reply)}`, { key: kinds[0]!.capability });
    await session.listen();
    const before = new Map<string, string[] | undefined>();
    for (const k of kinds) before.set(k.capability, await snapshot(session, k.method));
    const mark = session.mark;
    const plans = mutatingPlans(discovery.tools, options.callTools, (text) => MUTATOR.test(text));
    const calls: string[] = [];
    for (const plan of plans.slice(0, 5)) {
      const args = quickArguments(plan);
      const reply = await session.request('tools/call', { name: plan.name, arguments: args }, 5_000);
      calls.push(`${plan.name} → ${reply.kind}`);
    }
    await session.barrier(3_000);
    const how = calls.length
      ? `tools/call ${list(calls, 5)}`
      : `no tool call (${options.callTools.mode === 'all' || options.callTools.mode === 'named' ? 'no permitted tool says it creates, adds or removes anything' : 'tools that change lists are called only under --call-tools all or by name'})`;
    if (!calls.length) note(`${how}; only changes the server makes by itself can show`);
    for (const k of kinds) {
      const notified = session.peerFrames(mark).filter((f) => notificationParams(f, k.notification) !== undefined);
      const was = before.get(k.capability);
      const now = await snapshot(session, k.method);
      if (was === undefined || now === undefined) {
        check.skip(`not exercised: ${k.method} could not be walked to its end ${was === undefined ? 'before' : 'after'} ${how}`, { key: k.capability, requirements: [k.requirement] });
        continue;
      }
      const change = difference(was, now);
      if (!change) {
        if (notified.length) note(`${k.notification} came after ${how}, but ${k.method} shows the same ${now.length} item(s) (allowed: the items may have changed in place)`);
        check.skip(`not exercised: ${k.method} did not change after ${how}${notified.length ? ` (${notified.length} ${k.notification} came)` : ''}`, { key: k.capability, requirements: [k.requirement], frames: notified.map((f) => f.index) });
        continue;
      }
      check.expect(notified.length > 0, {
        key: k.capability,
        requirements: [k.requirement],
        expected: `${k.notification} after ${how}, since ${k.method} changed (${change})`,
        actual: 'none',
        frames: notified.map((f) => f.index),
      });
    }
  },
});

export const notifications = [resourceUpdates, listChanged];
