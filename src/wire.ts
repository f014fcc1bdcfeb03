import type { CheckResult, WireFrame, WireLog } from './model.js';

/** A frame as a session or a transcript holds it. */
export interface SourceFrame {
  index: number;
  from: 'client' | 'server';
  at?: number;
  message?: unknown;
  raw?: string;
}

/**
 * Bounds of one wire log, so a report of a long run stays small (the HTML report's budget is
 * 1 MB for a whole server-everything run): the start of the session shows what was asked, the
 * end how it ended, the cited frames why the check ended as it did.
 */
export const WIRE_BOUNDS = { textChars: 1500, head: 10, tail: 5, cited: 10 } as const;

function wireFrame(frame: SourceFrame): WireFrame {
  const text = frame.raw ?? JSON.stringify(frame.message) ?? 'undefined';
  const cut = text.length > WIRE_BOUNDS.textChars;
  return {
    index: frame.index,
    from: frame.from,
    ...(frame.at !== undefined ? { at: Math.round(frame.at) } : {}),
    text: cut ? text.slice(0, WIRE_BOUNDS.textChars) : text,
    ...(cut ? { length: text.length } : {}),
  };
}

/** The bounded log of `frames`: the first and last ones and (up to a bound) those in `cited`, in order. */
export function wireLog(id: string, label: string, frames: readonly SourceFrame[], cited: ReadonlySet<number>): WireLog {
  const { head, tail } = WIRE_BOUNDS;
  const citedKept = new Set([...cited].sort((a, b) => a - b).slice(0, WIRE_BOUNDS.cited));
  const kept = frames.filter((f, i) => i < head || i >= frames.length - tail || citedKept.has(f.index));
  const omitted = frames.length - kept.length;
  return { id, label, frames: kept.map(wireFrame), ...(omitted > 0 ? { omitted } : {}) };
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
  frames: readonly SourceFrame[];
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
  mark(label: string, frames: readonly SourceFrame[], since = 0): string {
    const id = `w${this.segments.length + 1}`;
    this.segments.push({ id, label, frames, since, until: nextIndex(frames) });
    return id;
  }

  build(checks: readonly CheckResult[]): WireLog[] {
    return this.segments.map((s) => {
      const part = s.frames.filter((f) => f.index >= s.since && f.index < s.until);
      return wireLog(s.id, s.label, part, citedFrames(checks.filter((c) => c.wire?.includes(s.id))));
    });
  }
}

/** The index the next frame of a session will have. */
export function nextIndex(frames: readonly SourceFrame[]): number {
  return (frames[frames.length - 1]?.index ?? -1) + 1;
}
