import { SetupError } from '../errors.js';
import type { ClientTarget } from '../harness/client-target.js';
import type { RecordedFrame } from '../harness/peer-session.js';
import { accept } from '../harness/lifecycle/index.js';
import { ServerSession } from '../harness/server-session.js';
import type { CheckResult, WireLog } from '../model.js';
import { TargetDidNotStart, type TargetProcess } from '../transport/process.js';
import type { ClientExchange, StdioClientEvent } from '../transport/server-channel.js';
import { isRevision, LATEST_STATEFUL_REVISION as LATEST_REVISION, type Revision } from '../spec/revisions.js';
import { inEra, outsideRevisions } from './scenario.js';
import { closeQuietly } from './close-quietly.js';
import { CheckRecorder, scenarioInterrupted, scenarioSkipped } from './checks.js';
import type { ClientScenario, ClientScenarioContext } from './client-scenario.js';
import { inLanes, runGuarded } from './guard.js';
import { Pace, type Start } from '../harness/pace.js';
import { LiveLedger } from './live.js';
import { INTERRUPTED, type RunControl } from './observer.js';
import { WireLogs } from '../wire.js';
import type { Redactor } from '../redact.js';
import { stderrGist } from '../transport/stderr-gist.js';

export interface ClientRunInput extends RunControl {
  target: ClientTarget;
  scenarios: ClientScenario[];
  concurrency: number;
  scenarioTimeoutMs: number;
  requestTimeoutMs: number;
  transcriptDir?: string;
  /** Keeps secrets out of the transcripts. */
  redactor?: Redactor;
  /** The command line that reruns one scenario: `{scenario}` is replaced by its id. */
  reproduce: string;
  /** Seeds what property scenarios generate. */
  seed: number;
  /** Generated cases per property scenario (0: the property tier is off). */
  cases: number;
}

export interface ClientRunOutput {
  checks: CheckResult[];
  notes: string[];
  /** What the client said about itself when it began its first conversation. */
  clientInfo?: Record<string, unknown>;
  protocolVersion?: string;
  /** The wire logs the checks refer to. */
  wire: WireLog[];
}

/** After a scenario's judging is done, how long the client gets to exit by itself before its group is stopped. */
const EXIT_GRACE_MS = 300;

/**
 * Runs client scenarios: for each, a fresh endpoint, a fresh client process pointed at it, and a
 * session that plays the server. The first scenario runs alone: a client that never connects is a
 * setup error, not a page of failed checks. Every frame the client sends is validated live.
 */
