import type { PeerSession, RecordedFrame, Reply } from '../harness/peer-session.js';
import type { CheckResult, Evidence, Status } from '../model.js';
import { absentIn, appliesIn, levelIn, requirementIn, requirementOfEither, type Level, type Requirement } from '../spec/catalog.js';
import { LATEST_STATEFUL_REVISION as LATEST_REVISION, type Revision } from '../spec/revisions.js';
import { INTERRUPTED_BEFORE_START } from './observer.js';
import type { RequirementId } from '../spec/requirement-id.js';
import { describeReply } from '../harness/describe-reply.js';
import { excerptOf } from '../wire.js';
import { isAnonymousError } from '../validate/envelope.js';

export interface CheckOptions {
  /**
   * Names the check within its scenario: the id becomes `<scenario>/<key>`. Required as soon as a
   * scenario records more than one check, so ids never depend on the order checks were recorded in.
   */
  key?: string;
  /** Defaults to the scenario's requirements. */
  requirements?: RequirementId[];
  /**
   * The revision the check is judged in when the scenario, not a negotiation, decides it: a client
   * meeting a server that plays 2025-03-26 before any initialize was sent. Default: its session's.
   */
  revision?: Revision;
  /** Defaults to the first requirement's level in the session's revision; a SHOULD-level failure is a warn. */
  level?: Level;
  /** Indices of frames (in `session`, default the scenario's session) that show what happened. */
  frames?: Array<number | undefined>;
  session?: PeerSession;
  title?: string;
  /**
   * The replies the verdict rests on. If one of them is mcpcheck's own request timeout (the target
   * answered no ping sent after it either), the check could not run: a harness limit is never the
   * target's failure. One a live target left `unanswered` is judged like any answer.
   */
  replies?: Reply[];
}

export interface Expectation extends CheckOptions {
  expected: string;
  actual: string;
}

function frameExcerpt(frame: RecordedFrame): string {
  return excerptOf(frame.raw ?? JSON.stringify(frame.message) ?? 'undefined');
}


export function replyFrame(reply: Reply): number | undefined {
  if (reply.kind === 'timeout') return reply.strays[0];
  return reply.kind === 'result' || reply.kind === 'malformed-result' || reply.kind === 'error' || reply.kind === 'rejected' ? reply.frame : undefined;
}

/** Thrown when a scenario records checks in a way that would make their ids unstable (a harness bug). */
export class UnstableCheckId extends Error {
  override name = 'UnstableCheckId';
}

/**
 * Records the checks of one scenario run. Scenario code states what it expected and what came;
 * the recorder turns that into results with requirement ids, levels and frame evidence.
 */
export class CheckRecorder {
  readonly results: CheckResult[] = [];
  /** The session each result's frames are in: its evidence, and so its wire log, is that session's. */
  private readonly sessions = new Map<CheckResult, PeerSession>();
  private readonly started = performance.now();
  /** The scenario's elapsed ms when the previous check was recorded: the next check's own time starts there. */
  private recordedMs = 0;
  private sealedBecause: string | undefined;

  constructor(
    private readonly scenarioId: string,
    private readonly scenarioTitle: string,
    private readonly defaults: RequirementId[],
    private readonly sessionOf: () => PeerSession | undefined,
    private readonly reproduce: string,
    /** Where notes go (the report's notes); a note is never a verdict. */
    private readonly onNote: (text: string) => void = () => undefined,
    /** The revision checks are judged in when they have no session (an authorization server's run), or one that carried nothing; asked when a check is judged. */
    private readonly revision: () => Revision | undefined = () => undefined,
  ) {}

  /** The revision a check is judged in: its session's, else the recorder's. */
  private judgedIn(session: PeerSession | undefined): Revision | undefined {
    // A session that carried nothing negotiated no revision: its default is no verdict on the era.
    const fallback = this.revision();
    if (session && session.frames.length === 0 && fallback) return fallback;
    return session?.judgedIn ?? fallback;
  }

  /**
   * Records pass when `ok`, else fail (MUST) or warn (SHOULD/MAY). Returns `ok`. When a reply the
   * verdict rests on is mcpcheck's own timeout, the check is an error instead, whatever `ok` says.
   */
  expect(ok: boolean, e: Expectation): boolean {
    // A server that answered, but with no id or the wrong one, is judged on that answer.
    const timedOut = e.replies?.find((r): r is Extract<Reply, { kind: 'timeout' }> => r.kind === 'timeout' && r.strays.length === 0);
    if (timedOut) {
      this.add('error', `could not judge: expected ${e.expected}; no response came within mcpcheck's request timeout (${timedOut.waitedMs} ms; see --request-timeout)${timedOut.pingedAfter ? `, nor to a ${timedOut.probe ?? 'ping'} sent after it` : ''}`, e);
      return false;
    }
    const first = (e.requirements ?? this.defaults)[0]!;
    const revision = e.revision ?? this.judgedIn(e.session ?? this.sessionOf()) ?? LATEST_REVISION;
    // A rule the revision lacks is not judged (add() makes the check a skip): its level there is moot.
    const level = e.level ?? (appliesIn(first, revision) ? levelIn(first, revision) : catalogRow(first).level);
    const status: Status = ok ? 'pass' : level === 'MUST' ? 'fail' : 'warn';
    this.add(status, ok ? `as expected: ${e.expected}` : `expected ${e.expected}; got ${e.actual}`, e);
    return ok;
  }

