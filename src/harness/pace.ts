/**
 * The least a freshly started process gets for its first answer, whatever was measured: a cold
 * Node start takes a second or more, and that start-up is no slowness of its answers. A later start
 * on a loaded machine (load 11 on 2 cores) took over ten times the first: mcp-remote, measured at
 * 964 ms, had not connected 10 s into a later start with two more starting beside it.
 */
export const STARTUP_MS = 30_000;

/**
 * The most the pace stretches a wait (and a scenario's budget): a target this slow on this run
 * gets its verdict or "could not run" there, instead of an unbounded wait.
 */
export const PACE_CEILING_MS = 60_000;

/**
 * A later start may take this many times the measured first one, times the processes starting at
 * once: on a busy machine seven starts at once took six times one start alone.
 */
const START_SLACK = 2;
/** A request may take this many typical ping round trips before its base wait is stretched. */
const PING_SLACK = 20;
/** Round trips kept: the typical one is their median, so one slow ping (behind a 10 MB probe) does not count. */
const PINGS_KEPT = 15;

/** `measured` waits `slack` times what was measured, never less than `baseMs`, never more than the ceiling (or `baseMs`, if larger). */
export function stretched(baseMs: number, measuredMs: number, slack: number): number {
  return Math.max(baseMs, Math.min(PACE_CEILING_MS, Math.round(slack * measuredMs)));
}

/**
 * What this run measured of the target's pace — how long its first process took to answer, how
 * long a ping takes — and the waits derived from it. A wait that decides a verdict scales with what
 * the target was seen to need on this machine now, so a busy machine does not turn a slow answer
 * into a missing one; the floors are the user's (--request-timeout) and STARTUP_MS, the ceiling
 * PACE_CEILING_MS.
 */
export class Pace {
  private firstStartMs: number | undefined;
  private readonly starts = new Set<Start>();
  private readonly pings: number[] = [];

  /** The time the run's first process took from its start to its first answer. */
  firstStart(ms: number): void {
    this.firstStartMs ??= ms;
  }

  /** A process of the target starts now: its start competes with every other one under way meanwhile. */
  starting(): Start {
    const start = new Start(this, () => this.starts.delete(start));
    this.starts.add(start);
    for (const s of this.starts) s.peak = Math.max(s.peak, this.starts.size);
    return start;
  }

  /** How long a process may take to answer its first message when `atOnce` (itself included) were starting at once at their most. */
  startupMs(atOnce: number): number {
    // The first start is the one measured: it gets the ceiling.
    if (this.firstStartMs === undefined) return PACE_CEILING_MS;
    return stretched(STARTUP_MS, this.firstStartMs * Math.max(1, atOnce), START_SLACK);
  }

  /** Why a start with `atOnce` starting beside it may take `startupMs(atOnce)`, for messages. */
  startupReason(atOnce: number): string {
    if (this.firstStartMs === undefined) return 'the most mcpcheck waits for a first start';
    const others = atOnce > 1 ? ` times the ${atOnce} starting at once` : '';
    return `${START_SLACK} × the first start's ${Math.round(this.firstStartMs)} ms${others}, at least ${STARTUP_MS} ms and at most ${PACE_CEILING_MS} ms`;
  }

  /**
   * How long a process may take over its own life's work (exiting once its stdin closes) when
   * `baseMs` is the wait at an idle machine: as long as its requests by the pings' measure, and at
   * least twice its measured first start, as a heavy runtime is as slow to stop as to start.
   */
  processMs(baseMs: number): number {
    const byStart = this.firstStartMs === undefined ? baseMs : stretched(baseMs, this.firstStartMs, START_SLACK);
    return Math.max(this.requestMs(baseMs), byStart);
  }

  /**
   * How long a process may take over a step of its own (starting another process, a pause in its
   * flow) when `baseMs` is the wait on an idle machine and its own start just took `startMs`: by the
   * slower of that start and the run's first, so that a load that came later counts too.
   */
  stepMs(baseMs: number, startMs: number): number {
    return Math.max(this.processMs(baseMs), stretched(baseMs, startMs, START_SLACK));
  }

  /** A ping's round trip, from a target that had started. */
  roundTrip(ms: number): void {
    this.pings.push(ms);
    if (this.pings.length > PINGS_KEPT) this.pings.shift();
  }

  /** The wait for an answer whose wait at an idle pace is `baseMs`. */
  requestMs(baseMs: number): number {
    if (this.pings.length === 0) return baseMs;
    const sorted = [...this.pings].sort((a, b) => a - b);
    return stretched(baseMs, sorted[Math.floor(sorted.length / 2)]!, PING_SLACK);
  }
}

/** One process's start, until it is first heard (or gone). */
export class Start {
  /** The most processes that were starting at once while this one was. */
  peak = 1;

  constructor(
    private readonly pace: Pace,
    readonly done: () => void,
  ) {}

  /** How long this start may take in all, by what competed with it so far. */
  get ms(): number {
    return this.pace.startupMs(this.peak);
  }

  /** Why it may take that long, for messages. */
  get reason(): string {
    return this.pace.startupReason(this.peak);
  }
}
