import { advertisesS256, asScenario, describeResponse, endpointSchemes, list, metadataLocations, missingMetadataFields, ruling, show } from '../kit.js';
import { differsBySlashAlone, metadataOf } from './helpers.js';

// The authorization server's metadata (basic/authorization.mdx#overview, #authorization-server-metadata-discovery;
// RFC 8414 §2–3, OpenID Connect Discovery 1.0 §3–4).

export const published = asScenario({
  id: 'as.metadata.published',
  title: 'The authorization server publishes OAuth 2.0 Authorization Server Metadata (RFC 8414) or OpenID Connect Discovery metadata',
  requirements: ['AUTH-ASMD-01'],
  async run(ctx) {
    const m = await ctx.as.metadata();
    if (m.notContacted !== undefined) return ctx.check.skip(`not run: ${m.notContacted}`);
    const urls = metadataLocations(ctx.as.issuer).map((l) => l.url.href);
    ctx.check.expect(m.found !== undefined, {
      expected: `a JSON object served with HTTP 200 at one of the issuer's well-known URLs, tried in the order MCP clients try them (${urls.join(', ')})`,
      actual: m.found ? `found at ${m.found.url}` : list(m.attempts.map((a) => `${a.url}: ${describeResponse(a.res)}`)),
    });
  },
});

export const issuer = asScenario({
  id: 'as.metadata.issuer',
  title: 'The metadata\'s issuer is identical to the issuer identifier its well-known URL was built from (RFC 8414 §3.3)',
  requirements: ['AUTH-ASMD-01'],
  async run(ctx) {
    const found = await metadataOf(ctx);
    if (!found) return;
    const given = ctx.as.issuerText;
    const value = found.document.issuer;
    if (differsBySlashAlone(value, ctx)) {
      return ctx.check.skip(`not judged: the metadata's issuer ${show(value)} differs from --url ${show(given)} by a trailing slash alone; rerun with --url set to the issuer exactly as protected resource metadata lists it`);
    }
    ctx.check.expect(value === given, {
      expected: `issuer ${show(given)}, identical to the issuer identifier the URL ${found.url} was built from (clients must not use metadata whose issuer differs)`,
      actual: `issuer ${show(value)}`,
    });
  },
});

export const requiredFields = asScenario({
  id: 'as.metadata.required-fields',
  title: 'The metadata has the members RFC 8414 requires of a server offering the authorization-code grant',
  requirements: ['AUTH-ASMD-01'],
  async run(ctx) {
    const found = await metadataOf(ctx);
    if (!found) return;
    const missing = missingMetadataFields(found.document);
    ctx.check.expect(missing.length === 0, {
      expected: 'issuer, authorization_endpoint and token_endpoint as URL strings, and response_types_supported listing "code" (RFC 8414 §2)',
      actual: list(missing),
    });
  },
});

export const pkce = asScenario({
  id: 'as.metadata.pkce',
  title: 'The metadata lists S256 in code_challenge_methods_supported, without which MCP clients refuse the server',
  requirements: ['AUTH-AS-01', 'AUTH-PKCE-03'],
  async run(ctx) {
    const found = await metadataOf(ctx);
    if (!found) return;
    const oidc = found.kind === 'oidc';
    ctx.check.expect(advertisesS256(found.document), {
      requirements: oidc ? ['AUTH-PKCE-03'] : ['AUTH-AS-01'],
      expected: `code_challenge_methods_supported listing "S256" in the ${oidc ? 'OpenID Connect Discovery' : 'RFC 8414'} document at ${found.url}${oidc ? '' : ` (${ruling('as-advertises-s256').cite})`}`,
      actual: `code_challenge_methods_supported ${show(found.document.code_challenge_methods_supported)}`,
    });
  },
});

export const https = asScenario({
  id: 'as.metadata.https',
  title: 'Every endpoint the metadata names is served over HTTPS',
  requirements: ['AUTH-SEC-03'],
  async run(ctx) {
    const found = await metadataOf(ctx);
    if (!found) return;
    const schemes = endpointSchemes(found.document);
    const other = schemes.filter((s) => s.scheme === 'other');
    const loopback = schemes.filter((s) => s.scheme === 'loopback-http');
    if (schemes.length === 0) return ctx.check.skip('not judged: the metadata names no endpoint');
    if (other.length === 0 && loopback.length > 0) {
      return ctx.check.skip(`not judged: ${list(loopback.map((s) => s.field))} ${loopback.length > 1 ? 'are' : 'is'} plain http on loopback, exempt (${ruling('loopback-authorization-server').cite})`);
    }
    ctx.check.expect(other.length === 0, {
      expected: 'https URLs for every endpoint (plain http only on loopback)',
      actual: list(other.map((s) => `${s.field} ${show(s.value, 160)}`)),
    });
  },
});

/** The token endpoint authentication methods of the client credentials extension, one of which its authorization server lists. */
const MACHINE_METHODS = ['private_key_jwt', 'client_secret_basic'];

export const clientCredentials = asScenario({
  id: 'as.metadata.client-credentials',
  title: 'Granting client_credentials, the metadata lists private_key_jwt or client_secret_basic, and the signing algorithms where it lists private_key_jwt',
  requirements: ['AUTH-CC-03'],
  async run(ctx) {
    const found = await metadataOf(ctx);
    if (!found) return;
    const grants = found.document.grant_types_supported;
    if (!Array.isArray(grants) || !grants.includes('client_credentials')) return ctx.check.skip(`not exercised: grant_types_supported ${show(grants)} does not list client_credentials (the client credentials extension is optional)`);
    const methods = found.document.token_endpoint_auth_methods_supported;
    const algorithms = found.document.token_endpoint_auth_signing_alg_values_supported;
    const listed = Array.isArray(methods) ? methods : [];
    const problems = [
      ...(!listed.some((m) => MACHINE_METHODS.includes(m as string)) ? [`token_endpoint_auth_methods_supported ${show(methods)} lists neither (the extension asks for the member, whatever RFC 8414's default)`] : []),
      ...(listed.includes('private_key_jwt') && (!Array.isArray(algorithms) || algorithms.length === 0) ? [`private_key_jwt listed with token_endpoint_auth_signing_alg_values_supported ${show(algorithms)}`] : []),
    ];
    ctx.check.expect(problems.length === 0, {
      expected: `grant_types_supported lists client_credentials: token_endpoint_auth_methods_supported lists ${MACHINE_METHODS.join(' or ')}, and token_endpoint_auth_signing_alg_values_supported (non-empty) where private_key_jwt is listed`,
      actual: list(problems),
    });
  },
});
