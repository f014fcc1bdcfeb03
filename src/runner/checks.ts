import type { HarnessSession, RecordedFrame, Reply } from '../harness/session.js';
import type { CheckResult, Evidence, Status } from '../model.js';
import { absentIn, requirement, type Level } from '../spec/catalog.js';
import { show } from '../validate/finding.js';

export interface CheckOptions {
  /** Distinguishes several checks of one scenario: the check id becomes `<scenario>/<key>`. */
  key?: string;
  /** Defaults to the scenario's requirements. */
  requirements?: string[];
  /** Defaults to the level of the first requirement; a SHOULD-level failure is a warn. */
  level?: Level;
  /** Indices of frames (in `session`, default the scenario's session) that show what happened. */
  frames?: Array<number | undefined>;
  session?: HarnessSession;
  title?: string;
}

export interface Expectation extends CheckOptions {
  expected: string;
  actual: string;
}

const EXCERPT = 500;

function excerptOf(frame: RecordedFrame): string {
  const text = frame.raw ?? JSON.stringify(frame.message) ?? 'undefined';
  return text.length > EXCERPT ? text.slice(0, EXCERPT) + '…' : text;
}

/** One line describing a reply, for "got …" in messages. */
export function describeReply(reply: Reply): string {
  switch (reply.kind) {
    case 'result':
      return `a result ${show(reply.result, 160)}`;
    case 'error':
      return `error ${show(reply.error.code)} ${show(reply.error.message, 100)}`;
    case 'timeout':
      return `no response within ${reply.waitedMs} ms`;
    case 'closed':
      return `the connection closed (${reply.detail})`;
    case 'unanswered':
      return 'no response (a ping sent after it was answered)';
    case 'rejected':
      return reply.error
        ? `HTTP ${reply.status} with error ${show(reply.error.code)} ${show(reply.error.message, 100)} (no id)`
        : `HTTP ${reply.status} with no JSON-RPC response${reply.body ? `: ${show(reply.body, 100)}` : ''}`;
  }
}

export function replyFrame(reply: Reply): number | undefined {
  return reply.kind === 'result' || reply.kind === 'error' || reply.kind === 'rejected' ? reply.frame : undefined;
}

/**
 * Records the checks of one scenario run. Scenario code states what it expected and what came;
 * the recorder turns that into results with requirement ids, levels and frame evidence.
 */
export class CheckRecorder {
  readonly results: CheckResult[] = [];
  private readonly started = performance.now();

  constructor(
    private readonly scenarioId: string,
    private readonly scenarioTitle: string,
    private readonly defaults: string[],
    private readonly sessionOf: () => HarnessSession | undefined,
    private readonly reproduce: string,
  ) {}

  /** Records pass when `ok`, else fail (MUST) or warn (SHOULD/MAY). Returns `ok`. */
  expect(ok: boolean, e: Expectation): boolean {
    const level = e.level ?? requirement((e.requirements ?? this.defaults)[0]!).level;
    const status: Status = ok ? 'pass' : level === 'MUST' ? 'fail' : 'warn';
    this.add(status, ok ? `as expected: ${e.expected}` : `expected ${e.expected}; got ${e.actual}`, e);
    return ok;
  }

  /** A finding that is worth reading but does not fail anything (recorded as a passing check). */
  info(message: string, o: CheckOptions = {}): void {
    this.add('pass', message, o);
  }

  skip(reason: string, o: CheckOptions = {}): void {
    this.add('skip', reason, o);
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
      expected: `${o.what ? o.what + ': ' : ''}a JSON-RPC error with code ${codes.join(' or ')}`,
      actual: describeReply(reply),
    });
  }

  /** Expects a refusal: a JSON-RPC error, or over HTTP an error status. */
  isError(reply: Reply, o: CheckOptions & { what?: string } = {}): boolean {
    return this.expect(reply.kind === 'error' || reply.kind === 'rejected', {
      ...o,
      frames: [...(o.frames ?? []), replyFrame(reply)],
      expected: `${o.what ? o.what + ': ' : ''}a JSON-RPC error`,
      actual: describeReply(reply),
    });
  }

  /** Expects a result (success). */
  isResult(reply: Reply, o: CheckOptions & { what?: string } = {}): boolean {
    return this.expect(reply.kind === 'result', {
      ...o,
      frames: [...(o.frames ?? []), replyFrame(reply)],
      expected: `${o.what ? o.what + ': ' : ''}a result`,
      actual: describeReply(reply),
    });
  }

  get checkCount(): number {
    return this.results.length;
  }

  private add(status: Status, message: string, o: CheckOptions): void {
    const cited = o.requirements ?? this.defaults;
    const n = this.results.length;
    const id = o.key ? `${this.scenarioId}/${o.key}` : n === 0 ? this.scenarioId : `${this.scenarioId}/${n + 1}`;
    const session = o.session ?? this.sessionOf();
    // The session is judged by its negotiated revision's rules: a rule it lacks is not judged at all.
    const absent = session ? cited.map((r) => absentIn(r, session.revision)) : [];
    const judged = cited.filter((_, i) => absent[i] === undefined);
    const requirements = judged.length > 0 ? judged : cited;
    if (judged.length === 0) {
      status = 'skip';
      message = absent[0]!;
    }
    const first = requirement(requirements[0]!);
    const evidence: Evidence[] = [];
    for (const index of o.frames ?? []) {
      if (index === undefined || !session) continue;
      const frame = session.frames.find((f) => f.index === index);
      if (frame) evidence.push({ frame: index, from: frame.from, excerpt: excerptOf(frame) });
    }
    const result: CheckResult = {
      id,
      title: o.title ?? this.scenarioTitle,
      requirements,
      level: o.level ?? first.level,
      status,
      message,
      area: first.area,
      evidence,
      scenario: this.scenarioId,
      durationMs: Math.round(performance.now() - this.started),
    };
    if (status === 'fail' || status === 'warn' || status === 'error') result.reproduce = this.reproduce;
    this.results.push(result);
  }
}
