/**
 * What a suite may use of mcpcheck: the one module the scenario files, suites/common.ts and the
 * helpers.ts of each role import from src/ (tests/layers.test.ts holds them to it, and to using
 * every name here). A suite that needs another name adds it here, under what it is, so where the
 * suites touch the core stays one short list.
 */

// Defining a scenario: the object a suite exports, what it needs, and the context its run() gets.
export { settledWithin } from '../src/runner/guard.js';
export { MODERN, probeTokenFlag, type ProbeTokens, type RevisionSpan, scenario, type Scenario, type ScenarioContext, type ScenarioNeeds, type ToolPolicy } from '../src/runner/scenario.js';
export { clientScenario, type ClientScenario, type ClientScenarioContext, type SharedJudgeContext } from '../src/runner/client-scenario.js';

// Recording checks, and how a reply or a value reads in a check's message.
export { replyFrame, type CheckOptions, type CheckRecorder } from '../src/runner/checks.js';
export { isAnonymousError } from '../src/validate/envelope.js';
export { describeReply } from '../src/harness/describe-reply.js';
export { list, show, type Finding } from '../src/validate/finding.js';
export { invisibleSessionIdChars, responseOnGetStream } from '../src/validate/server-http.js';

// Sessions: mcpcheck as the client of a server under test, as the server of a client under test,
// the frames and replies both record, and waits scaled by the pace measured of the target.
export { elidedString, type FrameValue, type PeerSession, type RecordedFrame, type Reply } from '../src/harness/peer-session.js';
export type { ClientSession } from '../src/harness/client-session.js';
export type { Target } from '../src/harness/target.js';
export { DEFAULT_TOOLS, type Outcome, type ServerSession } from '../src/harness/server-session.js';
export { cannedCapabilities, cannedInputResponses } from '../src/harness/canned.js';
export { stretched } from '../src/harness/pace.js';

// The transport under a session, for transport-level rules: what a send or an HTTP exchange gave
// back; bounded waits.
export type { SendResult } from '../src/transport/channel.js';
export type { HttpChannel, HttpSendResult, ProbeRequest, ProbeResponse, SseEvent } from '../src/transport/http.js';
export type { ClientExchange } from '../src/transport/server-channel.js';
export { sleep, waitUntil } from '../src/transport/common.js';

// The machine mcpcheck runs on: the sockets a started server listens on, a loopback certificate
// for icons served over HTTPS.
export { groupListeners, isLoopback, isLoopbackHost, showSocket } from '../src/harness/listening.js';
export { loopbackCertificate } from '../src/harness/loopback-trust.js';
export { inNetworkSandbox, SANDBOX_ADDRESSES } from '../src/harness/network-sandbox.js';
export { serveGuard } from '../src/transport/guard-origin.js';

// Discovery: what the server under test offers, walked once per run, and how its tools are called.
export { hasCapability, walkList, type Discovery, type ListMethod, type ListWalk } from '../src/runner/discovery.js';
export { planToolCall, type ToolPlan } from '../src/runner/tool-plan.js';
export { inLanes } from '../src/runner/guard.js';

// The spec: revisions, a requirement's level and clauses by revision, the rulings checks cite.
// These suites speak the initialize era: to them a revision is one initialize negotiates.
export { isStatefulRevision as isRevision, LATEST_STATEFUL_REVISION as LATEST_REVISION, revisionAtLeast, STATEFUL_REVISIONS as REVISIONS, type StatefulRevision as Revision } from '../src/spec/revisions.js';
export { allowsBatches } from '../src/validate/revisions.js';
export type { RequirementId } from '../src/spec/requirement-id.js';
export { clauseSince, levelIn, type Level } from '../src/spec/catalog.js';
export { ruling } from '../src/spec/rulings.js';

