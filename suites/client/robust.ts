import { clientScenario, type ClientScenario } from '../kit.js';
import { callOf, conversing, serveHeldTool, WAIT_MS } from './helpers.js';

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

export const clientRobust: ClientScenario[] = [clientServerDies];
