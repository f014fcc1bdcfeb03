import { parseObject } from '../json.js';
import { isLoopbackHost } from './loopback.js';

// Authorization server metadata (RFC 8414, OpenID Connect Discovery 1.0) as basic/authorization.mdx
// asks for it, and the OAuth error responses of its endpoints (RFC 6749 §5.2, OAuth 2.1 §3.2.4).

/** Which specification a metadata document was published under. */
export type MetadataKind = 'oauth' | 'oidc';

export interface MetadataLocation {
  url: URL;
  kind: MetadataKind;
}

/**
 * The well-known URLs of an issuer in the order MCP clients try them (AUTH-ASMD-03): with a path,
 * the RFC 8414 path-inserted form, then OIDC path-inserted, then OIDC path-appended; without one,
 * RFC 8414 then OIDC.
 */
export function metadataLocations(issuer: URL): MetadataLocation[] {
  const path = issuer.pathname.replace(/\/$/, '');
  const at = (p: string) => new URL(p, issuer.origin);
  if (path === '') return [{ url: at('/.well-known/oauth-authorization-server'), kind: 'oauth' }, { url: at('/.well-known/openid-configuration'), kind: 'oidc' }];
  return [
    { url: at(`/.well-known/oauth-authorization-server${path}`), kind: 'oauth' },
    { url: at(`/.well-known/openid-configuration${path}`), kind: 'oidc' },
    { url: at(`${path}/.well-known/openid-configuration`), kind: 'oidc' },
  ];
}

/** RFC 8414 §2's required members an MCP client needs (the code flow): what is missing or of the wrong kind. */
export function missingMetadataFields(doc: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const field of ['issuer', 'authorization_endpoint', 'token_endpoint']) {
    if (typeof doc[field] !== 'string' || doc[field] === '') problems.push(`${field} (a URL string) is missing`);
  }
  const types = doc.response_types_supported;
  if (!Array.isArray(types)) problems.push('response_types_supported (an array) is missing');
  else if (!types.includes('code')) problems.push(`response_types_supported ${JSON.stringify(types).slice(0, 120)} lacks "code"`);
  return problems;
}

/** The metadata members that name endpoints of the authorization server (AUTH-SEC-03). */
const ENDPOINT_FIELDS = [
  'authorization_endpoint',
  'token_endpoint',
  'registration_endpoint',
  'revocation_endpoint',
  'introspection_endpoint',
  'userinfo_endpoint',
  'device_authorization_endpoint',
  'pushed_authorization_request_endpoint',
  'end_session_endpoint',
  'jwks_uri',
] as const;

export interface EndpointScheme {
  field: string;
  value: string;
  /** https; plain http on loopback (exempt by the ruling loopback-authorization-server); anything else. */
  scheme: 'https' | 'loopback-http' | 'other';
}

/** The scheme of every endpoint the document names. */
export function endpointSchemes(doc: Record<string, unknown>): EndpointScheme[] {
  const out: EndpointScheme[] = [];
  for (const field of ENDPOINT_FIELDS) {
    const value = doc[field];
    if (typeof value !== 'string') continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    const scheme = url?.protocol === 'https:' ? 'https' : url?.protocol === 'http:' && isLoopbackHost(url.hostname) ? 'loopback-http' : 'other';
    out.push({ field, value, scheme });
  }
  return out;
}

/** Whether `code_challenge_methods_supported` lists S256 (AUTH-PKCE-02: a client refuses an AS whose metadata does not). */
export function advertisesS256(doc: Record<string, unknown>): boolean {
  const methods = doc.code_challenge_methods_supported;
  return Array.isArray(methods) && methods.includes('S256');
}

/** An OAuth error response body (RFC 6749 §5.2): its `error` code when the body is a JSON object with one. */
export function oauthErrorCode(body: string): string | undefined {
  const error = parseObject(body)?.error;
  return typeof error === 'string' ? error : undefined;
}

/** Whether a `Cache-Control` value forbids storing the response (OAuth 2.1 §3.2.3, RFC 6749 §5.1). */
export function forbidsStoring(cacheControl: string | undefined): boolean {
  return cacheControl !== undefined && cacheControl.split(',').some((d) => d.trim().toLowerCase() === 'no-store');
}
