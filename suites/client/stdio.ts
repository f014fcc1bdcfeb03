import { clientScenario, type ClientScenario } from '../kit.js';
import { contact, initialized, methodOf, WAIT_MS } from './helpers.js';

const needs = { transport: 'stdio' } as const;

export const clientStdioShutdown = clientScenario({
  id: 'client.stdio.shutdown',
  title: "To end a stdio session the client first closes the server's stdin, and signals only afterwards",
  requirements: ['LIFE-SHUT-01'],
  needs,
  steps: [{ do: 'list-tools' }],
  async run(ctx) {
    if (!(await initialized(ctx))) return;
    await ctx.exited(WAIT_MS);
    const first = ctx.stdioEvents.find((e) => e.kind === 'stdin-closed' || e.kind === 'signal' || e.kind === 'relay-exit');
    if (!first) return ctx.check.skip(`the client had not ended the session ${WAIT_MS} ms after its last step`);
    ctx.check.expect(first.kind === 'stdin-closed', {
      expected: "the server's stdin closed before any signal",
      actual: first.kind === 'signal' ? `${first.signal} first, stdin still open` : first.kind === 'relay-exit' ? 'the server process was killed outright, stdin still open' : 'stdin closed first',
    });
  },
});

export const clientStdioStderr = clientScenario({
  id: 'client.stdio.stderr-not-failure',
  title: "The client does not take the server's stderr output as a sign of failure",
  requirements: ['STDIO-ERR-02'],
  needs,
  // The pause gives the stderr line time to reach the client before it is asked for more.
  steps: [{ do: 'wait', ms: 500 }, { do: 'call-tool', name: 'echo', arguments: { text: 'after stderr' } }],
  carriedOver: true,
  async run(ctx) {
    const { session, check } = ctx;
    const done = await contact(ctx);
    if (!done) return;
    // A 2026-07-28 client that sends no probe opens with the step's call itself: nothing came after the stderr line then.
    if (methodOf(done) === 'tools/call') return check.skip('the client called echo before mcpcheck could write to stderr (it opened with the call itself)');
    await session.channel.stderr?.('error: mcpcheck writes this log line to stderr on purpose\n');
    const next = await session.waitForMethod('tools/call', WAIT_MS, done.index + 1);
    check.expect(next !== undefined, {
      expected: 'the client goes on (tools/call) after the server wrote an error-looking line to stderr',
      actual: next ? 'it did' : `no tools/call within ${WAIT_MS} ms`,
      frames: [next?.index ?? done.index],
    });
  },
});

export const clientStdio: ClientScenario[] = [clientStdioShutdown, clientStdioStderr];
