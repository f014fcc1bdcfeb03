import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ClientDocumentHost } from './client-documents.js';
import { plainRequest, type PlainResponse } from '../transport/http-request.js';
import { UserAgent } from './user-agent.js';
import { isLoopbackHost } from '../validate/loopback.js';
import { metadataLocations, type MetadataKind } from '../validate/as-metadata.js';
import { parseObject } from '../json.js';
import { show } from '../validate/finding.js';

/**
 * mcpcheck as an OAuth client of an authorization server under test (`mcpcheck authorization`):
 * it finds the server's metadata, gets a client (pre-registered, or by dynamic registration),
 * runs the authorization-code grant with PKCE as a user agent that approves at once, and calls
 * the token endpoint. What it learns once (metadata, client, the first grant) is kept for every
 * scenario of the run.
 *
 * Nothing is sent off loopback but GETs of the metadata documents the user allowed
 * (--allow-remote-metadata): registration, authorization and token requests go to loopback only.
 */

/** Where mcpcheck asks to be sent back: loopback, never listened on (the code is read off the Location header). */
export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1/mcpcheck/callback';

export interface AuthorizationServerOptions {
  /** The issuer identifier as the user wrote it (--url): metadata must name it identically. */
  issuerText: string;
  issuer: URL;
  requestTimeoutMs: number;
  /** GET the metadata of an issuer that is not on loopback (nothing else is ever sent there). */
  allowRemoteMetadata: boolean;
  /** A client the server already knows (--client-id): used instead of registering one. */
  clientId?: string;
  clientSecret?: string;
  redirectUri: string;
  /** The `scope` of authorization requests (--scope); none when absent. */
  scope?: string;
  /** The RFC 8707 `resource` of authorization and token requests (--resource); none when absent. */
  resource?: string;
}

const MAX_BYTES = 256 * 1024;

export interface MetadataAttempt {
  url: string;
  kind: MetadataKind;
  res: PlainResponse;
}

export interface MetadataFound {
  attempts: MetadataAttempt[];
  /** The first attempt that gave 200 with a JSON object. */
  found?: { url: string; kind: MetadataKind; document: Record<string, unknown>; res: PlainResponse };
  /** Why no attempt was made: the issuer is off loopback and remote metadata was not allowed. */
  notContacted?: string;
}

export interface OAuthClient {
  clientId: string;
  secret?: string;
  /** How the client authenticates at the token endpoint. */
  method: 'none' | 'client_secret_basic' | 'client_secret_post';
  redirectUri: string;
  /** How it came: given by the user, or registered by mcpcheck (and the registration's answer). */
  origin: 'pre-registered' | 'registered';
  registration?: PlainResponse;
}

/** A client mcpcheck could not get, and why (a skip's reason, or a registration that failed). */
export interface NoClient {
  why: string;
  registration?: PlainResponse;
}

/** What an authorization request got: a redirect (its Location and query), or anything else. */
export type AuthorizationAnswer =
  | { kind: 'redirect'; res: PlainResponse; at: URL; location: URL; params: URLSearchParams; fragment: URLSearchParams }
  | { kind: 'other'; res: PlainResponse; at: URL };

export interface Grant {
  /** The authorization request's answer. */
  authorization: AuthorizationAnswer;
  code?: string;
  verifier: string;
  state: string;
}

interface PkcePair {
  verifier: string;
  challenge: string;
}

