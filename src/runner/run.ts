import { ClientSession } from '../harness/client-session.js';
import { connect } from '../harness/lifecycle/index.js';
import type { PeerSession } from '../harness/peer-session.js';
import type { Target } from '../harness/target.js';
import type { CheckResult, WireLog } from '../model.js';
import { nextIndex, WireLogs } from '../wire.js';
import { closeQuietly } from './close-quietly.js';
import { describeReply } from '../harness/describe-reply.js';
import { CheckRecorder, scenarioInterrupted, scenarioSkipped } from './checks.js';
import { budgetMs, inLanes, runGuarded, settledWithin } from './guard.js';
import { Pace } from '../harness/pace.js';
import { LiveLedger } from './live.js';
import { type Discovery, type DiscoveryStep, emptyDiscovery, hasCapability } from './discovery.js';
import type { RunControl } from './observer.js';
import { outsideRevisions, type RunOptions, type Scenario } from './scenario.js';
import { eraOf, LATEST_STATEFUL_REVISION, type Revision } from '../spec/revisions.js';
import { tokenRefusedCheck } from './era-checks.js';
import type { Redactor } from '../redact.js';

export interface RunInput extends RunControl {
  target: Target;
  scenarios: Scenario[];
  /** What the run learns of the server before the scenarios that need it start (the server command's: discoverServer). */
  discover: DiscoveryStep;
  options: RunOptions;
  /** The revision every session of the run speaks (its era decides how conversations start); 2025-11-25 by default. */
  speaks?: Revision;
  concurrency: number;
  scenarioTimeoutMs: number;
  /** Writes one transcript per session into this folder. */
  transcriptDir?: string;
  /** Keeps secrets out of the transcripts. */
  redactor?: Redactor;
  /** The command line that reruns one scenario: `{scenario}` is replaced by its id. */
  reproduce: string;
  /** Runs once the scenarios are done, while the target still serves (what it names is graded then: its authorization servers). */
  whileServing?: () => Promise<void>;
}

export interface RunOutput {
  checks: CheckResult[];
  discovery: Discovery;
  notes: string[];
  sessions: number;
  /** The wire logs the checks refer to. */
  wire: WireLog[];
}

/** The label of the discovery session's traffic, which belongs to no scenario. */
const DISCOVERY = 'discovery';
/** The label of the session that finds out whether the server serves two at once. */
const SECOND_SESSION = 'second-session';

/**
 * Runs scenarios against a target: the discovery step the caller gives (its session then serves
 * lane 0; waiting scenarios that need nothing it learns start beside it), then the scenarios on
 * `concurrency` lanes. 'shared' scenarios take turns on their lane's connected session; the others
 * get a session (and, over stdio, a process) of their own. Every frame of every session is validated
 * live, and what the validators find is attributed to the scenario whose traffic it was.
 */
