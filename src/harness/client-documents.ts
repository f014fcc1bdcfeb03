import { randomBytes } from 'node:crypto';
import { type GuardOrigin, serveGuard } from '../transport/guard-origin.js';
import type { GuardAnswer, GuardRequest } from '../transport/server-channel.js';
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
  private listening: Promise<GuardOrigin> | undefined;

  /**
   * Publishes the document `make` builds from its own URL (the client_id a client would use),
   * served with `headers`; the URL, which no other document has.
   */
  async publish(make: (url: string) => Record<string, unknown>, headers: Record<string, string> = {}): Promise<string> {
    this.listening ??= serveGuard((r) => this.answer(r), loopbackCertificate());
    const { origin } = await this.listening;
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
    (await this.listening?.catch(() => undefined))?.close();
  }

  /** A GET of a published document; anything else is the origin's 404. */
  private answer(r: GuardRequest): GuardAnswer | undefined {
    const doc = r.method === 'GET' ? this.documents.get(r.path) : undefined;
    if (!doc) return undefined;
    doc.fetches++;
    return { status: 200, headers: { 'content-type': 'application/json', ...doc.headers }, body: doc.body };
  }
}
