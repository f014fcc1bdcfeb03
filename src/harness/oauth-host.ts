import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseObject } from '../json.js';
import type { GuardAnswer, GuardRequest, RequestGuard } from '../transport/server-channel.js';
import { metadataLocations } from '../validate/as-metadata.js';
import { assertionProblem } from '../validate/client-assertion.js';
import { isLoopbackHost } from '../validate/loopback.js';

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
   * Where scopes are named (AUTH-SCOPE-01, AUTH-WWW-03): 'challenge' (default) in the 401 challenge
   * and the metadata; 'metadata' only in the Protected Resource Metadata's scopes_supported
   * (METADATA_SCOPES); 'none' nowhere; 'disjoint' DISJOINT_CHALLENGE_SCOPE in the challenge while
   * the Protected Resource Metadata lists DISJOINT_METADATA_SCOPES.
   */
  scopes?: 'challenge' | 'metadata' | 'none' | 'disjoint';
  /**
   * How the authorization server's metadata is found (AUTH-ASMD-02/03): 'oauth' (default) RFC 8414
   * at the origin; 'oidc' OpenID Connect discovery alone, its endpoints under /oidc; 'issuer-path'
   * an issuer with a path (ISSUER_PATH) whose metadata is at the last of the three well-known
   * candidates alone, its endpoints under that path.
   */
  discovery?: 'oauth' | 'oidc' | 'issuer-path';
  /** The metadata's issuer is not the issuer it was found by (AUTH-ASMD-04). */
  issuerMismatch?: true;
  /** The Protected Resource Metadata's resource is FOREIGN_RESOURCE, not this endpoint (RFC 9728 §3.3). */
  resourceMismatch?: true;
  /**
   * The resource moves to another authorization server (AUTH-BIND-01, AUTH-TOKEN-04): a token of
   * the first serves EXPIRING_USES requests; when it runs out, the Protected Resource Metadata
   * names the second (issuer SECOND_AS_PATH on the same origin, its own registrations) and the
   * endpoint admits only the second's tokens. The first still answers.
   */
  migration?: true;
  /**
   * The authorization response's `iss` (RFC 9207; AUTH-ISS-02/03): 'missing' though the metadata
   * says it is sent; 'case-folded' the issuer with its scheme upper-cased.
   */
  iss?: 'missing' | 'case-folded';
  /**
   * The authorization endpoint refuses (RFC 6749 §4.1.2.1): a redirect back with `error`, and
   * ERROR_MARKER as `error_description`; its `iss` is the issuer ('right') or FOREIGN_ISSUER
   * ('wrong', AUTH-ISS-04).
   */
  authorizationError?: 'right' | 'wrong';
  /** The 401 holds several challenges, quoted commas and extra parameters, and names metadata at a path of its own (AUTH-WWW-02). */
  challenge?: 'complex';
  /**
   * The endpoint answers tools/list with 403 insufficient_scope naming STEP_UP_SCOPE (AUTH-STEP-*):
   * 'once' while the token lacks that scope, 'always' whatever the token.
   */
  stepUp?: 'once' | 'always';
  /** A token the code grant issued is admitted for EXPIRING_USES requests, then refused as expired (401 invalid_token); refreshed ones last. */
  expiring?: true;
  /** The token endpoint issues no refresh token (the authorization server decides: AUTH-REFRESH-01). */
  noRefreshToken?: true;
  /**
   * How a client gets its client_id (AUTH-REG-*, AUTH-CIMD-*): 'dcr' (default) by dynamic
   * registration; 'cimd' the metadata also says client_id_metadata_document_supported, and an https
   * URL with a path is taken as a client_id (its document is not fetched: the redirect URI is taken
   * as given); 'pre-registered' no registration endpoint: PRE_REGISTERED is the one client (the
   * scenario gives it to the client in MCP_CONFORMANCE_CONTEXT), authenticating by
   * client_secret_basic; 'any' all three (PRE_REGISTERED known, documents taken, registration
   * offered); 'refused' every registration is answered 400 invalid_redirect_uri, as an OpenID
   * Connect server that wants other redirect URIs answers (AUTH-DCR-03).
   */
  registration?: 'dcr' | 'cimd' | 'pre-registered' | 'any' | 'refused';
  /** The one token-endpoint authentication method the metadata lists and registration assigns (with a secret but for 'none'); the token endpoint refuses any other. */
  tokenAuth?: TokenAuthMethod;
  /**
   * The authorization endpoint's path carries shell command substitutions, bare and inside single
   * quotes, each of which creates a marker file (LoopbackOAuthHost.shellProbe) if a shell runs it
   * (SEC-AUTHURL-02): a URL pasted into a command line unquoted, in double quotes or in single quotes.
   */
  shellProbe?: true;
  /**
   * The authorization server is served at this address of the network sandbox's (network-sandbox.ts),
   * over https or plain http: one a client's OAuth discovery should not contact (SEC-SSRF-02/03).
   */
  authorizationServerAt?: { address: string; tls: boolean };
  /**
   * The authorization server metadata is answered 302 to the same path at this address of the
   * network sandbox's (https or plain http), where the host's guard is served too: a redirect hop a
   * client's discovery should check as it checks the first URL (SEC-SSRF-03).
   */
  metadataRedirectAt?: { address: string; tls: boolean };
  /** The metadata names this URL as the authorization endpoint: one of a scheme no client may open (SEC-AUTHURL-01). */
  authorizationEndpoint?: string;
  /**
   * The client credentials extension (io.modelcontextprotocol/oauth-client-credentials): the
   * authorization server has no registration endpoint and grants client_credentials alone, to
   * CLIENT_CREDENTIALS authenticating by its secret (client_secret_basic or client_secret_post:
   * 'secret') or by a JWT assertion signed with clientCredentialsKey() (private_key_jwt, ES256: 'jwt').
   */
  clientCredentials?: 'secret' | 'jwt';
  /**
   * A server of 2025-03-26's authorization (AUTH-LEGACY-*): no Protected Resource Metadata (404)
   * and a 401 challenge that names none; the MCP server's origin is the authorization server.
   * 'metadata': its RFC 8414 metadata at the origin names endpoints under LEGACY_PREFIX;
   * 'fallback': no metadata, the default endpoints /authorize, /token and /register at the origin.
   */
  legacy?: 'metadata' | 'fallback';
  /** The endpoint admits every request: no authorization (a control run that shows how the client takes the revision served). */
  open?: true;
  /** The revision mcpcheck answers initialize with, whatever the client asked (default: the one it asked, if mcpcheck knows it). */
  serves?: '2025-03-26';
}

