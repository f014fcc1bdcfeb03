import { isFailing } from '../grade/baseline.js';
import type { CheckResult } from '../model.js';
import type { RunObserver } from '../runner/observer.js';
import { checkLine, painter } from './console.js';
import { escapeTerminal } from './escape.js';

/** Where the progress line goes: a terminal (stderr), whose width cuts the line. */
export interface ProgressStream {
  write(text: string): unknown;
  columns?: number;
}

export interface ProgressOptions {
  /** Also print each check that failed, warned or could not run, one line each, as its scenario finishes. */
  verbose: boolean;
  color: boolean;
  /** What is counted (default: scenarios; fuzz counts cases and sequences). */
  unit?: string;
  /** Least time between two redraws (default 100 ms: at most ten a second). */
  intervalMs?: number;
  now?: () => number;
}

/** Erases the terminal line the cursor is on and returns to its start (ANSI EL 2). */
const ERASE = '\r\x1b[2K';
/** Elapsed time moves on even when no scenario does: the line is redrawn at least this often. */
const TICK_MS = 1000;
const WIDTH_WHEN_UNKNOWN = 80;

/**
 * Whether progress is shown: on a terminal only, not with --quiet, and not in CI (`CI` set to
 * anything but "" or "false"), where stderr may be a pseudo-terminal that a log keeps forever.
 */
export function wantProgress(stream: { isTTY?: boolean }, quiet: boolean, env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false';
  return stream.isTTY === true && !quiet && !ci;
}

/**
 * One status line, redrawn in place: scenarios done of all, elapsed time, the ones running now
 * (cut to the terminal's width, which it never wraps past). With `verbose`, failing checks are
 * printed above it as they come. `clear()` takes it off the screen for good.
 */
export class ProgressLine implements RunObserver {
  private total = 0;
  private done = 0;
  private readonly running: string[] = [];
  private readonly startedAt: number;
  private lastDraw = -Infinity;
  private pending: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private shown = false;
  private cleared = false;
  private readonly now: () => number;

  constructor(
    private readonly stream: ProgressStream,
    private readonly options: ProgressOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.startedAt = this.now();
  }

  planned(total: number): void {
    // A command may plan several runs (a server's eras, the authorization servers it names): their scenarios add up.
    this.total += total;
    this.ticker ??= setInterval(() => this.draw(), TICK_MS).unref();
    this.request();
  }

  started(scenario: string): void {
    this.running.push(scenario);
    this.request();
  }

  finished(scenario: string, checks: readonly CheckResult[]): void {
    const at = this.running.indexOf(scenario);
    if (at >= 0) this.running.splice(at, 1);
    this.done++;
    const worth = this.options.verbose ? checks.filter((c) => isFailing(c.status)) : [];
    if (worth.length > 0 && !this.cleared) {
      const paint = painter(this.options.color);
      this.stream.write(`${this.shown ? ERASE : ''}${worth.map((c) => `${checkLine(c, paint)}\n`).join('')}`);
      this.shown = false;
    }
    this.request();
  }

  /** Takes the line off the screen before the report prints; nothing is drawn after this. */
  clear(): void {
    this.cleared = true;
    clearTimeout(this.pending);
    clearInterval(this.ticker);
    if (this.shown) this.stream.write(ERASE);
    this.shown = false;
  }

  /** The status text, as wide as the terminal allows. */
  status(): string {
    const seconds = ((this.now() - this.startedAt) / 1000).toFixed(1);
    const head = `mcpcheck: ${this.done}/${this.total} ${this.options.unit ?? 'scenarios'} · ${seconds} s`;
    const text = this.running.length > 0 ? `${head} · running: ${this.running.map((id) => escapeTerminal(id)).join(', ')}` : head;
    // The last column is left free: writing into it makes some terminals wrap at once.
    // A terminal of unknown size (a pseudo-terminal nobody sized) reports 0 columns.
    const columns = this.stream.columns !== undefined && this.stream.columns > 0 ? this.stream.columns : WIDTH_WHEN_UNKNOWN;
    const width = Math.max(20, columns - 1);
    const points = Array.from(text);
    return points.length <= width ? text : `${points.slice(0, width - 1).join('')}…`;
  }

  /** Draws now, or once the interval since the last redraw is over (redraws in between would only flicker). */
  private request(): void {
    if (this.cleared) return;
    const wait = this.lastDraw + (this.options.intervalMs ?? 100) - this.now();
    // A busy event loop may fire the timer late: a change after the interval draws at once.
    if (wait <= 0) this.draw();
    else this.pending ??= setTimeout(() => this.draw(), wait).unref();
  }

  private draw(): void {
    clearTimeout(this.pending);
    this.pending = undefined;
    if (this.cleared) return;
    this.lastDraw = this.now();
    this.stream.write(`${ERASE}${this.status()}`);
    this.shown = true;
  }
}
