import { randomUUID } from 'node:crypto';
import { clientScenario, type ClientScenario, type ClientScenarioContext, type RecordedFrame, replyFrame, type ServerSession } from '../kit.js';
import { PING_LIMIT_MS, timedPing } from '../common.js';
import { ASKING_TOOL, holdAnswers, initialized, isAskingCall, type Listener, release, serveAskingTool, sessionListener, WAIT_MS } from './helpers.js';
import { BOMB_SIDE, bombPng, dataUri, gif, GIF_FRAMES, manyFrameGif, namesDataUri } from './icon-bytes.js';
import { hostedIcon, iconHost, type IconHost } from './icon-host.js';
import { answeredInTime, describeTimed, evidenceIcon, FETCH_MS, listedAndFetched, pingReachedAtOnce, RENDER_START_MS, rendered, rendersNoIcons, toolsWithIcons } from './icon-helpers.js';

// Out of scope here: ICON-URI-03 (same origin) cannot be shown from an http: endpoint, which
// cannot host a same-origin https: icon; ICON-SEC-03 (sniffing, allow-list) and ICON-MIME-01/02
// show only in what a client draws.

const schemeListeners = new WeakMap<ServerSession, { safe: Listener; unsafe: Listener }>();

export const clientIconSchemes = clientScenario({
  id: 'client.icons.unsafe-schemes',
  title: 'A client accepts only https: or data: icon URIs and never fetches icons with unsafe schemes (http:, ftp:, javascript:, file:)',
  requirements: ['ICON-URI-01'],
  steps: [{ do: 'list-tools' }, { do: 'wait', ms: FETCH_MS }],
  async serve(session) {
    const safe = await sessionListener(session);
    const unsafe = await sessionListener(session);
    schemeListeners.set(session, { safe, unsafe });
    // The unsafe ones break ICON-FMT-03 (mcpcheck, the producer, on purpose): they are the probe.
    const icons = [
      evidenceIcon(safe),
      { src: `http://127.0.0.1:${unsafe.port}/icon.png`, mimeType: 'image/png' },
      { src: `ftp://127.0.0.1:${unsafe.port}/icon.png`, mimeType: 'image/png' },
      { src: 'javascript:alert(1)', mimeType: 'image/png' },
      { src: 'file:///etc/hostname', mimeType: 'image/png' },
    ];
    session.tools = toolsWithIcons(icons);
  },
  async run(ctx) {
    const { session, check } = ctx;
    const { safe, unsafe } = schemeListeners.get(session)!;
    const listed = await listedAndFetched(ctx, safe);
    if (!listed) return;
    if (unsafe.connections > 0) {
      return void check.expect(false, {
        expected: 'no connection to the http: or ftp: icon',
        actual: `${unsafe.connections} connection(s) to 127.0.0.1:${unsafe.port}, where only the http: and ftp: icons point`,
        frames: [listed.index],
      });
    }
    // Without a fetch of the https: icon, a client that rejects unsafe schemes and one that renders no icons look alike.
    if (safe.connections === 0) return check.skip(rendersNoIcons('which schemes it accepts'));
    check.expect(true, {
      expected: 'only the https: icon fetched',
      actual: `${safe.connections} connection(s) to the https: icon, none to the http: or ftp: one`,
      frames: [listed.index],
    });
  },
});

const hostile = new WeakMap<ServerSession, { safe: Listener; answerList: () => void }>();

