import type { ClientSession } from '../../src/harness/client-session.js';
import type { Reply } from '../../src/harness/peer-session.js';
import { describeReply, replyFrame } from '../../src/runner/checks.js';
import { scenario } from '../../src/runner/scenario.js';
import { isEmptyResult, PING_LIMIT_MS, timedPing } from './helpers.js';
import { describeErrors, schemaFor } from '../../src/validate/schemas.js';
import { isRevision, LATEST_REVISION, REVISIONS } from '../../src/validate/revisions.js';
import { notAProtocolVersion, unsupportedVersionErrorRuling } from '../../src/validate/versions.js';
import { show } from '../../src/validate/finding.js';
import { mayRequestBeforeInitialized } from '../../src/validate/session.js';
import { isObject } from '../../src/json.js';
import { cannedCapabilities } from '../../src/harness/canned.js';

interface VersionProbe {
  asked: string;
  reply: Reply;
  session: ClientSession;
}

/**
 * Versions no server supports: date-shaped ones before the first revision and far in the future
 * (LIFE-VER-04's MUST), and a string that is no version at all (an error is then a SHOULD, ruling
 * unsupported-version-error).
 */
const UNSUPPORTED = ['2024-01-01', '2099-01-01', 'mcpcheck-unsupported'];

/** Initializes a fresh session per revision (and per unsupported version) and compares the answers. */
export const versionNegotiation = scenario({
  id: 'server.lifecycle.version-negotiation',
  title: 'initialize is answered with an InitializeResult; each revision is echoed when supported, an unsupported one gets the newest supported version',
  requirements: ['LIFE-INIT-02', 'LIFE-VER-03', 'LIFE-VER-04', 'LIFE-VER-05'],
  isolation: 'session',
  async run({ session, openSession, check }) {
    const asked = [...REVISIONS, ...UNSUPPORTED];
    const sessions = [session, ...(await Promise.all(asked.slice(1).map(() => openSession())))];
    const probes: VersionProbe[] = await Promise.all(
      asked.map(async (version, i) => ({ asked: version, session: sessions[i]!, reply: await sessions[i]!.initialize({ protocolVersion: version, capabilities: {} }) })),
    );
    // The session that asked for the newest revision also shows the shape of an InitializeResult.
    const latest = probes[REVISIONS.indexOf(LATEST_REVISION)]!;
    if (check.isResult(latest.reply, { key: 'initialize-result', requirements: ['LIFE-INIT-02'], what: `initialize with protocolVersion ${LATEST_REVISION}`, session: latest.session }) && latest.reply.kind === 'result') {
      const version = typeof latest.reply.result.protocolVersion === 'string' && isRevision(latest.reply.result.protocolVersion) ? latest.reply.result.protocolVersion : LATEST_REVISION;
      const errors = schemaFor(version).validate('InitializeResult', latest.reply.result);
      check.expect(errors === null, {
        key: 'initialize-result-shape',
        requirements: ['LIFE-INIT-02'],
        expected: `an InitializeResult valid for ${version} (protocolVersion, capabilities, serverInfo with name and version)`,
        actual: errors ? describeErrors(errors, '/result') : 'valid',
        frames: [latest.reply.frame],
        session: latest.session,
      });
    }
    const answered = (p: VersionProbe) => (p.reply.kind === 'result' && typeof p.reply.result.protocolVersion === 'string' ? p.reply.result.protocolVersion : undefined);
    const supported = probes.filter((p) => REVISIONS.includes(p.asked as never) && answered(p) === p.asked).map((p) => p.asked);
    for (const p of probes.slice(0, REVISIONS.length)) {
      const got = answered(p);
      const index = REVISIONS.indexOf(p.asked as never);
      // A server supporting an older and a newer revision but not this one is legal, yet almost always a bug.
      const gap = got !== p.asked && supported.some((v) => REVISIONS.indexOf(v as never) < index) && supported.some((v) => REVISIONS.indexOf(v as never) > index);
      if (got === p.asked) {
        check.expect(true, { key: p.asked, requirements: ['LIFE-VER-03'], expected: `protocolVersion ${p.asked} echoed`, actual: got, frames: [replyFrame(p.reply)], replies: [p.reply], session: p.session });
      } else if (gap) {
        check.expect(false, {
          key: p.asked,
          requirements: ['LIFE-VER-03'],
          level: 'SHOULD',
          expected: `${p.asked} echoed: the server echoes ${supported.join(', ')}, older and newer revisions, so it almost certainly supports ${p.asked} too (LIFE-VER-03 requires echoing a supported version; a gap is legal but suspect, hence a warning)`,
          actual: describeReply(p.reply),
          frames: [replyFrame(p.reply)],
          replies: [p.reply],
          session: p.session,
        });
      } else {
        check.skip(`not exercised for ${p.asked}: the server does not support it (asked for it, it answered ${got !== undefined ? `with ${got}` : describeReply(p.reply)})`, {
          key: p.asked,
          requirements: ['LIFE-VER-03'],
          frames: [replyFrame(p.reply)],
          replies: [p.reply],
          session: p.session,
        });
      }
    }
    const newest = [...supported].sort().at(-1);
    for (const p of probes.slice(REVISIONS.length)) {
      const got = answered(p);
      if (p.reply.kind === 'error') {
        const { level, why } = unsupportedVersionErrorRuling(p.asked);
        check.expect(false, {
          key: `unsupported-${p.asked}`,
          requirements: ['LIFE-VER-04'],
          level,
          expected: `a result naming a version the server supports when asked for ${p.asked} (${why})`,
          actual: describeReply(p.reply),
          frames: [p.reply.frame],
          session: p.session,
        });
        continue;
      }
      // A later date than mcpcheck's newest revision may be a revision mcpcheck does not know yet.
      const ok = got !== undefined && got !== p.asked && notAProtocolVersion(got) === undefined && (supported.length === 0 || supported.includes(got) || !isRevision(got));
      const why = got === undefined ? undefined : got === p.asked ? `it echoed ${p.asked}, which no server supports` : notAProtocolVersion(got);
      check.expect(ok, {
        key: `unsupported-${p.asked}`,
        requirements: ['LIFE-VER-04'],
        expected: `a result with another protocolVersion the server supports (${supported.join(', ') || 'none echoed'}) when asked for ${p.asked}`,
        actual: `${describeReply(p.reply)}${why ? ` (${why})` : ''}`,
        frames: [replyFrame(p.reply)],
        replies: [p.reply],
        session: p.session,
      });
      if (ok && newest !== undefined && isRevision(got)) {
        check.expect(got === newest, {
          key: `fallback-newest-${p.asked}`,
          requirements: ['LIFE-VER-05'],
          expected: `the newest supported version (${newest}) as the fallback`,
          actual: got!,
          frames: [replyFrame(p.reply)],
          replies: [p.reply],
          session: p.session,
        });
      }
    }
  },
});