/** How a client authenticates at the token endpoint (RFC 8414 token_endpoint_auth_methods_supported). */
export type TokenAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';
/** How a client authenticated at the token endpoint: a TokenAuthMethod, or a JWT assertion. */
export type ClientAuthMethod = TokenAuthMethod | 'private_key_jwt';

/** The client of the client credentials variants, as the official contract hands it to a client (with its key for 'jwt'). */
export const CLIENT_CREDENTIALS = { client_id: 'mcpcheck-client-credentials', client_secret: 'mcpcheck-client-credentials-secret' };
/** The JWS algorithm the 'jwt' variant lists and its key is for. */
export const ASSERTION_ALGORITHM = 'ES256';

let assertionKey: { privatePem: string; publicKey: KeyObject } | undefined;
/** The key pair of the 'jwt' variant's client, made once per process: the private half goes to the client in MCP_CONFORMANCE_CONTEXT. */
export function clientCredentialsKey(): { privatePem: string; publicKey: KeyObject } {
  if (!assertionKey) {
    // Encoded by the generation itself, not exported from its KeyObjects afterwards (see loopbackTls on Node 20's deadlock).
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    assertionKey = { privatePem: privateKey, publicKey: createPublicKey(publicKey) };
  }
  return assertionKey;
}

/** The client the 'pre-registered' variant knows, as the official contract hands it to a client. */
export const PRE_REGISTERED = { client_id: 'mcpcheck-pre-registered-client', client_secret: 'mcpcheck-pre-registered-secret' };

