import { type KeyObject, verify } from 'node:crypto';

/**
 * A client's JWT assertion at a token endpoint (RFC 7523 §2.2 and §3, the `private_key_jwt`
 * method of the client credentials extension), checked as an authorization server must before it
 * takes the client for who it says it is.
 */

/** The client_assertion_type of a JWT assertion (RFC 7523 §2.2). */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** How long past `exp` an assertion is still taken: clocks on one machine agree, but the request took its time. */
const CLOCK_SKEW_S = 30;

export interface AssertionExpectation {
  /** The key the client was given to sign with (its public half). */
  publicKey: KeyObject;
  /** The JWS algorithms the authorization server lists (token_endpoint_auth_signing_alg_values_supported). */
  algorithms: readonly string[];
  clientId: string;
  /** What `aud` may name: the authorization server's issuer identifier or its token endpoint (RFC 7523 §3). */
  audiences: readonly string[];
  nowSeconds: number;
}

function decodeSegment(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The digest and signature encoding of each JWS algorithm mcpcheck verifies (RFC 7518 §3.1). */
const ALGORITHMS: Record<string, { digest: string; ecdsa: boolean }> = {
  ES256: { digest: 'sha256', ecdsa: true },
  ES384: { digest: 'sha384', ecdsa: true },
  RS256: { digest: 'sha256', ecdsa: false },
};

/** Why the assertion does not authenticate the client, or undefined when it does. */
export function assertionProblem(assertion: string | undefined, type: string | undefined, e: AssertionExpectation): string | undefined {
  if (type !== JWT_BEARER_ASSERTION) return `client_assertion_type ${JSON.stringify(type)}, not ${JWT_BEARER_ASSERTION}`;
  if (assertion === undefined || assertion === '') return 'no client_assertion';
  const parts = assertion.split('.');
  if (parts.length !== 3) return `a client_assertion of ${parts.length} dot-separated parts, not a signed JWT (three)`;
  const [head, body, signature] = parts as [string, string, string];
  const header = decodeSegment(head);
  const claims = decodeSegment(body);
  if (!isRecord(header) || !isRecord(claims)) return 'a client_assertion whose header or claims are no base64url-encoded JSON object';
  const alg = header.alg;
  if (typeof alg !== 'string' || !e.algorithms.includes(alg) || ALGORITHMS[alg] === undefined) return `signed with alg ${JSON.stringify(alg)}, which the metadata does not list (${e.algorithms.join(', ')})`;
  const { digest, ecdsa } = ALGORITHMS[alg];
  const signed = verify(digest, Buffer.from(`${head}.${body}`), ecdsa ? { key: e.publicKey, dsaEncoding: 'ieee-p1363' } : e.publicKey, Buffer.from(signature, 'base64url'));
  if (!signed) return 'a signature that the key given to the client does not verify';
  if (claims.iss !== e.clientId) return `iss ${JSON.stringify(claims.iss)}, not the client_id ${e.clientId}`;
  if (claims.sub !== e.clientId) return `sub ${JSON.stringify(claims.sub)}, not the client_id ${e.clientId}`;
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.some((a) => typeof a === 'string' && e.audiences.includes(a.replace(/\/$/, '')))) return `aud ${JSON.stringify(claims.aud)}, which names neither the issuer nor the token endpoint (${e.audiences.join(', ')})`;
  if (typeof claims.exp !== 'number') return 'no exp claim';
  if (claims.exp + CLOCK_SKEW_S < e.nowSeconds) return `exp ${claims.exp}, ${e.nowSeconds - claims.exp} s in the past`;
  return undefined;
}
