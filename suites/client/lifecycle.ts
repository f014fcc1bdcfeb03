import { clientScenario, type ClientScenario, isObject, isRevision, LATEST_REVISION, REVISIONS, show, sleep } from '../kit.js';
import { answerTo, handshake, methodOf, requestsSince, violations, WAIT_MS } from './helpers.js';

export const clientHandshake = clientScenario({
  id: 'client.lifecycle.handshake',
  alias: 'initialize',
  title: 'The client opens with an initialize request holding protocolVersion, capabilities and clientInfo, and sends notifications/initialized after the response',
  requirements: ['LIFE-INIT-01', 'LIFE-INIT-03', 'LIFE-VER-01'],
  steps: [{ do: 'list-tools' }],
  async run({ session, check }) {
    const { init, initialized: done } = await handshake(session);
    const first = session.peerFrames()[0];
    const broken = violations(session, 'LIFE-INIT-01', [first?.index]);
    check.expect(init !== undefined && first === init && broken.length === 0, {
      key: 'initialize-first',
      requirements: ['LIFE-INIT-01'],
      expected: 'the first message an initialize request with protocolVersion, capabilities and clientInfo (name, version)',
      actual: !first ? 'no message' : broken.length ? broken.map((f) => f.message).join('; ') : `the first message was ${show(first.message ?? first.raw)}`,
      frames: [first?.index],
    });
    if (!init) return;
    const asked = isObject(init.message) && isObject(init.message.params) ? init.message.params.protocolVersion : undefined;
    check.expect(isRevision(asked), {
      key: 'version',
      requirements: ['LIFE-VER-01'],
      expected: `protocolVersion one of the MCP revisions (${REVISIONS.join(', ')})`,
      actual: show(asked),
      frames: [init.index],
    });
    check.expect(done !== undefined, {
      key: 'initialized',
      requirements: ['LIFE-INIT-03'],
      expected: 'notifications/initialized after the initialize response',
      actual: done ? 'sent' : `nothing within ${WAIT_MS} ms`,
      frames: [done?.index ?? init.index],
    });
    // The step's tools/list is the first request in session: the live checks judge it too (its
    // _meta, id, headers), so the scenario lasts until it came, not only until the handshake did.
    await session.waitForMethod('tools/list', WAIT_MS, (done ?? init).index);
  },
});

const INIT_DELAY_MS = 500;

export const clientWaitsForInitializeResponse = clientScenario({
  id: 'client.lifecycle.waits-for-initialize-response',
  title: 'Until the initialize response arrives, the client sends no request except ping',
  requirements: ['LIFE-INIT-04'],
  steps: [{ do: 'list-tools' }],
  serve(session) {
    const answer = session.handler('initialize');
    // A pause gives a client that does not wait the chance to show it.
    session.handle('initialize', async (params, request) => {
      await sleep(INIT_DELAY_MS);
      return answer(params, request);
    });
  },
  async run({ session, check }) {
    const init = await session.waitForMethod('initialize', WAIT_MS);
    if (!init) return check.error(`could not run: the client sent no initialize within ${WAIT_MS} ms`);
    await sleep(INIT_DELAY_MS + 200);
    const ours = answerTo(session, init);
    if (!ours) return check.error('could not run: mcpcheck sent no initialize response');
    const early = requestsSince(session, init.index + 1).filter((f) => f.index < ours.index);
    check.expect(early.length === 0, {
      expected: `no request but ping in the ${INIT_DELAY_MS} ms before the initialize response`,
      actual: early.length ? `sent ${early.map(methodOf).join(', ')} first` : 'none',
      frames: [early[0]?.index ?? init.index],
    });
  },
});

/** The revision before `asked` among those mcpcheck knows (the oldest when `asked` is unknown or the oldest). */
function olderThan(asked: unknown): string {
  const i = REVISIONS.indexOf(asked as (typeof REVISIONS)[number]);
  return REVISIONS[Math.max(0, (i < 0 ? REVISIONS.length - 1 : i) - 1)]!;
}