export async function runClientScenarios(input: ClientRunInput): Promise<ClientRunOutput> {
  const { target, observer, signal } = input;
  const ledger = new LiveLedger();
  const notes: string[] = [];
  const checks: CheckResult[] = [];
  const out: ClientRunOutput = { checks, notes, wire: [] };
  const interrupted = () => signal?.aborted === true;
  const settle = (s: ClientScenario, results: CheckResult[]) => {
    checks.push(...results);
    observer?.finished(s.id, results);
  };
  observer?.planned(input.scenarios.length);
  // Ctrl-C stops every target process; after the scenarios running have been sealed (their abort
  // listeners), so that nothing they see of the stop becomes a verdict.
  const stopTarget = () => setImmediate(() => void target.close());
  signal?.addEventListener('abort', stopTarget, { once: true });
  const wire = new WireLogs();
  const wireOf = new Map<string, string[]>();
  // The first client's start is waited for up to the pace's ceiling, and measured: the later ones
  // are waited for by it, times the clients starting at once.
  const pace = new Pace();

  /** A client process and the session that serves it; a scenario may ask for several (a property's cases). */
  interface Attempt {
    session: ServerSession;
    client?: TargetProcess;
  }

  /** Why a scenario does not apply to the revision the client spoke in the run's first scenario (undefined: it does, or nothing was learnt). */
  const outside = (s: ClientScenario): string | undefined => {
    const spoke = out.protocolVersion;
    if (!isRevision(spoke)) return undefined;
    return outsideRevisions(s.revisions, spoke, 'the client spoke') ?? (inEra(s, spoke) ? undefined : `written for the other protocol era; the client spoke ${spoke}`);
  };

  /** What scenarios learnt of the client, for the later ones' skipIf. */
  const learnt = new Map<string, string>();
  /** By sharesClient key: the client run a scenario shared, for the others of its key to judge. */
  const shared = new Map<string, { outcome: unknown; from: string; session: ServerSession; logs: string[]; judgedBy: string[] }>();

  /** A scenario judged on another's client run (sharesClient): no client of its own, that run's wire log. */
  const judgeShared = async (s: ClientScenario, run: NonNullable<ReturnType<typeof shared.get>>): Promise<void> => {
    observer?.started(s.id);
    const spoke = () => (isRevision(out.protocolVersion) ? out.protocolVersion : undefined);
    const recorder = new CheckRecorder(s.id, s.title, s.requirements, () => run.session, input.reproduce.replace('{scenario}', s.id), (text) => notes.push(text), spoke);
    const ctx = { check: recorder, note: (text: string) => recorder.note(text), learn: (key: string, what: string) => void (learnt.has(key) || learnt.set(key, what)) };
    await runGuarded(recorder, input.scenarioTimeoutMs, async () => s.sharesClient!.judge(run.outcome, ctx), signal);
    run.judgedBy.push(s.id);
    for (const r of recorder.results) r.wire = run.logs;
    wireOf.set(s.id, run.logs);
    settle(s, recorder.results);
  };

  const runOne = async (s: ClientScenario, first: boolean): Promise<void> => {
    if (interrupted()) return settle(s, [scenarioInterrupted(s)]);
    const needless = s.skipIf?.(learnt);
    if (needless !== undefined) return settle(s, [scenarioSkipped(s, needless)]);
    const sharedRun = s.sharesClient ? shared.get(s.sharesClient.key) : undefined;
    if (sharedRun) return judgeShared(s, sharedRun);
    observer?.started(s.id);
    let outcome: unknown;
    const attempts: Attempt[] = [];
    // Its budget runs from its client's first contact, as the guard's does: that start is not its work.
    let started = performance.now();
    const current = () => attempts[attempts.length - 1]?.session;
    // A session the client sent nothing on (it never got past authorization, say) is judged in the
    // revision it spoke in the run, else the one its refused POSTs named in MCP-Protocol-Version (a
    // 2026-07-28 client sends it on every request; an initialize-era one names none before it is
    // initialized, and is judged in its session's revision).
    let named: Revision | undefined;
    const spoke = () => (isRevision(out.protocolVersion) ? out.protocolVersion : named);
    const recorder = new CheckRecorder(s.id, s.title, s.requirements, current, input.reproduce.replace('{scenario}', s.id), (text) => notes.push(text), spoke);

    /** Opens a fresh endpoint, shapes what it serves and starts the client at it; a string says why the client made no contact. */
    const launch = async (): Promise<ClientScenarioContext | string> => {
      // A body cut short by Ctrl-C may still be running: it starts no client any more.
      if (interrupted()) return 'was not started: the run was interrupted';
      const channel = await target.openEndpoint(target.transport);
      const session: ServerSession = new ServerSession({
        channel,
        transport: target.transport,
        requestTimeoutMs: input.requestTimeoutMs,
        onFinding: ledger.sink(() => s.id, () => session),
      });
      accept(session);
      const attempt: Attempt = { session };
      attempts.push(attempt);
      ledger.track(session, s.id);
      const exchanges: ClientExchange[] = [];
      // A POST the endpoint refused before reading it (as an initialize-era server does a modern one) is contact too.
      const posted = new Promise<void>((resolve) => channel.onExchange?.((e) => e.toEndpoint && resolve()));
      const stdioEvents: StdioClientEvent[] = [];
      channel.onExchange?.((e) => {
        if (exchanges.length < 10_000) exchanges.push(e);
        const version = e.toEndpoint && e.method === 'POST' ? e.headers['mcp-protocol-version'] : undefined;
        if (isRevision(version)) named ??= version;
      });
      channel.onStdioEvent?.((e) => {
        if (stdioEvents.length < 1_000) stdioEvents.push(e);
        // A well-behaved stdio server exits when its stdin closes; the client need not signal it then.
        if (e.kind === 'stdin-closed') void channel.die?.(0);
      });
      await s.serve?.(session, attempts.length - 1, learnt);
      const start = pace.starting();
      const launchedAt = performance.now();
      const browser = target.browserForClient();
      const client = target.launch(channel.address, scenarioEnv(s), browser);
      attempt.client = client;
      const contact = await firstContact(session, client, start, launchedAt, posted).finally(() => start.done());
      if (contact !== undefined) return contact;
      const startMs = performance.now() - launchedAt;
      pace.firstStart(startMs);
      // Requests already on the wire may still land just after the process went.
      client.onFinished((exit) => setTimeout(() => session.peerGone(`the client exited (${exit.signal ?? `code ${exit.code}`})`), 200));
      return {
        session,
        client,
        transport: target.transport,
        check: recorder,
        exchanges,
        stdioEvents,
        exited: (ms) => client.waitForExit(ms),
        opened: () => browser.opened(),
        note: (text) => recorder.note(text),
        seed: input.seed,
        cases: input.cases,
        timeLeft: () => started + input.scenarioTimeoutMs - performance.now(),
        paceMs: (baseMs) => pace.stepMs(baseMs, startMs),
        learn: (key, what) => void (learnt.has(key) || learnt.set(key, what)),
        relaunch: async () => {
          const next = await launch();
          return typeof next === 'string' ? undefined : next;
        },
      };
    };

    try {
      const ctx = await launch();
      started = performance.now();
      if (typeof ctx === 'string') {
        // Ctrl-C while the client started says nothing about the client.
        if (interrupted()) recorder.couldNotRun(INTERRUPTED);
        else if (first) throw new SetupError(`the client \`${target.description}\` ${ctx}`);
        else recorder.couldNotRun(`could not run: the client ${ctx}`);
      } else {
        const { cutShort } = await runGuarded(recorder, input.scenarioTimeoutMs, async () => void (outcome = await s.run(ctx)), signal);
        if (cutShort) outcome = undefined;
        if (first) {
          const conversation = ctx.session.conversation;
          if (conversation?.clientInfo) out.clientInfo = conversation.clientInfo;
          // The era it speaks: 2026-07-28 once it sent a modern request, even if a scenario made it fall back.
          if (conversation) out.protocolVersion = ctx.session.judgedIn;
          else if (named) out.protocolVersion = named;
        }
      }
    } finally {
      for (const { session, client } of attempts) {
        if (client) {
          await client.waitForExit(EXIT_GRACE_MS);
          await target.stop(client);
        }
        ledger.absorb(session);
        await closeQuietly(notes, `the session of ${s.id}`, () => session.close());
      }
      const logs = attempts.map(({ session }, i) => wire.mark(i === 0 ? s.id : `${s.id} (client ${i + 1})`, session.frames));
      wireOf.set(s.id, logs);
      for (const r of recorder.results) r.wire = logs;
      const last = current();
      if (s.sharesClient && outcome !== undefined && last && !shared.has(s.sharesClient.key)) shared.set(s.sharesClient.key, { outcome, from: s.id, session: last, logs, judgedBy: [] });
      // The first scenario learns the era the client speaks; if it is not one for that era, it did not apply.
      settle(s, first && outside(s) ? [] : recorder.results);
    }
  };

  try {
    const wrongTransport = input.scenarios.filter((s) => s.needs?.transport !== undefined && s.needs.transport !== target.transport);
    const [head, ...others] = input.scenarios.filter((s) => !wrongTransport.includes(s));
    if (head) await runOne(head, true);
    // The era the client spoke in the first scenario decides the rest. Rules of another revision
    // are not this client's: those scenarios leave no check, only a note.
    const otherEra = [...(head && outside(head) ? [head] : []), ...[...others, ...wrongTransport].filter((s) => outside(s) !== undefined)];
    for (const s of otherEra) settle(s, []);
    if (otherEra.length > 0) notes.push(`${otherEra.length} scenario(s) of another protocol era did not apply (${outside(otherEra[0]!)}): ${otherEra.map((s) => s.id).join(', ')}`);
    for (const s of wrongTransport.filter((w) => !otherEra.includes(w))) settle(s, [scenarioSkipped(s, `needs the ${s.needs!.transport} transport; the client uses ${target.transport}`)]);
    const rest = others.filter((s) => !otherEra.includes(s));
    // Those that keep the client longest go first, so the quick ones fill the lanes at the end.
    rest.sort((x, y) => heldMs(y) - heldMs(x));
    const alone = rest.filter((s) => s.oneAtATime);
    const together = rest.filter((s) => !s.oneAtATime);
    await Promise.all([
      inLanes(together, alone.length > 0 ? Math.max(1, input.concurrency - 1) : input.concurrency, (s) => runOne(s, false)),
      inLanes(alone, 1, (s) => runOne(s, false)),
    ]);
    for (const run of shared.values()) {
      if (run.judgedBy.length > 0) notes.push(`${run.judgedBy.join(', ')} judged the client run of ${run.from}, which set it the same task on the same setup (one client process for them all; alone, with --only, each starts its own)`);
    }
    checks.push(...ledger.checks('client', input.reproduce, '', (scenario) => wireOf.get(scenario)));
    if (input.transcriptDir) await ledger.writeTranscripts(input.transcriptDir, target.transport, input.redactor);
    out.wire = wire.build(checks);
    return out;
  } finally {
    signal?.removeEventListener('abort', stopTarget);
    await closeQuietly(notes, 'the client', () => target.close());
    await Promise.allSettled(ledger.tracked.map((session) => session.close()));
  }
}