export async function runScenarios(input: RunInput): Promise<RunOutput> {
  const { target, options, observer, signal } = input;
  const ledger = new LiveLedger();
  const notes: string[] = [];
  const interrupted = () => signal?.aborted === true;
  observer?.planned(input.scenarios.length);
  // Ctrl-C stops every target process; after the scenarios running have been sealed (their abort
  // listeners), so that nothing they see of the stop becomes a verdict.
  const stopTarget = () => setImmediate(() => void target.close());
  signal?.addEventListener('abort', stopTarget, { once: true });
  const wire = new WireLogs();
  // The logs of each scenario's traffic (and of discovery's), for the live checks its traffic failed.
  const wireOf = new Map<string, string[]>();
  // The log of each session a scenario's traffic went over, for evidence tied to one session.
  const logOf = new Map<string, Array<{ session: PeerSession; log: string }>>();
  const pace = new Pace();

  /** The log of the traffic `session` carried for `scenario`, or all of the scenario's logs when it has none of its own. */
  const wireIn = (scenario: string, session: PeerSession | undefined): string[] | undefined => {
    const own = logOf.get(scenario)?.find((m) => m.session === session);
    return own ? [own.log] : wireOf.get(scenario);
  };

  /** Each session's label (the scenario or lane it serves), for notes. */
  const labels = new Map<ClientSession, string>();
  const openSession = async (label: string, scenarioOf: () => string): Promise<ClientSession> => {
    // A body cut short by Ctrl-C may still be running: it starts no target process any more.
    if (interrupted()) throw new Error('the run was interrupted');
    const channel = await target.open();
    let session: ClientSession | undefined = undefined;
    session = new ClientSession({
      channel,
      transport: target.kind,
      requestTimeoutMs: options.requestTimeoutMs,
      ...(input.speaks !== undefined ? { speaks: input.speaks } : {}),
      pace,
      // Each stdio session starts a process of its own.
      startsProcess: target.kind === 'stdio',
      onFinding: ledger.sink(scenarioOf, () => session),
    });
    ledger.track(session, label);
    labels.set(session, label);
    return session;
  };

  const closeSession = async (session: ClientSession): Promise<void> => {
    ledger.absorb(session);
    await closeQuietly(notes, `the session "${labels.get(session) ?? '?'}"`, () => session.close());
  };

  /**
   * Opens a second session beside the first (discovery's, still open) and connects it: what
   * the server said when it refused, or undefined when it served both. Its traffic is judged
   * live like any other and has a wire log of its own.
   */
  const secondSessionRefused = async (): Promise<string | undefined> => {
    let second: ClientSession | undefined;
    try {
      second = await openSession(SECOND_SESSION, () => SECOND_SESSION);
      const outcome = await connect(second);
      return outcome.ok ? undefined : describeReply(outcome.reply);
    } catch (e) {
      return (e as Error).message;
    } finally {
      if (second) {
        await closeSession(second);
        wireOf.set(SECOND_SESSION, [wire.mark(SECOND_SESSION, second.frames)]);
      }
    }
  };

  let earlyRun: Promise<unknown> = Promise.resolve();
  let restOfRunDone = () => {};
  const restOfRun = new Promise<void>((resolve) => (restOfRunDone = resolve));
  try {
    // Shared lanes serve one scenario at a time, so a frame on a lane belongs to its running scenario.
    const laneScenario: string[] = [];
    const lanes: Array<ClientSession | undefined> = [];
    const checks: CheckResult[] = [];
    // Filled in place once discovery is done; the early scenarios below must not rely on it.
    const discovery = emptyDiscovery();
    // The revision discovery's conversation runs under, the one the scenarios are chosen by.
    let negotiated: Revision | undefined;
    const settle = (s: Scenario, results: CheckResult[]) => {
      checks.push(...results);
      observer?.finished(s.id, results);
    };

    const runOne = async (lane: number, s: Scenario, underway: () => void = () => {}): Promise<void> => {
      if (interrupted()) return settle(s, [scenarioInterrupted(s)]);
      observer?.started(s.id);
      let session: ClientSession | undefined;
      // Where this scenario's traffic starts in its session (a shared one carried others before).
      let since = 0;
      const scenarioOf = () => s.id;
      const extra: ClientSession[] = [];
      const recorder = new CheckRecorder(s.id, s.title, s.requirements, () => session, input.reproduce.replace('{scenario}', s.id), (text) => notes.push(text));
      const started = performance.now();
      // What its sessions waited on the target's pace does not count against its own work; a shared
      // session's earlier stalls were other scenarios'.
      let stalledBefore = 0;
      const budget = { ms: input.scenarioTimeoutMs, stalled: () => [session, ...extra].reduce((sum, x) => sum + (x?.stalledMs ?? 0), -stalledBefore) };
      const { cutShort } = await runGuarded(recorder, budget, async () => {
        if (s.isolation === 'shared') {
          session = lanes[lane];
          stalledBefore = session?.stalledMs ?? 0;
          if (!session || session.closed) {
            stalledBefore = 0;
            session = await openSession(`lane-${lane}`, () => laneScenario[lane] ?? s.id);
            const outcome = await connect(session);
            if (!outcome.ok) throw new Error(`${outcome.opening} for a shared session failed: ${describeReply(outcome.reply)}`);
            lanes[lane] = session;
          } else since = nextIndex(session.frames);
          laneScenario[lane] = s.id;
        } else {
          session = await openSession(s.id, scenarioOf);
        }
        await s.run({
          session,
          openSession: async () => {
            const extraSession = await openSession(`${s.id}-extra`, scenarioOf);
            extra.push(extraSession);
            return extraSession;
          },
          target,
          check: recorder,
          discovery,
          connect,
          options,
          note: (text) => recorder.note(text),
          timeLeft: () => started + budgetMs(budget) - performance.now(),
          restOfRun,
          underway,
        });
      }, signal);
      // A shared session a scenario cut short left mid-way is of no use to the next one.
      if (cutShort && s.isolation === 'shared' && session) {
        lanes[lane] = undefined;
        await closeSession(session);
      }
      for (const x of extra) await closeSession(x);
      if (s.isolation !== 'shared' && session) await closeSession(session);
      const marked: Array<{ session: ClientSession; log: string }> = [];
      if (session && nextIndex(session.frames) > since) marked.push({ session, log: wire.mark(s.id, session.frames, since) });
      extra.forEach((x, i) => marked.push({ session: x, log: wire.mark(`${s.id} (session ${i + 2})`, x.frames) }));
      const logs = marked.map((m) => m.log);
      // A scenario that sent nothing judged what discovery had found: discovery's traffic is its evidence.
      if (logs.length === 0) logs.push(...(wireOf.get(DISCOVERY) ?? []));
      wireOf.set(s.id, logs);
      logOf.set(s.id, marked);
      // A check's evidence frames are those of the session it was judged on: its log alone shows them.
      for (const r of recorder.results) {
        const judgedOn = recorder.judgedOn(r);
        const own = marked.find((m) => m.session === judgedOn);
        r.wire = own ? [own.log] : logs;
        if (own) for (const e of r.evidence) if (e.frame !== undefined) e.wire = own.log;
      }
      settle(s, underRefusedToken(await target.tokenRefused(), recorder.results));
    };

    // Scenarios that wait on purpose hold no lane. Those that need nothing discovery finds out
    // (neither what the server declares nor the revision it negotiates) start at once, beside
    // discovery itself; the others once it is done. Over HTTP a session of a scenario's own beside
    // discovery's would be a second one before the run knows the server serves two at once.
    const waiting = (s: Scenario) => s.waits === true && s.isolation !== 'shared';
    // A URL target cannot be restarted: what may break it runs after everything else.
    const breaksTarget = (s: Scenario) => s.isolation === 'process' && target.kind === 'http';
    const lingering = (s: Scenario) => s.lingers === true && waiting(s);
    const early = input.scenarios.filter((s) => waiting(s) && target.kind !== 'http' && !s.needs?.capabilities && !s.needs?.discovery && !s.revisions && unmet(s, discovery, target.kind) === undefined);
    const earlyRuns = early.map((s) => ({ s, run: runOne(-1, s) }));
    earlyRun = Promise.all(earlyRuns.map((r) => r.run));
    earlyRun.catch(() => undefined);

    // Discovery's session serves as lane 0's shared session once it is done.
    let first: ClientSession | undefined;
    try {
      const open = async () => (lanes[0] = first = await openSession(DISCOVERY, () => laneScenario[0] ?? DISCOVERY));
      Object.assign(discovery, await input.discover({ open, target, pace, requestTimeoutMs: options.requestTimeoutMs }));
      if (first) {
        wireOf.set(DISCOVERY, [wire.mark(DISCOVERY, first.frames)]);
        negotiated = first.speaks;
      }
    } catch (e) {
      // Ctrl-C during discovery: what it left undone is no fault of the target.
      if (!interrupted()) throw e;
    }

    // Over HTTP every lane and every isolated scenario is a session beside discovery's. The spec
    // does not require a server to serve two at once: one that refuses a second gets one lane,
    // and what needs a session of its own is skipped, not failed for the refusal.
    const after = input.scenarios.filter((s) => !early.includes(s));
    const moreSessions = after.some((s) => s.isolation !== 'shared') || (input.concurrency > 1 && after.length > 1);
    // A run whose discovery started no conversation has no first session for a second to join.
    const refused = target.kind === 'http' && moreSessions && first !== undefined && !interrupted() ? await secondSessionRefused() : undefined;
    if (refused !== undefined) notes.push(`the server refused a second session while the first was open (${refused}), which the spec allows: the shared scenarios ran on one lane, and those that need a session of their own were skipped`);
    const queue: Scenario[] = [];
    for (const s of input.scenarios) {
      if (early.includes(s)) continue;
      // Interrupted before discovery was done, what the server declares is not known.
      const missing = interrupted() ? undefined : unmet(s, discovery, target.kind, negotiated);
      if (missing) settle(s, [scenarioSkipped(s, missing)]);
      else if (refused !== undefined && s.isolation !== 'shared') {
        settle(s, [scenarioSkipped(s, `needs a session of its own beside the run's first one, and the server refused a second session at once (${refused}), which the spec allows`)]);
      } else queue.push(s);
    }
    // Scenarios with a session or process of their own start, and mostly wait, longest: run them
    // first so the quick shared ones fill the gaps (longest-first keeps the wall time short).
    queue.sort((x, y) => weight(y) - weight(x));

    const last = queue.filter(breaksTarget);
    const beside = queue.filter((s) => waiting(s) && !last.includes(s));
    const laned = queue.filter((s) => !beside.includes(s) && !last.includes(s));
    // Over stdio every session is a server of its own: nothing to have a head start on.
    const headStarting = (s: Scenario) => s.headStart === true && target.kind === 'http';
    const headStarts = beside.filter(headStarting).map((s) => {
      let underway!: () => void;
      const signalled = new Promise<void>((resolve) => (underway = resolve));
      const run = runOne(-1, s, underway);
      return { s, run, underway: Promise.race([signalled, run]) };
    });
    const headStarted = headStarts.length > 0 ? settledWithin(Promise.allSettled(headStarts.map((h) => h.underway)), HEAD_START_MAX_MS) : undefined;
    // Lane 0 runs on discovery's session, already open: one scenario at a time on it is no flood
    // of sessions opening, and it fills the head start with the quick scenarios at the queue's end.
    const lanesRun = inLanes(laned, refused !== undefined ? 1 : input.concurrency, (s, lane) => runOne(lane, s), (lane) => (lane === 0 ? undefined : headStarted));
    // Awaited below; a setup error while the head start lasts must not go unhandled meanwhile.
    lanesRun.catch(() => undefined);
    await headStarted;
    const besideRuns = [...headStarts, ...beside.filter((s) => !headStarting(s)).map((s) => ({ s, run: runOne(-1, s) }))];
    const notLingering = [...earlyRuns, ...besideRuns].filter((r) => !lingering(r.s)).map((r) => r.run);
    void Promise.allSettled([...notLingering, lanesRun]).then(restOfRunDone);
    await Promise.all([earlyRun, ...besideRuns.map((r) => r.run), lanesRun]);
    for (const s of last) await runOne(-1, s);
    // Each is judged to its end in turn as it is closed (closeSession absorbs before it waits); the closes overlap.
    await Promise.all(lanes.filter((s): s is ClientSession => s !== undefined && !s.closed).map(closeSession));

    const tokenRefused = await target.tokenRefused();
    const eras = input.speaks !== undefined ? [eraOf(input.speaks)] : undefined;
    checks.push(...underRefusedToken(tokenRefused, ledger.checks('server', input.reproduce, DISCOVERY, (scenario, session) => wireIn(scenario, session), eras)));
    if (tokenRefused) checks.push(tokenRefusedCheck(input.speaks ?? LATEST_STATEFUL_REVISION));
    if (input.transcriptDir) await ledger.writeTranscripts(input.transcriptDir, target.kind, input.redactor);
    if (input.whileServing && !interrupted()) await input.whileServing();
    return { checks, discovery, notes, sessions: ledger.tracked.length, wire: wire.build(checks) };
  } finally {
    restOfRunDone();
    signal?.removeEventListener('abort', stopTarget);
    // A setup error can end the run while early scenarios still run: stop the target first, so
    // they end too, then wait for them before the last sweep.
    await closeQuietly(notes, 'the target', () => target.close());
    await Promise.allSettled([earlyRun]);
    await Promise.allSettled(ledger.tracked.map((session) => session.close()));
    await closeQuietly(notes, 'the target', () => target.close());
  }
}

