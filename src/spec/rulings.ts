import type { RequirementId } from './requirement-id.js';
import { findRequirement, requirementIn } from './catalog.js';

/**
 * mcpcheck's rulings on the places where the MCP specification contradicts itself or is silent
 * (the doubts catalogued while writing the requirement catalog, numbered §15.1–§15.20 there).
 * Every check or finding that applies one cites it by name through `ruling(id).cite`, so a reader
 * can look it up in docs/RULINGS.md (shipped in the package, generated from this list) and the
 * ruling can be revisited in this one place.
 */

export interface Ruling {
  /** The name checks cite. */
  id: string;
  /** Its number in the catalog's list of doubts (§15.n); none for a ruling made after that list. */
  section?: number;
  /** Its number in the 2026-07-28 catalog's list of doubts (§19.n of requirements-2026-07-28.md). */
  section2026?: number;
  /**
   * On a rule mcpcheck derives because the spec binds only the other party: the sentence it is
   * derived from, and whom that sentence binds.
   */
  derivedFrom?: string;
  /** What mcpcheck does, in one line. */
  ruling: string;
  /** Requirement ids whose verdicts it changes. */
  requirements: readonly RequirementId[];
}

const RULING_LIST = [
  {
    id: 'required-task-missing-error',
    section: 3,
    ruling: 'A plain call to a tool whose taskSupport is "required" must be refused; −32601 (the tool-level rule) passes, −32600 (the Error Handling section\'s MAY) passes with a note, any other answer fails.',
    requirements: ['TASK-TOOL-04'],
  },
  {
    id: 'unsupported-version-error',
    section: 1,
    ruling:
      'An unsupported protocolVersion answered with an error instead of a result naming a supported version fails LIFE-VER-04 (the page\'s example shows the error, its rule demands a result) when the requested version is date-shaped (YYYY-MM-DD); for a string that is no version at all the error is arguably invalid params and warns (SHOULD).',
    requirements: ['LIFE-VER-04'],
  },
  {
    id: 'wrong-argument-type',
    section: 5,
    ruling: 'A tool argument of the wrong type may be answered with −32602 or an isError result; −32602 is accepted, an isError result preferred (SHOULD).',
    requirements: ['TOOL-ERR-01', 'TOOL-ERR-02'],
  },
  {
    id: 'structured-content-on-errors',
    section: 6,
    ruling: 'structuredContent conforming to the outputSchema is not required on isError results.',
    requirements: ['TOOL-OUT-01'],
  },
  {
    id: 'resource-not-found-32602',
    section: 7,
    ruling: 'A missing resource answered with −32602 (the code of the 2026-07-28 revision) is accepted with a note; 2025-11-25 says −32002.',
    requirements: ['RES-ERR-01'],
  },
  {
    id: 'session-never-issued',
    section: 8,
    ruling:
      'The spec requires 404 only for session ids the server ended; mcpcheck expects 404 for a never-issued id too (common practice), graded SHOULD since the spec does not say it.',
    requirements: ['HTTP-SESS-06'],
  },
  {
    id: 'origin-probe-configurable',
    section: 9,
    ruling: 'Which origins are valid is the server\'s choice: the foreign Origin of the probe is configurable (--origin-probe).',
    requirements: ['HTTP-ORIGIN-01'],
  },
  {
    id: 'http-icons',
    section: 10,
    ruling: 'Icon src values may be HTTP URLs, but consumers may only fetch https: or data:, so a plain http: src is reported under ICON-FMT-03.',
    requirements: ['ICON-FMT-03'],
  },
  {
    id: 'prompt-embedded-mime',
    section: 12,
    ruling: 'Embedded resources need a mimeType in prompt messages only (ResourceContents.mimeType is optional elsewhere).',
    requirements: ['PROMPT-CONT-01'],
  },
  {
    id: 'schema-ts-over-json',
    section: 14,
    ruling:
      'Where schema.json disagrees with schema.ts (the normative source) mcpcheck follows schema.ts (see SCHEMA_PATCHES), and checks explicitly what schema.json cannot (both result and error, an id on a notification, at most 100 completion values).',
    requirements: ['ELIC-RESP-01', 'BASE-MSG-04', 'BASE-NOTIF-01', 'COMP-RES-01'],
  },
  {
    id: 'jsonrpc-null-id',
    section: 15,
    ruling: 'An error response with "id": null (JSON-RPC 2.0 style, for a request whose id could not be read) is a compatibility note, not a failure; 2025-11-25 leaves the id out.',
    requirements: ['ROBUST-08'],
  },
  {
    id: 'stdio-crlf',
    section: 16,
    ruling: 'stdio lines ending in \\r\\n are accepted on input and reported as a note on output; the spec says newline-delimited without settling \\r\\n.',
    requirements: ['STDIO-FRAME-01'],
  },
  {
    id: 'slipped-dialect-uri',
    section: 17,
    ruling:
      'A $schema of "https://json-schema.org/2025-11-25/2020-12/schema" (a search-and-replace slip in the 2025-11-25 tag) is treated as 2020-12 with a warning, not as an unknown dialect.',
    requirements: ['JSCH-VAL-02', 'JSCH-DIAL-01'],
  },
  {
    id: 'requests-before-initialize',
    derivedFrom:
      'basic/lifecycle.mdx#initialization, a sentence that binds the client: "The client SHOULD NOT send requests other than pings before the server has responded to the initialize request."',
    ruling:
      'ROBUST-02 is derived, not stated: the spec binds the client not to send requests other than ping before the initialize response, and says nothing of what a server does with one, or with a second initialize. mcpcheck expects the server to refuse such a request with an error and to stay usable after a second initialize, graded SHOULD. Over Streamable HTTP a server that assigns no MCP-Session-Id at initialize (which it may: "A server using the Streamable HTTP transport MAY assign a session ID") ties no POST to an earlier one, so it has neither a "before initialize" nor an initialized session to initialize again: there ROBUST-02 is not exercised (skip).',
    requirements: ['ROBUST-02'],
  },
  {
    id: 'reserved-prefix-level',
    section: 20,
    ruling: 'The page calls the MCP prefixes "reserved for MCP use" without a keyword; minting keys there is graded MUST NOT.',
    requirements: ['META-RSV-01'],
  },
  {
    id: 'batch-reaction',
    ruling:
      'A JSON-RPC batch mcpcheck sends is judged under ROBUST-05, where BASE-MSG-05\'s test column sends the server\'s reaction to a batch. On 2025-06-18 and later, executing it (one answer per request, one by one or in one array: the JSON-RPC 2.0 §6 form) and refusing it with one error (over HTTP, an error status) both hold; an array made of exactly the answers to that batch is no BASE-MSG-05 violation, any other array the server sends is. On 2025-03-26 the batch must be processed, each request answered once: over stdio in one array (JSON-RPC 2.0 §6), over HTTP batched or not (2025-03-26 transports: "These responses MAY be batched").',
    requirements: ['ROBUST-05', 'BASE-MSG-05'],
  },
  {
    id: 'parser-limits',
    ruling:
      'RFC 8259 §9 lets a parser limit the depth of nesting and the size of a text, and JSON-RPC 2.0 answers a message it could not parse with an error whose id is null: an error without id (or with id null) answering a request nested deeper than 64 levels or longer than 1 MiB is the answer to a message the server could not parse, not a BASE-ERR-01 violation.',
    requirements: ['BASE-ERR-01'],
  },
  {
    id: 'derived-robustness',
    ruling:
      'The catalog\'s derived robustness checks (ROBUST-01 to ROBUST-08: a hang, an exit, an HTTP 500 after hostile input) cite no spec keyword: they are graded SHOULD at most, never fail a MUST grade, and their messages say "derived".',
    requirements: ['ROBUST-01', 'ROBUST-02', 'ROBUST-03', 'ROBUST-04', 'ROBUST-05', 'ROBUST-06', 'ROBUST-08'],
  },
  {
    id: 'http-error-body',
    ruling:
      'Over HTTP an unparsable or invalid POST may be refused with an error status whose body is no JSON-RPC message (HTTP-POST-04: the body MAY be a JSON-RPC error): HTTP-POST-04 wins, and BASE-ERR-04 (which code the error carries) is not exercised by that answer; the check shows the status and the body instead of a warning.',
    requirements: ['BASE-ERR-04', 'HTTP-POST-04'],
  },
  {
    id: 'empty-result-members',
    ruling:
      'An "empty result" (ping, logging/setLevel, resources/subscribe) may carry the members every Result may: _meta, and resultType "complete", which 2026-07-28 requires on every result and servers speaking both eras send on older revisions too (Result is open in every schema). Any other member makes it not empty.',
    requirements: ['PING-01', 'LOG-SET-01', 'RES-SUB-01'],
  },
  {
    id: 'unsupported-task-handle',
    derivedFrom:
      'the tasks extension (2026-07-28), capability negotiation, a sentence that binds the client: "A client that receives CreateTaskResult in response to an unsupported request type MUST interpret this as an invalid response to the request."',
    ruling:
      'TASK-RT-02 is derived: the extension lets a server return a CreateTaskResult "in response to any supported request" (tools/call in 2026-07-28) and has the client take one for any other request type as invalid, so a server that answers another method with resultType "task" sends an invalid response, graded MUST.',
    requirements: ['TASK-RT-02'],
  },
  {
    id: 'task-answers-complete',
    ruling:
      'The tasks extension says results of tasks/get, tasks/update and tasks/cancel MUST carry resultType "complete", while two examples of its Error Handling section show tasks/get answers with resultType "task". The normative sentence wins: an example is no requirement, and "task" marks a CreateTaskResult only (the extension reserves it for that).',
    requirements: ['TASK-GET-02'],
  },
  {
    id: 'task-missing-capability-code',
    ruling:
      'The tasks extension\'s overview page gives −32003 as the code of Missing Required Client Capability; its specification, the core 2026-07-28 schema (MissingRequiredClientCapabilityError) and the extension\'s own later fix (ext-tasks f29ffe5) say −32021. mcpcheck expects −32021.',
    requirements: ['TASK-NEG-02', 'TASK-NEG-03', 'TASK-NEG-04'],
  },
  {
    id: 'task-result-type-optional',
    ruling:
      'A completed task of the tasks extension holds in `result` "the result type of the original request" (a CallToolResult for tools/call), and the extension\'s examples hold it without `resultType`, which 2026-07-28\'s Result requires of a response\'s result. mcpcheck judges the held result as that type with `resultType` optional there: one it carries is judged, one it leaves out is not asked for.',
    requirements: ['TASK-ERR-04'],
  },
  {
    id: 'client-credentials-secret-method',
    ruling:
      'The client credentials extension sends a client secret "in the request content as defined in OAuth 2.1 §2.4.1" and shows it in the body, while its metadata rule names client_secret_basic; OAuth 2.1 §2.4.1 makes HTTP Basic the method every authorization server takes and the body an option. mcpcheck\'s authorization server lists and takes both (client_secret_basic and client_secret_post), so a client that authenticates by either with the secret it was given passes AUTH-CC-01.',
    requirements: ['AUTH-CC-01'],
  },
  {
    id: 'task-timestamps-typed',
    ruling:
      'The extension states the format of a Task\'s createdAt and lastUpdatedAt only in its definition\'s comments ("ISO 8601 timestamp"), without a BCP 14 keyword. mcpcheck grades them as it grades the schema\'s types (TASK-TIME-01, MUST): ISO 8601 date-times, a zone optional; unlike 2025-11-25 (TASK-TTL-01) it does not require RFC 3339 or lastUpdatedAt not before createdAt, which the extension does not say.',
    requirements: ['TASK-TIME-01'],
  },
  {
    id: 'session-id-while-held',
    ruling:
      'HTTP-SESS-04 binds a client while it holds the MCP-Session-Id the server issued: from the first request that shows it read the answer issuing the id (one carrying the id, or its notifications/initialized, which only follows that answer) until the server answers 404 to it, or the client ends the session with DELETE. A request that reaches the server before that may have left the client before the answer reached it, and a request sent after a 404 or DELETE and before the next initialize is answered has no live id to carry (HTTP-SESS-07 has the client start anew without one): neither is judged by HTTP-SESS-04. Nor is a session the client re-established after a 404 or its DELETE: a request it composed while initializing again (a listening stream reconnecting on its own timer, a message queued meanwhile) may reach the server after one that carried the new id, and the server cannot tell the two apart; the client\'s first session is judged in full. The spec says nothing of these windows.',
    requirements: ['HTTP-SESS-04'],
  },
  {
    id: 'later-revision-construct',
    ruling:
      'A message that fails the schema of the revision its session negotiated but matches a later revision\'s (a resource_link content block, new in 2025-06-18, on a 2024-11-05 session) is a departure from the negotiated version: its finding cites LIFE-OP-01 first and is graded at LIFE-OP-01\'s level in the negotiated revision (SHOULD in 2024-11-05 and 2025-03-26, "Both parties SHOULD: Respect the negotiated protocol version"; MUST from 2025-06-18), with the schema rules it also fails (BASE-RES-03, BASE-SCHEMA-01 and the method\'s rule) at that level. The older revision\'s schema holds no keyword of its own; grading its failure MUST would make a later revision\'s valid message a graver fault than the revision\'s own rule about keeping to its version.',
    requirements: ['LIFE-OP-01', 'BASE-RES-03', 'BASE-SCHEMA-01'],
  },
  {
    id: 'declared-capability-served',
    ruling:
      'A party that declared a capability and refuses a request it gates (a server answering tools/list, resources/list, prompts/list or logging/setLevel with an error, or completion/complete with −32601; a client answering roots/list or sampling/createMessage with −32601) is graded under the gated method\'s own rule (TOOL-LIST-01, RES-LIST-01, PROMPT-LIST-01, LOG-SET-01, COMP-RES-01, ROOTS-LIST-01, SAMP-RES-01) at SHOULD: a declaration says those features "will be available during the session" (lifecycle, Capability negotiation), but no keyword requires the declaring party to answer with a result. LIFE-OP-02 ("Only use capabilities that were successfully negotiated") binds the sender of a request and is not cited. Elicitation is the exception with a text of its own: a client that declared it "supports at least one mode" (ELIC-CAP-01, MUST), so −32601 to a form request it declared fails ELIC-CAP-01.',
    requirements: ['TOOL-LIST-01', 'RES-LIST-01', 'PROMPT-LIST-01', 'LOG-SET-01', 'COMP-RES-01', 'ROOTS-LIST-01', 'SAMP-RES-01', 'ELIC-CAP-01'],
  },
  {
    id: 'invalid-request-answered',
    ruling:
      'A message with a readable id (a string or an integer) is a call, even when the rest of it is not a valid Request object: JSON-RPC 2.0 §5 requires a Response to every call and answers invalid Request objects with −32600 (its examples answer "method": 1 with an error), and MCP messages MUST follow JSON-RPC 2.0. Such a message left unanswered by a target that answers a ping sent after it fails BASE-ID-04; which error code it gets stays BASE-ERR-04 (SHOULD).',
    requirements: ['BASE-ID-04', 'BASE-ERR-04'],
  },
  {
    id: 'cacheable-discover',
    section2026: 14,
    ruling:
      'The cacheable results are those of server/discover (schema.ts: DiscoverResult extends CacheableResult) besides the five list and read methods the changelog names; a complete result of any of them without ttlMs or cacheScope fails CACHE-RES-01 (the schema requires both for modern results, whatever caching.mdx says of older servers).',
    requirements: ['CACHE-RES-01'],
  },
  {
    id: 'ttl-integer',
    section2026: 15,
    ruling: 'ttlMs is an integer number of milliseconds, at least 0 (caching.mdx and schema.json; schema.ts says number): a fractional or negative value fails CACHE-TTL-01.',
    requirements: ['CACHE-TTL-01'],
  },
  {
    id: 'headers-on-notification-posts',
    section2026: 6,
    ruling:
      'The standard request headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) are judged on request POSTs; a notification POST without them is a warning (HDR-VER-01), since the transport page leaves header requirements for notification POSTs undefined.',
    requirements: ['HDR-VER-01', 'HDR-STD-01'],
  },
  {
    id: 'header-integer-range',
    section2026: 17,
    ruling:
      'The safe integer range of an x-mcp-header parameter is read as a constraint on the schema: a minimum or maximum beyond ±(2^53−1) is a warning under HDR-PARAM-02; an out-of-range integer sent in a header is judged under HDR-PARAM-04.',
    requirements: ['HDR-PARAM-02', 'HDR-PARAM-04'],
  },
  {
    id: 'modern-error',
    section2026: 7,
    ruling:
      'A "recognised modern error" is −32020, −32021 or −32022, and over Streamable HTTP also a 404 whose body is a −32601 JSON-RPC error; on stdio −32601 or −32602 to a modern server/discover means a legacy server. Era detection records what the probes showed (VER-BC-01), never a finding.',
    requirements: ['VER-BC-01', 'VER-BC-03', 'HTTP-BC-03'],
  },
  {
    id: 'missing-meta-error',
    section2026: 4,
    ruling:
      'Over HTTP a request whose body lacks a required per-request _meta field may be refused with −32602 (basic/index.mdx#meta) or −32020 (the header then differs from the body); either with status 400 passes, −32602 is preferred.',
    requirements: ['META-REQ-03', 'HDR-VAL-01'],
  },
  {
    id: 'version-mismatch-error',
    section2026: 5,
    ruling:
      'A header/body protocol version mismatch always involves an unsupported version, so −32020 (HDR-VER-02) and −32022 (VER-NEG-01) both apply; either with status 400 passes, −32020 is preferred.',
    requirements: ['HDR-VER-02', 'VER-NEG-01'],
  },
  {
    id: 'subscription-end',
    section2026: 1,
    ruling:
      'A server ending a subscription on its own over stdio sends at least one of the listen result (SUBS-END-01, preferred) and a notifications/cancelled naming the listen request (SUBS-END-02) before it closes: SUBS-END-02 fails only when neither arrives, a cancel without the result is a SUBS-END-01 warning. The one shutdown mcpcheck can cause over stdio is closing stdin, which stdio.mdx#shutdown makes the client\'s own: whether a server must still end a subscription its client is leaving is not settled, so there SUBS-END-02 is graded as a warning (SHOULD), never a failure.',
    requirements: ['SUBS-END-01', 'SUBS-END-02', 'CANCEL-11'],
  },
  {
    id: 'query-token',
    ruling:
      'A token that comes only in the URI query string (?access_token=…) is no token to an MCP server: tokens travel in the Authorization header (basic/authorization.mdx#token-requirements; OAuth 2.1 §5.1 dropped the query method), so such a request carries none and gets 401 like any request without a token (AUTH-ERR-01).',
    requirements: ['AUTH-ERR-01'],
  },
  {
    id: 'resource-identifies-server',
    ruling:
      'The Protected Resource Metadata `resource`, and the RFC 8707 `resource` a client sends, identify the endpoint when they equal the endpoint URL (scheme and host case-insensitive, a default port implied, no fragment, no query), differ from it by a trailing slash, or name a path the endpoint lies under on the same origin (the canonical server URI may be the origin alone, basic/authorization.mdx#canonical-server-uri). For the metadata a difference of a trailing slash alone warns and any other value fails AUTH-PRM-03; for the client any of them passes AUTH-RES-01 (a value naming something else fails it), and AUTH-RES-02 (SHOULD) asks for the endpoint URL itself.',
    requirements: ['AUTH-PRM-03', 'AUTH-RES-01', 'AUTH-RES-02'],
  },
  {
    id: 'as-advertises-s256',
    ruling:
      'An authorization server whose RFC 8414 metadata does not list `S256` in `code_challenge_methods_supported` fails AUTH-AS-01: RFC 8414 §2 reads the member\'s absence as no PKCE support, OAuth 2.1 requires it, and MCP clients must refuse to proceed with such a server (AUTH-PKCE-02). An OpenID Connect Discovery document is held to AUTH-PKCE-03 directly.',
    requirements: ['AUTH-AS-01', 'AUTH-PKCE-03'],
  },
  {
    id: 'loopback-authorization-server',
    ruling:
      'Endpoints of an authorization server on loopback (127.0.0.1, localhost, [::1]) served over plain http are exempt from AUTH-SEC-03 (every endpoint over HTTPS): such a server is a development or test one on the same machine, whose traffic never leaves it. The check is then a skip that says so, never a pass; an http endpoint on any other host fails.',
    requirements: ['AUTH-SEC-03'],
  },
  {
    id: 'as-unsafe-redirect-registration',
    ruling:
      'AUTH-SEC-04 says every redirect URI is localhost or HTTPS without naming who enforces it. An authorization server that registers a plain-http redirect URI on another host lets such a URI be used, so mcpcheck reports it, as a warning (SHOULD): OAuth 2.1 and OpenID Connect registration allow it for servers that serve other clients than MCP ones, so refusing is not shown to be the server\'s MUST.',
    requirements: ['AUTH-SEC-04'],
  },
  {
    id: 'token-endpoint-client-auth',
    ruling:
      'The MCP authorization spec adopts OAuth 2.1 without restating how a client authenticates at the token endpoint. mcpcheck judges that under AUTH-GEN-01 (SHOULD: follow this specification, OAuth 2.1 included): a client uses the method its registration assigned (`token_endpoint_auth_method`, RFC 7591 §2) or, pre-registered, one the metadata lists (`token_endpoint_auth_methods_supported`, RFC 8414 §2), with the credentials it was given (RFC 6749 §2.3.1); any other is a warning.',
    requirements: ['AUTH-GEN-01'],
  },
  {
    id: 'prm-resource-validated',
    ruling:
      'A client finds the authorization server through the Protected Resource Metadata of the server it talks to (AUTH-PRM-04); RFC 9728 §3.3, which the spec makes clients implement, says a client MUST check that the metadata\'s `resource` is the URL it fetched it for and not use metadata that names another resource. mcpcheck judges that under AUTH-PRM-04: going on to authorize with such metadata fails it.',
    requirements: ['AUTH-PRM-04'],
  },
  {
    id: 'task-id-entropy',
    ruling:
      'Task ids must resist guessing (TASK-SEC-02, without an authorization context to bind tasks to: "cryptographically secure … with enough entropy to prevent guessing"; the tasks extension\'s TASK-SEC-05: "enough entropy that a third party cannot enumerate or guess them"), and neither says how much is enough. mcpcheck has a receiver make several tasks at once and measures what varies between their ids (the characters that differ, by the smallest usual alphabet holding them): under 64 bits, OWASP\'s floor for session identifiers, which task ids then stand in for, fails; a counter\'s or a clock\'s digits vary in a few places only. More never passes: whether the ids come from a cryptographic source cannot be seen from outside, so the check is then a skip saying what was seen. A run that presents a credential is not judged on TASK-SEC-02, whose rule is for receivers without context binding (the server may bind its tasks to that credential); TASK-SEC-05 binds a server either way.',
    requirements: ['TASK-SEC-02', 'TASK-SEC-05'],
  },
  {
    id: 'task-list-ends-early',
    ruling:
      'A tasks/list walked to a page without nextCursor while a task tasks/get reads was never listed broke TASK-LIST-01 ("MUST include a nextCursor in the response if more tasks are available") as well as TASK-LIST-03: from outside the two are one defect (a list that drops its cursor and one that leaves tasks out look the same), reported once. TASK-LIST-01 passes only on a walk of more than one page that listed every readable task; a single page holding them all never had tasks after it, and is a skip. Its SHOULD (pagination at all) is not judged: a few tasks fit one page.',
    requirements: ['TASK-LIST-01', 'TASK-LIST-03'],
  },
  {
    id: 'proxy-consent',
    ruling:
      'The confused deputy\'s defences (security best practices) bind an MCP proxy that sends its clients\' authorization on to a third-party authorization server under a static client id. mcpcheck judges them of a server it sees do that: one that sends a newly registered client\'s authorization to another origin under a client_id that is not the client\'s, at once or once its consent page is approved; a server that answers the authorization itself, or sends the client\'s own client_id on, is no such proxy, and the checks are skips that say so. Those rules (binding "proxy") are graded in `mcpcheck authorization`, for the authorization server such a proxy is to its clients. Framing counts as forbidden with X-Frame-Options DENY or SAMEORIGIN, or a frame-ancestors of \'none\' or \'self\' alone (the page names DENY and frame-ancestors; framing by the same origin gives another site nothing). The consent cookies are those the approval\'s response sets; SameSite=Strict, stricter than the Lax the page names, is taken. CSRF protection is probed as a form posted from another site arrives: the consent form\'s fields without those whose values the authorization request did not carry, only SameSite=None cookies, and that site\'s Origin; whatever refuses it (a token, the Origin, the cookies) passes. The state sent to the third party must not be the client\'s and must change with each authorization; whether it is "cryptographically random" is measured as task ids are (ruling task-id-entropy): under 64 bits in what varies fails, more is a skip saying what was seen.',
    requirements: ['SEC-PROXY-01', 'SEC-PROXY-02'],
  },
  {
    id: 'ssrf-sandbox',
    ruling:
      'The SSRF rules are judged only where nothing can leave the machine: inside the network sandbox (--network-sandbox, a network namespace whose loopback carries two more addresses), where mcpcheck serves the authorization server the Protected Resource Metadata names at one of them and sees whether the client asks it anything. 10.0.0.1 stands for the private and reserved ranges (SEC-SSRF-03), over https with the run\'s certificate, so that a client that takes https alone is not refusing for that; 198.51.100.7 (TEST-NET-2, neither loopback nor private) over plain http stands for an http: URL off loopback (SEC-SSRF-02; a client that refuses it as a reserved address refuses plain http there all the same). Both rules are SHOULDs. SEC-SSRF-01 (MUST) binds clients deployed on servers, which mcpcheck cannot tell from a desktop client: it is cited beside SEC-SSRF-03 and graded at that rule\'s level, so a client that asks a private address is warned, whatever its deployment. A refusal passes only where a control client, served an authorization server on loopback, went on with it. A redirect hop (SEC-SSRF-03: "apply the same checks to every redirect hop") is judged by an authorization server on loopback whose metadata answers 302 to the same path at https://10.0.0.1: a client that asked for it and did not follow passes, since following no redirect at all is as safe as checking the hop.',
    requirements: ['SEC-SSRF-01', 'SEC-SSRF-02', 'SEC-SSRF-03'],
  },
] as const satisfies readonly Ruling[];

