import type { ServerSession } from '../../src/harness/server-session.js';
import { DEFAULT_TOOLS } from '../../src/harness/server-session.js';
import { clientScenario, type ClientScenario } from '../../src/runner/client-scenario.js';
import { countingListener, initialized, type Listener, sleep, WAIT_MS } from './helpers.js';

const listeners = new WeakMap<ServerSession, { safe: Listener; unsafe: Listener }>();
/** How long a client that renders icons gets to fetch them after listing the tools. */
const FETCH_MS = 1_500;

export const clientIconSchemes = clientScenario({
  id: 'client.icons.unsafe-schemes',
  title: 'A client accepts only https: or data: icon URIs and never fetches icons with unsafe schemes (http:, ftp:, javascript:, file:)',
  requirements: ['ICON-URI-01'],
  steps: [{ do: 'list-tools' }, { do: 'wait', ms: FETCH_MS }],
  async serve(session) {
    const safe = await countingListener();
    const unsafe = await countingListener();
    session.channel.onClose(() => {
      safe.server.close();
      unsafe.server.close();
    });
    listeners.set(session, { safe: safe.listener, unsafe: unsafe.listener });
    // The unsafe ones break ICON-FMT-03 (mcpcheck, the producer, on purpose): they are the probe.
    const icons = [
      { src: `https://127.0.0.1:${safe.listener.port}/icon.png`, mimeType: 'image/png' },
      { src: `http://127.0.0.1:${unsafe.listener.port}/icon.png`, mimeType: 'image/png' },
      { src: `ftp://127.0.0.1:${unsafe.listener.port}/icon.png`, mimeType: 'image/png' },
      { src: 'javascript:alert(1)', mimeType: 'image/png' },
      { src: 'file:///etc/hostname', mimeType: 'image/png' },
    ];
    session.tools = [{ ...DEFAULT_TOOLS[0]!, icons }, ...DEFAULT_TOOLS.slice(1)];
  },
  async run(ctx) {
    const { session, check } = ctx;
    if (!(await initialized(ctx))) return;
    const listed = await session.waitForMethod('tools/list', WAIT_MS);
    if (!listed) return check.skip('the client did not list the tools, so it saw no icons');
    await sleep(FETCH_MS);
    const { safe, unsafe } = listeners.get(session)!;
    if (unsafe.connections > 0) {
      return void check.expect(false, {
        expected: 'no connection to the http: or ftp: icon',
        actual: `${unsafe.connections} connection(s) to 127.0.0.1:${unsafe.port}, where only the http: and ftp: icons point`,
        frames: [listed.index],
      });
    }
    // Without a fetch of the https: icon, a client that rejects unsafe schemes and one that renders no icons look alike.
    if (safe.connections === 0) return check.skip('the client fetched no icon at all (not even the https: one), so it showed nothing about which schemes it accepts');
    check.expect(true, {
      expected: 'only the https: icon fetched',
      actual: `${safe.connections} connection(s) to the https: icon, none to the http: or ftp: one`,
      frames: [listed.index],
    });
  },
});

export const clientIcons: ClientScenario[] = [clientIconSchemes];
