import { cannedCapabilities, type CheckRecorder, type ClientSession, describeErrors, describeReply, type Discovery, isObject, isRevision, LATEST_REVISION, list, mayRequestBeforeInitialized, MODERN, notAProtocolVersion, type Reply, replyFrame, REVISIONS, ruling, scenario, type ScenarioContext, schemaFor, show, unsupportedVersionErrorRuling } from '../kit.js';
import { completionTargets, type CompletionTarget, isEmptyResult, offersNothing, PING_LIMIT_MS, promptPing, sessionless } from './helpers.js';

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

/** Every ROBUST-02 message says where the rule comes from: a sentence binding the client. */
const ROBUST_02_DERIVED = `ROBUST-02 is derived from the lifecycle page's "the client SHOULD NOT send requests other than pings before the server has responded to the initialize request", a sentence that binds the client; ${ruling('requests-before-initialize').cite}`;

/** Why ROBUST-02 is not exercised on a Streamable HTTP server without sessions (same ruling). */
const SESSIONLESS = 'not exercised: the server issued no MCP-Session-Id at initialize, so each POST stands alone';

/** Probe requests that must be refused before initialize; ping is the one allowed exception. */
export const beforeInitialize = scenario({
  id: 'server.lifecycle.before-initialize',
  title: 'Requests before initialize are refused, ping is answered before initialized, a second initialize is refused or harmless',
  requirements: ['ROBUST-02', 'PING-01'],
  isolation: 'session',
  async run({ session, check, discovery }) {
    const probeMethod = 'tools' in discovery.capabilities ? 'tools/list' : 'prompts' in discovery.capabilities ? 'prompts/list' : 'resources/list';
    const early = await session.request(probeMethod, {}, 5_000);
    const init = await session.initialize({ capabilities: {}, withholdInitialized: true });
    // Known only once initialize is answered: whether the server keeps sessions at all.
    const stateless = init.kind === 'result' && sessionless(session);
    if (stateless) {
      check.skip(`${SESSIONLESS}, and none is "before initialize": ${probeMethod} sent first got ${describeReply(early)} (${ROBUST_02_DERIVED})`, { key: 'refused', requirements: ['ROBUST-02'], frames: [replyFrame(early)] });
      check.skip(`${SESSIONLESS}, and the initialize after ${probeMethod} shares no session with it (${ROBUST_02_DERIVED})`, { key: 'initialize-after', requirements: ['ROBUST-02'], frames: [replyFrame(init)] });
    } else {
      check.isError(early, { key: 'refused', requirements: ['ROBUST-02'], what: `${probeMethod} sent before initialize (${ROBUST_02_DERIVED})` });
      check.isResult(init, { key: 'initialize-after', requirements: ['ROBUST-02'], what: `initialize after the request sent before it (the server stays usable; ${ROBUST_02_DERIVED})` });
    }
    if (init.kind !== 'result') return;
    const { reply: ping, ms, says } = await promptPing(session);
    check.expect(isEmptyResult(ping) && ms <= PING_LIMIT_MS, {
      key: 'ping-before-initialized',
      requirements: ['PING-01'],
      expected: `ping, sent between the initialize response and notifications/initialized, answered with {} within ${PING_LIMIT_MS} ms`,
      actual: `${describeReply(ping)} ${says}`,
      frames: [replyFrame(ping)],
      replies: [ping],
    });
    await session.notify('notifications/initialized');
    if (stateless) {
      return check.skip(`${SESSIONLESS}, and there is no initialized session for a second initialize to come in (${ROBUST_02_DERIVED})`, { key: 'second-initialize', requirements: ['ROBUST-02'] });
    }
    const again = await session.request('initialize', { protocolVersion: LATEST_REVISION, capabilities: {}, clientInfo: { name: 'mcpcheck', version: '0.1.0' } }, 5_000);
    const after = await session.request('ping', undefined, 5_000);
    check.expect(after.kind === 'result' && again.kind !== 'timeout' && again.kind !== 'unanswered' && again.kind !== 'closed', {
      key: 'second-initialize',
      requirements: ['ROBUST-02'],
      expected: `a second initialize refused (or answered) and the session still usable (ping answered; no sentence of the spec covers a second initialize, ${ROBUST_02_DERIVED})`,
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

/**
 * The features a client asks for only when the server declared them, and the server's own rules
 * for each: "a server offering X declares X" (`undeclared`), and the listing method's rule for
 * what it answers (`served`). Asking an undeclared one breaks LIFE-OP-02, which binds the sender
 * (mcpcheck here), never the server; the server is judged by whether it serves what it did not
 * declare, and (ruling declared-capability-served, SHOULD) whether it serves what it declared.
 * logging/setLevel has no "offering" rule (LOG-CAP-01 is about emitting log messages, which the
 * live validator judges), so it is probed only where declared.
 */
const FEATURES = [
  { capability: 'tools', method: 'tools/list', params: {}, listed: 'tools', served: 'TOOL-LIST-01', undeclared: 'TOOL-CAP-01' },
  { capability: 'resources', method: 'resources/list', params: {}, listed: 'resources', served: 'RES-LIST-01', undeclared: 'RES-CAP-01' },
  { capability: 'prompts', method: 'prompts/list', params: {}, listed: 'prompts', served: 'PROMPT-LIST-01', undeclared: 'PROMPT-CAP-01' },
  { capability: 'logging', method: 'logging/setLevel', params: { level: 'debug' }, listed: undefined, served: 'LOG-SET-01', undeclared: undefined },
] as const;

type Feature = (typeof FEATURES)[number];

/**
 * Declared ⇒ served; undeclared ⇒ not offered: each of `features`, then completions. `notFound`:
 * the rule, where the era has one, that names the refusal's code (−32601, on HTTP with 404).
 */
async function honourCapabilities({ session, check, discovery }: ScenarioContext, features: readonly Feature[], notFound?: 'DISC-CAP-02'): Promise<void> {
  for (const f of features) {
    const declared = f.capability in discovery.capabilities;
    if (!declared && f.undeclared === undefined) continue;
    const reply = await session.request(f.method, f.params);
    if (declared) {
      check.expect(reply.kind === 'result', {
        key: `${f.capability}-served`,
        requirements: [f.served],
        level: 'SHOULD',
        expected: `${f.method} answered with a result, since the server declared ${f.capability} (${ruling('declared-capability-served').cite})`,
        actual: describeReply(reply),
        frames: [replyFrame(reply)],
        replies: [reply],
      });
      continue;
    }
    const key = `${f.capability}-refused`;
    if (reply.kind === 'malformed-result') {
      check.skip(`not judged: ${f.method} was neither refused nor served, the answer is malformed (${describeReply(reply)}; see live.BASE-RES-02)`, { key, requirements: [f.undeclared!], frames: [reply.frame] });
    } else if (offersNothing(reply, f.listed!)) {
      // As with completions: an empty list offers nothing, so "a server offering X" does not apply.
      check.skip(`not exercised: ${f.method} answered with an empty list (${describeReply(reply)}), so the server offers no ${f.capability} and ${f.undeclared} does not apply`, { key, requirements: [f.undeclared!], frames: [replyFrame(reply)] });
    } else {
      const what = `${f.method}, which the server did not declare (${f.capability}; a server offering it must declare it)`;
      const refused = check.isError(reply, { key, requirements: [f.undeclared!], what });
      if (refused && notFound) methodNotFound(check, reply, session.channel.kind === 'http', `${f.capability}-method-not-found`, what);
    }
  }
  if (!('completions' in discovery.capabilities)) await undeclaredCompletions(session, check, discovery, notFound);
}

/** The refusal of a method the server did not advertise: −32601, and over HTTP status 404 (DISC-CAP-02). */
function methodNotFound(check: CheckRecorder, reply: Reply, http: boolean, key: string, what: string): void {
  const status = reply.kind === 'rejected' ? reply.status : undefined;
  check.expect(errorCode(reply) === -32601 && (!http || status === 404), {
    key,
    requirements: ['DISC-CAP-02'],
    expected: `${what}: a JSON-RPC error with code −32601${http ? ' as the body of HTTP status 404' : ''}`,
    actual: describeReply(reply),
    frames: [replyFrame(reply)],
    replies: [reply],
  });
}

export const capabilitiesHonoured = scenario({
  id: 'server.lifecycle.capabilities-honoured',
  title: 'Declared capabilities are served and undeclared ones not offered',
  requirements: ['TOOL-LIST-01', 'RES-LIST-01', 'PROMPT-LIST-01', 'LOG-SET-01', 'TOOL-CAP-01', 'RES-CAP-01', 'PROMPT-CAP-01', 'COMP-CAP-01', 'COMP-ERR-01'],
  isolation: 'shared',
  run: (ctx) => honourCapabilities(ctx, FEATURES),
});

/** The same in 2026-07-28, against the DiscoverResult's capabilities; logging/setLevel is gone (a per-request logLevel instead). */
export const modernCapabilitiesHonoured = scenario({
  id: 'server.modern.lifecycle.capabilities-honoured',
  title: 'Capabilities declared in server/discover are served and undeclared ones not offered',
  requirements: ['TOOL-LIST-01', 'RES-LIST-01', 'PROMPT-LIST-01', 'TOOL-CAP-01', 'RES-CAP-01', 'PROMPT-CAP-01', 'COMP-CAP-01', 'COMP-ERR-01', 'DISC-CAP-02'],
  isolation: 'shared',
  revisions: MODERN,
  run: (ctx) => honourCapabilities(ctx, FEATURES.filter((f) => f.method !== 'logging/setLevel'), 'DISC-CAP-02'),
});

/** How many prompt arguments or template variables an undeclared completion is asked for: enough to see it served. */
const UNDECLARED_COMPLETION_PROBES = 3;

/** Asked when the server lists nothing to complete: only the error code can be judged then. */
const NO_SUCH_PROMPT: CompletionTarget = { ref: { type: 'ref/prompt', name: 'mcpcheck_no_such_prompt' }, argument: 'x', label: 'prompt mcpcheck_no_such_prompt argument x' };

function completionValues(reply: Reply): unknown[] {
  if (reply.kind !== 'result' || !isObject(reply.result.completion)) return [];
  const values = reply.result.completion.values;
  return Array.isArray(values) ? values : [];
}

function errorCode(reply: Reply): unknown {
  return reply.kind === 'error' || reply.kind === 'rejected' ? reply.error?.code : undefined;
}

/**
 * A server that did not declare completions, asked for some anyway. mcpcheck's request breaks
 * LIFE-OP-02, which binds the sender, never the server. The server breaks COMP-CAP-01 only by
 * really serving completions (values) undeclared; an empty result shows no support, and for a
 * server without support COMP-ERR-01 asks for −32601 (a SHOULD).
 */
async function undeclaredCompletions(session: ClientSession, check: CheckRecorder, discovery: Discovery, notFound?: 'DISC-CAP-02'): Promise<void> {
  const targets = completionTargets(discovery).slice(0, UNDECLARED_COMPLETION_PROBES);
  const asked: Array<{ t: CompletionTarget; reply: Reply }> = [];
  for (const t of targets.length > 0 ? targets : [NO_SUCH_PROMPT]) {
    asked.push({ t, reply: await session.request('completion/complete', { ref: t.ref, argument: { name: t.argument, value: '' } }) });
  }
  const replies = asked.map((a) => a.reply);
  const shown = asked.map((a) => `${a.t.label} → ${describeReply(a.reply)}`);
  // A malformed answer (result: null) neither refuses nor serves: BASE-RES-02 judges it, not this.
  const malformed = asked.find((a) => a.reply.kind === 'malformed-result');
  if (malformed) {
    const why = `not judged: completion/complete was neither refused nor served, the answer is malformed (${describeReply(malformed.reply)}; see live.BASE-RES-02)`;
    check.skip(why, { key: 'completions-undeclared', requirements: ['COMP-CAP-01'], frames: [replyFrame(malformed.reply)] });
    check.skip(why, { key: 'completions-not-supported', requirements: ['COMP-ERR-01'], frames: [replyFrame(malformed.reply)] });
    return;
  }
  const served = asked.filter((a) => completionValues(a.reply).length > 0);
  if (targets.length === 0) {
    check.skip('not exercised: the server lists no prompt argument or resource-template variable, so asking for completions shows nothing it serves', { key: 'completions-undeclared', requirements: ['COMP-CAP-01'] });
  } else if (served.length === 0 && asked.some((a) => a.reply.kind === 'result')) {
    check.skip(`not exercised: completion/complete answered with no values shows no completions offered (${list(shown, 3)}); COMP-ERR-01 judges the answer`, {
      key: 'completions-undeclared',
      requirements: ['COMP-CAP-01'],
      frames: replies.map(replyFrame),
    });
  } else {
    check.expect(served.length === 0, {
      key: 'completions-undeclared',
      requirements: ['COMP-CAP-01'],
      expected: `completion/complete not served with values by a server that did not declare completions (a server offering argument completion must declare it; mcpcheck asking breaks LIFE-OP-02, which binds mcpcheck, not the server): asked for ${list(targets.map((t) => t.label), 3)}`,
      actual: list(served.map((a) => `${a.t.label} → ${completionValues(a.reply).length} value(s): ${describeReply(a.reply)}`), 3),
      frames: replies.map(replyFrame),
      replies,
    });
  }
  // A server that serves completions supports the capability: −32601 for "not supported" does not apply.
  if (served.length > 0) return;
  const wrong = asked.filter((a) => errorCode(a.reply) !== -32601);
  const refused = check.expect(wrong.length === 0, {
    key: 'completions-not-supported',
    requirements: ['COMP-ERR-01'],
    expected: 'completion/complete, from a server that did not declare completions, refused with −32601 (capability not supported); a result without values shows no support either, but the spec asks for the error',
    actual: list(wrong.map((a) => `${a.t.label} → ${describeReply(a.reply)}`), 3),
    frames: replies.map(replyFrame),
    replies,
  });
  if (refused && notFound) methodNotFound(check, asked[0]!.reply, session.channel.kind === 'http', 'completions-method-not-found', 'completion/complete, which the server did not declare (completions)');
}

export const lifecycle = [versionNegotiation, beforeInitialize, noRequestsBeforeInitialized, capabilitiesHonoured, modernCapabilitiesHonoured];
