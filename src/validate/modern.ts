import type { ErrorObject } from 'ajv';
import { type Finding, ptr, show, violation } from './finding.js';
import { isMetaName, isMetaPrefixLabel, metaKeyParts } from './meta.js';
import type { RuleTable } from './rule-table.js';
import { describeErrors, INPUT_REQUIRED, schemaFor } from './schemas.js';
import { TASK_RESULT_TYPE, TASKS_EXTENSION } from './ext-tasks.js';
import { obj } from '../json.js';
import { META, MODERN_ERRORS } from '../spec/modern.js';
import { isStatefulRevision, LATEST_REVISION } from '../spec/revisions.js';
import type { RequirementId } from '../spec/requirement-id.js';
import { ruling } from '../spec/rulings.js';

/**
 * The rules a single message of the stateless era (2026-07-28) shows by itself, beyond its schema:
 * per-request `_meta`, `resultType`, multi round-trip results, caching hints, the error-code policy,
 * extensions and the methods the era removed. Pure, one predicate per rule; the message validator
 * calls these for a modern exchange instead of the stateful era's direction and method checks.
 */

/** The request a response answers, as the message validator knows it. */
export interface AnsweredRequest {
  method: string;
  params?: unknown;
}

const COMPLETE = 'complete';

/** Methods whose answer may ask for input (MRTR-SRV-02). */
const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** Methods whose complete results are cacheable and carry ttlMs and cacheScope (CACHE-RES-01, ruling cacheable-discover). */
const CACHEABLE_METHODS: ReadonlySet<string> = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);
/** Input requests, by method: their definition and the client capability each needs (MRTR-SRV-04/05). */
const INPUT_KINDS: ReadonlyMap<string, { def: string; capability: string }> = new Map([
  ['elicitation/create', { def: 'ElicitRequest', capability: 'elicitation' }],
  ['sampling/createMessage', { def: 'CreateMessageRequest', capability: 'sampling' }],
  ['roots/list', { def: 'ListRootsRequest', capability: 'roots' }],
]);
/** Client methods and notifications of the stateful era that 2026-07-28 removed (§18: no initialize, ping, setLevel, resources/subscribe). */
const REMOVED_METHODS: ReadonlySet<string> = new Set([
  'initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe',
  'notifications/initialized', 'notifications/roots/list_changed', 'notifications/elicitation/complete',
]);
/** Notifications that belong to one request and never travel on a subscription (SUBS-SCOPE-01), nor on a task's stream (TASK-NOTIF-04). */
export const REQUEST_SCOPED: ReadonlySet<string> = new Set(['notifications/progress', 'notifications/message']);
/** The JSON-RPC standard error codes (BASE-ERR-05 leaves them alone). */
const STANDARD_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32603]);
/** Codes earlier revisions defined that 2026-07-28 retired (BASE-ERR-08): resource not found, URL elicitation required. */
const RETIRED_CODES: ReadonlySet<number> = new Set([-32002, -32042]);
/** Each modern error code: its definition, and the rule its shape answers to (BASE-ERR-07). */
const MODERN_ERROR_SHAPES: ReadonlyMap<number, { def: string; rule: RequirementId }> = new Map([
  [MODERN_ERRORS.headerMismatch, { def: 'HeaderMismatchError', rule: 'HDR-VAL-01' }],
  [MODERN_ERRORS.missingClientCapability, { def: 'MissingRequiredClientCapabilityError', rule: 'META-REQ-05' }],
  [MODERN_ERRORS.unsupportedProtocolVersion, { def: 'UnsupportedProtocolVersionError', rule: 'VER-NEG-01' }],
]);

/**
 * Where each transport restates the direction rule (2026-07-28): the server sends no request
 * (STDIO-DIR-02, HTTP-SSE-10), the client no response (STDIO-DIR-01, HTTP-POST-07).
 */
const TRANSPORT_DIRECTION = {
  server: { stdio: 'STDIO-DIR-02', http: 'HTTP-SSE-10' },
  client: { stdio: 'STDIO-DIR-01', http: 'HTTP-POST-07' },
} as const satisfies Record<'client' | 'server', Record<'stdio' | 'http', RequirementId>>;

/** The transport's restatement of the direction rule for what `from` sent, when the transport is known. */
function restated(from: 'client' | 'server', transport: 'stdio' | 'http' | undefined): RequirementId[] {
  return transport ? [TRANSPORT_DIRECTION[from][transport]] : [];
}