  /** A remark for the report's notes, attributed to the scenario. It records no check and no verdict. */
  note(text: string): void {
    if (this.sealedBecause === undefined) this.onNote(`${this.scenarioId}: ${text}`);
  }

  skip(reason: string, o: CheckOptions = {}): void {
    this.add('skip', reason, o);
  }

  /** The same skip for each of a scenario's keyed checks (`checks`: their keys and rules; `o`: what they share, such as frames). */
  skipEach(reason: string, checks: readonly CheckOptions[], o: CheckOptions = {}): void {
    for (const c of checks) this.skip(reason, { ...o, ...c });
  }

  /** The harness could not test this (never counted as a pass). */
  error(message: string, o: CheckOptions = {}): void {
    this.add('error', message, o);
  }

  /** Expects a JSON-RPC error whose code is one of `codes`. */
  errorCode(reply: Reply, codes: number[], o: CheckOptions & { what?: string } = {}): boolean {
    // Over HTTP the error may come as the JSON body of an error status (HTTP-POST-04).
    const code = reply.kind === 'error' || reply.kind === 'rejected' ? reply.error?.code : undefined;
    const ok = codes.includes(code as number);
    return this.expect(ok, {
      ...o,
      frames: [...(o.frames ?? []), replyFrame(reply)],
      replies: [...(o.replies ?? []), reply],
      expected: `${o.what ? o.what + ': ' : ''}a JSON-RPC error with code ${codes.join(' or ')}`,
      actual: describeReply(reply),
    });
  }

  /**
   * BASE-ID-04 for one request of mcpcheck's, sent at frame `sent`: any response passes (to a
   * malformed one, an error without id too: JSON-RPC's answer when the id could not be read);
   * silence a ping sent after it showed fails; a connection closed first is a skip (no answer is no
   * evidence); a timeout is mcpcheck's limit. `why`: the reason an answer is owed, for the message.
   */
  answered(reply: Reply, o: CheckOptions & { what: string; sent: number; why?: string }): boolean {
    const requirements = o.requirements ?? ['BASE-ID-04'];
    const expected = `a response to ${o.what}${o.why ? ` (${o.why})` : ''}`;
    if (reply.kind === 'closed') {
      this.skip(`not exercised: ${describeReply(reply)} before ${o.what} could be answered`, { ...o, requirements, frames: [o.sent] });
      return false;
    }
    if (reply.kind === 'timeout' && reply.strays.length > 0) {
      const session = o.session ?? this.sessionOf();
      const anonymous = reply.strays.filter((i) => isAnonymousError(session?.frames.find((f) => f.index === i)?.message));
      if (anonymous.length === 0) {
        this.skip(`not exercised: ${describeReply(reply)}; whether one of them was meant for ${o.what} cannot be told`, { ...o, requirements, frames: [o.sent, ...reply.strays.slice(0, 3)] });
        return false;
      }
      return this.expect(true, { ...o, requirements, frames: [o.sent, anonymous[0]], expected, actual: 'an error without id' });
    }
    return this.expect(reply.kind !== 'unanswered', {
      ...o,
      requirements,
      frames: [o.sent, replyFrame(reply)],
      replies: [reply],
      expected,
      actual: reply.kind === 'unanswered' ? `${describeReply(reply)}: the target is alive but never answered it` : describeReply(reply),
    });
  }

  /** Expects a refusal: a JSON-RPC error, or over HTTP an error status. */
  isError(reply: Reply, o: CheckOptions & { what?: string } = {}): boolean {
    return this.expect(reply.kind === 'error' || reply.kind === 'rejected', {
      ...o,
      frames: [...(o.frames ?? []), replyFrame(reply)],
      replies: [...(o.replies ?? []), reply],
      expected: `${o.what ? o.what + ': ' : ''}a JSON-RPC error`,
      actual: describeReply(reply),
    });
  }

  /** Expects a result (success). */
  isResult(reply: Reply, o: CheckOptions & { what?: string } = {}): boolean {
    return this.expect(reply.kind === 'result', {
      ...o,
      frames: [...(o.frames ?? []), replyFrame(reply)],
      replies: [...(o.replies ?? []), reply],
      expected: `${o.what ? o.what + ': ' : ''}a result`,
      actual: describeReply(reply),
    });
  }

  get checkCount(): number {
    return this.results.length;
  }

