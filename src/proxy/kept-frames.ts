import { type FrameList, type SourceFrame, WIRE_BOUNDS } from '../wire.js';

/** Frames kept because a finding cited them as they passed; later citations go without their text. */
const MAX_CITED = 2_000;
/** Characters of a frame's text kept: what a wire log shows of it and a little more. */
const KEPT_CHARS = WIRE_BOUNDS.textChars + 1;

/**
 * The frames of a proxied session as a wire log's source, in bounded memory however long the
 * session runs: the first few (what was asked), the last few (how it ended) and those findings
 * cited while they were recent, each cut to what a report shows. Every other frame is still
 * listed (its side and index), with a text saying it was not kept.
 */
export class KeptFrames implements FrameList {
  private readonly kept = new Map<number, SourceFrame>();
  private readonly recent: SourceFrame[] = [];
  /** One bit a frame: set when the server sent it. */
  private sides = new Uint8Array(1024);
  private count = 0;
  private citedCount = 0;

  get length(): number {
    return this.count;
  }

  /** Adds the next frame; returns its index. */
  add(from: 'client' | 'server', text: string, at?: number): number {
    const index = this.count++;
    if (index >> 3 >= this.sides.length) {
      const grown = new Uint8Array(this.sides.length * 2);
      grown.set(this.sides);
      this.sides = grown;
    }
    if (from === 'server') this.sides[index >> 3]! |= 1 << (index & 7);
    const frame: SourceFrame = { index, from, raw: text.length > KEPT_CHARS ? text.slice(0, KEPT_CHARS) : text, ...(text.length > KEPT_CHARS ? { length: text.length } : {}), ...(at !== undefined ? { at } : {}) };
    if (index < WIRE_BOUNDS.head) this.kept.set(index, frame);
    this.recent.push(frame);
    if (this.recent.length > WIRE_BOUNDS.tail) this.recent.shift();
    return index;
  }

  /** Keeps frame `index` for evidence, when it is still recent enough to have its text. */
  cite(index: number): void {
    if (this.kept.has(index) || this.citedCount >= MAX_CITED) return;
    const frame = this.recent.find((f) => f.index === index);
    if (!frame) return;
    this.kept.set(index, frame);
    this.citedCount++;
  }

  /** Frame `index` with its text, when it is kept (or still recent). */
  textOf(index: number): SourceFrame | undefined {
    return this.kept.get(index) ?? this.recent.find((f) => f.index === index);
  }

  /** Who sent frame `index` (known for every frame, kept or not). */
  sideOf(index: number): 'client' | 'server' {
    return (this.sides[index >> 3]! >> (index & 7)) & 1 ? 'server' : 'client';
  }

  at(position: number): SourceFrame | undefined {
    const index = position < 0 ? this.count + position : position;
    if (index < 0 || index >= this.count) return undefined;
    return this.textOf(index) ?? { index, from: this.sideOf(index), raw: `(frame ${index} not kept: the proxy keeps the first ${WIRE_BOUNDS.head} frames, the last ${WIRE_BOUNDS.tail} and up to ${MAX_CITED} that findings cited as they passed; the transcript has every frame)` };
  }
}
