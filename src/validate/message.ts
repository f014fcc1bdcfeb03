import type { ErrorObject } from 'ajv';
import { checkContentBlock, checkResourceContents, checkResourceUri, contentBlockProblem } from './content.js';
import { checkTemplateList } from './uri-template.js';
import { checkSchema, SCHEMA_RULES, validateWithSchema } from './dialects.js';
import { checkEnvelope, type Envelope, ENVELOPE_RULES } from './envelope.js';
import { excuseEchoedUris, suppliedArguments, withoutEchoedFormats } from './echo.js';
import { type Finding, note, ptr, show, unjudged, violation } from './finding.js';
import { findingsIn } from './in-revision.js';
import type { RuleTable } from './rule-table.js';
import { checkSamplingMessages } from './sampling.js';
import { allowsBatches, METHOD_SINCE } from './revisions.js';
import { eraOf, LATEST_REVISION, type Revision, revisionAtLeast } from '../spec/revisions.js';
import { META } from '../spec/modern.js';
import { advertisesExtension, checkModernError, checkModernNotification, checkModernRequest, checkModernResponseSide, checkModernResult, claimedByModernRule, isModernRequest, MODERN_RULES } from './modern.js';
import { ruling } from '../spec/rulings.js';
import { describeErrors, INPUT_REQUIRED, laterRevisionAccepting, type RevisionSchema, schemaFor } from './schemas.js';
import { isCreateTaskResult } from './tasks.js';
import { checkCallToolResult, checkToolList, TOOL_RULES, type ToolInfo } from './tools.js';
import { mayHoldWalked, WALK_RULES, walkMessage } from './walk.js';
import { checkExtensionMessage, checkExtensionResult, EXT_TASKS_RULES, isExtensionResult, TASKS_EXTENSION } from './ext-tasks.js';
import { TYPED_RESERVED_KEYS } from './meta.js';
import { obj, table } from '../json.js';
import type { RequirementId } from '../spec/requirement-id.js';

export type Side = 'client' | 'server';

export interface MessageContext {
  /** Who sent the message. */
  from: Side;
  /**
   * The negotiated revision (or the one assumed before negotiation); for a modern (2026-07-28)
   * exchange, the revision its request names in `_meta`.
   */
  revision: Revision;
  /** For responses: the request they answer (method and params), when known. */
  request?: { method: string; params?: unknown } | undefined;
  /** Tools listed earlier in the session, for structuredContent checks (TOOL-OUT-01). */
  tools?: ReadonlyMap<string, ToolInfo>;
  /** Collects the requirement ids the message gave a chance to fail (see SessionValidator.applied). */
  applied?: Set<string>;
  /** Text that holds the message's JSON (its frame, or a transcript line), when there is one. */
  source?: string | undefined;
  /** The transport that carried it, when known (a rule a transport restates is cited then). */
  transport?: 'stdio' | 'http' | undefined;
}

/** Rules every frame of a kind exercises in checkEnvelope (ENVELOPE_RULES lists all it cites). */
const ENVELOPE_MARKS: ReadonlyMap<string, RuleTable> = table({
  request: ['BASE-MSG-01', 'BASE-MSG-05', 'BASE-ID-01', 'BASE-ID-02'],
  notification: ['BASE-MSG-01', 'BASE-MSG-05', 'BASE-NOTIF-01'],
  result: ['BASE-MSG-01', 'BASE-MSG-05', 'BASE-MSG-04', 'BASE-RES-02'],
  error: ['BASE-MSG-01', 'BASE-MSG-05', 'BASE-MSG-04', 'BASE-ERR-02', 'ROBUST-08'],
  invalid: ['BASE-MSG-01', 'BASE-MSG-05'],
});

/** Rules a result of a method is judged by beyond its schema (checkResult). */
const RESULT_EXTRA_RULES: ReadonlyMap<string, RuleTable> = table({
  'tools/list': ['TOOL-NAME-01', 'TOOL-SCHEMA-01', 'JSCH-VAL-03', 'JSCH-VAL-02'],
  'tools/call': ['TOOL-CONT-01'],
  'resources/list': ['RES-URI-02'],
  'resources/read': ['RES-URI-02'],
  'prompts/get': ['PROMPT-CONT-01'],
});