export const clientIconHostileData = clientScenario({
  id: 'client.icons.hostile-data',
  title: 'A client withstands hostile data: icons (a PNG claiming 50000×50000 over a decompression bomb, a GIF of thousands of frames) and keeps answering ping',
  requirements: ['ICON-SEC-02'],
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: ASKING_TOOL.name, arguments: {} }],
  // Its call is held while mcpcheck waits for the icons to be rendered.
  waitsMs: RENDER_START_MS + FETCH_MS,
  async serve(session) {
    const safe = await sessionListener(session);
    serveAskingTool(session);
    // tools/list is answered only after a ping the client answers: that it answered before it saw the icons is what makes a silence afterwards theirs.
    hostile.set(session, { safe, answerList: holdAnswers(session, 'tools/list') });
    const icons = [evidenceIcon(safe), { src: dataUri('image/png', bombPng()), mimeType: 'image/png' }, { src: dataUri('image/gif', manyFrameGif()), mimeType: 'image/gif' }];
    session.tools = [ASKING_TOOL, ...toolsWithIcons(icons)];
  },
  async run(ctx) {
    const { session, check } = ctx;
    const { safe, answerList } = hostile.get(session)!;
    if (!(await initialized(ctx))) return answerList();
    const listed = await session.waitForMethod('tools/list', WAIT_MS);
    if (!listed) return check.skip('the client did not list the tools, so it saw no icons');
    const before = await timedPing(session);
    answerList();
    if (!answeredInTime(before)) {
      return check.skip(`the client did not answer a ping while it waited for tools/list either (${describeTimed(before)}; see client.utilities.ping), so a silence after the icons would not be theirs`);
    }
    const rendering = await rendered(ctx, safe);
    const call = await session.waitForFrame((f) => f.index > listed.index && isAskingCall(f), WAIT_MS, listed.index + 1);
    const after = await timedPing(session);
    release(session);
    const what = `bomb PNG (${BOMB_SIDE}×${BOMB_SIDE}) and ${GIF_FRAMES}-frame GIF data: icons`;
    if (!rendering) return check.skip(rendersNoIcons('how it treats icon bytes'));
    const expected = `a ping sent ${FETCH_MS} ms after the client fetched the https: icon listed before the ${what} answered within ${PING_LIMIT_MS} ms`;
    const frames = [listed.index, replyFrame(after.reply)];
    if (answeredInTime(after)) return void check.expect(true, { expected, actual: `answered after ${after.ms} ms; it fetched the https: icon, so it renders icons`, frames });
    if (after.reply.kind === 'closed') {
      const exit = await ctx.exited(WAIT_MS);
      // A client that ends its session cleanly (say, one that lists and exits) was not harmed by the icons.
      if (!exit || (exit.code === 0 && exit.signal === null)) return check.skip(`the client ended the session${exit ? ' and exited 0' : ''} before it answered mcpcheck's ping after listing, so it showed nothing about the icons`);
      return void check.expect(false, { expected, actual: `the client exited (${exit.signal ?? `code ${exit.code}`}) after it listed them, having fetched the https: icon`, frames });
    }
    if (!pingReachedAtOnce(ctx, call !== undefined)) {
      return check.skip(`the client did not call ${ASKING_TOOL.name} after listing, so no request of its was open to carry mcpcheck's ping at once (${describeTimed(after)})`);
    }
    check.expect(false, { expected, actual: describeTimed(after), frames });
  },
});

const dataListeners = new WeakMap<ServerSession, Listener>();

export const clientIconDataNotFetched = clientScenario({
  id: 'client.icons.data-not-fetched',
  title: 'A client takes a data: icon from its own bytes and never requests it as a URL (relative to the server\'s endpoint)',
  requirements: ['ICON-URI-01'],
  // Over stdio the server has no origin a mistaken relative fetch could reach.
  needs: { transport: 'http' },
  steps: [{ do: 'list-tools' }, { do: 'wait', ms: FETCH_MS }],
  async serve(session) {
    const safe = await sessionListener(session);
    dataListeners.set(session, safe);
    // A GIF labelled PNG twice: a client that doubts the label must still not go fetching (and breaks ICON-FMT-03 of mcpcheck's, on purpose).
    const icons = [evidenceIcon(safe), { src: dataUri('image/png', gif(1, 1)), mimeType: 'image/png' }];
    session.tools = toolsWithIcons(icons);
  },
  async run(ctx) {
    const { session, check } = ctx;
    const listed = await listedAndFetched(ctx, dataListeners.get(session)!);
    if (!listed) return;
    const fetched = ctx.exchanges.filter((e) => !e.toEndpoint && namesDataUri(e.path));
    if (fetched.length > 0) {
      return void check.expect(false, {
        expected: 'the data: icon decoded from its own bytes: no HTTP request for it (a fetch over http:, which ICON-URI-01 rules out)',
        actual: `${fetched.length} request(s) to mcpcheck's origin for a path holding the data: URI, e.g. ${fetched[0]!.method} ${fetched[0]!.path.slice(0, 60)}…`,
        frames: [listed.index],
      });
    }
    if (dataListeners.get(session)!.connections === 0) return check.skip(rendersNoIcons('how it treats data: icons'));
    check.expect(true, {
      expected: 'no HTTP request for the data: icon',
      actual: `it fetched the https: icon and made no request for the data: one within ${FETCH_MS} ms`,
      frames: [listed.index],
    });
  },
});

/**
 * The icon host's requests, once the client had time to fetch its icons; records a skip when it
 * rendered none, or reached the host without trusting mcpcheck's certificate (so no request came).
 */
async function hostRequests(ctx: ClientScenarioContext, host: IconHost, what: string): Promise<RecordedFrame | undefined> {
  const listed = await listedAndFetched(ctx, host);
  if (!listed) return undefined;
  if (host.connections === 0) return void ctx.check.skip(rendersNoIcons(what));
  if (host.requests.length === 0) {
    return void ctx.check.skip(`the client connected to the https: icon's host but made no request there: it did not trust mcpcheck's loopback certificate (Node clients get it through NODE_EXTRA_CA_CERTS; others can be pointed at the file in MCPCHECK_CA_CERT), so it showed nothing about ${what}`);
  }
  return listed;
}

