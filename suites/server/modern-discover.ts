import { isObject, META, MODERN, MODERN_ERRORS, scenario, type Scenario, show } from '../kit.js';
import { errorCode, exchange, modernRequest, refusedWith } from './modern-exchange.js';

// Discovery and version negotiation in the stateless era (server/discover.mdx,
// basic/versioning.mdx#protocol-version-negotiation). Every request carries its revision in
// `_meta`; server/discover says which revisions the server supports and what it offers.

/** A version no server supports (the catalog's probe value). */
const UNSUPPORTED = '1999-01-01';

export const discoverResult = scenario({
  id: 'server.modern.discover.result',
  title: 'Every server implements server/discover and answers it with a DiscoverResult: resultType "complete", supportedVersions, capabilities, ttlMs and cacheScope',
  requirements: ['DISC-IMPL-01', 'DISC-RES-01', 'DISC-RES-02'],
  isolation: 'shared',
  revisions: MODERN,
  async run({ session, check }) {
    const reply = await session.request('server/discover', {});
    if (!check.isResult(reply, { key: 'implemented', requirements: ['DISC-IMPL-01'], what: 'server/discover with protocolVersion 2026-07-28' }) || reply.kind !== 'result') return;
    const r = reply.result;
    const problems = [
      r.resultType !== 'complete' && `resultType is ${show(r.resultType)}, not "complete"`,
      !(Array.isArray(r.supportedVersions) && r.supportedVersions.every((v: unknown) => typeof v === 'string')) && `supportedVersions is ${show(r.supportedVersions)}, not an array of strings`,
      !isObject(r.capabilities) && `capabilities is ${show(r.capabilities)}, not an object`,
      !(Number.isInteger(r.ttlMs) && (r.ttlMs as number) >= 0) && `ttlMs is ${show(r.ttlMs)}, not a non-negative integer`,
      typeof r.cacheScope !== 'string' && `cacheScope is ${show(r.cacheScope)}, not a string`,
      r.instructions !== undefined && typeof r.instructions !== 'string' && `instructions is ${show(r.instructions)}, not a string`,
    ].filter((p): p is string => typeof p === 'string');
    check.expect(problems.length === 0, {
      key: 'shape',
      requirements: ['DISC-RES-01'],
      expected: 'a DiscoverResult with resultType "complete", supportedVersions (strings), capabilities (an object), ttlMs (an integer ≥ 0) and cacheScope',
      actual: problems.join('; '),
      frames: [reply.frame],
    });
    const info = isObject(r._meta) ? r._meta[META.serverInfo] : undefined;
    check.expect(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string', {
      key: 'server-info',
      requirements: ['DISC-RES-02'],
      expected: `_meta["${META.serverInfo}"] with a name and a version`,
      actual: info === undefined ? 'no serverInfo in the result\'s _meta' : show(info),
      frames: [reply.frame],
    });
  },
});