/** Whether a client_id is a Client ID Metadata Document URL in form (an https URL with a path, no fragment). */
export function isMetadataDocumentId(clientId: string): boolean {
  if (!URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return url.protocol === 'https:' && url.pathname !== '/' && url.hash === '' && !clientId.includes('#');
}

/** How a token request authenticated its client (RFC 6749 §2.3.1): Basic credentials, a secret in the body, or neither. */
function tokenAuthOf(authorization: string | undefined, params: Record<string, string>): { method: ClientAuthMethod; clientId?: string; secret?: string } {
  if (params.client_assertion !== undefined || params.client_assertion_type !== undefined) return { method: 'private_key_jwt', ...(params.client_id !== undefined ? { clientId: params.client_id } : {}) };
  const basic = /^Basic +(\S+)$/i.exec(authorization ?? '')?.[1];
  if (basic !== undefined) {
    const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    // The credentials are form-urlencoded before they are joined (RFC 6749 §2.3.1).
    const decode = (v: string | undefined) => {
      if (v === undefined) return undefined;
      try {
        return decodeURIComponent(v.replace(/\+/g, ' '));
      } catch {
        // Not form-urlencoded (a stray %): taken as sent, and so not the secret issued.
        return v;
      }
    };
    return { method: 'client_secret_basic', ...(id !== undefined ? { clientId: decode(id)! } : {}), ...(secret !== undefined ? { secret: decode(secret)! } : {}) };
  }
  if (params.client_secret !== undefined) return { method: 'client_secret_post', ...(params.client_id !== undefined ? { clientId: params.client_id } : {}), secret: params.client_secret };
  return { method: 'none', ...(params.client_id !== undefined ? { clientId: params.client_id } : {}) };
}

/** The scope the 401 challenge names. */
export const CHALLENGE_SCOPE = 'mcp:tools';
/** The scopes_supported of the Protected Resource Metadata when the challenge names none. */
export const METADATA_SCOPES = ['mcp:tools', 'mcp:prompts'];
/** The 'disjoint' variant: the challenge's scope, and the Protected Resource Metadata's scopes_supported that share none of it. */
export const DISJOINT_CHALLENGE_SCOPE = 'mcp:tools mcp:write';
export const DISJOINT_METADATA_SCOPES = ['mcp:read'];
/** The scope a tools/list needs in the step-up variants, beyond the challenge's. */
export const STEP_UP_SCOPE = 'mcp:admin';
/** The requests a token of the code grant serves in the 'expiring' variant. */
export const EXPIRING_USES = 1;
/** Where the 'legacy' variant's metadata puts the endpoints (not the default paths, so a client that uses them read the metadata). */
export const LEGACY_PREFIX = '/oauth';
/** The issuer's path in the 'issuer-path' variant. */
export const ISSUER_PATH = '/tenant1';
export const PRM_PATH = '/.well-known/oauth-protected-resource/mcp';
/** Where the 'complex' challenge puts the Protected Resource Metadata (no well-known URI serves it). */
export const COMPLEX_PRM_PATH = '/metadata/mcp-resource';
/** The error_description of a refused authorization: a client that shows it to its user shows this. */
export const ERROR_MARKER = 'mcpcheck-authorization-error-4f1c';
/** The path of the second authorization server's issuer in the 'migration' variant (its endpoints are under it). */
export const SECOND_AS_PATH = '/as-b';
/** The resource a mismatched Protected Resource Metadata names. */
export const FOREIGN_RESOURCE = 'https://mcp.mcpcheck.invalid/mcp';
/** The issuer a mismatched metadata document claims. */
export const FOREIGN_ISSUER = 'https://issuer.mcpcheck.invalid';

export type OAuthEvent =
  | { kind: 'endpoint'; method: string; authorization?: string; query: string; admitted: boolean; rpc?: string; status?: number }
  | { kind: 'resource-metadata'; method: string; path: string; query: string; names: string }
  | { kind: 'other'; method: string; path: string; query: string }
  | { kind: 'authorization-server-metadata'; method: string; path: string; query: string; status: number; protocolVersion?: string }
  | { kind: 'register'; body: unknown; status: number; issuer: string; issuedId?: string }
  | { kind: 'authorize'; method: string; path: string; params: Record<string, string>; status: number; issuer: string }
  | {
      kind: 'token';
      params: Record<string, string>;
      authorization?: string;
      status: number;
      issued?: string;
      clientAuth: ClientAuthMethod;
      clientId?: string;
      issuer: string;
      /** Why its client authentication did not authenticate the client (the client credentials variants; undefined: it did). */
      clientAuthProblem?: string;
    };

/** An authorization server the host plays: its issuer identifier and where its endpoints are. */
interface Authority {
  issuer: string;
  base: string;
}

interface CodeGrant {
  issuer: string;
  clientId: string;
  redirectUri: string;
  challenge?: string;
  method?: string;
  scope: string[];
}

const fresh = (prefix: string) => `${prefix}-${randomBytes(18).toString('base64url')}`;
const words = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean);

function json(status: number, body: unknown, headers: Record<string, string> = {}): GuardAnswer {
  return { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }, body: JSON.stringify(body) };
}

/** What a shell would run of the payload SHELL_PROBE puts in a path: `touch` of each marker. */
export const SHELL_PROBE_COMMAND = '$(touch';

/**
 * The shell probe's marker files (in the temporary directory, whose path must go into a URL path
 * unencoded) and the path segment holding their substitutions; undefined when that path cannot.
 */
function shellProbe(): { markers: string[]; segment: string } | undefined {
  const dir = tmpdir();
  if (!/^[A-Za-z0-9/_.-]+$/.test(dir)) return undefined;
  const stem = join(dir, `mcpcheck-shell-${randomBytes(9).toString('hex')}`);
  const markers = [`${stem}-bare`, `${stem}-quoted`];
  // $IFS, not a space: a URL path would carry a space as %20, which no shell reads as one.
  return { markers, segment: `${SHELL_PROBE_COMMAND}$IFS${markers[0]})'${SHELL_PROBE_COMMAND}$IFS${markers[1]})'` };
}

/** The JSON-RPC method of an endpoint POST (undefined: not one request). */
function rpcMethod(body: string | undefined): string | undefined {
  const message = parseObject(body ?? '');
  return typeof message?.method === 'string' ? message.method : undefined;
}

