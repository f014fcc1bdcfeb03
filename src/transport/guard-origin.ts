import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { boundedHeaders, readRequestBody } from './http-endpoint-util.js';
import type { GuardAnswer, RequestGuard } from './server-channel.js';

/** What a request to a guard origin may carry in its body (a registration, a token request). */
const BODY_BYTES = 64 * 1024;

/** An origin of its own whose every request goes to a guard; what it does not answer is 404. */
export interface GuardOrigin {
  origin: string;
  close(): void;
}

/**
 * Serves `guard` on an origin of its own: https with the certificate given (the run's loopback one,
 * which the client under test is told to trust), or plain http without one; on 127.0.0.1 unless
 * `address` names another of this machine's own (one of the network sandbox's: network-sandbox.ts).
 * The same routes as on the endpoint's own origin, for a client that takes only https:
 * authorization servers, or a scenario whose authorization server must be elsewhere.
 */
export async function serveGuard(guard: RequestGuard, tls: { key: string; cert: string } | undefined, address = '127.0.0.1'): Promise<GuardOrigin> {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      const read = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readRequestBody(req, BODY_BYTES);
      if (read?.kind === 'aborted') return;
      if (read?.kind === 'too-large') return void res.writeHead(413, { connection: 'close' }).end();
      if (read === undefined) req.resume();
      let answer: GuardAnswer | undefined;
      try {
        answer = await guard({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: boundedHeaders(req.headers), ...(read ? { body: read.bytes.toString('utf8') } : {}) });
      } catch {
        answer = { status: 500 };
      }
      const payload = answer?.body !== undefined ? Buffer.from(answer.body) : undefined;
      res.writeHead(answer?.status ?? 404, { ...answer?.headers, ...(payload ? { 'content-length': String(payload.length) } : {}) }).end(payload);
    })();
  };
  const server = tls ? createServer({ key: tls.key, cert: tls.cert }, handle) : createHttpServer(handle);
  // A client that drops the handshake (it does not trust the certificate, say) is no error of the origin's.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    origin: `${tls ? 'https' : 'http'}://${host}:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