const redirectProbes = new WeakMap<ServerSession, { host: IconHost; elsewhere: IconHost; plain: Listener }>();
const TO_HTTP = '/moved-to-http.gif';
const TO_ELSEWHERE = '/moved-elsewhere.gif';

export const clientIconRedirects = clientScenario({
  id: 'client.icons.redirects',
  title: 'A client does not follow an icon\'s redirect that changes its scheme (https: to http:) or moves it to another origin',
  requirements: ['ICON-URI-02'],
  steps: [{ do: 'list-tools' }, { do: 'wait', ms: FETCH_MS }],
  async serve(session) {
    const plain = await sessionListener(session);
    const elsewhere = await iconHost(session);
    const host = await iconHost(session, { [TO_HTTP]: `http://127.0.0.1:${plain.port}/icon.gif`, [TO_ELSEWHERE]: `${elsewhere.origin}/icon.gif` });
    redirectProbes.set(session, { host, elsewhere, plain });
    session.tools = toolsWithIcons([hostedIcon(host), hostedIcon(host, TO_HTTP), hostedIcon(host, TO_ELSEWHERE)]);
  },
  async run(ctx) {
    const { host, elsewhere, plain } = redirectProbes.get(ctx.session)!;
    const listed = await hostRequests(ctx, host, 'how it treats redirects');
    if (!listed) return;
    const followed = [plain.connections > 0 ? `${plain.connections} connection(s) to the http: URL ${TO_HTTP} redirects to` : '', elsewhere.connections > 0 ? `${elsewhere.connections} connection(s) to the other origin ${TO_ELSEWHERE} redirects to` : ''].filter(Boolean);
    const redirected = [...new Set(host.requests.map((r) => r.path).filter((p) => p === TO_HTTP || p === TO_ELSEWHERE))];
    if (followed.length > 0) return void ctx.check.expect(false, { expected: 'no redirect of an icon followed to http: or to another origin', actual: followed.join('; '), frames: [listed.index] });
    if (redirected.length === 0) return ctx.check.skip(`the client fetched the first https: icon but neither of the two that redirect (${TO_HTTP}, ${TO_ELSEWHERE}), so it showed nothing about redirects`);
    ctx.check.expect(true, {
      expected: 'no redirect of an icon followed to http: or to another origin',
      actual: `it was redirected at ${redirected.join(' and ')} (302) and followed no redirect within ${FETCH_MS} ms`,
      frames: [listed.index],
    });
  },
});

const credentialProbes = new WeakMap<ServerSession, IconHost>();

export const clientIconCredentials = clientScenario({
  id: 'client.icons.no-credentials',
  title: 'A client fetches icons without credentials: no cookie, no Authorization',
  requirements: ['ICON-SEC-01'],
  steps: [{ do: 'list-tools' }, { do: 'wait', ms: FETCH_MS }],
  async serve(session) {
    // Over HTTP the endpoint sets a cookie on 127.0.0.1, as the icon's host is: a client that keeps cookies has one to leak.
    const policy = session.channel.policy;
    if (policy) policy.cookie = `mcpcheck_session=${randomUUID()}; Path=/; HttpOnly`;
    const host = await iconHost(session);
    credentialProbes.set(session, host);
    session.tools = toolsWithIcons([hostedIcon(host)]);
  },
  async run(ctx) {
    const host = credentialProbes.get(ctx.session)!;
    const listed = await hostRequests(ctx, host, 'which credentials its icon fetches carry');
    if (!listed) return;
    const carried = host.requests.filter((r) => r.credentials.length > 0);
    const expected = 'icon requests with no Cookie, Authorization or Proxy-Authorization header';
    if (carried.length > 0) {
      const names = [...new Set(carried.flatMap((r) => r.credentials))].join(', ');
      return void ctx.check.expect(false, { expected, actual: `${carried.length} of ${host.requests.length} icon request(s) carried ${names} (values not shown)`, frames: [listed.index] });
    }
    // What the client had to leak: a cookie or Authorization it sent the endpoint.
    const own = [...new Set(ctx.exchanges.filter((e) => e.toEndpoint).flatMap((e) => ['cookie', 'authorization'].filter((h) => e.headers[h] !== undefined)))];
    ctx.check.expect(true, {
      expected,
      actual: `${host.requests.length} icon request(s), none with credentials${own.length ? `, though it sent ${own.join(' and ')} to the endpoint` : ''}`,
      frames: [listed.index],
    });
  },
});

export const clientIcons: ClientScenario[] = [clientIconSchemes, clientIconHostileData, clientIconDataNotFetched, clientIconRedirects, clientIconCredentials];