/** What each check below marks exercised: the module's rule table is derived from it. */
const MARKS = {
  clientRequest: ['META-REQ-01', 'META-REQ-02', 'BASE-SCHEMA-01', 'EXT-NEG-02'],
  discover: ['DISC-REQ-01'],
  // Only where there is something of its kind to judge: extension identifiers, input requests, a modern error code.
  extensionIds: ['EXT-ID-01'],
  direction: ['BASE-DIR-01', 'MRTR-SRV-01'],
  notification: ['SUBS-SCOPE-01'],
  logNotification: ['LOG-REQ-03'],
  result: ['BASE-RES-04', 'BASE-RES-07', 'EXT-NEG-02'],
  inputRequired: ['MRTR-SRV-02', 'MRTR-SRV-03', 'CACHE-RES-02'],
  inputRequests: ['MRTR-SRV-04', 'MRTR-SRV-05', 'META-REQ-04'],
  // Marked by the kind of input request seen (inputRequestRule).
  inputRequestKinds: ['ELIC-FORM-01', 'ELIC-URL-04', 'SAMP-MSG-04'],
  cacheable: ['CACHE-RES-01', 'CACHE-TTL-01'],
  error: ['BASE-ERR-05', 'BASE-ERR-07', 'BASE-ERR-08'],
} as const satisfies Record<string, RuleTable>;

/** Every rule the checks below cite: what they mark, and the rule of each modern error's shape (marked when that code comes). */
export const MODERN_RULES: RuleTable = [...Object.values(MARKS).flat(), ...Object.values(TRANSPORT_DIRECTION).flatMap((t) => Object.values(t)), ...[...MODERN_ERROR_SHAPES.values()].map((shape) => shape.rule)];

function mark(applied: Set<string> | undefined, ids: RuleTable): void {
  if (applied) for (const id of ids) applied.add(id);
}

/**
 * Schema errors a modern rule below reports itself, with its own id, so the schema finding does
 * not report them a second time: the per-request `_meta` fields (META-REQ-01), `resultType`
 * (BASE-RES-04), the caching hints (CACHE-RES-01, CACHE-TTL-01) and the input requests (MRTR-SRV-04).
 */
export function claimedByModernRule(e: ErrorObject, where: '' | '/result'): boolean {
  const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
  const path = e.instancePath;
  if (where === '') {
    return (missing === 'params' && path === '') || (missing === '_meta' && path === '/params') || (path === '/params/_meta' && (missing === META.protocolVersion || missing === META.clientCapabilities));
  }
  return (
    (path === '' && (missing === 'resultType' || missing === 'ttlMs' || missing === 'cacheScope')) ||
    path === '/ttlMs' || path === '/cacheScope' || path.startsWith('/inputRequests')
  );
}

/** The `_meta` of a request's params, when there is one. */
function requestMetaOf(params: unknown): Record<string, unknown> | undefined {
  return obj(obj(params)?._meta);
}

/** The clientCapabilities a request declared (`{}` when it declared none or none readable). */
export function declaredCapabilities(params: unknown): Record<string, unknown> {
  return obj(requestMetaOf(params)?.[META.clientCapabilities]) ?? {};
}

/** The protocol version a request names in its `_meta`, if any. */
export function requestedRevision(params: unknown): unknown {
  return requestMetaOf(params)?.[META.protocolVersion];
}

/** META-REQ-01: params._meta carries protocolVersion (a string) and clientCapabilities (an object). */
function checkRequestMeta(params: unknown, findings: Finding[]): void {
  const meta = requestMetaOf(params);
  if (!meta) {
    const what = obj(params) ? 'params without _meta' : `params ${show(params)}`;
    findings.push(violation('META-REQ-01', `expected every request to carry params._meta with ${META.protocolVersion} and ${META.clientCapabilities}; got ${what}`, obj(params) ? '/params' : ''));
    return;
  }
  for (const key of [META.protocolVersion, META.clientCapabilities] as const) {
    if (!(key in meta)) findings.push(violation('META-REQ-01', `expected params._meta to carry ${key} on every request; it has only ${show(Object.keys(meta))}`, '/params/_meta'));
  }
  if (!(META.clientInfo in meta)) {
    findings.push(violation('META-REQ-02', `expected params._meta to carry ${META.clientInfo} (name and version) on every request; it is missing`, '/params/_meta'));
  }
}

