import { type ClientScenario, clientScenario, isObject, MODERN, ruling, show } from '../kit.js';
import { callOf, methodOf, requestsSince, WAIT_MS } from './helpers.js';
import { firstRequest, initializeOrExit } from './modern-helpers.js';

/** The requests that probe a server's era: server/discover sent to learn it, or initialize (VER-BC-04). */
const PROBES = new Set(['server/discover', 'initialize']);

export const clientProbesFirst = clientScenario({
  id: 'client.modern.era.probe-first',
  title: 'Over stdio a modern client probes with server/discover before any other request',
  requirements: ['STDIO-BC-01', 'STDIO-BC-04'],
  revisions: MODERN,
  needs: { transport: 'stdio' },
  steps: [{ do: 'list-tools' }],
  async run({ session, check }) {
    const first = await firstRequest(session);
    if (!first) return check.skip(`the client sent no request within ${WAIT_MS} ms`);
    if (methodOf(first) === 'initialize') return check.skip('the client opened with initialize here, in the initialize era: it made no modern first request');
    check.expect(methodOf(first) === 'server/discover', {
      expected: 'server/discover as the first request (a dual-era client: STDIO-BC-01; a modern-only one: STDIO-BC-04, so that a legacy server does not run an era-ambiguous request under legacy rules)',
      actual: `${methodOf(first)} first`,
      frames: [first.index],
    });
  },
});

export const clientCachesEra = clientScenario({
  id: 'client.modern.era.cached',
  title: 'The era is a property of the server: the client probes it once (server/discover or initialize), not again for each later request',
  requirements: ['VER-BC-04'],
  revisions: MODERN,
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { text: 'one' } }, { do: 'list-tools' }, { do: 'call-tool', name: 'add_numbers', arguments: { a: 1, b: 2 } }],
  serve(session) {
    // Fresh for an hour: a second server/discover is then no refresh of a stale DiscoverResult (CACHE-TTL-02) but a probe.
    session.handle('server/discover', () => ({ result: { supportedVersions: [...session.modernVersions], capabilities: session.capabilities, ttlMs: 3_600_000, cacheScope: 'private' } }));
  },
  async run({ session, check }) {
    const last = await session.waitForFrame(callOf('add_numbers'), WAIT_MS);
    if (!last) return check.skip(`not exercised: the client did not get through its four requests (the last a call of add_numbers) within ${WAIT_MS} ms`);
    const probes = requestsSince(session, 0).filter((f) => PROBES.has(methodOf(f)!));
    check.expect(probes.length <= 1, {
      expected: 'at most one probe of the era (server/discover, whose result mcpcheck marked fresh for an hour, or initialize) in one server process or origin',
      actual: `${probes.length} probes: ${probes.map((f) => methodOf(f)).join(', ')}`,
      frames: [...probes, last].map((f) => f.index),
    });
  },
});

export const clientFallsBackOnAnyCode = clientScenario({
  id: 'client.modern.era.fallback-any-code',
  title: 'Over stdio a probe answered with −32602 (as some initialize-era servers answer an unknown request) is a legacy answer: a dual-era client falls back to initialize, a modern-only one sends no further requests',
  requirements: ['STDIO-BC-03', 'STDIO-BC-04'],
  revisions: MODERN,
  needs: { transport: 'stdio' },
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { text: 'legacy?' } }],
  serve(session) {
    session.serves = 'stateful';
    session.refusesModernWith = -32602;
  },
  async run(ctx) {
    const { session, check } = ctx;
    const probe = await firstRequest(session);
    if (!probe || methodOf(probe) !== 'server/discover') return check.skip(`the client did not probe with server/discover (first request: ${probe ? show(methodOf(probe)) : 'none'}), so no probe got the legacy −32602`);
    const init = await initializeOrExit(ctx, probe.index);
    const others = requestsSince(session, probe.index + 1).filter((f) => !PROBES.has(methodOf(f)!) && (!init || f.index < init.index));
    if (init) check.expect(true, { key: 'fallback', requirements: ['STDIO-BC-03'], expected: `initialize after −32602 to the probe (the fallback is not tied to −32601; ${ruling('modern-error').cite})`, actual: 'initialize', frames: [probe.index, init.index] });
    else check.skip(`no initialize within ${WAIT_MS} ms after −32602 to the probe: the client may support 2026-07-28 only (STDIO-BC-03 binds dual-era clients)`, { key: 'fallback', requirements: ['STDIO-BC-03'] });
    check.expect(others.length === 0, {
      key: 'no-request-after-legacy',
      requirements: ['STDIO-BC-04'],
      expected: `no request but initialize after a legacy answer to the probe (a modern-only client reports the incompatibility; ${ruling('modern-error').cite})`,
      actual: others.length ? others.map((f) => `${methodOf(f)} ${show(isObject(f.message) ? f.message.params : undefined)}`).join('; ') : init ? 'initialize' : 'none',
      frames: [probe.index, ...others.map((f) => f.index)],
    });
  },
});

export const clientModernEra: ClientScenario[] = [clientProbesFirst, clientCachesEra, clientFallsBackOnAnyCode];
