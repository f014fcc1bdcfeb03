/** The programmatic API of mcpcheck. */
export { validateMessage, type MessageContext, type Side } from './validate/message.js';
export { SessionValidator, type SessionValidatorOptions } from './validate/session.js';
export { checkEnvelope, type Envelope, type MessageKind } from './validate/envelope.js';
export { checkMeta } from './validate/meta.js';
export { checkIcons } from './validate/icons.js';
export { checkSchema, validateWithSchema, detectDialect, type Dialect } from './validate/dialects.js';
// What the API has always meant by a revision: one initialize negotiates (2026-07-28 is no such revision).
export {
  STATEFUL_REVISIONS as REVISIONS,
  LATEST_STATEFUL_REVISION as LATEST_REVISION,
  isStatefulRevision as isRevision,
  type StatefulRevision as Revision,
} from './spec/revisions.js';
export type { Finding, Severity } from './validate/finding.js';
export { VALIDATOR_RULES } from './validate/coverage.js';
export {
  parseTranscript,
  formatHeader,
  formatFrame,
  TranscriptUnusable,
  type ParsedTranscript,
  type TranscriptFrame,
  type TranscriptHeader,
} from './transcript/format.js';
export { validateTranscript, type TranscriptValidation } from './transcript/validate.js';
export { validateFiles, type ValidateOptions } from './commands/validate.js';
export {
  allRequirements,
  findRequirement,
  requirement,
  requirementIn,
  catalogOf,
  isRequirementId,
  type Requirement,
  type Level,
} from './spec/catalog.js';
export type { RequirementId } from './spec/requirement-id.js';
export { grade, exitCode, loadBaseline, type Baseline } from './grade/index.js';
export { renderConsole, renderGithub, renderHtml, renderJson, renderJunit, renderMarkdown, writeReports } from './report/index.js';
export type * from './model.js';