// Validators the suites reuse as predicates, so a rule is judged by one predicate, in a scenario
// as on live traffic and in a transcript.
export { isStrictBase64 } from '../src/validate/base64.js';
export { idEntropy } from '../src/validate/id-entropy.js';
export { checkContentList, contentBlockProblem, isAbsoluteUri } from '../src/validate/content.js';
export { checkSchema, validateWithSchema } from '../src/validate/dialects.js';
export { excuseEchoedUris, suppliedArguments } from '../src/validate/echo.js';
export { allowedInEmptyResult } from '../src/validate/message.js';
export { ITEM_KEY, walkProblems } from '../src/validate/pagination.js';
export { describeErrors, laterRevisionAccepting, schemaFor, type RevisionSchema } from '../src/validate/schemas.js';
export { mayRequestBeforeInitialized } from '../src/validate/session.js';
export { isPrimingEvent, PRIMING_EXPECTED, primingProblem } from '../src/validate/sse.js';
export { checkCallToolResult } from '../src/validate/tools.js';
export { isTerminal, RELATED_TASK } from '../src/validate/tasks.js';
export { isTaskHandle, TASKS_EXTENSION } from '../src/validate/ext-tasks.js';
export { advertisesExtension, REQUEST_SCOPED } from '../src/validate/modern.js';
export { checkModernRequestHeaders } from '../src/validate/modern-headers.js';
export { parseUriTemplate } from '../src/validate/uri-template.js';
export { notAProtocolVersion, unsupportedVersionErrorRuling } from '../src/validate/versions.js';

// Schema synthesis: argument values from a tool's input schema or a prompt's arguments.
export { promptArgumentValue, type ArgumentContext } from '../src/schema/kinds.js';
export { timedArguments } from '../src/schema/durations.js';

// Properties: fast-check runs against a live target. The runner and the generators are loaded
// when a property runs, not with the suites: fast-check and they cost every run about 25 ms of
// start-up before discovery could begin.
export type { CaseVerdict, PropertyOutcome } from '../src/property/check.js';
export type { Schema } from '../src/property/served-tools.js';
export type { schemaArbitrary } from '../src/schema/arbitrary.js';
export const loadPropertyCheck = () => import('../src/property/check.js');
export const loadSchemaArbitrary = () => import('../src/schema/arbitrary.js');
export const loadServedTools = () => import('../src/property/served-tools.js');

// The stateless era (2026-07-28): its reserved _meta keys, error codes and request headers.
export { META, MODERN_ERRORS, MODERN_HEADERS } from '../src/spec/modern.js';
export { LOG_LEVELS, severityOf } from '../src/spec/log-levels.js';
export { modernRequestHeaders } from '../src/transport/modern-request-headers.js';
export { encodeHeaderValue, headerParameters, type HeaderParameter } from '../src/validate/modern-headers.js';

// Authorization (basic/authorization.mdx): the challenges of WWW-Authenticate.
export { bearerChallenge, type Challenge, parseChallenges } from '../src/validate/www-authenticate.js';
export { resourceMatch, wellKnownMetadataUrls } from '../src/validate/resource-uri.js';

// A protected endpoint and its authorization server, for a client under test.
export { ASSERTION_ALGORITHM, CHALLENGE_SCOPE, CLIENT_CREDENTIALS, clientCredentialsKey, COMPLEX_PRM_PATH, LEGACY_PREFIX, DISJOINT_CHALLENGE_SCOPE, DISJOINT_METADATA_SCOPES, ERROR_MARKER, EXPIRING_USES, FOREIGN_ISSUER, FOREIGN_RESOURCE, isMetadataDocumentId, LoopbackOAuthHost, METADATA_SCOPES, type OAuthEvent, type OAuthHostVariant, PRE_REGISTERED, PRM_PATH, SHELL_PROBE_COMMAND, STEP_UP_SCOPE, type TokenAuthMethod } from '../src/harness/oauth-host.js';

// Authorization servers (`mcpcheck authorization`): mcpcheck as their OAuth client and user agent,
// and what their metadata and error responses must hold.
export { asScenario, type AsScenario, type AsScenarioContext } from '../src/runner/as-scenario.js';
export { describeResponse, type Grant, noCodeBecause, type OAuthClient, pkceChallenge } from '../src/harness/authorization-server.js';
export type { UserAgent, Visited } from '../src/harness/user-agent.js';
export { approvalOf, formsOf, pageText, submission } from '../src/validate/html-form.js';
export { cookieName, cookieProblems, framingAllowed } from '../src/validate/consent-security.js';
export type { PlainResponse } from '../src/transport/http-request.js';
export { advertisesS256, endpointSchemes, forbidsStoring, metadataLocations, missingMetadataFields, oauthErrorCode } from '../src/validate/as-metadata.js';

// JSON values.
export { isObject, parseObject } from '../src/json.js';