/** The S256 code_challenge of a code_verifier (RFC 7636 §4.2). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function pkcePair(): PkcePair {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier) };
}

export class AuthorizationServerDriver {
  private metadataLookup?: Promise<MetadataFound>;
  private clientLookup?: Promise<OAuthClient | NoClient>;
  private firstTokens?: Promise<{ grant: Grant; token?: PlainResponse } | { why: string }>;

  /** Where mcpcheck publishes the Client ID Metadata Documents of the clients it presents (https on loopback). */
  readonly documents = new ClientDocumentHost();

  constructor(readonly options: AuthorizationServerOptions) {}

  /** Stops what the run served (the documents' host). */
  close(): Promise<void> {
    return this.documents.close();
  }

  get issuer(): URL {
    return this.options.issuer;
  }

  get issuerText(): string {
    return this.options.issuerText;
  }

  /** Whether mcpcheck sends this server anything but metadata GETs: only on loopback. */
  get active(): boolean {
    return isLoopbackHost(this.options.issuer.hostname);
  }

  /** Why requests other than metadata GETs are not sent, when they are not. */
  get passiveBecause(): string | undefined {
    return this.active ? undefined : `the issuer ${this.options.issuer.host} is not on loopback, and mcpcheck sends registration, authorization and token requests to loopback only`;
  }

  /** The metadata, found once: the well-known URLs in the order clients try them, the first JSON object served with 200. */
  metadata(): Promise<MetadataFound> {
    return (this.metadataLookup ??= this.findMetadata());
  }

  private async findMetadata(): Promise<MetadataFound> {
    if (!this.active && !this.options.allowRemoteMetadata) {
      return { attempts: [], notContacted: `the issuer ${this.options.issuer.host} is not on loopback; rerun with --allow-remote-metadata to let mcpcheck GET its public metadata documents (nothing else is sent there)` };
    }
    const attempts: MetadataAttempt[] = [];
    for (const { url, kind } of metadataLocations(this.options.issuer)) {
      const res = await this.send(url, { method: 'GET', headers: { Accept: 'application/json' } });
      attempts.push({ url: url.href, kind, res });
      const document = res.status === 200 ? parseObject(res.body) : undefined;
      if (document) return { attempts, found: { url: url.href, kind, document, res } };
    }
    return { attempts };
  }

  /** An endpoint the metadata names, when it is a URL mcpcheck may send requests to (on loopback). */
  async endpoint(field: 'authorization_endpoint' | 'token_endpoint' | 'registration_endpoint'): Promise<URL | string> {
    const { found, notContacted } = await this.metadata();
    if (!found) return notContacted ?? 'the authorization server publishes no metadata mcpcheck could read';
    const value = found.document[field];
    if (typeof value !== 'string') return `its metadata names no ${field}`;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return `its ${field} ${show(value, 120)} is not a URL`;
    }
    if (!isLoopbackHost(url.hostname)) return `its ${field} ${url.host} is not on loopback, and mcpcheck sends requests to loopback only`;
    return url;
  }

  /** The client of the run: the user's, else one registered dynamically where the server offers it. */
  client(): Promise<OAuthClient | NoClient> {
    return (this.clientLookup ??= this.findClient());
  }

  private async findClient(): Promise<OAuthClient | NoClient> {
    const { clientId, clientSecret, redirectUri } = this.options;
    if (this.passiveBecause) return { why: this.passiveBecause };
    const metadata = (await this.metadata()).found?.document;
    if (clientId !== undefined) {
      const methods = metadata?.token_endpoint_auth_methods_supported;
      // RFC 8414 §2: absent, the default is client_secret_basic.
      const basic = !Array.isArray(methods) || methods.includes('client_secret_basic');
      return { clientId, ...(clientSecret !== undefined ? { secret: clientSecret } : {}), method: clientSecret === undefined ? 'none' : basic ? 'client_secret_basic' : 'client_secret_post', redirectUri, origin: 'pre-registered' };
    }
    return this.registerClient('mcpcheck', 'no client: none was given (--client-id) and ');
  }

  /**
   * A public client registered dynamically under `name` (its client_name), with the run's redirect
   * URI; or why there is none (`lacking` starts the reason when the server offers no registration).
   */
  async registerClient(name: string, lacking = ''): Promise<OAuthClient | NoClient> {
    const { redirectUri } = this.options;
    if (this.passiveBecause) return { why: this.passiveBecause };
    const endpoint = await this.endpoint('registration_endpoint');
    if (typeof endpoint === 'string') return { why: `${lacking}${lacking ? endpoint.replace(/^its /, 'the server\'s ') : endpoint}` };
    const registration = await this.register(endpoint, { redirect_uris: [redirectUri], client_name: name });
    const body = parseObject(registration.body);
    if (registration.status !== 201 && registration.status !== 200) return { why: `dynamic registration at ${endpoint.href} was refused (${describeResponse(registration)})`, registration };
    if (!body || typeof body.client_id !== 'string') return { why: `dynamic registration at ${endpoint.href} gave no client_id (${describeResponse(registration)})`, registration };
    const secret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
    const method = body.token_endpoint_auth_method === 'client_secret_post' ? 'client_secret_post' : secret !== undefined ? 'client_secret_basic' : 'none';
    return { clientId: body.client_id, ...(secret !== undefined ? { secret } : {}), method, redirectUri, origin: 'registered', registration };
  }

  /** A dynamic registration (RFC 7591) of a public client using the code grant, with `overrides` over its metadata. */
  register(endpoint: URL, overrides: Record<string, unknown>): Promise<PlainResponse> {
    const body = { client_name: 'mcpcheck', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...overrides };
    return this.send(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body) });
  }

  /**
   * An authorization request as a user agent that approves at once would send it: GET the
   * authorization endpoint with `params` over the code-flow defaults (PKCE S256, a fresh state),
   * and read the redirect instead of following it.
   */
  async authorize(client: OAuthClient, params: Record<string, string | undefined> = {}, agent = this.userAgent()): Promise<Grant | string> {
    const endpoint = await this.endpoint('authorization_endpoint');
    if (typeof endpoint === 'string') return endpoint;
    const { verifier, challenge } = pkcePair();
    const state = randomUUID();
    const query: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      scope: this.options.scope,
      resource: this.options.resource,
      ...params,
    };
    const url = new URL(endpoint.href);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    const back = query.redirect_uri ?? client.redirectUri;
    const { res, at } = await agent.visit(url, (next) => next.href.startsWith(back));
    const authorization = answerOf(res, at);
    const code = authorization.kind === 'redirect' ? authorization.params.get('code') ?? undefined : undefined;
    return { authorization, verifier, state, ...(code !== undefined ? { code } : {}) };
  }

  /** A browser of its own (its cookies, the redirects it follows), for steps that span several requests. */
  userAgent(): UserAgent {
    return new UserAgent((url, req) => this.send(url, req));
  }

  /** A token request (`grant_type` and the rest in `params`), the client authenticating by its method; `credentials: false` sends none. */
  async token(client: OAuthClient, params: Record<string, string | undefined>, credentials = true): Promise<PlainResponse | string> {
    const endpoint = await this.endpoint('token_endpoint');
    if (typeof endpoint === 'string') return endpoint;
    const form = new URLSearchParams();
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
    const all: Record<string, string | undefined> = { resource: this.options.resource, ...params };
    if (client.method === 'client_secret_basic' && credentials) {
      headers.Authorization = basicCredentials(client.clientId, client.secret ?? '');
    } else {
      all.client_id ??= client.clientId;
      if (client.method === 'client_secret_post' && credentials) all.client_secret = client.secret;
    }
    for (const [k, v] of Object.entries(all)) if (v !== undefined) form.set(k, v);
    return this.send(endpoint, { method: 'POST', headers, body: form.toString() });
  }

  /** The code of an authorization exchanged at the token endpoint, with `verifier` as its code_verifier (undefined: none sent). */
  redeem(client: OAuthClient, code: string, verifier: string | undefined): Promise<PlainResponse | string> {
    return this.token(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier });
  }

  /** The code grant run once for the run: an authorization, then the code exchanged with its verifier. */
  firstGrant(): Promise<{ grant: Grant; token?: PlainResponse } | { why: string }> {
    return (this.firstTokens ??= this.grantOnce());
  }

  private async grantOnce(): Promise<{ grant: Grant; token?: PlainResponse } | { why: string }> {
    const client = await this.client();
    if (!('clientId' in client)) return { why: client.why };
    const grant = await this.authorize(client);
    if (typeof grant === 'string') return { why: grant };
    if (grant.code === undefined) return { grant };
    const token = await this.redeem(client, grant.code, grant.verifier);
    return typeof token === 'string' ? { why: token } : { grant, token };
  }

  /** One request to the server, within the run's request timeout and byte bound. */
  private send(url: URL, req: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<PlainResponse> {
    return plainRequest(url, { ...req, timeoutMs: this.options.requestTimeoutMs, maxBytes: MAX_BYTES });
  }
}