/**
 * Checks settled once the server had refused the run's token: a failure, a warning or a check that
 * could not run is not judged (a skip saying why), since the refused token, not the server, may
 * explain it; what passed held. The run reports the refusal once (tokenRefusedCheck).
 */
function underRefusedToken(tokenRefused: boolean, results: CheckResult[]): CheckResult[] {
  if (!tokenRefused) return results;
  return results.map((r) => (r.status === 'fail' || r.status === 'warn' || r.status === 'error' ? { ...r, status: 'skip', message: "not judged: the server had begun refusing the run's token (HTTP 401), see auth/token-refused" } : r));
}

/** The longest the rest of a run waits for the scenarios with a head start to be under way. */
const HEAD_START_MAX_MS = 1_000;

/**
 * How long a scenario is likely to take, for longest-first: a process of its own (a start-up) is
 * longest; one that waits on purpose (a slow tool's duration) outlasts one that only opens a
 * session of its own; shared ones are the quick gap-fillers.
 */
function weight(s: Scenario): number {
  return (s.isolation === 'process' ? 4 : s.isolation === 'session' ? 2 : 0) + (s.waits === true ? 3 : 0);
}

function unmet(s: Scenario, discovery: Discovery, transport: 'stdio' | 'http', revision?: Revision): string | undefined {
  if (s.needs?.transport && s.needs.transport !== transport) return `needs the ${s.needs.transport} transport; the target uses ${transport}`;
  for (const cap of s.needs?.capabilities ?? []) {
    if (!hasCapability(discovery.capabilities, cap)) return `not declared: the server's capabilities have no ${cap}`;
  }
  return revision === undefined ? undefined : outsideRevisions(s.revisions, revision);
}