/**
 * The official suite's client contract asks for a behaviour by scenario name. A scenario without
 * an official twin (nor a `contract` name) asks for `initialize` (connect, list tools, call the first, exit): what it can
 * judge of a client that knows only that contract, it judges; the rest it skips.
 */
const OFFICIAL_FALLBACK = 'initialize';

/** The environment of the official suite's client contract, plus mcpcheck's steps. */
function scenarioEnv(s: ClientScenario): Record<string, string> {
  return {
    MCPCHECK_SCENARIO: s.id,
    MCPCHECK_STEPS: JSON.stringify(s.steps),
    MCP_CONFORMANCE_SCENARIO: s.alias ?? s.contract ?? OFFICIAL_FALLBACK,
    // As the official runner builds it: the scenario's name, then what the scenario gives.
    MCP_CONFORMANCE_CONTEXT: JSON.stringify({ name: s.alias ?? s.contract ?? OFFICIAL_FALLBACK, ...s.context }),
    MCP_CONFORMANCE_PROTOCOL_VERSION: LATEST_REVISION,
  };
}

/** How long a scenario keeps the client by itself (its steps' waits and call timeouts, and its own waits). */
function heldMs(s: ClientScenario): number {
  return s.steps.reduce((sum, step) => sum + (step.do === 'wait' ? step.ms : step.do === 'call-tool' ? (step.timeoutMs ?? 0) : 0), s.waitsMs ?? 0);
}

