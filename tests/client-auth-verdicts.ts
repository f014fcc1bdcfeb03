import type { RunReport } from '../src/model.js';

/** The verdict of each authorization scenario, by check id. */
export const authVerdicts = (report: RunReport) => Object.fromEntries(report.checks.filter((c) => c.id.startsWith('client.auth.')).map((c) => [c.id, c.status]));

/**
 * The authorization scenarios' verdicts a client that does OAuth as the spec asks gets: the
 * reference OAuth clients' (client-auth.test.ts), and the SDK example client's in its whole run
 * (client-harness.test.ts).
 */
export const ALL_PASS = {
  'client.auth.resource-metadata': 'pass',
  'client.auth.pkce': 'pass',
  'client.auth.resource': 'pass',
  'client.auth.state': 'pass',
  'client.auth.redirect-registered': 'pass',
  'client.auth.redirect-safe': 'pass',
  'client.auth.scope': 'pass',
  'client.auth.scope-from-metadata': 'pass',
  'client.auth.scope-omitted': 'pass',
  'client.auth.bearer': 'pass',
  'client.auth.token-not-in-query': 'pass',
  'client.auth.pkce-unadvertised': 'pass',
  'client.auth.scope-challenge-authoritative': 'pass',
  'client.auth.complex-challenge': 'pass',
  'client.auth.metadata-order': 'pass',
  'client.auth.metadata-order-root': 'pass',
  'client.auth.oidc-discovery': 'pass',
  'client.auth.step-up': 'pass',
  'client.auth.step-up-bounded': 'pass',
  'client.auth.expired-token': 'pass',
  'client.auth.resource-canonical': 'pass',
  'client.auth.cimd': 'pass',
  'client.auth.cimd-url': 'pass',
  'client.auth.dcr-fallback': 'pass',
  'client.auth.token-auth-basic': 'pass',
  'client.auth.token-auth-post': 'pass',
  'client.auth.token-auth-none': 'pass',
  'client.auth.pre-registration': 'pass',
  'client.auth.registration-order': 'pass',
  'client.auth.resource-mismatch': 'pass',
  'client.auth.token-per-server': 'pass',
  // The client credentials extension: the reference clients and the SDK example take its context.
  'client.auth.client-credentials-secret/authentication': 'pass',
  'client.auth.client-credentials-secret/resource': 'pass',
  'client.auth.client-credentials-jwt/authentication': 'pass',
  'client.auth.client-credentials-jwt/resource': 'pass',
  // A 2025-03-26 server without Protected Resource Metadata: the SDK finds its authorization server at the origin.
  'client.auth.legacy-metadata/discovery': 'pass',
  'client.auth.legacy-metadata/version-header': 'pass',
  'client.auth.legacy-fallback': 'pass',
};
/** A 2026-07-28 client is judged on these too (rules of that revision alone). */
export const ALL_PASS_2026 = {
  ...ALL_PASS,
  'client.auth.issuer-mismatch': 'pass',
  'client.auth.step-up-union': 'pass',
  'client.auth.iss-missing': 'pass',
  'client.auth.iss-exact': 'pass',
  'client.auth.application-type': 'pass',
  'client.auth.refresh-grant-types': 'pass',
  'client.auth.client-id': 'pass',
  'client.auth.no-refresh-token': 'pass',
  'client.auth.registration-refused': 'pass',
  'client.auth.iss-on-error': 'pass',
  'client.auth.as-migration': 'pass',
  'client.auth.pre-registered-elsewhere': 'pass',
  'client.auth.no-shell': 'pass',
  // It loads the authorization URL itself, as the official contract has it: which schemes it would open in a browser is not seen.
  'client.auth.authorization-url-javascript': 'skip',
  'client.auth.authorization-url-data': 'skip',
  'client.auth.authorization-url-file': 'skip',
  // Outside the network sandbox the SSRF scenarios are not started.
  'client.auth.ssrf-private-address': 'skip',
  'client.auth.ssrf-redirect': 'skip',
  'client.auth.ssrf-plain-http': 'skip',
  // It speaks 2026-07-28 to mcpcheck: no initialize for a 2025-03-26 answer, so 2025-03-26's rules are not its.
  'client.auth.legacy-metadata/discovery': 'skip',
  'client.auth.legacy-metadata/version-header': 'skip',
  'client.auth.legacy-fallback': 'skip',
};
