/**
 * Which protocol eras a server serves, found out before any scenario runs
 * (basic/versioning.mdx#backward-compatibility-with-initialization-based-versions, the stdio and
 * Streamable HTTP backward-compatibility sections): a modern server/discover on one fresh
 * connection, a legacy initialize on another. What they show is recorded (VER-BC-01), never a
 * finding: the probes' traffic is judged by no validator, and the era suites judge the server.
 */
import { ClientSession } from '../harness/client-session.js';
import { describeReply } from '../harness/describe-reply.js';
import { connect } from '../harness/lifecycle/index.js';
import type { Diagnosis } from '../harness/lifecycle/conversation.js';
import type { Reply } from '../harness/peer-session.js';
import { Pace, STARTUP_MS } from '../harness/pace.js';
import type { Target } from '../harness/target.js';
import { MODERN_ERRORS } from '../spec/modern.js';
import { type Era, LATEST_REVISION, LATEST_STATEFUL_REVISION, type Revision } from '../spec/revisions.js';
import { ruling } from '../spec/rulings.js';
import { schemaFor } from '../validate/schemas.js';
import { closeQuietly } from './close-quietly.js';

/** What one era's probe showed. */
export interface EraProbe {
  era: Era;
  /** The revision the probe asked for. */
  revision: Revision;
  /** The era's conversation began (the server serves the revision). */
  served: boolean;
  /**
   * Stateless probe only: the answer was a recognised modern error (−32020/−32021/−32022, or over
   * HTTP 404 with a −32601 body, §19 item 7): a modern server, whatever else it refused.
   */
  modernServer?: boolean;
  /** What the server answered, for the report. */
  detail: string;
  /** The error code the probe got, if any. */
  code?: unknown;
  /** The target went away before answering (a process that exited): why, as a sentence after its name. */
  gone?: string;
  /** Why no conversation began, as a sentence after the target's name (the era's own diagnosis). */
  why?: string;
  /** What the answer showed beyond "not served", as the era's lifecycle found it (no MCP server; a modern one lacking server/discover). */
  diagnosis?: Diagnosis;
  /** Over HTTP, the probe was refused with 401: a protected resource, whose eras a request without a valid token cannot show. */
  unauthorized?: true;
}

const MODERN_CODES: readonly unknown[] = Object.values(MODERN_ERRORS);

/** Whether a reply to server/discover marks the server as modern (§19 item 7, ruling modern-error). */
export function isModernError(reply: Reply, transport: 'stdio' | 'http'): boolean {
  const code = reply.kind === 'error' || reply.kind === 'rejected' ? reply.error?.code : undefined;
  if (MODERN_CODES.includes(code)) return true;
  return transport === 'http' && reply.kind === 'rejected' && reply.status === 404 && code === -32601;
}

/**
 * Probes one era on a connection of its own, judged by nobody; the connection is closed after. A
 * process's start is waited for at the pace's measure (the first probe measures it).
 */
async function probeEra(target: Target, revision: Revision, era: Era, requestTimeoutMs: number, pace: Pace, notes: string[]): Promise<EraProbe> {
  const channel = await target.open();
  const stdio = target.kind === 'stdio';
  const session = new ClientSession({ channel, transport: target.kind, requestTimeoutMs, speaks: revision, pace, startsProcess: stdio, startupMs: STARTUP_MS, judged: false });
  try {
    const outcome = await connect(session, { timeoutMs: requestTimeoutMs });
    if (stdio && session.startedAfterMs !== undefined) pace.firstStart(session.startedAfterMs);
    if (outcome.ok) return { era, revision: outcome.conversation.revision as Revision, served: true, detail: `${outcome.opening} answered (${outcome.conversation.revision})` };
    const modernServer = era === 'stateless' ? isModernError(outcome.reply, target.kind) : undefined;
    return {
      era,
      revision,
      served: false,
      ...(modernServer !== undefined ? { modernServer } : {}),
      ...(outcome.reply.kind === 'error' || outcome.reply.kind === 'rejected' ? { code: outcome.reply.error?.code } : {}),
      detail: `${outcome.opening} got ${describeReply(outcome.reply)}`,
      why: outcome.why,
      ...(outcome.diagnosis ? { diagnosis: outcome.diagnosis } : {}),
      ...(outcome.reply.kind === 'closed' ? { gone: outcome.why } : {}),
      ...(outcome.reply.kind === 'rejected' && outcome.reply.status === 401 ? { unauthorized: true as const } : {}),
    };
  } finally {
    await closeQuietly(notes, `the ${era} era's probe`, () => session.close());
  }
}

/**
 * The eras `target` serves: the stateless probe (server/discover with 2026-07-28) and the stateful
 * one (initialize with 2025-11-25), each on a fresh connection (a fresh process over stdio). One
 * after the other where the first measures a start the second waits for (a process: stdio, or a
 * server mcpcheck starts); at once otherwise (`atOnce`: a URL that is already served).
 */
export async function detectEras(target: Target, requestTimeoutMs: number, notes: string[], atOnce = false): Promise<EraProbe[]> {
  const pace = new Pace();
  const statefulNotes: string[] = [];
  const statelessNotes: string[] = [];
  const stateful = () => probeEra(target, LATEST_STATEFUL_REVISION, 'stateful', requestTimeoutMs, pace, statefulNotes);
  const stateless = () => probeEra(target, LATEST_REVISION, 'stateless', requestTimeoutMs, pace, statelessNotes);
  // The stateful probe first: every server before 2026-07-28 answers it, so it measures the start
  // the stateless probe then waits for (a server silent to server/discover costs no fixed 30 s).
  const probing = atOnce ? Promise.all([stateful(), stateless()]) : stateful().then(async (first) => [first, await stateless()]);
  loadSchemasMeanwhile();
  const probes = await probing;
  notes.push(...statefulNotes, ...statelessNotes);
  return probes;
}

/**
 * Loads the schemas of the revision most servers speak while the probes wait for the server, once
 * their requests are out (nobody judges a probe's frames, so nothing loaded them before): the
 * run's first session then sends at once instead of loading them first, the server idle meanwhile.
 */
function loadSchemasMeanwhile(): void {
  const load = () => {
    try {
      schemaFor(LATEST_STATEFUL_REVISION);
    } catch {
      // The first frame validated will load them again and report what is wrong in its place.
    }
  };
  // Over HTTP the requests go out once their connections are up, in the event loop's next poll
  // phase: an immediate may run before that phase, the one it schedules runs after it.
  setImmediate(() => setImmediate(load));
}

/**
 * Whether the era is to be tested: it was served, or the server is modern and refused the probe
 * for a reason other than not speaking the revision (−32022 to server/discover means exactly that:
 * DISC-IMPL-01 stops the modern suite there). Such an era then is "could not run", never a pass.
 */
export function toTest(p: EraProbe): boolean {
  return p.served || (p.modernServer === true && p.code !== MODERN_ERRORS.unsupportedProtocolVersion);
}

/** The report's line about what the probes showed (VER-BC-01: a record, never a finding). */
export function describeEras(probes: readonly EraProbe[]): string {
  const parts = probes.map((p) => `${p.era} era (${p.revision}): ${p.served ? 'served' : 'not served'}: ${p.detail}${p.modernServer ? ` (a recognised modern error: ${ruling('modern-error').cite})` : ''}`);
  return `era detection (VER-BC-01, recorded, never a finding): ${parts.join('; ')}`;
}