export const clientOlderVersion = clientScenario({
  id: 'client.lifecycle.older-version',
  title: 'Answered with an older revision it supports, the client keeps to that negotiated version',
  requirements: ['LIFE-OP-01'],
  steps: [{ do: 'list-tools' }],
  serve(session) {
    session.chooseVersion = olderThan;
  },
  async run({ session, check }) {
    const init = await session.waitForMethod('initialize', WAIT_MS);
    if (!init) return check.error(`could not run: the client sent no initialize within ${WAIT_MS} ms`);
    const done = await session.waitForMethod('notifications/initialized', WAIT_MS, init.index);
    const next = done ? await session.waitForFrame((f) => methodOf(f) !== undefined && f.index > done.index && methodOf(f) !== 'ping', WAIT_MS, done.index + 1) : undefined;
    if (!done || !next) {
      return check.skip(`the client did not go on in ${session.negotiated} (it may not support that revision; LIFE-VER-06 lets it disconnect)`);
    }
    const after = session.peerFrames(init.index + 1).map((f) => f.index);
    const broken = violations(session, 'LIFE-OP-01', after);
    check.expect(broken.length === 0, {
      expected: `everything after initialize within revision ${session.negotiated}`,
      actual: broken.map((f) => f.message).join('; ') || 'kept to it',
      frames: [broken[0]?.frame ?? next.index],
    });
  },
});

const UNSUPPORTED = '1999-01-01';
const DISCONNECT_MS = 5_000;

export const clientUnsupportedVersion = clientScenario({
  id: 'client.lifecycle.unsupported-version',
  title: "If the server's chosen version is unsupported, the client disconnects",
  requirements: ['LIFE-VER-06'],
  steps: [{ do: 'list-tools' }],
  serve(session) {
    session.chooseVersion = () => UNSUPPORTED;
  },
  async run({ session, check, exited, stdioEvents, exchanges, transport }) {
    const init = await session.waitForMethod('initialize', WAIT_MS);
    if (!init) return check.error(`could not run: the client sent no initialize within ${WAIT_MS} ms`);
    const exit = await exited(DISCONNECT_MS);
    // What the client sent before it saw the answer is no reaction to it.
    const answered = answerTo(session, init);
    const more = answered ? requestsSince(session, answered.index + 1) : [];
    const hungUp = exit !== undefined || (transport === 'stdio' ? stdioEvents.some((e) => e.kind === 'stdin-closed') : exchanges.some((e) => e.method === 'DELETE'));
    check.expect(more.length === 0 && hungUp, {
      expected: `after an initialize answered with protocolVersion ${UNSUPPORTED}: no further request, and the client disconnects within ${DISCONNECT_MS} ms`,
      actual: more.length ? `went on with ${more.map(methodOf).join(', ')}` : hungUp ? 'disconnected' : `sent nothing more but stayed connected for ${DISCONNECT_MS} ms`,
      frames: [more[0]?.index ?? init.index],
    });
  },
});

export const clientNewestVersion = clientScenario({
  id: 'client.lifecycle.newest-version',
  title: 'The protocolVersion the client asks for is the newest it supports',
  requirements: ['LIFE-VER-02'],
  steps: [{ do: 'list-tools' }],
  serve(session) {
    // Whatever it asks for, the client is answered with the newest revision: if it goes on in
    // that one, it supports it, and should have asked for it.
    session.chooseVersion = () => LATEST_REVISION;
  },
  async run({ session, check }) {
    const init = await session.waitForMethod('initialize', WAIT_MS);
    if (!init) return check.error(`could not run: the client sent no initialize within ${WAIT_MS} ms`);
    const asked = isObject(init.message) && isObject(init.message.params) ? init.message.params.protocolVersion : undefined;
    if (asked === LATEST_REVISION) return void check.expect(true, { expected: `the newest revision there is (${LATEST_REVISION})`, actual: String(asked), frames: [init.index] });
    const done = await session.waitForMethod('notifications/initialized', WAIT_MS, init.index);
    const next = done ? await session.waitForFrame((f) => f.index > done.index && methodOf(f) !== undefined && methodOf(f) !== 'ping', WAIT_MS, done.index + 1) : undefined;
    check.expect(next === undefined, {
      expected: `the newest version the client supports; it asked for ${show(asked)}`,
      actual: next ? `answered with ${LATEST_REVISION}, it went on (${methodOf(next)}): it supports ${LATEST_REVISION}, yet asked for ${show(asked)}` : `answered with ${LATEST_REVISION}, it did not go on`,
      frames: [next?.index ?? init.index],
    });
  },
});

export const clientLifecycle: ClientScenario[] = [clientHandshake, clientWaitsForInitializeResponse, clientNewestVersion, clientOlderVersion, clientUnsupportedVersion];
