import type { CheckResult, Evidence, WireFrame, WireLog } from './model.js';
import { CUT_MARK } from './redact.js';

/** The wire log holding an evidence frame: its own, or the check's when the check has only one. */
export function evidenceLog(e: Evidence, check: Pick<CheckResult, 'wire'>): string | undefined {
  return e.wire ?? (check.wire?.length === 1 ? check.wire[0] : undefined);
}

/** A frame as a session or a transcript holds it. */
export interface SourceFrame {
  index: number;
  from: 'client' | 'server';
  at?: number;
  message?: unknown;
  raw?: string;
  /** The whole text's length, when `raw` holds only its start (a frame kept in part). */
  length?: number;
}

/** How much of a frame's text a check's evidence quotes. */
const EXCERPT_CHARS = 500;

/** The start of a frame's text as a check's evidence quotes it, with the cut mark where it was cut. */
export function excerptOf(text: string): string {
  return text.length > EXCERPT_CHARS ? text.slice(0, EXCERPT_CHARS) + CUT_MARK : text;
}

/**
 * Bounds of one wire log, so a report of a long run stays small (the HTML report's budget is
 * 1 MB for a whole server-everything run): the start of the session shows what was asked, the
 * end how it ended, the cited frames why the check ended as it did.
 */
export const WIRE_BOUNDS = { textChars: 1500, head: 10, tail: 5, cited: 10 } as const;

function wireFrame(frame: SourceFrame): WireFrame {
  const text = frame.raw ?? JSON.stringify(frame.message) ?? 'undefined';
  const length = frame.length ?? text.length;
  const cut = length > WIRE_BOUNDS.textChars;
  return {
    index: frame.index,
    from: frame.from,
    ...(frame.at !== undefined ? { at: Math.round(frame.at) } : {}),
    // The mark says where the text was cut (and lets a secret cut there be hidden: redact.ts).
    text: cut ? text.slice(0, WIRE_BOUNDS.textChars) + CUT_MARK : text,
    ...(cut ? { length } : {}),
  };
}

/**
 * A session's or a transcript's frames in index order (indices rise, none twice), read one at a
 * time: an array of them, or a transcript that reads a frame from its line only when it is kept.
 */
export interface FrameList {
  readonly length: number;
  /** The frame at `position` (negative counts from the end, as Array.prototype.at does). */
  at(position: number): SourceFrame | undefined;
}

/** The first position in `frames` whose frame has an index of at least `index`. */
function positionOf(frames: FrameList, index: number): number {
  let low = 0;
  let high = frames.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (frames.at(mid)!.index < index) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The bounded log of the frames with indices in [since, until): the first and last ones and (up
 * to a bound) those in `cited`, in order. Only the kept frames are read.
 */
export function wireLog(id: string, label: string, frames: FrameList, since: number, until: number, cited: ReadonlySet<number>): WireLog {
  const { head, tail } = WIRE_BOUNDS;
  const from = positionOf(frames, since);
  const to = positionOf(frames, until);
  const kept = new Set<number>();
  for (let p = from; p < Math.min(to, from + head); p++) kept.add(p);
  for (let p = Math.max(from, to - tail); p < to; p++) kept.add(p);
  const citedKept = [...cited].filter((i) => i >= since && i < until).sort((a, b) => a - b).slice(0, WIRE_BOUNDS.cited);
  for (const index of citedKept) {
    const p = positionOf(frames, index);
    if (p < to && frames.at(p)!.index === index) kept.add(p);
  }
  const positions = [...kept].sort((a, b) => a - b);
  const omitted = to - from - positions.length;
  return { id, label, frames: positions.map((p) => wireFrame(frames.at(p)!)), ...(omitted > 0 ? { omitted } : {}) };
}

/** The frame indices checks cite as evidence. */
function citedFrames(checks: readonly CheckResult[]): Set<number> {
  const cited = new Set<number>();
  for (const c of checks) for (const e of c.evidence) if (e.frame !== undefined) cited.add(e.frame);
  return cited;
}

interface Segment {
  id: string;
  label: string;
  frames: FrameList;
  since: number;
  until: number;
}

/**
 * The wire logs of a run. A scenario marks the part of a session its traffic was (a shared
 * session carries several scenarios one after another); the logs are built once every check is
 * known, so each keeps the frames the checks citing it name as evidence.
 */
export class WireLogs {
  private readonly segments: Segment[] = [];

  /** Marks the frames of a session from index `since` up to now as one log; returns its id. */
  mark(label: string, frames: FrameList, since = 0): string {
    const id = `w${this.segments.length + 1}`;
    this.segments.push({ id, label, frames, since, until: nextIndex(frames) });
    return id;
  }

  build(checks: readonly CheckResult[]): WireLog[] {
    return this.segments.map((s) => wireLog(s.id, s.label, s.frames, s.since, s.until, citedFrames(checks.filter((c) => c.wire?.includes(s.id)))));
  }
}

/** The index the next frame of a session will have. */
export function nextIndex(frames: FrameList): number {
  return (frames.at(-1)?.index ?? -1) + 1;
}