  /**
   * Ends recording: mcpcheck cut the scenario short (its own timeout), so whatever the scenario
   * records afterwards reflects mcpcheck closing the session, not the target. One error says so.
   */
  seal(reason: string): void {
    if (this.sealedBecause !== undefined) return;
    this.couldNotRun(reason);
    this.sealedBecause = reason;
  }

  /** The scenario as a whole could not run to its end (an exception, a harness limit). */
  couldNotRun(message: string): void {
    this.add('error', message, {}, `${this.scenarioId}/could-not-run`);
  }

  private add(status: Status, message: string, o: CheckOptions, fixedId?: string): void {
    if (this.sealedBecause !== undefined) return;
    const cited = o.requirements ?? this.defaults;
    const id = fixedId ?? this.idFor(o.key);
    const session = o.session ?? this.sessionOf();
    const judgedIn = o.revision ?? this.judgedIn(session);
    // The session is judged by its negotiated revision's rules: a rule it lacks is not judged at all.
    const absent = judgedIn ? cited.map((r) => absentIn(r, judgedIn)) : [];
    const judged = cited.filter((_, i) => absent[i] === undefined);
    const requirements = judged.length > 0 ? judged : cited;
    if (judged.length === 0) {
      status = 'skip';
      message = absent[0]!;
    }
    const first = catalogRow(requirements[0]!, judgedIn);
    const evidence: Evidence[] = [];
    for (const index of o.frames ?? []) {
      if (index === undefined || !session) continue;
      const frame = session.frames.find((f) => f.index === index);
      if (frame) evidence.push({ frame: index, from: frame.from, excerpt: frameExcerpt(frame) });
    }
    const result: CheckResult = {
      id,
      title: o.title ?? this.scenarioTitle,
      requirements,
      level: o.level ?? (judgedIn && appliesIn(first.id, judgedIn) ? levelIn(first.id, judgedIn) : first.level),
      status,
      message,
      area: first.area,
      evidence,
      scenario: this.scenarioId,
      durationMs: this.ownTime(),
      ...(judgedIn ? { revision: judgedIn } : {}),
    };
    if (status === 'fail' || status === 'warn' || status === 'error') result.reproduce = this.reproduce;
    this.results.push(result);
    if (session) this.sessions.set(result, session);
  }

  /** The session a result was judged on (its evidence frames are that session's), when it had one. */
  judgedOn(result: CheckResult): PeerSession | undefined {
    return this.sessions.get(result);
  }

  /**
   * The time since the previous check of this scenario (or its start): each moment of the scenario
   * counts for one check only, so a scenario's checks add up to its time instead of repeating it.
   */
  private ownTime(): number {
    // Rounding the elapsed time, not each interval, keeps the checks' sum exactly the elapsed ms.
    const elapsed = Math.round(performance.now() - this.started);
    const ms = elapsed - this.recordedMs;
    this.recordedMs = elapsed;
    return ms;
  }

  /**
   * `<scenario>` for a scenario's only check, `<scenario>/<key>` otherwise. A keyless check beside
   * others, or a key used twice, would make an id depend on recording order: that is refused.
   */
  private idFor(key: string | undefined): string {
    const id = key !== undefined ? `${this.scenarioId}/${key}` : this.scenarioId;
    const keyless = this.results.some((r) => r.id === this.scenarioId);
    const others = this.results.filter((r) => r.id !== `${this.scenarioId}/could-not-run`).length;
    if (others > 0 && (key === undefined || keyless)) {
      throw new UnstableCheckId(`${this.scenarioId} records several checks: each needs its own key (harness bug)`);
    }
    if (this.results.some((r) => r.id === id)) throw new UnstableCheckId(`${this.scenarioId} records the key ${JSON.stringify(key)} twice (harness bug)`);
    return id;
  }
}

type ScenarioHead = { id: string; title: string; requirements: RequirementId[]; level?: Level };

/**
 * A rule's row as a check cites it: in the catalog of the revision its session speaks, else the
 * 2025-11-25 catalog's, else (a rule new in 2026-07-28, cited with no session) the 2026-07-28 one.
 */
export function catalogRow(id: RequirementId, revision?: Revision): Requirement {
  return (revision !== undefined ? requirementIn(id, revision) : undefined) ?? requirementOfEither(id);
}

function scenarioNotRun(s: ScenarioHead, id: string, status: Status, message: string): CheckResult {
  const first = catalogRow(s.requirements[0]!);
  return { id, title: s.title, requirements: s.requirements, level: s.level ?? first.level, status, message, area: first.area, evidence: [], scenario: s.id };
}

/** A scenario that did not run at all: one skip, with the reason. */
export function scenarioSkipped(s: ScenarioHead, reason: string): CheckResult {
  return scenarioNotRun(s, s.id, 'skip', reason);
}

/** A scenario an interruption kept from starting: one "could not run", with the id `couldNotRun` gives. */
export function scenarioInterrupted(s: ScenarioHead): CheckResult {
  return scenarioNotRun(s, `${s.id}/could-not-run`, 'error', INTERRUPTED_BEFORE_START);
}
