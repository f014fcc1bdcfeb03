import { MODERN, scenario, type Scenario, show } from '../kit.js';
import { DERIVED } from './helpers.js';
import { errorCode, exchange, legacyInitialize, modernRequest, refusedWith } from './modern-exchange.js';

// What is left of the initialize era when a client speaks 2026-07-28 (basic/versioning.mdx
// #compatibility-matrix, changelog.mdx#major-changes): removed methods are unknown methods, and a
// legacy initialize to a server that serves only the stateless era is refused, naming its versions.

const METHOD_NOT_FOUND = -32601;

/** Methods 2026-07-28 removed from the core (tasks/list belongs to the tasks extension, which mcpcheck does not advertise). */
const LEFTOVERS = ['ping', 'logging/setLevel', 'resources/subscribe', 'tasks/list'] as const;

export const leftoverMethods = scenario({
  id: 'server.modern.legacy.removed-methods',
  title: 'Leftover legacy requests in the modern era (ping, logging/setLevel, resources/subscribe, tasks/list) are answered −32601 (HTTP 404), and the server stays healthy',
  requirements: ['ROBUST-10'],
  isolation: 'shared',
  revisions: MODERN,
  async run({ session, check }) {
    const params: Record<string, Record<string, unknown>> = { 'logging/setLevel': { level: 'info' }, 'resources/subscribe': { uri: 'mcpcheck://nope/x' } };
    for (const method of LEFTOVERS) {
      const answer = await exchange(session, modernRequest(session, method, params[method] ?? {}));
      check.expect(refusedWith(answer, [METHOD_NOT_FOUND], 404), {
        key: method,
        expected: `${method} with a modern _meta: error −32601${answer.status !== undefined ? ' with HTTP status 404' : ''} (${DERIVED})`,
        actual: answer.shown,
        frames: answer.frames,
        replies: answer.replies,
      });
    }
    const after = await session.request('server/discover', {});
    check.isResult(after, { key: 'healthy', what: 'server/discover after the leftover requests' });
  },
});

export const legacyInitializeRefused = scenario({
  id: 'server.modern.legacy.initialize',
  title: 'A modern-only server refuses a legacy initialize with an error (HTTP: status 400) that names the versions it supports; a dual-era server is exempt',
  requirements: ['VER-BC-06', 'VER-BC-05'],
  isolation: 'session',
  revisions: MODERN,
  async run({ session, check }) {
    const { answer, dualEra, version } = await legacyInitialize(session);
    if (dualEra) {
      check.skip(`dual-era servers are exempt: initialize was answered with an InitializeResult (protocolVersion ${show(version)}), so the server also serves the initialize era (VER-BC-01)`, { key: 'refused' });
      check.skip('dual-era servers are exempt (see the refused check)', { key: 'names-versions', requirements: ['VER-BC-05'] });
      return;
    }
    const refused = errorCode(answer) !== undefined && (answer.status === undefined || answer.status === 400);
    check.expect(refused, {
      key: 'refused',
      requirements: ['VER-BC-06'],
      expected: `a legacy initialize (protocolVersion 2025-11-25, no _meta): a JSON-RPC error${answer.status !== undefined ? ' with HTTP status 400' : ''}, never an InitializeResult`,
      actual: answer.shown,
      frames: answer.frames,
      replies: answer.replies,
    });
    if (!refused) return;
    const error = answer.response!.error as Record<string, unknown>;
    check.expect(JSON.stringify([error.message, error.data]).includes('2026-07-28'), {
      key: 'names-versions',
      requirements: ['VER-BC-05'],
      expected: "the error's message or data names the versions the server supports (2026-07-28; data.supported preferred)",
      actual: show(error),
      frames: answer.frames,
    });
  },
});

export const modernLegacy: Scenario[] = [leftoverMethods, legacyInitializeRefused];
