import type { RequirementId } from '../spec/requirement-id.js';

/**
 * The requirement ids one validator module judges, declared beside its checks: the one place a rule
 * is registered. VALIDATOR_RULES (coverage.ts) is derived from these tables, and a test holds every
 * id a module cites to its table.
 */
export type RuleTable = readonly RequirementId[];