/** A request to the MCP endpoint as recorded: its method, credential, query and JSON-RPC method, and whether it was let in. */
function endpointEvent(r: GuardRequest, admitted: boolean): Extract<OAuthEvent, { kind: 'endpoint' }> {
  const rpc = r.method === 'POST' ? rpcMethod(r.body) : undefined;
  const { authorization } = r.headers;
  return { kind: 'endpoint', method: r.method, ...(authorization !== undefined ? { authorization } : {}), query: r.query.toString(), admitted, ...(rpc !== undefined ? { rpc } : {}) };
}

export class LoopbackOAuthHost {
  readonly events: OAuthEvent[] = [];
  readonly origin: string;
  /** The endpoint's canonical URI: the resource the metadata names and tokens are issued for. */
  readonly resource: string;
  /** The authorization server's issuer identifier, as the Protected Resource Metadata names it. */
  readonly issuer: string;
  /** The well-known URLs a client may look for the metadata at, in the order it must (AUTH-ASMD-03), and the one that serves it. */
  readonly metadataCandidates: { paths: string[]; served: string };
  /** The clients it knows: the issuer they belong to, their redirect URIs (undefined: any on loopback or https) and secret. */
  private readonly clients = new Map<string, { issuer: string; redirectUris?: string[]; secret?: string }>();
  private readonly codes = new Map<string, CodeGrant>();
  /** The tokens issued, each with the scopes it was granted and its issuer. */
  private readonly accessTokens = new Map<string, { scope: string[]; issuer: string }>();
  /** The requests left to tokens that expire ('expiring' variant). */
  private readonly usesLeft = new Map<string, number>();
  /** The refresh tokens issued, each with its grant's scopes and issuer; one used once is spent (rotation), and kept to tell its issuer. */
  private readonly refreshTokens = new Map<string, { scope: string[]; issuer: string; spent?: true }>();
  /** The authorization server the resource starts with (compared by identity). */
  private readonly first: Authority;
  /** The authorization server of the 'migration' variant the resource moves to, and whether it has. */
  readonly second: Authority | undefined;
  private moved = false;
  /** The 'shellProbe' variant's markers and path segment (undefined: no such variant, or the temporary directory's path cannot go into a URL). */
  readonly shell: { markers: string[]; segment: string } | undefined;

  /** Where the authorization server and its metadata are served: the endpoint's origin, or an https: one of their own. */
  readonly authorizationOrigin: string;

  /**
   * `authorizationOrigin`: an origin serving this host's guard beside the endpoint's (https:, for a
   * client that takes no plain-http authorization server); `redirectOrigin`: the origin serving it
   * at the metadataRedirectAt address.
   */
  constructor(
    endpoint: string,
    readonly variant: OAuthHostVariant = {},
    authorizationOrigin?: string,
    private readonly redirectOrigin?: string,
  ) {
    const url = new URL(endpoint);
    this.origin = url.origin;
    this.authorizationOrigin = authorizationOrigin ?? url.origin;
    this.resource = `${url.origin}${url.pathname}`;
    const discovery = variant.discovery ?? 'oauth';
    this.issuer = discovery === 'issuer-path' ? `${this.authorizationOrigin}${ISSUER_PATH}` : this.authorizationOrigin;
    // Where the authorization server's endpoints live (a path prefix).
    const base = discovery === 'issuer-path' ? ISSUER_PATH : discovery === 'oidc' ? '/oidc' : variant.legacy === 'metadata' ? LEGACY_PREFIX : '';
    const paths = metadataLocations(new URL(this.issuer)).map((l) => l.url.pathname);
    this.metadataCandidates = { paths, served: discovery === 'oauth' ? paths[0]! : paths[paths.length - 1]! };
    if (variant.registration === 'pre-registered' || variant.registration === 'any') this.clients.set(PRE_REGISTERED.client_id, { issuer: this.issuer, secret: PRE_REGISTERED.client_secret });
    this.first = { issuer: this.issuer, base };
    this.second = variant.migration ? { issuer: `${this.authorizationOrigin}${SECOND_AS_PATH}`, base: SECOND_AS_PATH } : undefined;
    this.shell = variant.shellProbe ? shellProbe() : undefined;
  }

  /** The shell probe's marker files that exist (a shell ran their substitution), removed as they are found. */
  shellMarkersMade(): string[] {
    const made = (this.shell?.markers ?? []).filter((m) => existsSync(m));
    for (const m of made) rmSync(m, { force: true });
    return made;
  }

  /** The authorization endpoint's path under an authority: with the shell probe's segment after it in that variant. */
  private authorizePath(at: Authority): string {
    return `${at.base}/authorize${this.shell ? `/${this.shell.segment}` : ''}`;
  }

  /** The authorization server the resource's metadata names now. */
  get current(): Authority {
    return this.moved && this.second ? this.second : this.first;
  }