/** EXT-ID-01: extension identifiers are `_meta` keys with a non-empty prefix; each value a settings object. */
function checkExtensionIds(capabilities: Record<string, unknown>, at: string, findings: Finding[], applied?: Set<string>): void {
  const extensions = obj(capabilities.extensions);
  if (!extensions || Object.keys(extensions).length === 0) return;
  mark(applied, MARKS.extensionIds);
  for (const [id, settings] of Object.entries(extensions)) {
    const { labels, name } = metaKeyParts(id);
    const where = `${at}/extensions${ptr(id)}`;
    if (labels === undefined || !labels.every(isMetaPrefixLabel) || !isMetaName(name) || name === '') {
      findings.push(violation('EXT-ID-01', `expected an extension identifier to be a prefixed _meta key such as "io.modelcontextprotocol/tasks"; got ${show(id)}`, where));
    } else if (!obj(settings)) {
      findings.push(violation('EXT-ID-01', `expected the settings of extension ${show(id)} to be an object ({} for none); got ${show(settings)}`, where));
    }
  }
}

/** Whether the request advertised the extension in its clientCapabilities. */
/** Whether a request's clientCapabilities.extensions names `extension`. */
export function advertisesExtension(params: unknown, extension: string): boolean {
  return obj(obj(declaredCapabilities(params).extensions)?.[extension]) !== undefined;
}

/** A request of a modern exchange: from the client its `_meta` and method; from the server it should not exist. */
export function checkModernRequest(method: string, params: unknown, from: 'client' | 'server', findings: Finding[], applied?: Set<string>, transport?: 'stdio' | 'http'): void {
  if (from === 'server') {
    // Each transport restates the rule for what it carries; a transcript may not say which.
    const transportRule = restated('server', transport);
    mark(applied, [...MARKS.direction, ...transportRule]);
    const asks = INPUT_KINDS.has(method) || method === 'ping';
    findings.push(violation([...(asks ? ['MRTR-SRV-01', 'BASE-DIR-01'] as const : ['BASE-DIR-01'] as const), ...transportRule], `expected no JSON-RPC request from the server at 2026-07-28 (input is asked for inside an InputRequiredResult); got a ${show(method)} request`, '/method'));
    return;
  }
  mark(applied, MARKS.clientRequest);
  checkRequestMeta(params, findings);
  checkExtensionIds(declaredCapabilities(params), `/params/_meta${ptr(META.clientCapabilities)}`, findings, applied);
  checkMethodExists(method, params, '/method', findings);
  if (method === 'server/discover') checkDiscoverParams(obj(params), findings, applied);
}

/** DISC-REQ-01: a server/discover request's params hold only the standard `_meta` (RequestParams). */
function checkDiscoverParams(params: Record<string, unknown> | undefined, findings: Finding[], applied?: Set<string>): void {
  mark(applied, MARKS.discover);
  const extra = params ? Object.keys(params).filter((k) => k !== '_meta') : [];
  if (extra.length > 0) findings.push(violation('DISC-REQ-01', `expected server/discover params to hold only _meta; they also hold ${show(extra)}`, '/params'));
}

/** A method 2026-07-28 removed, or one of the tasks extension the request did not advertise. */
function checkMethodExists(method: string, params: unknown, at: string, findings: Finding[]): void {
  if (REMOVED_METHODS.has(method)) {
    findings.push(violation('BASE-SCHEMA-01', `expected only methods of revision ${LATEST_REVISION} in a modern exchange; ${show(method)} was removed there (no initialize, ping, logging/setLevel or resources/subscribe)`, at));
  } else if (method.startsWith('tasks/') && !advertisesExtension(params, TASKS_EXTENSION)) {
    findings.push(violation('EXT-NEG-02', `expected tasks methods only when both sides advertise ${TASKS_EXTENSION}; ${show(method)} was sent without it in the request's clientCapabilities.extensions`, at));
  }
}

/** A notification of a modern exchange. */
export function checkModernNotification(method: string, params: unknown, from: 'client' | 'server', findings: Finding[], applied?: Set<string>): void {
  if (from === 'client') {
    if (REMOVED_METHODS.has(method)) checkMethodExists(method, params, '/method', findings);
    return;
  }
  if (!REQUEST_SCOPED.has(method)) return;
  mark(applied, MARKS.notification);
  const meta = obj(obj(params)?._meta);
  // A log message is LOG-REQ-03's too: never on a subscriptions/listen stream.
  const log = method === 'notifications/message';
  if (log) mark(applied, MARKS.logNotification);
  if (meta && META.subscriptionId in meta) {
    findings.push(violation(log ? ['SUBS-SCOPE-01', ...MARKS.logNotification] : 'SUBS-SCOPE-01', `expected ${method} to accompany only its own request, never a subscription; it carries ${META.subscriptionId} ${show(meta[META.subscriptionId])}`, `/params/_meta${ptr(META.subscriptionId)}`));
  }
}

