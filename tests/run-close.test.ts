import { beforeAll, describe, expect, it } from 'vitest';
import type { ChannelToServer } from '../src/harness/client-session.js';
import { StdioTarget, type Target } from '../src/harness/target.js';
import { runScenarios } from '../src/runner/run.js';
import { serverScenarios } from '../suites/server/index.js';
import { REFERENCE, requireBuild } from './server-helpers.js';

beforeAll(requireBuild);

/** The reference server, behind channels (and a target) whose close() rejects once it has closed. */
function failingToClose(): Target {
  const inner = new StdioTarget({ command: `node ${REFERENCE}` });
  return {
    kind: inner.kind,
    description: inner.description,
    open: async (): Promise<ChannelToServer> => {
      const channel = await inner.open();
      const close = channel.close.bind(channel);
      channel.close = async () => {
        await close();
        throw new Error('mcpcheck-test: the channel failed to close\nsecond line');
      };
      return channel;
    },
    close: async () => {
      await inner.close();
      throw new Error('mcpcheck-test: the target failed to close');
    },
  };
}

describe('closing sessions and the target', () => {
  it('an error while closing is a note of the run, never its undoing', async () => {
    const out = await runScenarios({
      target: failingToClose(),
      scenarios: serverScenarios.filter((s) => s.id === 'server.utilities.ping'),
      options: { callTools: { mode: 'readonly' }, originProbe: 'http://mcpcheck-evil.example', requestTimeoutMs: 10_000, seed: 1, cases: 0 },
      concurrency: 1,
      scenarioTimeoutMs: 30_000,
      reproduce: 'mcpcheck server --only {scenario}',
    });
    expect(out.checks.filter((c) => c.id.startsWith('server.utilities.ping')).map((c) => c.status)).not.toContain('error');
    expect(out.checks.some((c) => c.id.startsWith('server.utilities.ping') && c.status === 'pass')).toBe(true);
    expect(out.notes).toEqual([
      'closing the session "discovery" failed (mcpcheck-test: the channel failed to close); the verdicts stand',
      'closing the target failed (mcpcheck-test: the target failed to close); the verdicts stand',
    ]);
  });
});
