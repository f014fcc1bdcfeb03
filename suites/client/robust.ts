import { clientScenario, type ClientScenario, isObject, type RecordedFrame } from '../kit.js';
import { callOf, conversing, methodOf, serveHeldTool, WAIT_MS } from './helpers.js';

const HANG_TOOL = { name: 'hang_then_die', description: 'The server dies while this call is pending.', inputSchema: { type: 'object', properties: {} } };
const NOTICE_MS = 5_000;

export const clientServerDies = clientScenario({
  id: 'client.robust.server-dies',
  title: 'A client notices a server that exits or drops the connection mid-request, and reports it instead of hanging',
  requirements: ['ROBUST-07'],
  carriedOver: true,
  steps: [{ do: 'call-tool', name: HANG_TOOL.name, arguments: {} }],
  serve(session) {
    serveHeldTool(session, HANG_TOOL);
  },
  async run(ctx) {
    const { session, check } = ctx;
    if (!(await conversing(ctx))) return;
    // The held tool's call, not any call: one mcpcheck answers is no request pending when the server goes.
    const pending = await session.waitForFrame(callOf(HANG_TOOL.name), WAIT_MS);
    if (!pending) return check.skip(`the client never called ${HANG_TOOL.name}, so no request was pending when the server went`);
    // stdio: the server process exits; HTTP: the endpoint goes away with the connection.
    if (session.channel.die) await session.channel.die(1);
    else await session.channel.close();
    const exit = await ctx.exited(NOTICE_MS);
    check.expect(exit !== undefined, {
      expected: `the client exits (reporting the lost server) within ${NOTICE_MS} ms of losing it mid-request`,
      actual: exit ? `exited (${exit.signal ?? `code ${exit.code}`})` : `still running after ${NOTICE_MS} ms`,
      frames: [pending.index],
    });
  },
});

/** A notification method no client knows (ROBUST-04), sent before mcpcheck answers the client's tools/list. */
const UNKNOWN_NOTIFICATION = 'notifications/mcpcheck/unknown';

/** A response with no id, or id null: all a client can answer a notification with (BASE-NOTIF-02 says it never does). */
function answersNotification(f: RecordedFrame): boolean {
  const m = isObject(f.message) ? f.message : undefined;
  return m !== undefined && !('method' in m) && ('result' in m || 'error' in m) && (m.id === null || !('id' in m));
}

export const clientIgnoresUnknownNotification = clientScenario({
  id: 'client.robust.unknown-notification',
  title: 'A notification of a method the client does not know is ignored: never answered, and the client goes on',
  requirements: ['ROBUST-04', 'BASE-NOTIF-02'],
  carriedOver: true,
  // Over HTTP a notification needs a stream, and a 2026-07-28 request is answered with a JSON body.
  needs: { transport: 'stdio' },
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'echo', arguments: { text: 'after the notification' } }],
  serve(session) {
    const list = session.handler('tools/list');
    let sent = false;
    session.handle('tools/list', async (params, request) => {
      if (!sent) {
        sent = true;
        await session.notify(UNKNOWN_NOTIFICATION, { note: 'mcpcheck: a notification no client knows' });
      }
      return list(params, request);
    });
  },
  async run(ctx) {
    const { session, check } = ctx;
    if (!(await conversing(ctx))) return;
    const listed = await session.waitForMethod('tools/list', WAIT_MS);
    const next = listed && (await session.waitForMethod('tools/call', WAIT_MS, listed.index + 1));
    // mcpcheck's own frames: the notification went out before the tools/list answer.
    const notified = listed && session.frames.find((f) => f.index > listed.index && f.from === 'server' && methodOf(f) === UNKNOWN_NOTIFICATION);
    if (!notified) {
      for (const key of ['ignored', 'unanswered']) check.skip(`not exercised: the client listed no tools, so mcpcheck sent no ${UNKNOWN_NOTIFICATION}`, { key });
      return;
    }
    check.expect(next !== undefined, {
      key: 'ignored',
      requirements: ['ROBUST-04'],
      expected: `the client goes on (tools/call of echo) after ${UNKNOWN_NOTIFICATION} came before its tools/list answer`,
      actual: next ? 'it did' : `no tools/call within ${WAIT_MS} ms`,
      frames: [notified.index, next?.index],
    });
    const answers = session.peerFrames(notified.index + 1).filter(answersNotification);
    check.expect(answers.length === 0, {
      key: 'unanswered',
      requirements: ['BASE-NOTIF-02'],
      expected: `no response to ${UNKNOWN_NOTIFICATION} (a notification is never answered)`,
      actual: answers.length ? `${answers.length} response(s) without id, e.g. frame ${answers[0]!.index}` : 'none',
      frames: [notified.index, ...answers.map((f) => f.index)],
    });
  },
});

export const clientRobust: ClientScenario[] = [clientServerDies, clientIgnoresUnknownNotification];
