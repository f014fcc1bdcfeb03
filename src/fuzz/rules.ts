import type { RequirementId } from '../spec/requirement-id.js';
import { requirementIn } from '../spec/catalog.js';
import { eraOf, type Era, type Revision } from '../spec/revisions.js';

/**
 * The rules of `mcpcheck fuzz` as data: the oracles that judge one case and the invariants that
 * judge a sequence, each with the requirements it is tied to. Kept apart from their predicates
 * so that `mcpcheck coverage` can list them without loading the validators.
 */
export interface FuzzRule {
  /** Stable check id. */
  id: string;
  title: string;
  requirements: readonly RequirementId[];
  /** The transports it can be exercised over, when not both. */
  transports?: readonly ('stdio' | 'http')[];
  /** The one protocol era it is judged in, when not every era whose catalog has its requirements. */
  era?: Era;
}

export const ORACLE_RULES = {
  survives: { id: 'fuzz.survives', title: 'Hostile input yields an error or is dropped, never a crash or hang: the server answers ping (in 2026-07-28 server/discover) afterwards', requirements: ['ROBUST-05'] },
  toolInputSurvives: { id: 'fuzz.tool-input-survives', title: 'Mutated tool arguments get an error or a result, never a crash or hang', requirements: ['TOOL-SEC-01'] },
  oneResponse: { id: 'fuzz.one-response', title: 'Each request gets exactly one response, with its id echoed in the same type and value', requirements: ['BASE-ID-04', 'BASE-RES-01'] },
  notificationUnanswered: { id: 'fuzz.notification-unanswered', title: 'Notifications, valid or not, get no response', requirements: ['BASE-NOTIF-02'] },
  responsesValidate: { id: 'fuzz.responses-validate', title: 'Every response the server sends validates against the schema of the negotiated revision', requirements: ['BASE-SCHEMA-01'] },
  parseErrorCode: { id: 'fuzz.parse-error-code', title: 'A frame that is not JSON is answered, if at all, with −32700', requirements: ['BASE-ERR-04'] },
  invalidParams: { id: 'fuzz.invalid-params', title: 'Invalid tool arguments get −32602 or a CallToolResult with isError: true, never a success', requirements: ['TOOL-ERR-01', 'TOOL-ERR-02'] },
  validArgumentsAccepted: { id: 'fuzz.valid-arguments-accepted', title: 'Arguments valid under the tool\'s inputSchema are not refused as invalid params (−32602): a tool that cannot use them says so in an isError result', requirements: ['TOOL-ERR-02', 'BASE-ERR-04'] },
  structuredOutput: { id: 'fuzz.structured-output', title: 'A tool that declares an outputSchema returns structuredContent conforming to it', requirements: ['TOOL-OUT-01'] },
  metaRequired: { id: 'fuzz.meta-required', title: 'A request lacking a required per-request _meta field is refused with −32602 (over HTTP with status 400, −32020 accepted)', requirements: ['META-REQ-03'], era: 'stateless' },
  versionRefused: { id: 'fuzz.version-refused', title: 'A request naming a protocol version the server does not implement gets −32022 (over HTTP with status 400, −32020 accepted)', requirements: ['VER-NEG-01'], era: 'stateless' },
  headerRefused: { id: 'fuzz.header-mismatch', title: 'A POST whose MCP-Protocol-Version, Mcp-Method or Mcp-Name header is missing or differs from the body gets status 400 and −32020', requirements: ['HDR-VAL-01'], era: 'stateless', transports: ['http'] },
  metaServed: { id: 'fuzz.meta-served', title: 'A request whose per-request _meta is well-formed, whatever optional or unknown keys it carries, is not refused for it (−32020, −32022)', requirements: ['ROBUST-09'], era: 'stateless' },
} as const satisfies Record<string, FuzzRule>;

