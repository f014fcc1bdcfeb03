import { cookieName, cookieSet, crossSiteCookie } from '../validate/consent-security.js';
import type { PlainResponse } from '../transport/http-request.js';

/** Redirects within one origin a visit may take (login, consent, resume) before its answer is taken as it is. */
const MAX_HOPS = 10;
/** Cookies kept per host: a server that sets more is not a browser's problem to remember. */
const MAX_COOKIES = 50;

/** How a user agent sends one request (mcpcheck's bounded plainRequest, with its limits). */
export type SendRequest = (url: URL, req: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }) => Promise<PlainResponse>;

/** One request of the user's browser. */
export interface PageRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The origin of the page the request comes from (its Origin header). */
  origin?: string;
  /** Made by a page of another site (a form posted from there): only SameSite=None cookies go with it. */
  crossSite?: true;
}

/** Where a visit ended: the last response, at the URL that gave it. */
export interface Visited {
  res: PlainResponse;
  at: URL;
}

interface Cookie {
  value: string;
  /** Set with SameSite=None: a browser sends it on cross-site requests too. */
  crossSite: boolean;
}

/**
 * mcpcheck as a browser of one user: cookies kept per host across its requests (as a browser
 * keeps them across ports), each Set-Cookie it was sent recorded, redirects followed within the
 * origin a visit began at. An authorization server's login or consent steps run through it; a
 * consent given in one visit is carried into the next (the confused deputy rests on that).
 */
export class UserAgent {
  private readonly jar = new Map<string, Map<string, Cookie>>();
  /** Every Set-Cookie header the agent was sent, with the URL that sent it, in order. */
  readonly cookiesSet: Array<{ url: string; header: string }> = [];

  constructor(private readonly send: SendRequest) {}

  /** One request with this user's cookies for its host (those a cross-site request carries, for one). */
  async request(url: URL, req: PageRequest): Promise<PlainResponse> {
    const kept = [...(this.jar.get(url.hostname) ?? new Map<string, Cookie>())].filter(([, c]) => !req.crossSite || c.crossSite);
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (kept.length > 0) headers.Cookie = kept.map(([name, c]) => `${name}=${c.value}`).join('; ');
    if (req.origin !== undefined) headers.Origin = req.origin;
    const res = await this.send(url, { method: req.method, headers, ...(req.body !== undefined ? { body: req.body } : {}) });
    for (const header of res.setCookies) this.keep(url, header);
    return res;
  }

  private keep(url: URL, header: string): void {
    this.cookiesSet.push({ url: url.href, header });
    const name = cookieName(header);
    if (name === '') return;
    const host = this.jar.get(url.hostname) ?? new Map<string, Cookie>();
    this.jar.set(url.hostname, host);
    const set = cookieSet(header);
    if (!set) host.delete(name);
    else if (host.has(name) || host.size < MAX_COOKIES) host.set(name, { value: set.value, crossSite: crossSiteCookie(header) });
  }

  /**
   * Requests `url` and follows the redirects that stay on its origin, as a browser does through a
   * server's own steps; it stops at a redirect that leaves the origin or that `stopAt` names (the
   * client's redirect URI, read rather than followed), answering with that redirect.
   */
  async visit(url: URL, stopAt: (next: URL) => boolean, first: PageRequest = { method: 'GET' }): Promise<Visited> {
    let at = url;
    let req = first;
    for (let hops = 0; ; hops++) {
      const res = await this.request(at, { ...req, headers: { Accept: 'text/html, application/json', ...(req.headers ?? {}) } });
      const location = res.headers.location;
      if (hops >= MAX_HOPS || res.status < 300 || res.status >= 400 || location === undefined || !URL.canParse(location, at.href)) return { res, at };
      const next = new URL(location, at);
      if (next.origin !== url.origin || stopAt(next)) return { res, at };
      at = next;
      // A browser follows a redirect with a GET (303, and 301/302 after a POST, as browsers do).
      req = { method: 'GET' };
    }
  }
}