/** Why an authorization request got no code, for skips: the server showed a page (it wants a user), or redirected without one. */
export function noCodeBecause(grant: Grant): string {
  const a = grant.authorization;
  if (a.kind === 'other') {
    const page = a.res.status === 200 || (a.res.status >= 300 && a.res.status < 400);
    return page
      ? `the authorization request did not come back to the client (${describeResponse(a.res)}, after following the server's own redirects): it asks for a user (a login or consent page), and mcpcheck plays none; run the server in a mode that approves test clients at once`
      : `the authorization request was refused (${describeResponse(a.res)})`;
  }
  // An authorization request of its own to another server (an MCP proxy's, on to the authorization server behind it) is not followed.
  if (a.location.origin !== a.at.origin && a.params.has('response_type') && !a.params.has('code') && !a.params.has('error')) return `the authorization request was sent on to another server (${show(a.location.origin + a.location.pathname, 160)}), which mcpcheck does not follow as the user: it asks someone else for the code`;
  const error = a.params.get('error');
  return error !== null
    ? `the authorization request was refused: error=${show(error, 80)}${a.params.get('error_description') ? ` (${show(a.params.get('error_description'), 160)})` : ''}; --scope sets the scope it asks for`
    : `the redirect back carried no code (${show(a.location.href, 200)})`;
}

/** A redirect whose Location parses: its query and fragment parameters. */
function answerOf(res: PlainResponse, base: URL): AuthorizationAnswer {
  const location = res.headers.location;
  if (res.status >= 300 && res.status < 400 && location !== undefined && URL.canParse(location, base.href)) {
    const url = new URL(location, base);
    return { kind: 'redirect', res, at: base, location: url, params: url.searchParams, fragment: new URLSearchParams(url.hash.replace(/^#/, '')) };
  }
  return { kind: 'other', res, at: base };
}

/** A client's credentials as HTTP Basic (RFC 6749 §2.3.1: each form-encoded first). */
export function basicCredentials(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** "HTTP 400 application/json: {…}" or "no answer: …", for messages. */
export function describeResponse(res: PlainResponse): string {
  if (res.status === 0) return `no answer: ${res.error ?? 'unknown error'}`;
  const type = res.headers['content-type'];
  const location = res.headers.location !== undefined ? ` Location: ${show(res.headers.location, 160)}` : '';
  const body = res.body.trim() === '' ? '' : ` ${show(res.body.trim(), 200)}`;
  return `HTTP ${res.status}${type ? ` ${type.split(';')[0]}` : ''}${location}${body}`;
}