/** Rules the checks below judge a message by, beyond its schema: what each check marks exercised. */
const MARKS = {
  requestedSchema: ['ELIC-FORM-02', 'ELIC-FORM-04', 'JSCH-VAL-03', 'JSCH-VAL-02'],
  samplingMessages: ['SAMP-MSG-01', 'SAMP-MSG-02'],
  embeddedSchema: ['JSCH-VAL-03', 'JSCH-VAL-02'],
  // Each era's words for a URL-mode request's shape; findingsIn keeps the revision's own.
  elicitationUrl: ['ELIC-URL-01', 'ELIC-URL-04'],
  formElicitation: ['ELIC-FORM-01'],
  errorMessage: ['BASE-ERR-03'],
  urlElicitationError: ['ELIC-ERR-01'],
  ping: ['PING-01'],
  structuredOutput: ['TOOL-OUT-01'],
  structuredContent: ['TOOL-OUT-03'],
  urlAccept: ['ELIC-URL-03'],
  formAccept: ['ELIC-RESP-02'],
} as const satisfies Record<string, RuleTable>;

function mark(ctx: MessageContext, ids: readonly string[] | undefined): void {
  if (ctx.applied && ids) for (const id of ids) ctx.applied.add(id);
}

/** Requests each side may send; a request in the wrong direction breaks the schema's unions. */
const SERVER_REQUESTS = new Set(['ping', 'sampling/createMessage', 'roots/list', 'elicitation/create', 'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);
const BOTH_NOTIFICATIONS = new Set(['notifications/cancelled', 'notifications/progress', 'notifications/tasks/status']);
const CLIENT_NOTIFICATIONS = new Set(['notifications/initialized', 'notifications/roots/list_changed']);

/** The feature rule a schema failure also breaks, by method (results) — beside BASE-RES-03. */
const RESULT_RULE: ReadonlyMap<string, RequirementId> = table({
  initialize: 'LIFE-INIT-02',
  ping: 'PING-01',
  'tools/list': 'TOOL-LIST-01',
  'tools/call': 'TOOL-CALL-01',
  'resources/list': 'RES-LIST-01',
  'resources/read': 'RES-READ-01',
  'resources/templates/list': 'RES-TPL-01',
  'resources/subscribe': 'RES-SUB-01',
  'resources/unsubscribe': 'RES-SUB-01',
  'prompts/list': 'PROMPT-LIST-01',
  'prompts/get': 'PROMPT-GET-01',
  'completion/complete': 'COMP-RES-01',
  'logging/setLevel': 'LOG-SET-01',
  'roots/list': 'ROOTS-LIST-01',
  'sampling/createMessage': 'SAMP-RES-01',
  'elicitation/create': 'ELIC-RESP-01',
});

function idsOf(rule: RequirementId | RuleTable | undefined): RuleTable {
  return rule === undefined ? [] : typeof rule === 'string' ? [rule] : rule;
}

/** The feature rule a schema failure also breaks, by method (requests and notifications). */
const PARAMS_RULE: ReadonlyMap<string, RequirementId | RuleTable> = table<RequirementId | RuleTable>({
  initialize: 'LIFE-INIT-01',
  'notifications/message': 'LOG-LVL-01',
  // requestId present (and a RequestId) in each era's words; findingsIn keeps the revision's own.
  'notifications/cancelled': ['CANCEL-04', 'CANCEL-12'],
  'notifications/progress': 'PROG-01',
  'completion/complete': 'COMP-REQ-01',
  'sampling/createMessage': 'SAMP-REQ-01',
  'elicitation/create': 'ELIC-REQ-01',
  'tools/list': 'PAGE-01',
  'resources/list': 'PAGE-01',
  'resources/templates/list': 'PAGE-01',
  'prompts/list': 'PAGE-01',
});

/** What a request or notification with a schema definition is judged by: its schema and its method's rule. */
const PARAMS_MARKS: ReadonlyMap<string, RuleTable> = new Map([...PARAMS_RULE].map(([method, rule]) => [method, ['BASE-SCHEMA-01', ...idsOf(rule)]]));
const PARAMS_MARKS_OTHER: RuleTable = ['BASE-SCHEMA-01'];
/** What a result with a schema definition is judged by: its schema, its method's rule, and for initialize the capabilities' shape. */
const RESULT_MARKS: ReadonlyMap<string, RuleTable> = new Map(
  [...RESULT_RULE].map(([method, rule]): [string, RuleTable] => [method, ['BASE-RES-03', rule, ...(method === 'initialize' ? (['LIFE-CAP-01'] as const) : [])]]),
);
const RESULT_MARKS_OTHER: RuleTable = ['BASE-RES-03'];

/**
 * Every rule validateMessage judges: the tables above, the departures from the negotiated revision
 * (LIFE-OP-01), and what the modules it calls cite (the walk's _meta, icons and timestamps, embedded
 * JSON Schemas, tool lists). VALIDATOR_RULES (coverage.ts) is derived from it.
 */
export const MESSAGE_RULES: RuleTable = [
  ...ENVELOPE_RULES,
  ...[...ENVELOPE_MARKS.values()].flat(),
  ...PARAMS_MARKS_OTHER,
  ...[...PARAMS_RULE.values()].flatMap(idsOf),
  ...RESULT_MARKS_OTHER,
  ...[...RESULT_MARKS.values()].flat(),
  ...[...RESULT_EXTRA_RULES.values()].flat(),
  ...Object.values(MARKS).flat(),
  'LIFE-OP-01',
  ...WALK_RULES,
  ...SCHEMA_RULES,
  ...TOOL_RULES,
  ...MODERN_RULES,
  ...EXT_TASKS_RULES,
];

function depth(pointer: string): number {
  let n = 0;
  for (let i = 0; i < pointer.length; i++) if (pointer.charCodeAt(i) === 47) n++;
  return n;
}

function paramsRule(method: string, errors: ErrorObject[], params: Record<string, unknown> | undefined): RequirementId | RuleTable | undefined {
  if (method === 'elicitation/create') {
    if (errors.some((e) => e.instancePath.startsWith('/params/requestedSchema'))) return 'ELIC-FORM-02';
    if (errors.some((e) => e.instancePath === '/params/url')) return MARKS.elicitationUrl;
    if (isFormElicitation(params) && !('requestedSchema' in params)) return ['ELIC-REQ-01', ...MARKS.formElicitation];
  }
  return PARAMS_RULE.get(method);
}

/** Whether a schema error's path lies in the value of a typed reserved `_meta` key other than progressToken. */
function typedReservedKeyAt(instancePath: string): boolean {
  const at = instancePath.indexOf('/_meta/');
  if (at < 0) return false;
  const segment = instancePath.slice(at + 7).split('/', 1)[0]!;
  const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
  return key !== 'progressToken' && TYPED_RESERVED_KEYS.has(key);
}

function schemaFinding(base: RequirementId, rule: RequirementId | RuleTable | undefined, unsorted: ErrorObject[], where: string, what: string, rev: Revision, later: Revision | undefined): Finding {
  const ids = [base, ...idsOf(rule)];
  // Under anyOf every branch reports; the deepest error is the one that names what is wrong.
  const errors = [...unsorted].sort((a, b) => depth(b.instancePath) - depth(a.instancePath));
  const first = errors[0];
  let requirementIds = ids;
  // Capability shape errors are their own rule (LIFE-CAP-01).
  if (first && /\/capabilities(\/|$)/.test(first.instancePath)) requirementIds = ['LIFE-CAP-01', ...ids];
  // A value of the wrong type at a key 2026-07-28 types is META-RSV-04's, not the method's (progressToken the walk reports itself).
  else if (first && typedReservedKeyAt(first.instancePath)) requirementIds = ['META-RSV-04', base];
  const pointer = where + (first?.instancePath ?? '');
  if (later !== undefined) {
    // Valid MCP of a later revision: a departure from the negotiated version, graded at that rule's level there.
    return violation(
      ['LIFE-OP-01', ...requirementIds],
      `expected ${what} to keep to the negotiated revision ${rev}; it matches the ${later} schema, not the ${rev} one (${describeErrors(errors, where)}): a construct a later revision added (${ruling('later-revision-construct').cite})`,
      pointer,
    );
  }
  return violation(requirementIds, `expected ${what} to match the ${rev} schema; ${describeErrors(errors, where)}`, pointer);
}

/**
 * Everything one message shows by itself, given its context: the envelope, the per-method schema of
 * the negotiated revision, `_meta` keys and icons anywhere, embedded JSON Schemas and the feature
 * rules a single message can break, each only if the revision has it. Pure: same input, same findings.
 */
export function validateMessage(message: unknown, ctx: MessageContext): Finding[] {
  if (Array.isArray(message) && message.length > 0 && allowsBatches(ctx.revision)) {
    return message.flatMap((m, i) => validateMessage(m, ctx).map((f) => ({ ...f, pointer: `/${i}${f.pointer}` })));
  }
  return findingsIn(validateEnvelope(checkEnvelope(message), message, ctx), ctx.revision);
}

/**
 * As validateMessage, for a message already classified (the session validator needs both). The
 * findings are the envelope's own, added to: an envelope is made for one frame and judged once.
 */
export function validateEnvelope(env: Envelope, message: unknown, ctx: MessageContext): Finding[] {
  const findings = env.findings;
  mark(ctx, ENVELOPE_MARKS.get(env.kind));
  const msg = env.msg;
  if (!msg) return findings;
  const modern = eraOf(ctx.revision) === 'stateless';
  const schema = schemaFor(ctx.revision);
  if ((env.kind === 'request' || env.kind === 'notification') && env.method !== undefined) {
    const method = env.method;
    if (modern) {
      if (env.kind === 'request') checkModernRequest(method, msg.params, ctx.from, findings, ctx.applied, ctx.transport);
      else checkModernNotification(method, msg.params, ctx.from, findings, ctx.applied);
    } else {
      checkDirection(env.kind, method, ctx.from, findings);
      const since = METHOD_SINCE.get(method);
      if (since && !revisionAtLeast(ctx.revision, since)) {
        findings.push(violation('LIFE-OP-01', `expected only methods of the negotiated revision ${ctx.revision}; ${show(method)} exists only from ${since}`, '/method'));
      }
    }
    const def = env.kind === 'request' ? schema.requestDef(method) : schema.notificationDef(method);
    if (def) {
      mark(ctx, PARAMS_MARKS.get(method) ?? PARAMS_MARKS_OTHER);
      const errors = schemaErrors(schema, def, msg, modern, '');
      if (errors) {
        const later = laterRevisionAccepting(ctx.revision, (s) => (env.kind === 'request' ? s.requestDef(method) : s.notificationDef(method)), msg);
        findings.push(schemaFinding('BASE-SCHEMA-01', paramsRule(method, errors, obj(msg.params)), errors, '', `${method} ${env.kind}`, ctx.revision, later));
      }
    }
    if (modern) checkExtensionMessage(method, msg, findings, ctx.applied);
    checkParams(method, obj(msg.params), ctx, findings);
  } else if (env.kind === 'error') {
    checkError(obj(msg.error), ctx, findings);
    if (modern && obj(msg.error) && checkModernResponseSide(ctx.from, findings, ctx.applied, ctx.transport)) checkModernError(obj(msg.error)!, msg, findings, ctx.applied);
  } else if (env.kind === 'result' && ctx.request && !obj(msg.result)) {
    // BASE-RES-02 (the envelope) says the result is no object; only ping's own rule says more.
    if (ctx.request.method === 'ping') checkPingResult(msg.result, ctx, findings);
  } else if (env.kind === 'result' && modern && !checkModernResponseSide(ctx.from, findings, ctx.applied, ctx.transport)) {
    // A client's response has no request of the server to be judged against.
  } else if (env.kind === 'result' && ctx.request) {
    const method = ctx.request.method;
    const result = obj(msg.result)!;
    // A receiver that did not declare tasks for the request type answers it as a plain request (TASK-SUP-01).
    const task = isCreateTaskResult(obj(ctx.request.params), result);
    // An InputRequiredResult on a method that cannot ask for input is judged as what it is (MRTR-SRV-02 says where it went wrong).
    const def = modern && result.resultType === INPUT_REQUIRED ? 'InputRequiredResult' : schema.resultDef(method, task, result.resultType);
    // What the server echoes of the client's own arguments is not judged (echo.ts); the arguments
    // are read only when something failed, which most results do not.
    const request = ctx.request;
    if (modern && isModernRequest(request.params)) checkModernResult(result, request, findings, ctx.applied, ctx.source);
    if (modern && result.resultType === INPUT_REQUIRED) checkInputRequestParams(obj(result.inputRequests), ctx, findings);
    // A task handle, or the answer to a tasks/* request: the tasks extension's schema and rules, not the method's.
    const extension = modern && isExtensionResult(method, result);
    if (extension) checkExtensionResult(method, result, advertisesExtension(request.params, TASKS_EXTENSION), findings, ctx.applied);
    else if (def) {
      mark(ctx, RESULT_MARKS.get(method) ?? RESULT_MARKS_OTHER);
      mark(ctx, RESULT_EXTRA_RULES.get(method));
      const found = schemaErrors(schema, def, msg.result, modern, '/result');
      // A CreateTaskResult is not the method's own result: its shape is the base rule's alone.
      const rule = task ? undefined : RESULT_RULE.get(method);
      if (found) {
        const { errors, echoes } = withoutEchoedFormats(msg.result, found, suppliedArguments(request), (data) => schemaErrors(schema, def, data, modern, '/result'));
        for (const e of echoes) findings.push(unjudged(rule ? ['BASE-RES-03', rule] : ['BASE-RES-03'], e.message, '/result' + e.pointer));
        if (errors) {
          const later = laterRevisionAccepting(ctx.revision, (s) => s.resultDef(method, task, result.resultType), msg.result);
          findings.push(schemaFinding('BASE-RES-03', rule, errors, '/result', `the ${task ? 'CreateTaskResult' : 'result'} of ${method}`, ctx.revision, later));
        }
      }
    }
    // An InputRequiredResult is not the method's own result: the method's rules wait for the retry's answer (a task's, for the task's end).
    if (!task && !extension && !(modern && result.resultType === INPUT_REQUIRED)) {
      const own: Finding[] = [];
      checkResult(method, result, ctx, own);
      if (own.length > 0) findings.push(...excuseEchoedUris(own, msg, suppliedArguments(request)));
    }
  }
  if (ctx.source === undefined || mayHoldWalked(ctx.source)) walkMessage(message, findings, ctx.applied, eraOf(ctx.revision));
  return findings;
}

/**
 * The schema's errors for `data` as definition `def`; in a modern exchange without those a modern
 * rule reports under its own id (modern.ts). Ajv stops at its first error, so a value whose first
 * errors were all claimed is validated again with those members set right, to find any others.
 */
function schemaErrors(schema: RevisionSchema, def: string, data: unknown, modern: boolean, where: '' | '/result'): ErrorObject[] | null {
  const errors = schema.validate(def, data);
  if (!errors || !modern) return errors;
  const rest = errors.filter((e) => !claimedByModernRule(e, where));
  if (rest.length > 0) return rest;
  const repaired = repairClaimed(data, where);
  if (repaired === data) return null;
  const again = schema.validate(def, repaired);
  return again && again.filter((e) => !claimedByModernRule(e, where)).length > 0 ? again.filter((e) => !claimedByModernRule(e, where)) : null;
}

/** A copy of `data` with the members modern rules judge themselves set to valid values (or `data` when none is off). */
function repairClaimed(data: unknown, where: '' | '/result'): unknown {
  const o = obj(data);
  if (!o) return data;
  if (where === '/result') {
    return { ...o, resultType: typeof o.resultType === 'string' ? o.resultType : 'complete', ttlMs: 0, cacheScope: 'private', ...(o.inputRequests !== undefined ? { inputRequests: {} } : {}) };
  }
  const params = obj(o.params) ?? {};
  const meta = obj(params._meta) ?? {};
  return { ...o, params: { ...params, _meta: { [META.protocolVersion]: LATEST_REVISION, [META.clientCapabilities]: {}, ...meta } } };
}

function checkDirection(kind: 'request' | 'notification', method: string, from: Side, findings: Finding[]): void {
  let wrong: boolean;
  if (kind === 'request') {
    const serverMethod = SERVER_REQUESTS.has(method);
    const clientMethod = !serverMethod || method === 'ping' || method.startsWith('tasks/');
    wrong = from === 'server' ? !serverMethod && knownMethod(method) : !clientMethod;
  } else {
    if (BOTH_NOTIFICATIONS.has(method)) return;
    const clientOnly = CLIENT_NOTIFICATIONS.has(method);
    wrong = from === 'server' ? clientOnly : !clientOnly && method.startsWith('notifications/') && knownNotification(method);
  }
  if (wrong) {
    findings.push(violation('BASE-SCHEMA-01', `expected only ${from}-side methods from the ${from}; ${show(method)} is sent by the ${from === 'server' ? 'client' : 'server'}`, '/method'));
  }
}

const CLIENT_REQUESTS = new Set([
  'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list',
  'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'logging/setLevel', 'completion/complete',
]);
const SERVER_NOTIFICATIONS = new Set([
  'notifications/message', 'notifications/resources/updated', 'notifications/resources/list_changed',
  'notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/elicitation/complete',
]);

function knownMethod(method: string): boolean {
  return CLIENT_REQUESTS.has(method);
}

function knownNotification(method: string): boolean {
  return SERVER_NOTIFICATIONS.has(method);
}

function checkParams(method: string, params: Record<string, unknown> | undefined, ctx: MessageContext, findings: Finding[]): void {
  if (!params) return;
  if (method === 'elicitation/create') {
    if (isFormElicitation(params)) mark(ctx, MARKS.formElicitation);
    if (isFormElicitation(params) && 'requestedSchema' in params) {
      mark(ctx, MARKS.requestedSchema);
      findings.push(...checkRequestedSchema(params.requestedSchema));
    }
  } else if (method === 'sampling/createMessage') {
    mark(ctx, MARKS.samplingMessages);
    findings.push(...checkSamplingMessages(params.messages));
    if (Array.isArray(params.tools)) {
      mark(ctx, MARKS.embeddedSchema);
      params.tools.forEach((tool, i) => {
        const t = obj(tool);
        if (t && obj(t.inputSchema)) findings.push(...checkSchema(t.inputSchema, ptr('params', 'tools', i, 'inputSchema')));
      });
    }
  }
  if (method === 'elicitation/create' && params.mode === 'url') {
    mark(ctx, MARKS.elicitationUrl);
    if (typeof params.url === 'string' && !isAbsoluteUrl(params.url)) {
      findings.push(violation([...MARKS.elicitationUrl], `expected the url of a URL-mode elicitation to be a valid absolute URL; got ${show(params.url)}`, '/params/url'));
    }
  }
}

/**
 * Each input request of an InputRequiredResult (2026-07-28) by its method's own rules, as checkParams
 * judges the same request sent on its own in the initialize era (a flat requestedSchema, sampling
 * messages, a URL-mode url); its shape against the schema is MRTR-SRV-04's (modern.ts).
 */
function checkInputRequestParams(requests: Record<string, unknown> | undefined, ctx: MessageContext, findings: Finding[]): void {
  if (!requests) return;
  for (const [key, value] of Object.entries(requests)) {
    const request = obj(value);
    if (typeof request?.method !== 'string') continue;
    const own: Finding[] = [];
    checkParams(request.method, obj(request.params), ctx, own);
    const at = ptr('result', 'inputRequests', key);
    for (const f of own) findings.push({ ...f, pointer: at + f.pointer });
  }
}

/** A form-mode elicitation: `mode: "form"` or no mode (ELIC-FORM-01). */
function isFormElicitation(params: Record<string, unknown> | undefined): params is Record<string, unknown> {
  return params !== undefined && (params.mode === undefined || params.mode === 'form');
}

function isAbsoluteUrl(text: string): boolean {
  try {
    return new URL(text).protocol.length > 1;
  } catch {
    return false;
  }
}

const URL_ELICITATION_REQUIRED = -32042;

/** Error responses: a short message (BASE-ERR-03), and −32042 only in its defined shape (ELIC-ERR-01). */
function checkError(error: Record<string, unknown> | undefined, ctx: MessageContext, findings: Finding[]): void {
  if (!error) return;
  mark(ctx, MARKS.errorMessage);
  const message = error.message;
  if (typeof message === 'string' && (message.trim() === '' || /[\r\n]/.test(message.trim()) || message.length > 200)) {
    const why = message.trim() === '' ? 'it is empty' : message.length > 200 ? `it is ${message.length} characters long` : 'it spans several lines';
    findings.push(violation('BASE-ERR-03', `expected error.message to be one short sentence; ${why}: ${show(message, 100)}`, '/error/message'));
  }
  if (error.code === URL_ELICITATION_REQUIRED) {
    mark(ctx, MARKS.urlElicitationError);
    const schema = schemaFor(ctx.revision);
    const errors = schema.has('URLElicitationRequiredError') ? schema.validate('URLElicitationRequiredError', { jsonrpc: '2.0', error }) : null;
    if (errors) findings.push(violation('ELIC-ERR-01', `expected a −32042 error to carry data.elicitations, each a URL-mode elicitation with an elicitationId; ${describeErrors(errors, '')}`, '/error'));
  }
}

/** ELIC-FORM-02: a flat object of primitive properties (the schema's PrimitiveSchemaDefinition). */
function checkRequestedSchema(schema: unknown): Finding[] {
  const s = obj(schema);
  if (!s) return [];
  const findings = checkSchema(s, '/params/requestedSchema');
  const props = obj(s.properties);
  if (s.type !== 'object') {
    findings.push(violation('ELIC-FORM-02', `expected requestedSchema to have "type": "object"; got ${show(s.type)}`, '/params/requestedSchema/type'));
  }
  for (const [name, prop] of Object.entries(props ?? {})) {
    const p = obj(prop);
    const where = ptr('params', 'requestedSchema', 'properties', name);
    if (!p) continue;
    const items = obj(p.items);
    if ('enumNames' in p) findings.push(note('ELIC-FORM-04', `property ${show(name)} uses the deprecated enumNames; titled enums use oneOf/anyOf of {const, title}`, where + '/enumNames'));
    if (p.type === 'object' || 'properties' in p) {
      findings.push(violation('ELIC-FORM-02', `expected only primitive properties in requestedSchema; ${show(name)} is a nested object`, where));
    } else if (p.type === 'array' && (!items || items.type === 'object' || !('enum' in items || 'anyOf' in items))) {
      findings.push(violation('ELIC-FORM-02', `expected array properties in requestedSchema to be multi-select enums (items with enum or anyOf); ${show(name)} has items ${show(p.items)}`, where));
    }
  }
  return findings;
}

/**
 * A member an empty result may still carry: `_meta`, and the `resultType` "complete" that 2026-07-28
 * puts on every result and dual-era servers send on older revisions too (ruling empty-result-members).
 */
export function allowedInEmptyResult(key: string, value: unknown): boolean {
  return key === '_meta' || (key === 'resultType' && value === 'complete');
}

const EMPTY_PING = `an empty ping result ({} with at most _meta and resultType "complete": ${ruling('empty-result-members').cite})`;

/** PING-01: the answer to ping is an empty object. */
function checkPingResult(result: unknown, ctx: MessageContext, findings: Finding[]): void {
  mark(ctx, MARKS.ping);
  const members = obj(result);
  if (!members) {
    findings.push(violation('PING-01', `expected ${EMPTY_PING}; got ${show(result)}`, '/result'));
    return;
  }
  for (const [key, value] of Object.entries(members)) {
    if (!allowedInEmptyResult(key, value)) findings.push(violation('PING-01', `expected ${EMPTY_PING}; got member ${show(key)}`, ptr('result', key)));
  }
}

function checkResult(method: string, result: Record<string, unknown>, ctx: MessageContext, findings: Finding[]): void {
  switch (method) {
    case 'ping':
      checkPingResult(result, ctx, findings);
      break;
    case 'tools/list':
      findings.push(...checkToolList(result, ctx.tools));
      break;
    case 'tools/call': {
      const name = obj(ctx.request?.params)?.name;
      const tool = typeof name === 'string' ? ctx.tools?.get(name) : undefined;
      // An isError result needs no structuredContent (ruling structured-content-on-errors), so it exercises nothing here.
      if (tool?.outputSchema !== undefined && result.isError !== true) mark(ctx, MARKS.structuredOutput);
      if (result.structuredContent !== undefined) mark(ctx, MARKS.structuredContent);
      findings.push(...checkCallToolResult(result, tool));
      break;
    }
    case 'resources/list':
      if (Array.isArray(result.resources)) {
        result.resources.forEach((r, i) => findings.push(...checkResourceUri(obj(r)?.uri, ptr('result', 'resources', i, 'uri'))));
      }
      break;
    case 'resources/templates/list':
      findings.push(...checkTemplateList(result));
      break;
    case 'resources/read':
      if (Array.isArray(result.contents)) {
        result.contents.forEach((c, i) => findings.push(...checkResourceContents(c, ptr('result', 'contents', i), 'RES-READ-01')));
      }
      break;
    case 'prompts/get':
      if (Array.isArray(result.messages)) {
        result.messages.forEach((m, i) => {
          const content = obj(m)?.content;
          const at = ptr('result', 'messages', i, 'content');
          const problem = obj(m) ? contentBlockProblem(content) : undefined;
          if (problem !== undefined) findings.push(violation('PROMPT-GET-01', `expected each prompt message to carry one content block of a known type with its fields; ${problem}`, at));
          else findings.push(...checkContentBlock(content, at, 'PROMPT-CONT-01', true));
        });
      }
      break;
    case 'completion/complete': {
      const values = obj(result.completion)?.values;
      if (Array.isArray(values) && values.length > 100) {
        findings.push(violation('COMP-RES-01', `expected at most 100 completion values; got ${values.length}`, '/result/completion/values'));
      }
      break;
    }
    case 'roots/list':
      if (Array.isArray(result.roots)) {
        result.roots.forEach((r, i) => {
          const uri = obj(r)?.uri;
          if (typeof uri === 'string' && !uri.startsWith('file://')) {
            findings.push(violation('ROOTS-LIST-01', `expected every root uri to be a file:// URI; got ${show(uri)}`, ptr('result', 'roots', i, 'uri')));
          }
        });
      }
      break;
    case 'elicitation/create':
      checkElicitResult(result, obj(ctx.request?.params), ctx, findings);
      break;
  }
}

function checkElicitResult(result: Record<string, unknown>, params: Record<string, unknown> | undefined, ctx: MessageContext, findings: Finding[]): void {
  if (result.action !== 'accept') return;
  mark(ctx, params?.mode === 'url' ? MARKS.urlAccept : MARKS.formAccept);
  if (params?.mode === 'url') {
    if ('content' in result) findings.push(violation('ELIC-URL-03', 'expected a URL-mode accept to carry no content (it only means the user agreed to open the URL); got content', '/result/content'));
    return;
  }
  if (params && obj(params.requestedSchema) && obj(result.content)) {
    const v = validateWithSchema(params.requestedSchema, result.content);
    if (v.status === 'invalid') {
      findings.push(violation('ELIC-RESP-02', `expected the accepted content to validate against requestedSchema; ${v.errors.slice(0, 3).join('; ')}`, '/result/content'));
    }
  }
}
