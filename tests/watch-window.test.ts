import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientSession } from '../src/harness/client-session.js';
import type { RecordedFrame } from '../src/harness/peer-session.js';
import { packageRoot } from '../src/paths.js';
import { StdioChannel } from '../src/transport/index.js';
import { URI_SCHEME } from './fixtures/reference/features.js';
import { watchWhile } from '../suites/server/helpers.js';

// The window server.resources.updates watches for an update that comes by itself (suites/server/helpers.ts).
const server = join(packageRoot(), 'dist/tests/fixtures/reference/server.js');
const uri = `${URI_SCHEME}://notes/watched`;
const sessions: ClientSession[] = [];

async function subscribed(): Promise<ClientSession> {
  const channel = await StdioChannel.start({ command: process.execPath, argv: [process.execPath, server], killGraceMs: 500 });
  const session = new ClientSession({ channel, transport: 'stdio', requestTimeoutMs: 5_000, startupMs: 10_000 });
  sessions.push(session);
  expect((await session.initialize()).kind).toBe('result');
  expect((await session.request('resources/subscribe', { uri })).kind).toBe('result');
  return session;
}

const isUpdate = (f: RecordedFrame) => (f.message as { method?: string; params?: { uri?: string } } | undefined)?.params?.uri === uri;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

describe('watchWhile', () => {
  it('keeps watching past its minimum while the rest of the run lasts, and sees what comes then', async () => {
    const session = await subscribed();
    const mark = session.mark;
    const started = performance.now();
    // The update comes after the minimum window, while the run still lasts.
    const cause = sleep(400).then(() => session.request('tools/call', { name: 'write_note', arguments: { id: 'watched', text: 'x' } }));
    const seen = await watchWhile(session, isUpdate, mark, { minMs: 150, maxMs: 5_000, lasting: sleep(2_000) });
    await cause;
    expect(seen?.message).toMatchObject({ method: 'notifications/resources/updated' });
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('ends when the rest of the run is over, not at its maximum', async () => {
    const session = await subscribed();
    const started = performance.now();
    expect(await watchWhile(session, isUpdate, session.mark, { minMs: 150, maxMs: 5_000, lasting: sleep(300) })).toBeUndefined();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2_000);
  });

  it('watches for its minimum even when the rest of the run is already over', async () => {
    const session = await subscribed();
    const started = performance.now();
    expect(await watchWhile(session, isUpdate, session.mark, { minMs: 400, maxMs: 5_000, lasting: Promise.resolve() })).toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });
});
