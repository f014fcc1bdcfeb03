import { createServer } from 'node:https';
import { loopbackCertificate, type ServerSession } from '../kit.js';
import { type Listener, listenOnLoopback } from './helpers.js';
import { gif } from './icon-bytes.js';

/** Request headers that carry credentials (ICON-SEC-01): only their names are kept, never a value. */
const CREDENTIAL_HEADERS = ['cookie', 'authorization', 'proxy-authorization'] as const;

/** A request an icon host answered, with the credential headers it came with. */
export interface IconRequest {
  path: string;
  credentials: string[];
}

/** An https: origin on 127.0.0.1 that a client under test trusts (see TrustFile), serving icons. */
export interface IconHost extends Listener {
  origin: string;
  requests: IconRequest[];
}

const ICON = gif(1, 1);

/**
 * Opens an icon host for the session (closed with its channel). A path in `redirects` answers 302
 * to the URL it maps to; any other path is a 1×1 GIF. `connections` counts TCP connections, so a
 * client that refuses the certificate still shows that it tried.
 */
export async function iconHost(session: ServerSession, redirects: Record<string, string> = {}): Promise<IconHost> {
  const { key, cert } = loopbackCertificate();
  const host: IconHost = { port: 0, origin: '', connections: 0, requests: [] };
  const server = createServer({ key, cert }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (host.requests.length < 100) host.requests.push({ path, credentials: CREDENTIAL_HEADERS.filter((h) => req.headers[h] !== undefined) });
    const to = redirects[path];
    if (to !== undefined) res.writeHead(302, { location: to, 'content-length': '0' }).end();
    else res.writeHead(200, { 'content-type': 'image/gif', 'content-length': String(ICON.length) }).end(ICON);
  });
  server.on('connection', () => host.connections++);
  // A client that drops the handshake (say, it does not trust the certificate) is no error of the host's.
  server.on('tlsClientError', () => undefined);
  host.port = await listenOnLoopback(server);
  host.origin = `https://127.0.0.1:${host.port}`;
  session.channel.onClose(() => {
    server.closeAllConnections();
    server.close();
  });
  return host;
}

/** An icon at the host that a client which renders icons fetches first: the evidence that it does. */
export function hostedIcon(host: IconHost, path = '/icon.gif'): { src: string; mimeType: string } {
  return { src: `${host.origin}${path}`, mimeType: 'image/gif' };
}