/** A response sent by the client: clients never send JSON-RPC responses at 2026-07-28 (BASE-DIR-01). */
export function checkModernResponseSide(from: 'client' | 'server', findings: Finding[], applied?: Set<string>, transport?: 'stdio' | 'http'): boolean {
  if (from === 'server') return true;
  const transportRule = restated('client', transport);
  mark(applied, [...MARKS.direction, ...transportRule]);
  findings.push(violation(['BASE-DIR-01', ...transportRule], 'expected no JSON-RPC response from the client at 2026-07-28 (input goes into the retry\'s inputResponses); got one', ''));
  return false;
}

/**
 * Whether a request is a well-formed one of the stateless era: its `_meta` names a protocol version
 * no initialize negotiates, and its client capabilities. A server serving one that is not (a
 * request lacking a per-request field, a legacy initialize to a dual-era server) has the defect
 * of not refusing it (META-REQ-03), judged there: its answer is no modern result to fault again
 * for a missing resultType.
 */
export function isModernRequest(params: unknown): boolean {
  const version = requestedRevision(params);
  return typeof version === 'string' && !isStatefulRevision(version) && obj(requestMetaOf(params)?.[META.clientCapabilities]) !== undefined;
}

/** A result answering `request` in a modern exchange; `source` is text holding the message's JSON (duplicate keys). */
export function checkModernResult(result: Record<string, unknown>, request: AnsweredRequest, findings: Finding[], applied?: Set<string>, source?: string): void {
  mark(applied, MARKS.result);
  const type = result.resultType;
  if (typeof type !== 'string') {
    findings.push(violation('BASE-RES-04', `expected every result to carry a string resultType ("complete" or "input_required"); got ${type === undefined ? 'none' : show(type)}`, '/result'));
  } else if (type === INPUT_REQUIRED) {
    checkInputRequired(result, request, findings, applied, source);
    return;
  } else if (type !== COMPLETE) {
    checkExtensionResultType(type, request, findings);
  }
  if (CACHEABLE_METHODS.has(request.method)) checkCachingHints(result, request.method, findings, applied);
  const capabilities = request.method === 'server/discover' ? obj(result.capabilities) : undefined;
  if (capabilities) checkExtensionIds(capabilities, '/result/capabilities', findings, applied);
}

/** BASE-RES-07, EXT-NEG-02: a resultType beyond the core ones only from an extension the request advertised. */
function checkExtensionResultType(type: string, request: AnsweredRequest, findings: Finding[]): void {
  const extensions = Object.keys(obj(declaredCapabilities(request.params).extensions) ?? {});
  if (type === TASK_RESULT_TYPE && !extensions.includes(TASKS_EXTENSION)) {
    findings.push(violation(['EXT-NEG-02', 'BASE-RES-07', 'TASK-NEG-01'], `expected resultType "task" only when the request advertised ${TASKS_EXTENSION}; its clientCapabilities.extensions hold ${show(extensions)}`, '/result/resultType'));
  } else if (type !== TASK_RESULT_TYPE && extensions.length === 0) {
    findings.push(violation('BASE-RES-07', `expected resultType "complete" or "input_required" (the request advertised no extension that could define others); got ${show(type)}`, '/result/resultType'));
  }
}

/** CACHE-RES-01, CACHE-TTL-01: a complete cacheable result carries ttlMs (an integer ≥ 0) and cacheScope. */
function checkCachingHints(result: Record<string, unknown>, method: string, findings: Finding[], applied?: Set<string>): void {
  mark(applied, MARKS.cacheable);
  const missing = ['ttlMs', 'cacheScope'].filter((k) => !(k in result));
  if (missing.length > 0) findings.push(violation('CACHE-RES-01', `expected the complete result of ${method} to carry ttlMs and cacheScope (${ruling('cacheable-discover').cite}); ${missing.join(' and ')} missing`, '/result'));
  if ('cacheScope' in result && result.cacheScope !== 'public' && result.cacheScope !== 'private') {
    findings.push(violation('CACHE-RES-01', `expected cacheScope "public" or "private"; got ${show(result.cacheScope)}`, '/result/cacheScope'));
  }
  if ('ttlMs' in result && !(Number.isInteger(result.ttlMs) && (result.ttlMs as number) >= 0)) {
    findings.push(violation('CACHE-TTL-01', `expected ttlMs to be an integer number of milliseconds, at least 0 (${ruling('ttl-integer').cite}); got ${show(result.ttlMs)}`, '/result/ttlMs'));
  }
}

