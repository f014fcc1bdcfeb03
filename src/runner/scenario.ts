import type { ClientSession } from '../harness/client-session.js';
import type { ConnectOptions, ConnectOutcome } from '../harness/lifecycle/index.js';
import type { Reply } from '../harness/peer-session.js';
import type { Level } from '../spec/catalog.js';
import type { CheckRecorder } from './checks.js';
import type { Discovery } from './discovery.js';
import type { Target } from '../harness/target.js';
import type { RequirementId } from '../spec/requirement-id.js';
import { eraOf, revisionAtLeast, type Revision } from '../spec/revisions.js';

/**
 * How much a scenario needs to itself: 'shared' runs on a connected session that other
 * scenarios also use (one after another); 'session' gets a session of its own and connects it
 * itself; 'process' may break the target, so it gets a fresh process where mcpcheck starts one.
 */
export type Isolation = 'shared' | 'session' | 'process';

export interface ScenarioNeeds {
  /** Server capability paths that must be declared, e.g. 'tools', 'resources.subscribe'. */
  capabilities?: string[];
  transport?: 'stdio' | 'http';
  /**
   * Reads what discovery found (say, a slow tool to call) though it needs no capability: it
   * starts once discovery is done, as scenarios that need a capability do.
   */
  discovery?: true;
}

export interface ToolPolicy {
  mode: 'readonly' | 'all' | 'none' | 'named';
  names?: string[];
}

export interface RunOptions {
  callTools: ToolPolicy;
  /** The foreign Origin sent by the HTTP Origin probe (HTTP-ORIGIN-01). */
  originProbe: string;
  requestTimeoutMs: number;
  /** Seeds what property scenarios generate. */
  seed: number;
  /** Generated cases per property scenario (0: the property tier is off). */
  cases: number;
  /** Tokens the user gave for the authorization scenarios to present instead of the run's own. */
  probeTokens?: ProbeTokens;
  /** The user said the server is meant to run on its user's machine (--local): the rules for local servers bind it. */
  local?: true;
}

/** The flag of each kind of probe token (without its dashes): it names the environment variable holding the token. */
export const PROBE_TOKEN_FLAGS = { expired: 'expired-token-env', otherAudience: 'other-audience-token-env', narrow: 'narrow-token-env', otherUser: 'other-user-token-env', broad: 'broad-token-env' } as const satisfies Record<keyof ProbeTokens, string>;

/** The flag that gives a kind of probe token, as a user types it. */
export function probeTokenFlag(kind: keyof ProbeTokens): string {
  return `--${PROBE_TOKEN_FLAGS[kind]}`;
}

/** Bearer tokens a protected server must refuse, or honour only in part (--expired-token-env and the like). */
export interface ProbeTokens {
  /** One the server issued, expired since. */
  expired?: string;
  /** One issued for another resource (another audience). */
  otherAudience?: string;
  /** A valid one lacking a scope some request needs. */
  narrow?: string;
  /** A valid one of another user: another authorization context than the run's token. */
  otherUser?: string;
  /** A valid one holding only a scope that, by the server's scope hierarchy, covers every scope its requests need (a parent scope). */
  broad?: string;
}

export interface ScenarioContext {
  /** For 'shared' scenarios: connected. For 'session'/'process': opened, not connected. */
  session: ClientSession;
  /**
   * Starts a conversation on a session of the scenario's (its own, or one openSession gave), in
   * whichever era the run speaks: for scenarios that need a working conversation, not for those
   * that test how one starts (they drive the era's opening requests themselves).
   */
  connect(session: ClientSession, options?: ConnectOptions): Promise<ConnectOutcome>;
  /** Opens another session on the same target (counts against nothing; close it when done). */
  openSession(): Promise<ClientSession>;
  target: Target;
  check: CheckRecorder;
  discovery: Discovery;
  options: RunOptions;
  /** Adds a line to the report's notes (e.g. which tools were called and why others were not). */
  note(text: string): void;
  /** Milliseconds until the scenario's timeout (--timeout) cuts it short. */
  timeLeft(): number;
  /**
   * Settles once every scenario of the run that does not linger has finished (what runs after
   * everything else, because it may break the target, aside). For lingering scenarios only:
   * any other would be waiting for itself.
   */
  restOfRun: Promise<void>;
  /**
   * For a scenario with a head start: the part of it that needs the server to itself is done, and
   * the rest of the run may start. Nothing for any other scenario.
   */
  underway(): void;
}

