import type { ClientSession } from '../../src/harness/client-session.js';
import type { Reply } from '../../src/harness/peer-session.js';
import { describeReply, replyFrame } from '../../src/runner/checks.js';
import { hasCapability, type Discovery } from '../../src/runner/discovery.js';
import { scenario, type ToolPolicy } from '../../src/runner/scenario.js';
import { show } from '../../src/validate/finding.js';
import type { StatefulRevision as Revision } from '../../src/spec/revisions.js';
import { levelIn } from '../../src/spec/catalog.js';
import { ruling } from '../../src/spec/rulings.js';
import { describeErrors, laterRevisionAccepting, schemaFor, type RevisionSchema } from '../../src/validate/schemas.js';
import { budget, isObject, isSlowTool, list, planToolCall, quickArguments } from './helpers.js';

/** The older revisions a session is operated on (2025-03-26 differs from 2025-06-18 in little a client can see). */
const OLDER: Revision[] = ['2025-06-18', '2024-11-05'];
const MAX_CALLS = 8;
const MAX_PAGES = 10;

const LISTS = [
  { capability: 'tools', method: 'tools/list' },
  { capability: 'resources', method: 'resources/list' },
  { capability: 'prompts', method: 'prompts/list' },
] as const;

interface Step {
  method: string;
  /** What the message names it by (the tool, for a call). */
  label?: string;
  reply: Reply;
}

/**
 * Which tools may be called: the policy looks at the newest listing (discovery), because older
 * revisions have no annotations to say a tool is read-only.
 */
function callable(listed: unknown[], discovery: Discovery, policy: ToolPolicy): Array<{ name: string; args: Record<string, unknown> }> {
  const tools = listed.filter(isObject);
  const out: Array<{ name: string; args: Record<string, unknown> }> = [];
  for (const tool of tools) {
    const newest = discovery.tools.find((t) => t.name === tool.name);
    if (!newest || isSlowTool(newest)) continue;
    const plan = planToolCall({ ...tool, annotations: newest.annotations, execution: newest.execution }, policy);
    if (plan.call) out.push({ name: plan.name, args: quickArguments(plan) });
  }
  return out;
}

/** Lists, calls permitted tools and pings on a session that negotiated `revision`. */
async function operate(session: ClientSession, discovery: Discovery, policy: ToolPolicy): Promise<Step[]> {
  const steps: Step[] = [];
  const time = budget(10_000);
  const tools: unknown[] = [];
  for (const { capability, method } of LISTS) {
    if (!hasCapability(discovery.capabilities, capability)) continue;
    let cursor: unknown;
    for (let page = 0; page < MAX_PAGES && !time.spent(); page++) {
      const reply = await session.request(method, cursor === undefined ? {} : { cursor }, time.timeout(5_000));
      steps.push({ method, reply });
      if (reply.kind !== 'result') break;
      if (method === 'tools/list' && Array.isArray(reply.result.tools)) tools.push(...reply.result.tools);
      cursor = reply.result.nextCursor;
      if (typeof cursor !== 'string') break;
    }
  }
  for (const { name, args } of callable(tools, discovery, policy).slice(0, MAX_CALLS)) {
    if (time.spent()) break;
    steps.push({ method: 'tools/call', label: `tools/call ${show(name, 60)}`, reply: await session.request('tools/call', { name, arguments: args }, time.timeout(5_000)) });
  }
  steps.push({ method: 'ping', reply: await session.request('ping', undefined, time.timeout(5_000)) });
  return steps;
}

function resultDef(schema: RevisionSchema, method: string): string {
  return schema.resultDef(method, false) ?? 'Result';
}

function resultErrors(revision: Revision, method: string, result: Record<string, unknown>): ReturnType<RevisionSchema['validate']> {
  const schema = schemaFor(revision);
  return schema.validate(resultDef(schema, method), result);
}

function summary(steps: Step[]): string {
  const counts = new Map<string, number>();
  for (const { method } of steps) counts.set(method, (counts.get(method) ?? 0) + 1);
  return [...counts].map(([method, n]) => (n > 1 ? `${method} ×${n}` : method)).join(', ');
}

export const olderRevisions = scenario({
  id: 'server.lifecycle.older-revisions',
  title: 'After negotiating an older revision the server keeps to it: lists, tool results and ping have that revision’s shapes',
  requirements: ['LIFE-OP-01'],
  isolation: 'session',
  async run({ session, openSession, check, discovery, options }) {
    const sessions = [session, ...(await Promise.all(OLDER.slice(1).map(() => openSession())))];
    await Promise.all(
      OLDER.map(async (revision, i) => {
        const s = sessions[i]!;
        const init = await s.initialize({ protocolVersion: revision, capabilities: {} });
        if (init.kind !== 'result' || init.result.protocolVersion !== revision) {
          const answered = init.kind === 'result' ? `protocolVersion ${show(init.result.protocolVersion)}` : describeReply(init);
          return check.skip(`not exercised: initialize for ${revision} was answered with ${answered}, so no session runs on it (server.lifecycle.version-negotiation judges that answer)`, {
            key: revision,
            session: s,
            frames: [replyFrame(init)],
          });
        }
        const steps = await operate(s, discovery, options.callTools);
        // A result valid only for a later revision shows the server left the negotiated one; a
        // result valid for none is a plain schema failure (judged live), not this rule's business.
        const problems: string[] = [];
        const judged = steps.filter((x) => x.reply.kind === 'result');
        for (const { method, label = method, reply } of judged) {
          if (reply.kind !== 'result') continue;
          const errors = resultErrors(revision, method, reply.result);
          const later = errors && laterRevisionAccepting(revision, (schema) => resultDef(schema, method), reply.result);
          if (later) problems.push(`${label}: ${describeErrors(errors, '/result')} (valid in ${later})`);
        }
        const unjudged = steps.filter((x) => x.reply.kind !== 'result');
        if (judged.length === 0) {
          // Nothing came back to judge the shape of: no evidence either way (timeouts stay "could not run").
          if (unjudged.some((x) => x.reply.kind === 'timeout')) return check.error(`could not judge ${revision}: ${list(unjudged.map((x) => `${x.label ?? x.method} → ${describeReply(x.reply)}`), 3)}`, { key: revision, session: s });
          return check.skip(`not exercised: no request on the ${revision} session got a result (${list(unjudged.map((x) => `${x.label ?? x.method} → ${describeReply(x.reply)}`), 3)})`, { key: revision, session: s });
        }
        // The recorder grades LIFE-OP-01 at its level in the session's revision (levelIn).
        const level = levelIn('LIFE-OP-01', revision);
        check.expect(problems.length === 0, {
          key: revision,
          expected: `on a session that negotiated ${revision}, no result in a newer revision's shape (${summary(judged)} judged${unjudged.length ? `; not answered with a result: ${list(unjudged.map((x) => `${x.label ?? x.method} → ${describeReply(x.reply)}`), 3)}` : ''})`,
          actual: `${list(problems, 4)} (${revision} says the server ${level} respect the negotiated protocol version; ${ruling('later-revision-construct').cite})`,
          frames: judged.map((x) => replyFrame(x.reply)),
          session: s,
        });
      }),
    );
  },
});