/** An InputRequiredResult: on the methods that may ask, with something to go on, each input request valid and declared. */
function checkInputRequired(result: Record<string, unknown>, request: AnsweredRequest, findings: Finding[], applied?: Set<string>, source?: string): void {
  mark(applied, MARKS.inputRequired);
  if (!INPUT_REQUIRED_METHODS.has(request.method)) {
    findings.push(violation('MRTR-SRV-02', `expected an InputRequiredResult only in answer to tools/call, prompts/get or resources/read; got one answering ${show(request.method)}`, '/result/resultType'));
  }
  const requests = result.inputRequests;
  if (requests === undefined && typeof result.requestState !== 'string') {
    findings.push(violation('MRTR-SRV-03', 'expected an InputRequiredResult to carry inputRequests, requestState (a string) or both; it has neither', '/result'));
  }
  if ('ttlMs' in result || 'cacheScope' in result) {
    findings.push(violation('CACHE-RES-02', 'expected an interim InputRequiredResult to carry no caching hints (it is not cacheable); it has ttlMs or cacheScope', '/result'));
  }
  if (requests === undefined) return;
  mark(applied, MARKS.inputRequests);
  const map = obj(requests);
  if (!map) {
    findings.push(violation('MRTR-SRV-04', `expected inputRequests to be an object mapping keys to input requests; got ${show(requests)}`, '/result/inputRequests'));
    return;
  }
  const capabilities = declaredCapabilities(request.params);
  for (const [key, value] of Object.entries(map)) checkInputRequest(key, value, capabilities, findings, applied);
  for (const key of duplicateMemberKeys(source, 'inputRequests')) {
    findings.push(violation('MRTR-SRV-04', `expected the keys of inputRequests to be unique; ${show(key)} appears more than once in the message text`, ptr('result', 'inputRequests', key)));
  }
}

/** The feature rule that describes an input request's shape: a form or URL elicitation (ELIC-FORM-01, ELIC-URL-04), sampling messages (SAMP-MSG-04). */
function inputRequestRule(method: string, params: Record<string, unknown> | undefined): RequirementId | undefined {
  if (method === 'elicitation/create') return params?.mode === 'url' ? 'ELIC-URL-04' : 'ELIC-FORM-01';
  return method === 'sampling/createMessage' ? 'SAMP-MSG-04' : undefined;
}

/**
 * The feature rule an input request's schema errors break, where they lie in what it describes: a
 * requestedSchema's shape is ELIC-FORM-02's (as for an elicitation of the initialize era), sampling
 * messages SAMP-MSG-04's; anything else in a form or URL request its own rule's.
 */
function featureRuleOf(own: RequirementId, errors: readonly ErrorObject[]): RequirementId | undefined {
  if (own === 'ELIC-FORM-01' && errors.some((e) => e.instancePath.startsWith('/params/requestedSchema/'))) return 'ELIC-FORM-02';
  if (own === 'SAMP-MSG-04') return errors.some((e) => e.instancePath.startsWith('/params/messages')) ? own : undefined;
  return own;
}

/** MRTR-SRV-04 (valid by its method) and MRTR-SRV-05 (a kind the request declared) for one input request. */
function checkInputRequest(key: string, value: unknown, capabilities: Record<string, unknown>, findings: Finding[], applied?: Set<string>): void {
  const at = ptr('result', 'inputRequests', key);
  const method = obj(value)?.method;
  const kind = typeof method === 'string' ? INPUT_KINDS.get(method) : undefined;
  if (!kind) {
    findings.push(violation('MRTR-SRV-04', `expected each input request to be elicitation/create, sampling/createMessage or roots/list with its params; ${show(key)} is ${show(value, 80)}`, at));
    return;
  }
  const own = inputRequestRule(method as string, obj(obj(value)?.params));
  if (own) mark(applied, [own]);
  const errors = schemaFor(LATEST_REVISION).validate(kind.def, value);
  if (errors) {
    const rule = own && featureRuleOf(own, errors);
    findings.push(violation(rule ? ['MRTR-SRV-04', rule] : 'MRTR-SRV-04', `expected input request ${show(key)} to match ${kind.def}; ${describeErrors(errors, at)}`, at));
  }
  const missing = missingCapability(method as string, obj(obj(value)?.params), capabilities);
  // Asking for an undeclared kind relies on a capability the request did not declare (META-REQ-04's own words).
  if (missing) findings.push(violation(['MRTR-SRV-05', 'META-REQ-04'], `expected input requests only of kinds the request declared in clientCapabilities; ${show(key)} (${method}) needs ${missing}, declared ${show(capabilities)}`, at));
}