export const SEQUENCE_RULES = {
  survives: { id: 'fuzz.sequence.survives', title: 'Through any sequence of valid operations the server keeps answering ping (in 2026-07-28 server/discover)', requirements: ['ROBUST-05'] },
  oneResponse: { id: 'fuzz.sequence.one-response', title: 'In any sequence, requests sent one after another or at once each get exactly one response', requirements: ['BASE-ID-04'] },
  validates: { id: 'fuzz.sequence.responses-validate', title: 'In any sequence, every response validates against the schema of the negotiated revision', requirements: ['BASE-SCHEMA-01'] },
  subscribeResult: { id: 'fuzz.sequence.subscribe-result', title: 'resources/subscribe and resources/unsubscribe succeed with an empty result, in any order', requirements: ['RES-SUB-01'] },
  updatesSubscribed: { id: 'fuzz.sequence.updates-subscribed', title: 'notifications/resources/updated comes only for resources subscribed to (and not since unsubscribed)', requirements: ['RES-SUB-02'] },
  setLevelResult: { id: 'fuzz.sequence.set-level-result', title: 'logging/setLevel is answered with an empty result, however often the level changes', requirements: ['LOG-SET-01'] },
  levelRespected: { id: 'fuzz.sequence.level-respected', title: 'After logging/setLevel the server sends only messages at that level or more severe', requirements: ['LOG-SET-02'] },
  cursorAccepted: { id: 'fuzz.sequence.cursor-accepted', title: 'At any point of a sequence, a nextCursor the server handed out is accepted back as params.cursor', requirements: ['PAGE-01'] },
  pagesEnd: { id: 'fuzz.sequence.pages-end', title: 'At any point of a sequence, following nextCursor ends, with no item listed on two pages', requirements: ['PAGE-05'] },
  secondSession: { id: 'fuzz.sequence.second-session', title: 'Requests sent at once on two sessions of one server each get exactly one response, on their own session', requirements: ['BASE-ID-04'], transports: ['http'] },
  updatesOwnSession: { id: 'fuzz.sequence.updates-own-session', title: "A session gets notifications/resources/updated for its own subscriptions only, never for another session's", requirements: ['RES-SUB-02'], transports: ['http'] },
  cancelHealthy: { id: 'fuzz.sequence.cancel-healthy', title: 'A call cancelled while it runs leaves the session healthy: ping is answered after the cancel', requirements: ['CANCEL-07'] },
  listenInterleaved: { id: 'fuzz.sequence.listen-interleaved', title: 'Requests sent while a subscriptions/listen is open on the connection each get exactly one response', requirements: ['BASE-ID-04', 'BASE-STATE-02'], era: 'stateless', transports: ['stdio'] },
  mrtrTampered: { id: 'fuzz.sequence.mrtr-tampered-state', title: 'A retry whose requestState was tampered with, or a call with a forged one, gets an error or a fresh InputRequiredResult, never a completed outcome the untampered request does not get', requirements: ['MRTR-SEC-01'], era: 'stateless' },
  mrtrMissing: { id: 'fuzz.sequence.mrtr-missing-responses', title: 'A retry that echoes requestState without the inputResponses asked for gets a fresh InputRequiredResult, not an error', requirements: ['MRTR-ERR-03'], era: 'stateless' },
  mrtrExtra: { id: 'fuzz.sequence.mrtr-extra-responses', title: 'inputResponses entries the server did not ask for are ignored: the retry ends as it does without them', requirements: ['MRTR-ERR-02'], era: 'stateless' },
} as const satisfies Record<string, FuzzRule>;

/** Every fuzz rule, case oracles first. */
export const FUZZ_RULES: readonly FuzzRule[] = [...Object.values(ORACLE_RULES), ...Object.values(SEQUENCE_RULES)];

/** Whether a rule is judged in `revision`: its era (if it names one) and every requirement in that revision's catalog. */
export function judgedIn(rule: FuzzRule, revision: Revision): boolean {
  return (rule.era === undefined || rule.era === eraOf(revision)) && rule.requirements.every((id) => requirementIn(id, revision) !== undefined);
}
