import { beforeAll, describe, expect, it } from 'vitest';
import type { ChannelToServer } from '../src/harness/client-session.js';
import { join } from 'node:path';
import { ClientTarget } from '../src/harness/client-target.js';
import { StdioTarget, type Target } from '../src/harness/target.js';
import { runClientScenarios } from '../src/runner/client-run.js';
import { discoverServer } from '../src/runner/discovery.js';
import { runScenarios } from '../src/runner/run.js';
import { openHttpEndpoint } from '../src/transport/http-endpoint.js';
import { clientScenarios } from '../suites/client/index.js';
import { serverScenarios } from '../suites/server/index.js';
import { REFERENCE, requireBuild, ROOT } from './server-helpers.js';

const CLIENT = join(ROOT, 'dist/tests/fixtures/client/client.js');

beforeAll(requireBuild);

/** The reference server, behind channels (and a target) whose close() rejects once it has closed. */
function failingToClose(): Target {
  const inner = new StdioTarget({ command: `node ${REFERENCE}` });
  return {
    kind: inner.kind,
    description: inner.description,
    credentialed: false,
    tokenRefused: async () => false,
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
      discover: discoverServer,
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

/** The fixture client, behind endpoints (and a target) whose close() rejects once it has closed. */
class FailingToCloseClient extends ClientTarget {
  constructor() {
    super({ command: `node ${CLIENT} {url}` }, async (transport) => {
      if (transport !== 'http') throw new Error('mcpcheck-test: http only');
      const endpoint = await openHttpEndpoint({ policy: { answerWith: 'json', priming: false } });
      const close = endpoint.close.bind(endpoint);
      endpoint.close = async () => {
        await close();
        throw new Error('mcpcheck-test: the endpoint failed to close');
      };
      return endpoint;
    });
  }

  override async close(): Promise<void> {
    await super.close();
    throw new Error('mcpcheck-test: the client failed to close');
  }
}

describe('closing a client run', () => {
  it('an error while closing an endpoint or the client is a note, never the run undone', async () => {
    const out = await runClientScenarios({
      target: new FailingToCloseClient(),
      scenarios: clientScenarios.filter((s) => s.id === 'client.lifecycle.handshake'),
      concurrency: 1,
      scenarioTimeoutMs: 30_000,
      requestTimeoutMs: 10_000,
      reproduce: 'mcpcheck client --only {scenario}',
      seed: 1,
      cases: 0,
    });
    expect(out.checks.filter((c) => c.id.startsWith('client.lifecycle.handshake')).map((c) => c.status)).not.toContain('error');
    expect(out.checks.some((c) => c.id.startsWith('client.lifecycle.handshake') && c.status === 'pass')).toBe(true);
    expect(out.notes).toEqual([
      'closing the session of client.lifecycle.handshake failed (mcpcheck-test: the endpoint failed to close); the verdicts stand',
      'closing the client failed (mcpcheck-test: the client failed to close); the verdicts stand',
    ]);
  });
});
