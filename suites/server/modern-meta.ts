import { describeReply, isObject, META, MODERN, MODERN_ERRORS, replyFrame, ruling, scenario, type Scenario, show } from '../kit.js';
import { errorCode, exchange, modernRequest, refusedWith } from './modern-exchange.js';

// The per-request `_meta` of the stateless era (basic/index.mdx#meta): every request carries its
// protocol version and the client's capabilities; a request lacking one is malformed. And the
// per-request log level (server/utilities/logging.mdx#per-request-log-level).

const INVALID_PARAMS = -32602;

export const missingMeta = scenario({
  id: 'server.modern.meta.missing',
  title: 'A request lacking a required per-request field (params, protocolVersion, clientCapabilities) is rejected with −32602 (HTTP: status 400), and the requests after it are still served by their own _meta',
  requirements: ['META-REQ-03', 'BASE-STATE-01'],
  // Its malformed requests may change how a server treats the rest of the connection (which is
  // what BASE-STATE-01 forbids): a session, and over stdio a process, of its own.
  isolation: 'session',
  revisions: MODERN,
  async run({ session, check, connect }) {
    const opened = await connect(session);
    if (!opened.ok) return check.couldNotRun(`${opened.opening} did not start a conversation: ${opened.why}`);
    const probes = [
      { key: 'no-params', what: 'tools/list without params', message: { ...modernRequest(session, 'tools/list'), params: undefined } },
      { key: 'no-meta', what: 'tools/list with params but no _meta', message: modernRequest(session, 'tools/list', {}, {}, true) },
      { key: 'no-protocol-version', what: `tools/list whose _meta lacks ${META.protocolVersion}`, message: modernRequest(session, 'tools/list', {}, { [META.protocolVersion]: undefined }) },
      { key: 'no-client-capabilities', what: `tools/list whose _meta lacks ${META.clientCapabilities}`, message: modernRequest(session, 'tools/list', {}, { [META.clientCapabilities]: undefined }) },
    ];
    for (const p of probes) {
      // Over HTTP the headers stay those of a 2026-07-28 request, so a server may see a header/body mismatch instead.
      const answer = await exchange(session, JSON.parse(JSON.stringify(p.message)) as Record<string, unknown>, session.channel.kind === 'http' ? { 'MCP-Protocol-Version': session.speaks } : {});
      const preferred = refusedWith(answer, [INVALID_PARAMS], 400);
      const accepted = preferred || refusedWith(answer, [MODERN_ERRORS.headerMismatch], 400);
      check.expect(accepted, {
        key: p.key,
        requirements: ['META-REQ-03'],
        expected: `${p.what}: error −32602${answer.status !== undefined ? ` with HTTP status 400 (−32020 accepted: ${ruling('missing-meta-error').cite})` : ''}`,
        actual: answer.shown,
        frames: answer.frames,
        replies: answer.replies,
      });
      if (accepted && !preferred) check.note(`${p.what} was refused with −32020, accepted with 400 by ${ruling('missing-meta-error').cite}; −32602 is preferred`);
    }
    const after = await session.request('server/discover', {});
    check.expect(after.kind === 'result' && Array.isArray(after.result.supportedVersions), {
      key: 'context-per-request',
      requirements: ['BASE-STATE-01'],
      expected: 'server/discover with a complete 2026-07-28 _meta, sent on the same connection after those malformed requests: a DiscoverResult (a request\'s context comes from that request alone)',
      actual: describeReply(after),
      replies: [after],
      frames: [replyFrame(after)],
    });
  },
});

export const invalidLogLevel = scenario({
  id: 'server.modern.logging.invalid-level',
  title: 'A request whose logLevel is not one of the eight levels is rejected with −32602',
  requirements: ['LOG-REQ-04'],
  isolation: 'shared',
  revisions: MODERN,
  async run({ session, check }) {
    const answer = await exchange(session, modernRequest(session, 'tools/list', {}, { [META.logLevel]: 'verbose' }));
    check.expect(errorCode(answer) === INVALID_PARAMS, {
      expected: `tools/list with _meta["${META.logLevel}"] "verbose": error −32602`,
      actual: answer.shown,
      frames: answer.frames,
      replies: answer.replies,
    });
  },
});

/** Results of requests every server may serve, whatever it offers (server/discover's own is DISC-RES-02's). */
const RESULT_PROBES = ['tools/list', 'prompts/list', 'resources/list'] as const;

export const resultServerInfo = scenario({
  id: 'server.modern.meta.result-server-info',
  title: 'Every result\'s _meta names the server (io.modelcontextprotocol/serverInfo) unless the server is configured not to',
  requirements: ['META-RES-01'],
  isolation: 'shared',
  revisions: MODERN,
  async run({ session, check }) {
    const served: string[] = [];
    const without: string[] = [];
    const frames: Array<number | undefined> = [];
    for (const method of RESULT_PROBES) {
      const reply = await session.request(method, {});
      if (reply.kind !== 'result') continue;
      served.push(method);
      frames.push(reply.frame);
      const meta = isObject(reply.result._meta) ? reply.result._meta : undefined;
      if (meta?.[META.serverInfo] === undefined) without.push(`${method}: ${meta ? `_meta ${show(meta, 120)}` : 'no _meta'}`);
    }
    if (served.length === 0) return check.skip(`not exercised: none of ${RESULT_PROBES.join(', ')} was answered with a result`);
    check.expect(without.length === 0, {
      expected: `the results of ${served.join(', ')} each with _meta["${META.serverInfo}"]`,
      actual: without.join('; '),
      frames,
    });
  },
});

export const modernMeta: Scenario[] = [missingMeta, invalidLogLevel, resultServerInfo];