  /** The issuer of an access or refresh token it issued (undefined: not one of its). */
  issuerOf(token: string): string | undefined {
    return this.accessTokens.get(token)?.issuer ?? this.refreshTokens.get(token)?.issuer;
  }

  /** Whether it takes a Client ID Metadata Document's URL as a client_id, and says so in its metadata. */
  private get takesDocuments(): boolean {
    return this.variant.registration === 'cimd' || this.variant.registration === 'any';
  }

  /** The token-endpoint authentication methods the metadata lists. */
  private get tokenAuthMethods(): ClientAuthMethod[] {
    if (this.variant.clientCredentials === 'secret') return ['client_secret_basic', 'client_secret_post'];
    if (this.variant.clientCredentials === 'jwt') return ['private_key_jwt'];
    if (this.variant.registration === 'pre-registered') return ['client_secret_basic'];
    return this.variant.tokenAuth ? [this.variant.tokenAuth] : ['none', 'client_secret_basic', 'client_secret_post'];
  }

  /** The client_ids its registration endpoints issued, and by which issuer. */
  get registered(): ReadonlyMap<string, string> {
    return new Map([...this.clients].filter(([id]) => id.startsWith('mcpcheck-client-')).map(([id, c]) => [id, c.issuer]));
  }

  private get scopes(): NonNullable<OAuthHostVariant['scopes']> {
    return this.variant.scopes ?? 'challenge';
  }

  /** The tokens issued so far. */
  get issued(): ReadonlySet<string> {
    return new Set(this.accessTokens.keys());
  }

  /** Where the Protected Resource Metadata is served (the 401 challenge names it). */
  get resourceMetadataUrl(): string {
    return `${this.origin}${this.variant.challenge === 'complex' ? COMPLEX_PRM_PATH : PRM_PATH}`;
  }


  readonly guard: RequestGuard = (r) => this.answer(r);

  private record(event: OAuthEvent): void {
    if (this.events.length < 1_000) this.events.push(event);
  }

  private answer(r: GuardRequest): GuardAnswer | undefined {
    const route = `${r.method} ${r.path}`;
    if (r.path === '/mcp') return this.variant.open ? this.admit(r) : this.gate(r);
    if (route === `GET ${new URL(this.resourceMetadataUrl).pathname}` && !this.variant.legacy) {
      this.record({ kind: 'resource-metadata', method: r.method, path: r.path, query: r.query.toString(), names: this.current.issuer });
      return json(200, this.resourceMetadata());
    }
    if (r.method === 'GET' && /\/\.well-known\/(oauth-authorization-server|openid-configuration)/.test(r.path)) {
      const second = this.second && r.path === `/.well-known/oauth-authorization-server${this.second.base}` ? this.second : undefined;
      const served = second !== undefined || (r.path === this.metadataCandidates.served && this.variant.legacy !== 'fallback');
      const version = r.headers['mcp-protocol-version'];
      // Asked on the authorization origin, the metadata redirects to the other address; asked there, it is served.
      if (served && this.redirectOrigin !== undefined && r.headers.host !== new URL(this.redirectOrigin).host) {
        this.record({ kind: 'authorization-server-metadata', method: r.method, path: r.path, query: r.query.toString(), status: 302, ...(typeof version === 'string' ? { protocolVersion: version } : {}) });
        return { status: 302, headers: { location: `${this.redirectOrigin}${r.path}` } };
      }
      this.record({ kind: 'authorization-server-metadata', method: r.method, path: r.path, query: r.query.toString(), status: served ? 200 : 404, ...(typeof version === 'string' ? { protocolVersion: version } : {}) });
      return served ? json(200, this.metadata(second ?? this.first)) : { status: 404 };
    }
    for (const at of this.second ? [this.second, this.first] : [this.first]) {
      if (route === `POST ${at.base}/register` && this.variant.registration !== 'pre-registered' && !this.variant.clientCredentials) return this.register(r, at);
      // The shell probe's path as the client sent it: encoded or not, it is the authorization endpoint.
      if (route === `GET ${at.base}/authorize` || (this.shell && r.method === 'GET' && r.path.startsWith(`${at.base}/authorize/`))) return this.authorize(r, at);
      if (route === `POST ${at.base}/token`) return this.token(r, at);
      if (route === `GET ${at.base}/jwks`) return json(200, { keys: [] });
    }
    this.record({ kind: 'other', method: r.method, path: r.path, query: r.query.toString() });
    return { status: 404 };
  }

  private resourceMetadata(): Record<string, unknown> {
    const scopes = { challenge: [CHALLENGE_SCOPE], metadata: METADATA_SCOPES, none: undefined, disjoint: DISJOINT_METADATA_SCOPES }[this.scopes];
    return { resource: this.variant.resourceMismatch ? FOREIGN_RESOURCE : this.resource, authorization_servers: [this.current.issuer], ...(scopes ? { scopes_supported: scopes } : {}), bearer_methods_supported: ['header'] };
  }

