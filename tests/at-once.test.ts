import { describe, expect, it } from 'vitest';
import { atOnce, inTurn } from '../src/runner/at-once.js';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<'slept' | 'stopped'>((resolve) => {
    const timer = setTimeout(() => resolve('slept'), ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve('stopped');
    });
  });

describe('atOnce and inTurn (a server\'s eras)', () => {
  it('runs every item at once and keeps their order', async () => {
    const started: number[] = [];
    const stop = new AbortController();
    const out = await atOnce([30, 10], async (ms) => {
      started.push(ms);
      await sleep(ms);
      return ms * 2;
    }, stop);
    expect(out).toEqual([60, 20]);
    expect(started).toEqual([30, 10]);
    expect(stop.signal.aborted).toBe(false);
  });

  it('the first failure stops the others and is thrown once they have ended', async () => {
    const stop = new AbortController();
    const ended: string[] = [];
    const run = atOnce(['slow', 'fails', 'fails later'], async (name) => {
      if (name === 'fails') {
        await sleep(10);
        throw new Error('first');
      }
      if (name === 'fails later') {
        await sleep(20);
        throw new Error('second');
      }
      const how = await sleep(60_000, stop.signal);
      ended.push(`${name} ${how}`);
      return name;
    }, stop);
    await expect(run).rejects.toThrow('first');
    expect(stop.signal.aborted).toBe(true);
    expect(ended).toEqual(['slow stopped']);
  });

  it('inTurn starts each item when the one before it has ended', async () => {
    const log: string[] = [];
    await inTurn(['a', 'b'], async (x) => {
      log.push(`start ${x}`);
      await sleep(5);
      log.push(`end ${x}`);
    });
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });
});
