import type { RequirementId } from '../spec/requirement-id.js';
import { allRequirements, appliesIn, findRequirement } from '../spec/catalog.js';
import { type Era, LATEST_REVISION } from '../spec/revisions.js';
import { MESSAGE_RULES } from './message.js';
import { HEADER_RULES } from './modern-headers.js';
import { SESSION_RULES } from './session.js';
import { VERSION_RULES } from './versions.js';

/** The ids once each, in the catalog's order (an id the catalog lacks last, for the test that forbids it to find). */
function inCatalogOrder(ids: Iterable<RequirementId>): RequirementId[] {
  const rank = new Map(allRequirements().map((r, i) => [r.id, i]));
  return [...new Set(ids)].sort((a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity));
}

/**
 * Every requirement the passive validators (message + session) can judge, derived from their rule
 * tables. `validate` reports each as a check: pass when traffic exercised it without a violation,
 * skip when nothing in the transcript gave it a chance to fail.
 */
export const VALIDATOR_RULES: readonly RequirementId[] = inCatalogOrder([...MESSAGE_RULES, ...SESSION_RULES, ...VERSION_RULES]);

/**
 * The validator's rules that judge traffic of an era: the 2025-11-25 catalog's for the stateful
 * era, the 2026-07-28 catalog's for the stateless one (a carried-over id is in both).
 */
export function validatorRulesOf(era: Era): RequirementId[] {
  return VALIDATOR_RULES.filter((id) => (era === 'stateful' ? findRequirement(id) !== undefined : appliesIn(id, LATEST_REVISION)));
}

/**
 * Rules the transports judge live on the bytes a target sends, beyond VALIDATOR_RULES (a
 * violation becomes a `live.<ID>` check): the HTTP client (src/transport/http.ts) judges a
 * server's answers, mcpcheck's HTTP endpoint (src/validate/client-http.ts) a client's requests,
 * the stdio relay (src/transport/stdio-relay.ts) how a client ends its server. No transcript holds
 * this (HTTP headers, process signals), so `validate` cannot judge them.
 */
export const TRANSPORT_RULES: Readonly<Record<'stdio' | 'http', readonly RequirementId[]>> = {
  stdio: ['LIFE-SHUT-01'],
  // …and at 2026-07-28 mcpcheck's endpoint judges each modern POST's headers against its body (HEADER_RULES).
  http: ['HTTP-POST-05', 'HTTP-SSE-01', 'HTTP-RESUME-01', 'HTTP-GET-02', 'HTTP-POST-01', 'HTTP-POST-02', 'HTTP-GET-01', 'HTTP-VER-01', 'HTTP-VER-02', 'HTTP-SESS-04', ...HEADER_RULES],
};