  private metadata(authority: Authority): Record<string, unknown> {
    const at = `${this.authorizationOrigin}${authority.base}`;
    const scopes = { challenge: [CHALLENGE_SCOPE], metadata: METADATA_SCOPES, none: undefined, disjoint: [...DISJOINT_METADATA_SCOPES, ...words(DISJOINT_CHALLENGE_SCOPE)] }[this.scopes];
    return {
      issuer: this.variant.issuerMismatch ? FOREIGN_ISSUER : authority.issuer,
      authorization_endpoint: this.variant.authorizationEndpoint ?? `${this.authorizationOrigin}${this.authorizePath(authority)}`,
      token_endpoint: `${at}/token`,
      ...(this.variant.registration === 'pre-registered' || this.variant.clientCredentials ? {} : { registration_endpoint: `${at}/register` }),
      ...(this.takesDocuments ? { client_id_metadata_document_supported: true } : {}),
      response_types_supported: ['code'],
      grant_types_supported: this.variant.clientCredentials ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: this.tokenAuthMethods,
      ...(this.variant.clientCredentials === 'jwt' ? { token_endpoint_auth_signing_alg_values_supported: [ASSERTION_ALGORITHM] } : {}),
      ...(scopes ? { scopes_supported: this.variant.stepUp ? [...scopes, STEP_UP_SCOPE] : scopes } : {}),
      authorization_response_iss_parameter_supported: true,
      ...(this.variant.withoutPkce ? {} : { code_challenge_methods_supported: ['S256'] }),
      // OpenID Connect Discovery 1.0 §3's required members beside RFC 8414's (no ID token is ever issued).
      ...(authority === this.first && this.metadataCandidates.served.includes('openid-configuration') ? { jwks_uri: `${at}/jwks`, subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] } : {}),
    };
  }

  /** The 401 challenge: the metadata's URL, and the scope where this variant names one there. */
  private challengeHeader(error?: string): string {
    // 2025-03-26 had no Protected Resource Metadata to name: RFC 6750's plain challenge.
    if (this.variant.legacy) return `Bearer realm="mcpcheck"${error ? `, error="${error}"` : ''}`;
    const scope = this.scopes === 'challenge' ? CHALLENGE_SCOPE : this.scopes === 'disjoint' ? DISJOINT_CHALLENGE_SCOPE : undefined;
    const params = [`resource_metadata="${this.resourceMetadataUrl}"`, ...(scope ? [`scope="${scope}"`] : []), ...(error ? [`error="${error}"`] : [])];
    if (this.variant.challenge !== 'complex') return `Bearer ${params.join(', ')}`;
    // RFC 9110 §11.6.1: one header, several challenges; quoted strings with commas, and parameters a client must pass over.
    return `Bearer realm="mcpcheck, protected", charset="UTF-8", ${params.join(', ')}, error_uri="${this.origin}/errors?a=1,b=2", Basic realm="legacy, unused"`;
  }

  /** The 'open' variant's endpoint: every request admitted, recorded as the gate records one. */
  private admit(r: GuardRequest): undefined {
    this.record(endpointEvent(r, true));
    return undefined;
  }

  /** The endpoint admits the tokens it issued, in the Authorization header; anything else gets the 401 challenge. */
  private gate(r: GuardRequest): GuardAnswer | undefined {
    const authorization = r.headers.authorization;
    const bearer = /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];
    const left = bearer !== undefined ? this.usesLeft.get(bearer) : undefined;
    if (left !== undefined) this.usesLeft.set(bearer!, left - 1);
    // The first authorization server's token ran out: the resource moves to the second.
    if (left !== undefined && left <= 0 && this.second) this.moved = true;
    const token = bearer !== undefined && (left === undefined || left > 0) ? this.accessTokens.get(bearer) : undefined;
    const granted = token && token.issuer === this.current.issuer ? token.scope : undefined;
    const event = endpointEvent(r, granted !== undefined);
    if (granted === undefined) {
      this.record({ ...event, status: 401 });
      return json(401, { error: bearer !== undefined ? 'invalid_token' : 'unauthorized' }, { 'www-authenticate': this.challengeHeader(bearer !== undefined ? 'invalid_token' : undefined) });
    }
    const stepUp = this.variant.stepUp;
    if (event.rpc === 'tools/list' && (stepUp === 'always' || (stepUp === 'once' && !granted.includes(STEP_UP_SCOPE)))) {
      this.record({ ...event, status: 403 });
      // RFC 6750 §3.1: the scope the request needs (basic/authorization.mdx, runtime insufficient scope errors).
      const challenge = `Bearer error="insufficient_scope", scope="${STEP_UP_SCOPE}", resource_metadata="${this.resourceMetadataUrl}", error_description="tools/list needs ${STEP_UP_SCOPE}"`;
      return json(403, { error: 'insufficient_scope' }, { 'www-authenticate': challenge });
    }
    this.record(event);
    return undefined;
  }

  private register(r: GuardRequest, at: Authority): GuardAnswer {
    const body = parseObject(r.body ?? '');
    const { issuer } = at;
    const uris = body?.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string')) {
      this.record({ kind: 'register', body, status: 400, issuer });
      return json(400, { error: 'invalid_redirect_uri', error_description: 'redirect_uris is required' });
    }
    if (this.variant.registration === 'refused') {
      this.record({ kind: 'register', body, status: 400, issuer });
      return json(400, { error: 'invalid_redirect_uri', error_description: 'these redirect URIs do not suit the application_type registered' });
    }
    const id = fresh('mcpcheck-client');
    const method = this.variant.tokenAuth ?? 'none';
    const secret = method === 'none' ? undefined : fresh('mcpcheck-secret');
    this.clients.set(id, { issuer, redirectUris: uris as string[], ...(secret !== undefined ? { secret } : {}) });
    this.record({ kind: 'register', body, status: 201, issuer, issuedId: id });
    return json(201, { ...body, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: method, ...(secret !== undefined ? { client_secret: secret, client_secret_expires_at: 0 } : {}) });
  }

  /** The client a client_id names: one it registered or knows, or in the 'cimd' variant a metadata document URL. */
  private clientOf(clientId: string, issuer: string): { redirectUris?: string[]; secret?: string } | undefined {
    const known = this.clients.get(clientId);
    // A client is known to the authorization server that registered it, and to no other.
    if (known) return known.issuer === issuer ? known : undefined;
    return this.takesDocuments && isMetadataDocumentId(clientId) ? {} : undefined;
  }

  /** The `iss` of an authorization response (RFC 9207), as this variant sends it (undefined: none). */
  get responseIss(): string | undefined {
    if (this.variant.iss === 'missing') return undefined;
    if (this.variant.iss === 'case-folded') return this.issuer.replace(/^http/, 'HTTP');
    return this.issuer;
  }

  private authorize(r: GuardRequest, at: Authority): GuardAnswer {
    const params = Object.fromEntries(r.query);
    const { issuer } = at;
    const client = this.clientOf(params.client_id ?? '', issuer);
    const redirectUri = params.redirect_uri ?? '';
    // A client whose redirect URIs it was not told (pre-registered, or a document it does not fetch) may use any a user agent can safely be sent to.
    const safe = URL.canParse(redirectUri) && (new URL(redirectUri).protocol === 'https:' || isLoopbackHost(new URL(redirectUri).hostname));
    const known = client !== undefined && (client.redirectUris ? client.redirectUris.includes(redirectUri) : safe);
    this.record({ kind: 'authorize', method: r.method, path: r.path, params, status: known ? 302 : 400, issuer });
    if (!known) return { status: 400, headers: { 'content-type': 'text/plain' }, body: 'unknown client or unregistered redirect_uri' };
    const back = new URL(redirectUri);
    if (this.variant.authorizationError) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', ERROR_MARKER);
      if (params.state !== undefined) back.searchParams.set('state', params.state);
      back.searchParams.set('iss', this.variant.authorizationError === 'wrong' ? FOREIGN_ISSUER : issuer);
      return { status: 302, headers: { location: back.href } };
    }
    const code = fresh('mcpcheck-code');
    this.codes.set(code, {
      issuer,
      clientId: params.client_id!,
      redirectUri,
      scope: words(params.scope),
      ...(params.code_challenge !== undefined ? { challenge: params.code_challenge } : {}),
      ...(params.code_challenge_method !== undefined ? { method: params.code_challenge_method } : {}),
    });
    back.searchParams.set('code', code);
    if (params.state !== undefined) back.searchParams.set('state', params.state);
    const iss = at === this.first ? this.responseIss : issuer;
    if (iss !== undefined) back.searchParams.set('iss', iss);
    return { status: 302, headers: { location: back.href } };
  }

  private token(r: GuardRequest, at: Authority): GuardAnswer {
    const params = Object.fromEntries(new URLSearchParams(r.body ?? ''));
    const { issuer } = at;
    const auth = tokenAuthOf(r.headers.authorization, params);
    const problem = this.variant.clientCredentials ? this.clientCredentialsProblem(auth, params, at) : undefined;
    const done = (status: number, body: Record<string, unknown>, issued?: string) => {
      const { clientId } = auth;
      this.record({
        kind: 'token',
        params,
        ...(r.headers.authorization !== undefined ? { authorization: r.headers.authorization } : {}),
        status,
        ...(issued !== undefined ? { issued } : {}),
        clientAuth: auth.method,
        ...(clientId !== undefined ? { clientId } : {}),
        issuer,
        ...(problem !== undefined ? { clientAuthProblem: problem } : {}),
      });
      return json(status, body);
    };
    if (this.variant.clientCredentials) {
      if (params.grant_type !== 'client_credentials') return done(400, { error: 'unsupported_grant_type', error_description: 'this authorization server grants client_credentials alone' });
      if (problem !== undefined) return done(401, { error: 'invalid_client', error_description: problem });
      // OAuth 2.1 §4.2.3: no refresh token for this grant.
      return this.issue(words(params.scope), issuer, done, undefined, false);
    }
    // Where one method is set, a client authenticating otherwise, or with a secret it was not given, is refused (RFC 6749 §5.2).
    const methods = this.tokenAuthMethods;
    if (methods.length === 1) {
      const client = this.clientOf(auth.clientId ?? '', issuer);
      if (auth.method !== methods[0] || (client?.secret !== undefined && auth.secret !== client.secret)) return done(401, { error: 'invalid_client', error_description: `the client authenticates by ${methods[0]} here` });
    }
    if (params.grant_type === 'authorization_code') {
      const grant = this.codes.get(params.code ?? '');
      if (!grant || grant.issuer !== issuer) return done(400, { error: 'invalid_grant' });
      this.codes.delete(params.code!);
      if (params.redirect_uri !== undefined && params.redirect_uri !== grant.redirectUri) return done(400, { error: 'invalid_grant', error_description: 'redirect_uri differs' });
      if (grant.challenge !== undefined) {
        const verifier = params.code_verifier;
        const ok = verifier !== undefined && (grant.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') === grant.challenge : verifier === grant.challenge);
        if (!ok) return done(400, { error: 'invalid_grant', error_description: 'code_verifier does not match' });
      }
      const expires = this.variant.expiring || (this.second !== undefined && issuer === this.issuer);
      return this.issue(grant.scope, issuer, done, expires ? EXPIRING_USES : undefined);
    }
    if (params.grant_type === 'refresh_token') {
      const refresh = this.refreshTokens.get(params.refresh_token ?? '');
      // A refresh token is good only at the authorization server that issued it.
      if (!refresh || refresh.spent || refresh.issuer !== issuer) return done(400, { error: 'invalid_grant' });
      const { scope } = refresh;
      // RFC 6749 §6: a refresh may narrow the scope, never widen it.
      const asked = params.scope !== undefined ? words(params.scope) : scope;
      if (asked.some((s) => !scope.includes(s))) return done(400, { error: 'invalid_scope', error_description: 'a refresh cannot add scopes the grant lacks' });
      refresh.spent = true;
      return this.issue(asked, issuer, done);
    }
    return done(400, { error: 'unsupported_grant_type' });
  }

  /** Why a client credentials token request does not authenticate CLIENT_CREDENTIALS by a method the metadata lists (undefined: it does). */
  private clientCredentialsProblem(auth: ReturnType<typeof tokenAuthOf>, params: Record<string, string>, at: Authority): string | undefined {
    const listed = this.tokenAuthMethods;
    if (!listed.includes(auth.method)) return `it authenticated by ${auth.method}, which the metadata does not list (${listed.join(', ')})`;
    if (auth.method === 'private_key_jwt') {
      if (auth.clientId !== undefined && auth.clientId !== CLIENT_CREDENTIALS.client_id) return `client_id ${JSON.stringify(auth.clientId)} beside the assertion, not ${CLIENT_CREDENTIALS.client_id}`;
      const audiences = [at.issuer, `${this.authorizationOrigin}${at.base}/token`];
      return assertionProblem(params.client_assertion, params.client_assertion_type, { publicKey: clientCredentialsKey().publicKey, algorithms: [ASSERTION_ALGORITHM], clientId: CLIENT_CREDENTIALS.client_id, audiences, nowSeconds: Math.floor(Date.now() / 1000) });
    }
    if (auth.clientId !== CLIENT_CREDENTIALS.client_id || auth.secret !== CLIENT_CREDENTIALS.client_secret) return `client ${JSON.stringify(auth.clientId)} with a secret other than the one it was given`;
    return undefined;
  }

  private issue(scope: string[], issuer: string, done: (status: number, body: Record<string, unknown>, issued?: string) => GuardAnswer, uses?: number, refreshable = true): GuardAnswer {
    const access = fresh('mcpcheck-access');
    this.accessTokens.set(access, { scope, issuer });
    if (uses !== undefined) this.usesLeft.set(access, uses);
    const refresh = this.variant.noRefreshToken || !refreshable ? undefined : fresh('mcpcheck-refresh');
    if (refresh !== undefined) this.refreshTokens.set(refresh, { scope, issuer });
    return done(200, { access_token: access, token_type: 'Bearer', expires_in: 3600, ...(refresh !== undefined ? { refresh_token: refresh } : {}), ...(scope.length > 0 ? { scope: scope.join(' ') } : {}) }, access);
  }
}
