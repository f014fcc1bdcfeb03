import { cannedCapabilities, type ClientSession, describeReply, isObject, list, planToolCall, type RecordedFrame, type Reply, replyFrame, scenario, show, type ToolPolicy, walkList } from '../kit.js';
import { budget, callTool, isSlowTool, quickArguments } from './helpers.js';

/** Server→client requests and the client capability each needs (LIFE-OP-02). */
const GATED = [
  { method: 'sampling/createMessage', capability: 'sampling' },
  { method: 'elicitation/create', capability: 'elicitation' },
  { method: 'roots/list', capability: 'roots' },
] as const;

/** Says it asks the client something: its LLM, its user, its roots. */
const ASKS_CLIENT = /sampl|llm|elicit|\broots?\b|user input|ask the user/i;
const MAX_CALLS = 6;
/** How long requests the server sends by itself right after initialize get to arrive. */
const AFTER_INIT_MS = 300;

interface Trigger {
  /** 'initialize', or the tool whose call caused the requests. */
  what: string;
  args?: Record<string, unknown>;
  methods: Set<string>;
  frames: number[];
}

function requestMethod(frame: RecordedFrame): string | undefined {
  const m = frame.message;
  return isObject(m) && typeof m.method === 'string' && 'id' in m && GATED.some((g) => g.method === m.method) ? m.method : undefined;
}

function gatedRequests(session: ClientSession, from: number, to = Infinity): RecordedFrame[] {
  return session.peerFrames(from).filter((f) => f.index < to && requestMethod(f) !== undefined);
}

async function listTools(session: ClientSession): Promise<Array<Record<string, unknown>>> {
  const walk = await walkList(session, 'tools/list');
  return walk.items;
}

/** The tools to call: permitted, quick, and saying they ask the client something. */
function askingTools(tools: Array<Record<string, unknown>>, policy: ToolPolicy): Array<{ name: string; args: Record<string, unknown>; why: string }> {
  return tools
    .filter((t) => ASKS_CLIENT.test(`${String(t.name)} ${typeof t.description === 'string' ? t.description : ''}`) && !isSlowTool(t))
    .map((t) => planToolCall(t, policy))
    .filter((p) => p.call)
    .map((p) => ({ name: p.name, args: quickArguments(p), why: p.why }));
}

async function callAndSettle(session: ClientSession, name: string, args: Record<string, unknown>, timeoutMs: number): Promise<Reply> {
  const reply = await callTool(session, name, args, timeoutMs);
  // Requests the call caused may still be in flight behind its response.
  await session.barrier(2_000);
  return reply;
}

/**
 * One session declares sampling, elicitation and roots (mcpcheck answers with its canned
 * answers), one declares none; the same actions are taken in both. Whatever the server asks the
 * declaring client is judged live by the request rules (SAMP-*, ELIC-*, ROOTS-*); here, what it
 * asked there must not be asked of the client that declared nothing.
 */
