import { createHash, randomBytes } from 'node:crypto';
import type { GuardAnswer, GuardRequest, RequestGuard } from '../transport/server-channel.js';

/**
 * mcpcheck as a protected MCP server with its own authorization server, for a client under test
 * (basic/authorization.mdx): on the endpoint's origin it serves the Protected Resource Metadata
 * (RFC 9728), the authorization server's metadata (RFC 8414), dynamic registration (RFC 7591), an
 * authorization endpoint that approves at once (a redirect back with the code, `state` and `iss`:
 * the client plays the user agent) and a token endpoint that checks PKCE S256, the redirect URI
 * and `resource`. The endpoint admits only the tokens it issued. Everything the client sends it is
 * recorded, for the scenarios to judge.
 */

/** What one scenario changes of the server it meets. */
export interface OAuthHostVariant {
  /** The authorization server's metadata has no code_challenge_methods_supported (AUTH-PKCE-02). */
  withoutPkce?: true;
  /**
   * Where scopes are named (AUTH-SCOPE-01): 'challenge' (default) in the 401 challenge and the
   * metadata; 'metadata' only in the Protected Resource Metadata's scopes_supported
   * (METADATA_SCOPES); 'none' nowhere.
   */
  scopes?: 'challenge' | 'metadata' | 'none';
}

/** The scope the 401 challenge names. */
export const CHALLENGE_SCOPE = 'mcp:tools';
/** The scopes_supported of the Protected Resource Metadata when the challenge names none. */
export const METADATA_SCOPES = ['mcp:tools', 'mcp:prompts'];
export const PRM_PATH = '/.well-known/oauth-protected-resource/mcp';
const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';

export type OAuthEvent =
  | { kind: 'endpoint'; method: string; authorization?: string; query: string; admitted: boolean }
  | { kind: 'resource-metadata' | 'authorization-server-metadata' | 'other'; method: string; path: string; query: string }
  | { kind: 'register'; body: unknown; status: number }
  | { kind: 'authorize'; params: Record<string, string>; status: number }
  | { kind: 'token'; params: Record<string, string>; authorization?: string; status: number; issued?: string };

interface CodeGrant {
  clientId: string;
  redirectUri: string;
  challenge?: string;
  method?: string;
}

const fresh = (prefix: string) => `${prefix}-${randomBytes(18).toString('base64url')}`;

function json(status: number, body: unknown, headers: Record<string, string> = {}): GuardAnswer {
  return { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }, body: JSON.stringify(body) };
}

export class LoopbackOAuthHost {
  readonly events: OAuthEvent[] = [];
  readonly origin: string;
  /** The endpoint's canonical URI: the resource the metadata names and tokens are issued for. */
  readonly resource: string;
  private readonly clients = new Map<string, { redirectUris: string[] }>();
  private readonly codes = new Map<string, CodeGrant>();
  private readonly accessTokens = new Set<string>();
  private readonly refreshTokens = new Set<string>();

  constructor(
    endpoint: string,
    readonly variant: OAuthHostVariant = {},
  ) {
    const url = new URL(endpoint);
    this.origin = url.origin;
    this.resource = `${url.origin}${url.pathname}`;
  }

  private get scopes(): 'challenge' | 'metadata' | 'none' {
    return this.variant.scopes ?? 'challenge';
  }

  /** The tokens issued so far. */
  get issued(): ReadonlySet<string> {
    return this.accessTokens;
  }

  readonly guard: RequestGuard = (r) => this.answer(r);

  private record(event: OAuthEvent): void {
    if (this.events.length < 1_000) this.events.push(event);
  }

  private answer(r: GuardRequest): GuardAnswer | undefined {
    const route = `${r.method} ${r.path}`;
    if (r.path === '/mcp') return this.gate(r);
    if (route === `GET ${PRM_PATH}`) {
      this.record({ kind: 'resource-metadata', method: r.method, path: r.path, query: r.query.toString() });
      const scopes = this.scopes === 'none' ? {} : { scopes_supported: this.scopes === 'metadata' ? METADATA_SCOPES : [CHALLENGE_SCOPE] };
      return json(200, { resource: this.resource, authorization_servers: [this.origin], ...scopes, bearer_methods_supported: ['header'] });
    }
    if (route === `GET ${AS_METADATA_PATH}`) {
      this.record({ kind: 'authorization-server-metadata', method: r.method, path: r.path, query: r.query.toString() });
      return json(200, this.metadata());
    }
    if (route === 'POST /register') return this.register(r);
    if (route === 'GET /authorize') return this.authorize(r);
    if (route === 'POST /token') return this.token(r);
    this.record({ kind: 'other', method: r.method, path: r.path, query: r.query.toString() });
    return { status: 404 };
  }