/** Why the client made no contact (undefined: it sent its first message). */
async function firstContact(session: ServerSession, client: TargetProcess, start: Start, launchedAt: number, posted: Promise<void>): Promise<string | undefined> {
  const stderr = () => {
    const tail = stderrGist(client.stderr.text());
    return tail ? `; its stderr: ${tail}` : '';
  };
  const how = () => (client.exit?.signal ? `was killed by ${client.exit.signal}` : `exited with code ${client.exit?.code}`);
  try {
    await client.ready(100);
  } catch (e) {
    if (!(e instanceof TargetDidNotStart)) throw e;
    return e.exit ? `${how()} at once, without sending mcpcheck any message${stderr()}` : `could not be started: ${e.message}`;
  }
  const exited = new Promise<'exit'>((resolve) => client.onFinished(() => resolve('exit')));
  const first = await Promise.race([firstFrame(session, start, launchedAt), exited, posted.then(() => 'posted' as const)]);
  if (first !== 'exit' && first !== undefined) return undefined;
  if (first === 'exit') return `${how()} without sending mcpcheck any message${stderr()}`;
  return `sent mcpcheck no message within ${start.ms} ms of starting (${start.reason})${stderr()}`;
}

/** The client's first frame, waited for as long as its start may take: longer when more clients start beside it meanwhile. */
async function firstFrame(session: ServerSession, start: Start, launchedAt: number): Promise<RecordedFrame | undefined> {
  for (;;) {
    const left = start.ms - (performance.now() - launchedAt);
    if (left <= 0 || session.closed) return undefined;
    const frame = await session.waitForFrame(() => true, left);
    if (frame) return frame;
  }
}