export const capabilityGatedRequests = scenario({
  id: 'server.lifecycle.client-capabilities',
  title: 'Sampling, elicitation and roots requests go only to a client that declared the capability',
  requirements: ['LIFE-OP-02'],
  isolation: 'session',
  // Most of its time goes on the window after initialize in which a server may ask by itself.
  waits: true,
  needs: { discovery: true },
  async run({ session: declaring, openSession, connect, check, discovery, options, note }) {
    const plain = await openSession();
    const [initD, initP] = await Promise.all([connect(declaring, { capabilities: cannedCapabilities() }), connect(plain)]);
    if (!initD.ok || !initP.ok) {
      const bad = !initD.ok ? initD : initP;
      for (const g of GATED) check.skip(`not exercised: ${bad.opening} got ${describeReply(bad.reply)}`, { key: g.capability });
      return;
    }
    // Over HTTP, requests tied to no tool call (roots/list after initialized) come on the GET stream.
    await Promise.all([declaring.listen(), plain.listen()]);
    await Promise.all([declaring.settle(AFTER_INIT_MS), plain.settle(AFTER_INIT_MS)]);
    const triggers: Trigger[] = [];

    const time = budget(25_000);
    const toolsD = 'tools' in discovery.capabilities ? await listTools(declaring) : [];
    const candidates = askingTools(toolsD, options.callTools);
    const skipped = toolsD.filter((t) => ASKS_CLIENT.test(`${String(t.name)} ${String(t.description ?? '')}`) && !candidates.some((c) => c.name === t.name));
    if (skipped.length) note(`not called (${list(skipped.map((t) => `${String(t.name)}: ${planToolCall(t, options.callTools).why}`), 4)})`);
    for (const c of candidates.slice(0, MAX_CALLS)) {
      if (time.spent()) break;
      const mark = declaring.mark;
      const reply = await callAndSettle(declaring, c.name, c.args, time.timeout(10_000));
      const asked = gatedRequests(declaring, mark);
      if (asked.length) triggers.push({ what: c.name, args: c.args, methods: new Set(asked.map((f) => requestMethod(f)!)), frames: asked.map((f) => f.index) });
      else note(`tools/call ${show(c.name)} sent no sampling, elicitation or roots request to the declaring client (${describeReply(reply)})`);
    }

    // What came outside every call's window followed the handshake (a busy server's roots/list may
    // come later than the settle after initialized): initialize caused it.
    const attributed = new Set(triggers.flatMap((t) => t.frames));
    const initRequests = gatedRequests(declaring, 0).filter((f) => !attributed.has(f.index));
    if (initRequests.length) triggers.unshift({ what: 'initialize', methods: new Set(initRequests.map((f) => requestMethod(f)!)), frames: initRequests.map((f) => f.index) });

    // The same actions towards the client that declared nothing.
    const toolsP = 'tools' in discovery.capabilities ? await listTools(plain) : [];
    const repeated = new Map<Trigger, string>();
    const replies: Reply[] = [];
    for (const t of triggers) {
      if (t.what === 'initialize') {
        repeated.set(t, 'initialize');
        continue;
      }
      if (!toolsP.some((x) => x.name === t.what)) {
        repeated.set(t, `${t.what} (not offered to it)`);
        continue;
      }
      if (time.spent()) break;
      const reply = await callAndSettle(plain, t.what, t.args ?? {}, time.timeout(10_000));
      replies.push(reply);
      repeated.set(t, `tools/call ${t.what} → ${reply.kind === 'result' && reply.result.isError === true ? 'isError result' : reply.kind}`);
    }
    const unasked = gatedRequests(plain, 0);
    for (const g of GATED) {
      const wrong = unasked.filter((f) => requestMethod(f) === g.method);
      const causes = triggers.filter((t) => t.methods.has(g.method));
      if (wrong.length === 0 && causes.length === 0) {
        check.skip(
          `not exercised: nothing mcpcheck did made the server send ${g.method} to a client that declared ${g.capability}${candidates.length ? ` (called: ${list(candidates.map((c) => c.name), 4)})` : ` (no permitted tool says it asks the client; --call-tools ${options.callTools.mode})`}`,
          { key: g.capability },
        );
        continue;
      }
      // Silence towards the plain client means something only once what caused the request was repeated towards it.
      if (wrong.length === 0 && !causes.some((c) => repeated.has(c))) {
        check.skip(`not exercised: ${list(causes.map((c) => c.what))} made the server send ${g.method} to the declaring client, but mcpcheck ran out of time before repeating it towards the other one`, {
          key: g.capability,
          frames: causes.flatMap((c) => c.frames),
          session: declaring,
        });
        continue;
      }
      check.expect(wrong.length === 0, {
        key: g.capability,
        expected: `no ${g.method} to a client that did not declare ${g.capability}${causes.length ? `, although ${list(causes.map((c) => c.what))} made the server send it to one that did; repeated towards it: ${list(causes.map((c) => repeated.get(c) ?? `${c.what} (not repeated: out of time)`))}` : ''}`,
        actual: `${wrong.length} sent to it`,
        frames: wrong.length ? wrong.map((f) => f.index) : [replyFrame(initP.reply), ...replies.map(replyFrame)],
        session: plain,
        replies,
      });
    }
  },
});

export const clientFeatures = [capabilityGatedRequests];
