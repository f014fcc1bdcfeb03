import type { Arbitrary } from 'fast-check';
import { type CaseVerdict, type ClientSession, describeReply, loadPropertyCheck, loadSchemaArbitrary, scenario, type Scenario, type schemaArbitrary, show, timedArguments, type ToolPlan } from '../kit.js';
import { recordProperty } from '../common.js';
import { callablePlans, callTool } from './helpers.js';

/** mcpcheck's own limit for one generated call: longer is "could not judge", never the server's fault. */
const CALL_MS = 2_000;
/** What the property leaves of the scenario timeout for the last case and the report. */
const RESERVE_MS = 6_000;
/** Cases judged at most beyond the generated ones: shrinking stops there. */
const SHRINK_BUDGET = 40;
/** Time-like arguments are cut to about this, so a generated duration cannot stall the run. */
const QUICK_MS = 300;

interface Call {
  name: string;
  args: unknown;
}

/**
 * The property checker and the schema generator (and fast-check with them), loaded when the
 * property runs: every `mcpcheck server` loaded them before discovery could begin (fast-check
 * alone takes about 25 ms).
 */
async function generators() {
  const [property, arbitrary] = await Promise.all([loadPropertyCheck(), loadSchemaArbitrary()]);
  return { anyOf: property.anyOf, checkProperty: property.checkProperty, schemaArbitrary: arbitrary.schemaArbitrary };
}

/**
 * Arguments for one tool that satisfy its inputSchema, kept small (a property run is a handful of
 * calls), declared members only, durations shortened; a string saying why when the schema cannot
 * be generated from.
 */
function callsOf(plan: ToolPlan, generate: typeof schemaArbitrary): Arbitrary<Call> | string {
  const made = generate(plan.tool.inputSchema, { maxDepth: 2, maxItems: 2, maxLength: 8, maxExtraProperties: 0, undeclaredProperties: false });
  if (!made.ok) return `${plan.name}: ${made.problem.message} (at ${made.problem.pointer})`;
  return made.arbitrary.map((args) => ({ name: plan.name, args: timedArguments(plan.tool.inputSchema, args as Record<string, unknown>, QUICK_MS)?.args ?? args }));
}

export const toolArgumentsProperty = scenario({
  id: 'server.properties.tool-arguments',
  title: "Every tools/call whose arguments satisfy the tool's inputSchema gets exactly one response, and the server keeps answering",
  requirements: ['BASE-ID-04'],
  isolation: 'session',
  // Each generated call carries the era's per-request _meta (callTool composes it); BASE-ID-04 holds in both eras.
  carriedOver: true,
  needs: { capabilities: ['tools'] },
  async run({ session, openSession, connect, check, discovery, options, timeLeft }) {
    if (options.cases === 0) return check.skip('the property tier is off (--properties 0)');
    const plans = callablePlans(discovery, options.callTools);
    if (plans.length === 0) return check.skip(`no listed tool may be called under --call-tools ${options.callTools.mode}`);
    const { anyOf, checkProperty, schemaArbitrary } = await generators();
    const arbitraries: Array<Arbitrary<Call>> = [];
    const ungenerable: string[] = [];
    for (const plan of plans) {
      const calls = callsOf(plan, schemaArbitrary);
      if (typeof calls === 'string') ungenerable.push(calls);
      else arbitraries.push(calls);
    }
    if (ungenerable.length) check.note(`no arguments generated for ${ungenerable.join('; ')}`);
    if (arbitraries.length === 0) return check.skip(`no permitted tool's inputSchema could be generated from: ${ungenerable.join('; ')}`);

    const init = await connect(session);
    if (!init.ok) return check.error(`${init.opening} failed: ${describeReply(init.reply)}`);
    let live: ClientSession | undefined = session;
    // A server that went away is started afresh for the next case (stdio: a new process).
    const alive = async (): Promise<ClientSession | undefined> => {
      if (live && !live.closed) return live;
      const next = await openSession();
      live = (await connect(next)).ok ? next : undefined;
      return live;
    };
    const judge = async (call: Call): Promise<CaseVerdict> => {
      const s = await alive();
      if (!s) return { inconclusive: 'the server could not be reached again after it went away' };
      const reply = await callTool(s, call.name, call.args as Record<string, unknown>, CALL_MS);
      // A call may take long while its server answers pings: the spec sets no time limit on a tool.
      if (reply.kind === 'timeout' || reply.kind === 'unanswered') return { inconclusive: `${call.name} was still working after mcpcheck's ${CALL_MS} ms limit (cancelled): ${describeReply(reply)}` };
      if (reply.kind === 'closed') return { failed: `the connection closed before ${call.name} answered (${reply.detail})` };
      // The era's liveness request: ping, or server/discover in 2026-07-28.
      const ping = await s.request(s.probeMethod, undefined, CALL_MS);
      if (ping.kind === 'closed') return { failed: `the server went away after answering ${call.name} (${ping.detail})` };
      if (ping.kind === 'timeout') return { inconclusive: `${s.probeMethod} went unanswered for ${CALL_MS} ms after ${call.name}` };
      return { held: true };
    };
    const outcome = await checkProperty(anyOf(arbitraries), options.seed, { cases: options.cases, maxEvaluations: options.cases + SHRINK_BUDGET, deadline: performance.now() + timeLeft() - RESERVE_MS }, judge);
    recordProperty(check, outcome, {
      expected: `a response to every tools/call whose arguments satisfy the inputSchema, and ${session.probeMethod} answered after it`,
      asked: options.cases,
      what: 'call',
      show: (call) => `tools/call ${show(call.name)} with ${show(call.args, 1_000)}`,
    });
  },
});

export const properties: Scenario[] = [toolArgumentsProperty];