/** What every scenario has, whichever role the target plays: how it is named, selected and reported. */
export interface ScenarioIdentity {
  id: string;
  /** The spec sentence it enforces, as `list` and reports show it. */
  title: string;
  /** Requirement ids the scenario's checks cite by default. */
  requirements: RequirementId[];
  level?: Level;
  /** The official conformance suite's name for the same scenario, accepted by --only. */
  alias?: string;
}

/**
 * The revisions a scenario applies to: from `introduced` on, up to the one that `removed` what it
 * tests (every revision when absent). A scenario declares them instead of branching on the
 * session's revision; one that judges two rules that differ by revision branches per check.
 */
export interface RevisionSpan {
  introduced?: Revision;
  removed?: Revision;
}

/** The span of a scenario written for the stateless era: introduced with 2026-07-28. */
export const MODERN: RevisionSpan = { introduced: '2026-07-28' };

/**
 * Whether a scenario of `span` belongs to the suite of `revision`'s era. A scenario without a
 * span, or one introduced in the stateful era, was written for initialize-based conversations: it
 * runs in the stateless era only once it is carried over (a span reaching into it, with
 * `introduced` at a stateless revision, or `carriedOver`), so that no rule of one era is judged by
 * a scenario written for the other.
 */
export function inEra(s: Pick<Scenario, 'revisions' | 'carriedOver'>, revision: Revision): boolean {
  const introducedIn = s.revisions?.introduced ? eraOf(s.revisions.introduced) : 'stateful';
  if (eraOf(revision) === 'stateful') return introducedIn === 'stateful';
  return introducedIn === 'stateless' || s.carriedOver === true;
}

/** Why a scenario of `span` does not apply to a conversation on `revision` (undefined: it does); `spoke` says whose revision it is. */
export function outsideRevisions(span: RevisionSpan | undefined, revision: Revision, spoke = 'the server negotiated'): string | undefined {
  if (span?.introduced && !revisionAtLeast(revision, span.introduced)) return `applies from revision ${span.introduced} on; ${spoke} ${revision}`;
  if (span?.removed && revisionAtLeast(revision, span.removed)) return `applies to revisions before ${span.removed}, which removed what it tests; ${spoke} ${revision}`;
  return undefined;
}

/** A scenario against a server under test (mcpcheck plays the client). */
export interface Scenario extends ScenarioIdentity {
  isolation: Isolation;
  /** The revisions it applies to; on another the runner skips it, naming the negotiated one. */
  revisions?: RevisionSpan;
  /**
   * Written for the stateful era and checked to hold in the stateless one too (it needs only a
   * working conversation through `ctx.connect` and keeps to rules both eras share).
   */
  carriedOver?: true;
  /**
   * The scenario spends most of its time waiting on purpose (for a hang, a timeout, a process to
   * exit, a slow tool): with a session or process of its own it runs beside the lanes instead of
   * holding one; a 'shared' one starts first on its lane, so the quick ones fill in after it.
   */
  waits?: boolean;
  /**
   * Of a waiting scenario: it watches for something a server may do by itself, or gathers what the
   * rest of the run shows, while the rest of the run lasts (ctx.restOfRun), so its window costs the
   * run no time.
   */
  lingers?: boolean;
  /**
   * Of a waiting scenario whose waits grow with the server's load (they are stretched by the run's
   * pace and by how late the server answered its own requests): over HTTP, where every session is
   * on the one server, it starts before the rest of its run, which waits until it calls
   * ctx.underway(), or ends, for HEAD_START_MAX_MS at most, but for the first lane: on discovery's
   * session, already open, it runs one scenario at a time from the queue's end meanwhile. Its timed
   * requests then meet a server that is all but idle, not one flooded by every other scenario
   * opening its session at once.
   */
  headStart?: boolean;
  needs?: ScenarioNeeds;
  run(ctx: ScenarioContext): Promise<void>;
}

/** Identity helper so suites read as data and get type checking. */
export function scenario(s: Scenario): Scenario {
  return s;
}

export type { Reply };