/** Probe requests that must be refused before initialize; ping is the one allowed exception. */
export const beforeInitialize = scenario({
  id: 'server.lifecycle.before-initialize',
  title: 'Requests before initialize are refused, ping is answered before initialized, a second initialize is refused or harmless',
  requirements: ['ROBUST-02', 'PING-01'],
  isolation: 'session',
  async run({ session, check, discovery }) {
    const probeMethod = 'tools' in discovery.capabilities ? 'tools/list' : 'prompts' in discovery.capabilities ? 'prompts/list' : 'resources/list';
    const early = await session.request(probeMethod, {}, 5_000);
    check.isError(early, { key: 'refused', requirements: ['ROBUST-02'], what: `${probeMethod} sent before initialize` });
    const init = await session.initialize({ capabilities: {}, withholdInitialized: true });
    check.isResult(init, { key: 'initialize-after', requirements: ['ROBUST-02'], what: 'initialize after the refused request (the server stays usable)' });
    if (init.kind !== 'result') return;
    const { reply: ping, ms } = await timedPing(session);
    check.expect(isEmptyResult(ping) && ms <= PING_LIMIT_MS, {
      key: 'ping-before-initialized',
      requirements: ['PING-01'],
      expected: `ping, sent between the initialize response and notifications/initialized, answered with {} within ${PING_LIMIT_MS} ms`,
      actual: `${describeReply(ping)} after ${ms} ms`,
      frames: [replyFrame(ping)],
      replies: [ping],
    });
    await session.notify('notifications/initialized');
    const again = await session.request('initialize', { protocolVersion: LATEST_REVISION, capabilities: {}, clientInfo: { name: 'mcpcheck', version: '0.1.0' } }, 5_000);
    const after = await session.request('ping', undefined, 5_000);
    check.expect(after.kind === 'result' && again.kind !== 'timeout' && again.kind !== 'closed', {
      key: 'second-initialize',
      requirements: ['ROBUST-02'],
      expected: 'a second initialize refused (or answered) and the session still usable (ping answered)',
      actual: `second initialize: ${describeReply(again)}; then ping: ${describeReply(after)}`,
      frames: [replyFrame(again), replyFrame(after)],
    });
  },
});

/** How long the server is given, initialized but not yet told so, to send a request it should not. */
const BEFORE_INITIALIZED_MS = 1_000;