export type RulingId = (typeof RULING_LIST)[number]['id'];

export const RULINGS: readonly Ruling[] = RULING_LIST;

/**
 * Doubts of the catalog that no check applies as a ruling, and why; listed in docs/RULINGS.md so
 * that every §15 number is accounted for.
 */
export const NOT_APPLIED: ReadonlyArray<{ section: number; why: string }> = [
  { section: 2, why: 'LIFE-VER-06 (client disconnects on an unsupported version) is catalogued as SHOULD; mcpcheck tests no clients yet.' },
  { section: 4, why: 'ELIC-ERR-01 and ELIC-ERR-02 are both kept as catalogued; no ruling between them is needed.' },
  { section: 11, why: 'ICON-URI-03 (same-origin icons) is catalogued as SHOULD; no check judges it yet.' },
  { section: 13, why: 'Elicitation "pattern" validates under both schemas; nothing flags it, so there is nothing to cite.' },
  { section: 18, why: 'JSON-RPC params by position are folded into BASE-SCHEMA-01 (the schema makes params an object).' },
  { section: 19, why: 'HTTP header names are compared case-insensitively everywhere, as HTTP requires; no verdict depends on the spelling.' },
];

/** Where users find the rulings: a file in the mcpcheck package. */
export const RULINGS_DOC = 'docs/RULINGS.md';