/** The client capability an input request needs that the request did not declare, if any (ELIC-CAP-02, SAMP-TOOLS-01). */
function missingCapability(method: string, params: Record<string, unknown> | undefined, capabilities: Record<string, unknown>): string | undefined {
  const kind = INPUT_KINDS.get(method)!;
  const declared = obj(capabilities[kind.capability]);
  if (!declared) return kind.capability;
  if (method === 'elicitation/create') {
    // {} declares form mode alone; form or url named declares those modes.
    const mode = params?.mode === 'url' ? 'url' : 'form';
    const named = 'form' in declared || 'url' in declared;
    if (mode === 'url' ? !('url' in declared) : named && !('form' in declared)) return `elicitation.${mode}`;
  }
  if (method === 'sampling/createMessage' && (params?.tools !== undefined || params?.toolChoice !== undefined) && !obj(declared.tools)) return 'sampling.tools';
  return undefined;
}

/**
 * Keys that occur more than once directly inside the object value of the first member named
 * `member` in `text`: JSON.parse keeps the last, so only the text shows a duplicate.
 */
export function duplicateMemberKeys(text: string | undefined, member: string): string[] {
  if (text === undefined) return [];
  const at = text.indexOf(`"${member}"`);
  if (at < 0) return [];
  let i = text.indexOf('{', at + member.length + 2);
  if (i < 0) return [];
  const seen = new Set<string>();
  const repeated: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (depth === 1 && expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (seen.has(key)) repeated.push(key);
        seen.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      depth++;
      expectKey = c === '{' && depth === 1;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) break;
    } else if (c === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return repeated;
}

/** The index of the quote that closes the JSON string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

/** An error response in a modern exchange: the code policy (BASE-ERR-05/07/08) and the modern errors' shapes. */
export function checkModernError(error: Record<string, unknown>, response: Record<string, unknown>, findings: Finding[], applied?: Set<string>): void {
  mark(applied, MARKS.error);
  const code = error.code;
  if (typeof code !== 'number' || !Number.isInteger(code)) return;
  const shape = MODERN_ERROR_SHAPES.get(code);
  if (shape) {
    mark(applied, [shape.rule]);
    // "id": null is JSON-RPC 2.0's spelling of "no id" (an error refusing a notification or an
    // unreadable request): a compatibility note elsewhere, not a second defect of the shape (ruling jsonrpc-null-id).
    const id = 'id' in response && response.id !== null ? { id: response.id } : {};
    const errors = schemaFor(LATEST_REVISION).validate(shape.def, { jsonrpc: '2.0', ...id, error });
    if (errors) findings.push(violation([shape.rule, 'BASE-ERR-07'], `expected a ${code} error in the shape of ${shape.def}; ${describeErrors(errors, '')}`, '/error'));
  } else if (code <= -32020 && code >= -32099) {
    findings.push(violation('BASE-ERR-07', `expected only the codes the specification defines in −32020…−32099 (−32020, −32021, −32022); got ${code}`, '/error/code'));
  } else if (RETIRED_CODES.has(code)) {
    findings.push(violation('BASE-ERR-08', `expected no ${code} at 2026-07-28 (retired: resource not found is now −32602, URL elicitation required is gone); got ${code}`, '/error/code'));
  } else if (code <= -32000 && code >= -32019) {
    findings.push(violation('BASE-ERR-05', `expected no code of the legacy implementation-defined range −32000…−32019 from a 2026-07-28 implementation; got ${code}`, '/error/code'));
  } else if (code >= -32768 && code < -32000 && !STANDARD_CODES.has(code)) {
    findings.push(violation('BASE-ERR-05', `expected codes outside the JSON-RPC reserved range −32768…−32000 for purposes the specification does not define; got ${code}`, '/error/code'));
  }
}