/**
 * Over stdio only: there the server can write at any time, while over HTTP it could send only on
 * a GET stream it may refuse (the live rule still judges what comes over HTTP).
 */
export const noRequestsBeforeInitialized = scenario({
  id: 'server.lifecycle.no-requests-before-initialized',
  title: 'Until notifications/initialized, the server sends no request other than ping',
  requirements: ['LIFE-INIT-05'],
  isolation: 'session',
  waits: true,
  needs: { transport: 'stdio' },
  async run({ session, check }) {
    // Marked before initialize: a request can come in the same read as the initialize response.
    const mark = session.mark;
    const init = await session.initialize({ capabilities: cannedCapabilities(), withholdInitialized: true });
    if (init.kind !== 'result') return check.skip(`not exercised: initialize got ${describeReply(init)}`, { key: 'quiet' });
    const isEarlyRequest = (f: { message?: unknown }) => isObject(f.message) && typeof f.message.method === 'string' && 'id' in f.message && !mayRequestBeforeInitialized(f.message.method);
    const early = await session.waitForFrame(isEarlyRequest, BEFORE_INITIALIZED_MS, mark);
    check.expect(early === undefined, {
      key: 'quiet',
      requirements: ['LIFE-INIT-05'],
      expected: `no request other than ping in the ${BEFORE_INITIALIZED_MS} ms after the initialize response, with notifications/initialized withheld and roots, sampling and elicitation declared`,
      actual: early && isObject(early.message) ? `the server sent ${show(early.message.method)} before notifications/initialized` : `no request in ${BEFORE_INITIALIZED_MS} ms`,
      frames: [early?.index],
    });
  },
});

const FEATURES = [
  { capability: 'tools', method: 'tools/list', params: {}, rule: 'TOOL-CAP-01' },
  { capability: 'resources', method: 'resources/list', params: {}, rule: 'RES-CAP-01' },
  { capability: 'prompts', method: 'prompts/list', params: {}, rule: 'PROMPT-CAP-01' },
  { capability: 'logging', method: 'logging/setLevel', params: { level: 'debug' }, rule: 'LIFE-OP-02' },
] as const;

/** Declared ⇒ served; undeclared ⇒ refused (−32601 or another error). */
export const capabilitiesHonoured = scenario({
  id: 'server.lifecycle.capabilities-honoured',
  title: 'Declared capabilities are served and undeclared ones refused',
  requirements: ['LIFE-OP-02', ...FEATURES.map((f) => f.rule).filter((r) => r !== 'LIFE-OP-02'), 'COMP-CAP-01'],
  isolation: 'shared',
  async run({ session, check, discovery }) {
    for (const f of FEATURES) {
      const reply = await session.request(f.method, f.params);
      if (f.capability in discovery.capabilities) {
        check.expect(reply.kind === 'result', {
          key: `${f.capability}-served`,
          requirements: ['LIFE-OP-02'],
          expected: `${f.method} answered with a result, since the server declared ${f.capability}`,
          actual: describeReply(reply),
          frames: [replyFrame(reply)],
          replies: [reply],
        });
      } else {
        if (reply.kind === 'malformed-result') {
          check.skip(`not judged: ${f.method} was neither refused nor served, the answer is malformed (${describeReply(reply)}; see live.BASE-RES-02)`, { key: `${f.capability}-refused`, requirements: [...new Set([f.rule, 'LIFE-OP-02'])], frames: [reply.frame] });
          continue;
        }
        check.isError(reply, {
          key: `${f.capability}-refused`,
          requirements: [...new Set([f.rule, 'LIFE-OP-02'])],
          what: `${f.method}, which the server did not declare (${f.capability}; a server offering it must declare it)`,
        });
      }
    }
    if (!('completions' in discovery.capabilities)) {
      const reply = await session.request('completion/complete', { ref: { type: 'ref/prompt', name: 'mcpcheck_no_such_prompt' }, argument: { name: 'x', value: '' } });
      // A malformed answer (result: null) neither refuses nor serves: BASE-RES-02 judges it, not this.
      if (reply.kind === 'malformed-result') {
        check.skip(`not judged: completion/complete was neither refused nor served, the answer is malformed (${describeReply(reply)}; see live.BASE-RES-02)`, { key: 'completions-refused', requirements: ['COMP-CAP-01', 'LIFE-OP-02'], frames: [reply.frame] });
      } else check.isError(reply, { key: 'completions-refused', requirements: ['COMP-CAP-01', 'LIFE-OP-02'], what: 'completion/complete, which the server did not declare (completions)' });
    }
  },
});

export const lifecycle = [versionNegotiation, beforeInitialize, noRequestsBeforeInitialized, capabilitiesHonoured];