export const unsupportedVersion = scenario({
  id: 'server.modern.version.unsupported',
  title: 'A request for a protocol version the server does not implement gets −32022 with data.requested and data.supported (HTTP: status 400), first thing on a connection and after a valid request alike; data.supported agrees with supportedVersions',
  requirements: ['VER-NEG-01', 'DISC-RES-03', 'BASE-STATE-01'],
  // The unsupported version goes first on a connection of its own: a server that took the version
  // from an earlier request would otherwise pass or fail by what ran before it on a shared one.
  isolation: 'session',
  revisions: MODERN,
  async run({ session, check }) {
    const unsupported = async (method: string) => {
      const answer = await exchange(session, modernRequest(session, method, {}, { [META.protocolVersion]: UNSUPPORTED }));
      const error = isObject(answer.response?.error) ? answer.response.error : undefined;
      const data = error && isObject(error.data) ? error.data : undefined;
      const supported = Array.isArray(data?.supported) && data.supported.length > 0 && data.supported.every((v) => typeof v === 'string') ? (data.supported as string[]) : undefined;
      const ok = refusedWith(answer, [MODERN_ERRORS.unsupportedProtocolVersion], 400) && data?.requested === UNSUPPORTED && supported !== undefined;
      const expected = `${method} with protocolVersion ${UNSUPPORTED}${answer.status !== undefined ? ' (the same in MCP-Protocol-Version)' : ''}: error −32022 with data.requested "${UNSUPPORTED}" and data.supported a non-empty array of strings${answer.status !== undefined ? ', HTTP status 400' : ''}`;
      return { answer, supported, ok, expected };
    };
    const first = await unsupported('server/discover');
    check.expect(first.ok, { key: 'discover', requirements: ['VER-NEG-01'], expected: `${first.expected}, as the first request on the connection`, actual: first.answer.shown, frames: first.answer.frames, replies: first.answer.replies });
    const list = await unsupported('tools/list');
    check.expect(list.ok, { key: 'tools-list', requirements: ['VER-NEG-01'], expected: list.expected, actual: list.answer.shown, frames: list.answer.frames, replies: list.answer.replies });
    const valid = await exchange(session, modernRequest(session, 'server/discover'));
    const listed = isObject(valid.response?.result) && Array.isArray(valid.response.result.supportedVersions) ? (valid.response.result.supportedVersions as unknown[]) : undefined;
    if (first.supported && listed) {
      const same = first.supported.length === listed.length && first.supported.every((v) => listed.includes(v));
      check.expect(same, {
        key: 'agrees-with-discover',
        requirements: ['DISC-RES-03'],
        expected: `data.supported of −32022 equal to supportedVersions of server/discover (${show(listed)})`,
        actual: show(first.supported),
        frames: [...first.answer.frames, ...valid.frames],
      });
    } else check.skip(`not exercised: ${first.supported ? `server/discover with 2026-07-28 got ${valid.shown}` : 'the −32022 error carried no data.supported to compare'}`, { key: 'agrees-with-discover', requirements: ['DISC-RES-03'] });
    if (!listed) return check.skip(`not exercised: server/discover with 2026-07-28 got ${valid.shown}, so no valid request came before`, { key: 'after-valid-request', requirements: ['BASE-STATE-01'] });
    // A valid request of another method first: the version must not carry over from it either.
    const before = await exchange(session, modernRequest(session, 'tools/list'));
    const again = await unsupported('server/discover');
    // Only a change of answer shows state carried over: a server that serves the version first thing too has VER-NEG-01's defect alone.
    const refused = (a: typeof again) => errorCode(a.answer) === MODERN_ERRORS.unsupportedProtocolVersion;
    if (!refused(first)) return check.skip('not exercised: the server does not refuse the unsupported version first thing on a connection either (VER-NEG-01 above), so no earlier request can have changed its answer', { key: 'after-valid-request', requirements: ['BASE-STATE-01'] });
    check.expect(refused(again), {
      key: 'after-valid-request',
      requirements: ['BASE-STATE-01'],
      expected: `server/discover with protocolVersion ${UNSUPPORTED} refused with −32022 as it was first thing on the connection, after valid 2026-07-28 requests (server/discover, tools/list) on the same connection (a request\'s protocol version comes from that request alone)`,
      actual: again.answer.shown,
      frames: [...before.frames, ...again.answer.frames],
      replies: again.answer.replies,
    });
  },
});

export const listedVersionsServed = scenario({
  id: 'server.modern.version.listed-served',
  title: 'supportedVersions tells the truth: the version server/discover was asked with is listed, and a request with it is not refused with −32022',
  requirements: ['DISC-RES-03'],
  isolation: 'shared',
  revisions: MODERN,
  async run({ session, check }) {
    const discover = await session.request('server/discover', {});
    if (!check.isResult(discover, { key: 'listed', what: 'server/discover with protocolVersion 2026-07-28' }) || discover.kind !== 'result') return;
    const listed = discover.result.supportedVersions;
    check.expect(Array.isArray(listed) && listed.includes(session.speaks), {
      key: 'includes-requested',
      expected: `the supportedVersions of the DiscoverResult answering server/discover with protocolVersion ${session.speaks} to list ${session.speaks} (a server answering with a result serves the version it was asked with)`,
      actual: show(listed),
      frames: [discover.frame],
    });
    // The one modern revision there is; legacy entries are not flagged (the catalog's doubts, item 8).
    const answer = await exchange(session, modernRequest(session, 'tools/list'));
    check.expect(errorCode(answer) !== MODERN_ERRORS.unsupportedProtocolVersion, {
      key: 'accepted',
      expected: `tools/list with protocolVersion ${session.speaks}, which server/discover listed in ${show(discover.result.supportedVersions)}: not refused with −32022`,
      actual: answer.shown,
      frames: answer.frames,
      replies: answer.replies,
    });
  },
});

export const modernDiscover: Scenario[] = [discoverResult, unsupportedVersion, listedVersionsServed];
