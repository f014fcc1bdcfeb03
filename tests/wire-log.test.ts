import { describe, expect, it } from 'vitest';
import { type FrameList, type SourceFrame, WIRE_BOUNDS, wireLog, WireLogs } from '../src/wire.js';

/** Frames with indices first…first+count-1, counting how many of them had their message read. */
function frames(first: number, count: number): { list: FrameList; reads: () => number } {
  let reads = 0;
  const made = Array.from({ length: count }, (_, p): SourceFrame => ({
    index: first + p,
    from: p % 2 === 0 ? 'client' : 'server',
    get message() {
      reads++;
      return { jsonrpc: '2.0', method: 'ping', id: first + p };
    },
  }));
  return { list: made, reads: () => reads };
}

const indices = (log: { frames: { index: number }[] }) => log.frames.map((f) => f.index);

describe('wire logs', () => {
  it('keep the first and last frames and the cited ones, in order, and count the rest as omitted', () => {
    const { list } = frames(0, 100);
    const log = wireLog('w1', 'x', list, 0, 100, new Set([50, 3, 70]));
    const { head, tail } = WIRE_BOUNDS;
    expect(indices(log)).toEqual([...Array.from({ length: head }, (_, i) => i), 50, 70, ...Array.from({ length: tail }, (_, i) => 100 - tail + i)]);
    expect(log.omitted).toBe(100 - head - tail - 2);
  });

  it('read only the frames they keep', () => {
    const { list, reads } = frames(0, 10_000);
    wireLog('w1', 'x', list, 0, 10_000, new Set([5_000]));
    expect(reads()).toBe(WIRE_BOUNDS.head + WIRE_BOUNDS.tail + 1);
  });

  it('cover only their segment of a session whose first frames were dropped', () => {
    const { list } = frames(40, 60); // indices 40…99
    const logs = new WireLogs();
    logs.mark('first', list, 0);
    const id = logs.mark('second', list, 90);
    const log = logs.build([{ id: 'c', title: '', requirements: [], level: 'MUST', status: 'fail', message: '', area: 'x', evidence: [{ frame: 95 }, { frame: 20 }], wire: [id] }])[1]!;
    expect(indices(log)).toEqual([90, 91, 92, 93, 94, 95, 96, 97, 98, 99]);
    expect(log.omitted).toBeUndefined();
  });

  it('keep at most the bound of cited frames, the earliest ones', () => {
    const { list } = frames(0, 1_000);
    const cited = new Set(Array.from({ length: 30 }, (_, i) => 100 + i * 10));
    const log = wireLog('w1', 'x', list, 0, 1_000, cited);
    const middle = indices(log).filter((i) => i >= WIRE_BOUNDS.head && i < 1_000 - WIRE_BOUNDS.tail);
    expect(middle).toEqual([...cited].slice(0, WIRE_BOUNDS.cited));
  });
});