const BY_ID = new Map<string, Ruling>(RULINGS.map((r) => [r.id, r]));

/** A ruling by name, with the citation a message carries. */
export function ruling(id: RulingId): Ruling & { cite: string } {
  const r = BY_ID.get(id)!;
  const kind = r.section !== undefined ? `, §15.${r.section}` : r.section2026 !== undefined ? `, 2026-07-28 §19.${r.section2026}` : r.derivedFrom !== undefined ? ', a derived rule' : '';
  return { ...r, cite: `ruling ${r.id} (mcpcheck rulings${kind}: ${RULINGS_DOC}#${r.id} in the mcpcheck package)` };
}

/** docs/RULINGS.md, generated from the list above (tests/rulings.test.ts keeps the file in step). */
export function rulingsMarkdown(): string {
  const lines = [
    '# mcpcheck rulings',
    '',
    'Where the MCP specification (2025-11-25) contradicts itself or is silent, mcpcheck applies one of',
    'these rulings, and every check or finding that does so cites it by name ("ruling <name> …").',
    'The numbers are those of the list of doubts in mcpcheck\'s requirement catalog (§15.n); a derived',
    'rule is one mcpcheck derives for a party from a sentence of the spec that binds the other party.',
    'This file is generated from `src/spec/rulings.ts`; edit that, then regenerate it:',
    '`node -e "import(\'./dist/src/spec/rulings.js\').then((m) => process.stdout.write(m.rulingsMarkdown()))" > docs/RULINGS.md`.',
    '',
  ];
  for (const r of RULINGS) {
    const pages = [...new Set(r.requirements.map((id) => (findRequirement(id) ?? requirementIn(id, '2026-07-28'))!.url))].join(', ');
    const origin = r.section !== undefined ? `§15.${r.section}` : r.section2026 !== undefined ? `§19.${r.section2026} of the 2026-07-28 catalog` : r.derivedFrom !== undefined ? `derived from ${r.derivedFrom}` : 'ruled after the catalog';
    lines.push(`## ${r.id}`, '', `${origin} · affects ${r.requirements.join(', ')} · spec: ${pages}`, '', r.ruling, '');
  }
  lines.push('## Doubts no check applies as a ruling', '');
  for (const n of NOT_APPLIED) lines.push(`- §15.${n.section}: ${n.why}`);
  lines.push('');
  return lines.join('\n');
}

