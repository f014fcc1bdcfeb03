import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { loopbackCertificate } from './loopback-trust.js';

/**
 * mcpcheck's host of Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document;
 * basic/authorization.mdx, "Client ID Metadata Documents"), for an authorization server under
 * test to fetch: https on 127.0.0.1 with the run's loopback certificate (a server mcpcheck starts
 * is given it to trust), each document at a path of its own, its fetches counted. Started on the
 * first document, stopped by close().
 */
export class ClientDocumentHost {
  private readonly documents = new Map<string, { body: string; headers: Record<string, string>; fetches: number }>();
  private listening: Promise<{ server: Server; origin: string }> | undefined;

  /**
   * Publishes the document `make` builds from its own URL (the client_id a client would use),
   * served with `headers`; the URL, which no other document has.
   */
  async publish(make: (url: string) => Record<string, unknown>, headers: Record<string, string> = {}): Promise<string> {
    const { origin } = await this.start();
    const path = `/clients/${randomBytes(9).toString('hex')}.json`;
    const url = `${origin}${path}`;
    this.documents.set(path, { body: JSON.stringify(make(url)), headers, fetches: 0 });
    return url;
  }

  /** How many times the document at `url` was fetched. */
  fetches(url: string): number {
    return this.documents.get(new URL(url).pathname)?.fetches ?? 0;
  }

  async close(): Promise<void> {
    const started = await this.listening?.catch(() => undefined);
    if (!started) return;
    started.server.closeAllConnections();
    await new Promise<void>((resolve) => started.server.close(() => resolve()));
  }

  private start(): Promise<{ server: Server; origin: string }> {
    this.listening ??= new Promise((resolve, reject) => {
      const { key, cert } = loopbackCertificate();
      const server = createServer({ key, cert }, (req, res) => {
        const doc = req.method === 'GET' ? this.documents.get(new URL(req.url ?? '/', 'https://127.0.0.1').pathname) : undefined;
        req.resume();
        if (!doc) {
          res.writeHead(404).end();
          return;
        }
        doc.fetches++;
        res.writeHead(200, { 'Content-Type': 'application/json', ...doc.headers }).end(doc.body);
      });
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve({ server, origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}` }));
    });
    return this.listening;
  }
}