  private metadata(): Record<string, unknown> {
    return {
      issuer: this.origin,
      authorization_endpoint: `${this.origin}/authorize`,
      token_endpoint: `${this.origin}/token`,
      registration_endpoint: `${this.origin}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      ...(this.scopes === 'none' ? {} : { scopes_supported: this.scopes === 'metadata' ? METADATA_SCOPES : [CHALLENGE_SCOPE] }),
      authorization_response_iss_parameter_supported: true,
      ...(this.variant.withoutPkce ? {} : { code_challenge_methods_supported: ['S256'] }),
    };
  }

  /** The endpoint admits the tokens it issued, in the Authorization header; anything else gets the 401 challenge. */
  private gate(r: GuardRequest): GuardAnswer | undefined {
    const authorization = r.headers.authorization;
    const bearer = /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];
    const admitted = bearer !== undefined && this.accessTokens.has(bearer);
    this.record({ kind: 'endpoint', method: r.method, ...(authorization !== undefined ? { authorization } : {}), query: r.query.toString(), admitted });
    if (admitted) return undefined;
    const scope = this.scopes === 'challenge' ? `, scope="${CHALLENGE_SCOPE}"` : '';
    const challenge = `Bearer resource_metadata="${this.origin}${PRM_PATH}"${scope}${bearer !== undefined ? ', error="invalid_token"' : ''}`;
    return json(401, { error: bearer !== undefined ? 'invalid_token' : 'unauthorized' }, { 'www-authenticate': challenge });
  }

  private register(r: GuardRequest): GuardAnswer {
    let body: unknown;
    try {
      body = JSON.parse(r.body ?? '');
    } catch {
      body = undefined;
    }
    const uris = typeof body === 'object' && body !== null ? (body as { redirect_uris?: unknown }).redirect_uris : undefined;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string')) {
      this.record({ kind: 'register', body, status: 400 });
      return json(400, { error: 'invalid_redirect_uri', error_description: 'redirect_uris is required' });
    }
    const id = fresh('mcpcheck-client');
    this.clients.set(id, { redirectUris: uris as string[] });
    this.record({ kind: 'register', body, status: 201 });
    return json(201, { ...(body as object), client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: 'none' });
  }

  private authorize(r: GuardRequest): GuardAnswer {
    const params = Object.fromEntries(r.query);
    const client = this.clients.get(params.client_id ?? '');
    const redirectUri = params.redirect_uri ?? '';
    const known = client !== undefined && client.redirectUris.includes(redirectUri);
    this.record({ kind: 'authorize', params, status: known ? 302 : 400 });
    if (!known) return { status: 400, headers: { 'content-type': 'text/plain' }, body: 'unknown client or unregistered redirect_uri' };
    const back = new URL(redirectUri);
    const code = fresh('mcpcheck-code');
    this.codes.set(code, { clientId: params.client_id!, redirectUri, ...(params.code_challenge !== undefined ? { challenge: params.code_challenge } : {}), ...(params.code_challenge_method !== undefined ? { method: params.code_challenge_method } : {}) });
    back.searchParams.set('code', code);
    if (params.state !== undefined) back.searchParams.set('state', params.state);
    back.searchParams.set('iss', this.origin);
    return { status: 302, headers: { location: back.href } };
  }

  private token(r: GuardRequest): GuardAnswer {
    const params = Object.fromEntries(new URLSearchParams(r.body ?? ''));
    const done = (status: number, body: Record<string, unknown>, issued?: string) => {
      this.record({ kind: 'token', params, ...(r.headers.authorization !== undefined ? { authorization: r.headers.authorization } : {}), status, ...(issued !== undefined ? { issued } : {}) });
      return json(status, body);
    };
    if (params.grant_type === 'authorization_code') {
      const grant = this.codes.get(params.code ?? '');
      if (!grant) return done(400, { error: 'invalid_grant' });
      this.codes.delete(params.code!);
      if (params.redirect_uri !== undefined && params.redirect_uri !== grant.redirectUri) return done(400, { error: 'invalid_grant', error_description: 'redirect_uri differs' });
      if (grant.challenge !== undefined) {
        const verifier = params.code_verifier;
        const ok = verifier !== undefined && (grant.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') === grant.challenge : verifier === grant.challenge);
        if (!ok) return done(400, { error: 'invalid_grant', error_description: 'code_verifier does not match' });
      }
      return this.issue(done);
    }
    if (params.grant_type === 'refresh_token') {
      if (!this.refreshTokens.delete(params.refresh_token ?? '')) return done(400, { error: 'invalid_grant' });
      return this.issue(done);
    }
    return done(400, { error: 'unsupported_grant_type' });
  }

  private issue(done: (status: number, body: Record<string, unknown>, issued?: string) => GuardAnswer): GuardAnswer {
    const access = fresh('mcpcheck-access');
    const refresh = fresh('mcpcheck-refresh');
    this.accessTokens.add(access);
    this.refreshTokens.add(refresh);
    return done(200, { access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: refresh }, access);
  }
}