/** Where schema.json disagrees with schema.ts, ruling schema-ts-over-json (ruling schema-ts-over-json). */
export interface SchemaPatch {
  revision: string;
  /** Path from the definitions object to the member replaced. */
  path: Array<string | number>;
  value: unknown;
  why: string;
}

export const SCHEMA_PATCHES: readonly SchemaPatch[] = [
  {
    revision: '2025-06-18',
    path: ['ElicitResult', 'properties', 'content', 'additionalProperties', 'type'],
    value: ['string', 'number', 'boolean'],
    why: 'ElicitResult.content values may be any number (schema.ts), not only integers (ruling schema-ts-over-json, ELIC-RESP-01)',
  },
  {
    revision: '2025-11-25',
    path: ['ElicitResult', 'properties', 'content', 'additionalProperties', 'anyOf', 1, 'type'],
    value: ['string', 'number', 'boolean'],
    why: 'ElicitResult.content values may be any number (schema.ts), not only integers (ruling schema-ts-over-json, ELIC-RESP-01)',
  },
  {
    revision: '2025-11-25',
    path: ['TaskMetadata', 'properties', 'ttl', 'type'],
    value: 'number',
    why: 'TaskMetadata.ttl is a number in schema.ts (ruling schema-ts-over-json)',
  },
  {
    revision: '2025-11-25',
    path: ['Task', 'properties', 'pollInterval', 'type'],
    value: 'number',
    why: 'Task.pollInterval is a number in schema.ts (ruling schema-ts-over-json)',
  },
  {
    revision: '2025-11-25',
    path: ['Task', 'properties', 'ttl', 'type'],
    value: ['number', 'null'],
    why: 'Task.ttl is a number or null in schema.ts (ruling schema-ts-over-json)',
  },
];

/** Applies the patches of one revision to its definitions, in place; a patch that no longer fits throws. */
export function applySchemaPatches(revision: string, defs: Record<string, unknown>): void {
  for (const patch of SCHEMA_PATCHES) {
    if (patch.revision !== revision) continue;
    let node: unknown = defs;
    for (const step of patch.path.slice(0, -1)) {
      node = (node as Record<string | number, unknown> | undefined)?.[step];
    }
    const last = patch.path[patch.path.length - 1]!;
    if (node === null || typeof node !== 'object' || !(last in node)) {
      throw new Error(`schema patch for ${revision} no longer fits: ${patch.path.join('/')}`);
    }
    (node as Record<string | number, unknown>)[last] = patch.value;
  }
}
