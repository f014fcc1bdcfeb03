/**
 * The fuzz oracles: named checks, each tied to the requirements it judges, each a pure predicate
 * over one case and what the target did with it. An oracle that the case gave no chance to fail
 * says so (`unexercised`), so a pass always rests on traffic that exercised it.
 */
import type { RecordedFrame, Reply } from '../harness/peer-session.js';
import { isObject } from '../json.js';
import { validateWithSchema } from '../validate/dialects.js';
import type { Finding } from '../validate/finding.js';
import { checkCallToolResult } from '../validate/tools.js';
import { MODERN_ERRORS, MODERN_HEADERS } from '../spec/modern.js';
import type { Revision } from '../spec/revisions.js';
import { ruling } from '../spec/rulings.js';
import { caseId, describeHeaders, type FuzzCase } from './case.js';
import { judgedIn, ORACLE_RULES, type FuzzRule } from './rules.js';

/** What the target did with one case. */
export interface Observation {
  /** The target's frames from the case until the ping after it was answered. */
  frames: RecordedFrame[];
  /** The id of the liveness probe sent after the case; its answer is no answer to the case. */
  pingId: number;
  /** That probe's method: ping, or server/discover in the stateless era (which has no ping). */
  probe: string;
  /** Ids of the session's other requests (earlier ones, a second ping): an answer to one of them is no answer to this case. Valid while the case is judged. */
  earlier: { has(id: unknown): boolean };
  ping: Reply;
  /** Live findings about the target's frames in that window. */
  findings: Finding[];
  /** How long the case's own response was waited for. */
  waitedMs: number;
  /** Over HTTP: the status of the case's POST. */
  status?: number;
}

export type OracleVerdict = { held: true } | { failed: string } | { unexercised: string };

export interface Oracle extends FuzzRule {
  applies(c: FuzzCase): boolean;
  judge(c: FuzzCase, o: Observation): OracleVerdict;
  /** It judges the case's own response, which is then waited for in full (a tool may take its time). */
  readsResponse?: true;
}

const HELD: OracleVerdict = { held: true };

/**
 * A notification refused at the HTTP level: an error status whose body is an error without id
 * (HTTP-POST-04 allows it; `"id": null` instead is ruling jsonrpc-null-id). No response to it.
 */
function httpRejection(r: { frame: RecordedFrame; message: Record<string, unknown> }): boolean {
  return r.frame.via === 'post-error' && 'error' in r.message && (r.message.id === undefined || r.message.id === null);
}

function responses(o: Observation): Array<{ frame: RecordedFrame; message: Record<string, unknown> }> {
  const out: Array<{ frame: RecordedFrame; message: Record<string, unknown> }> = [];
  for (const frame of o.frames) {
    const items = Array.isArray(frame.message) ? frame.message : [frame.message];
    for (const m of items) {
      if (isObject(m) && typeof m.method !== 'string' && ('result' in m || 'error' in m) && m.id !== o.pingId && !o.earlier.has(m.id)) out.push({ frame, message: m });
    }
  }
  return out;
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return `${s.length > 120 ? `${s.slice(0, 120)}…` : s} (${v === null ? 'null' : typeof v})`;
}

/** The target went away or stopped answering: no other oracle can judge the case. */
function gone(o: Observation): string | undefined {
  if (o.ping.kind === 'closed') return `the target went away: ${o.ping.detail}`;
  if (o.ping.kind !== 'result') return o.ping.kind === 'timeout' ? `${o.probe} sent after it was not answered within ${o.ping.waitedMs} ms (the target hangs)` : `${o.probe} sent after it was not answered (${o.ping.kind})`;
  return undefined;
}

function survives(c: FuzzCase, o: Observation): OracleVerdict {
  const why = gone(o);
  return why ? { failed: `after ${c.mutation}, ${why}` } : HELD;
}

/** The rules that make a response's shape: the schema per method and the result envelope. */
const SCHEMA_RULES = new Set(['BASE-SCHEMA-01', 'BASE-RES-02', 'BASE-RES-03']);

/** The first live finding that a response broke its schema, among `findings`. */
export function schemaViolation(findings: readonly Finding[]): Finding | undefined {
  return findings.find((f) => f.severity === 'fail' && f.requirements.some((r) => SCHEMA_RULES.has(r)));
}

/** An unmutated call of a listed tool: its name, the arguments sent, and the schemas the tool declared. */
function validCall(c: FuzzCase): { name: string; args: unknown; tool: NonNullable<FuzzCase['tool']> } | undefined {
  if (c.mutation !== 'valid' || !c.tool || !('json' in c.body) || !isObject(c.body.json) || !isObject(c.body.json.params)) return undefined;
  const { name, arguments: args } = c.body.json.params;
  return typeof name === 'string' ? { name, args: args ?? {}, tool: c.tool } : undefined;
}

/** The case's own response, once the target is known to be there; or why there is none to judge. */
function ownResponse(c: FuzzCase, o: Observation): Record<string, unknown> | string {
  const why = gone(o);
  if (why) return why;
  return responses(o).find((r) => r.message.id === caseId(c))?.message ?? `no response within ${o.waitedMs} ms`;
}

/** An answer that is no final result yet: the server asks for client input first (2026-07-28 multi round-trip). */
const asksInput = (result: unknown) => isObject(result) && result.resultType === 'input_required';

/**
 * A modern refusal: the case's own response is an error of one of `codes`, over HTTP with status
 * 400. `why` says what was sent, `note` how the codes were ruled.
 */
function refusedWith(c: FuzzCase, o: Observation, codes: readonly number[], note = ''): OracleVerdict {
  const mine = ownResponse(c, o);
  const http = o.status !== undefined;
  const expected = `${codes.join(' or ')}${http ? ' with status 400' : ''}${note}`;
  if (typeof mine === 'string') return http && o.status === 400 && gone(o) === undefined ? { failed: `${describeMutation(c)} got status 400 without a JSON-RPC error for the request (expected ${expected})` } : { unexercised: mine };
  if (!isObject(mine.error)) return { failed: `${describeMutation(c)} was served: ${show(mine.result)} (expected ${expected})` };
  if (!codes.includes(mine.error.code as number)) return { failed: `${describeMutation(c)} got error code ${show(mine.error.code)} (expected ${expected})` };
  if (http && o.status !== 400) return { failed: `${describeMutation(c)} got ${show(mine.error.code)} with status ${o.status} (expected ${expected})` };
  return HELD;
}

function describeMutation(c: FuzzCase): string {
  const headers = c.headers ? ` (${describeHeaders(c.headers)})` : '';
  return `${c.method} with ${c.mutation}${c.at ? ` at ${c.at}` : ''}${headers}`;
}

/** Whatever reaches a tool's handler is tool input (TOOL-SEC-01), mutated envelope and all. */
const isToolInput = (c: FuzzCase) => c.method === 'tools/call';

export const ORACLES: readonly Oracle[] = [
  {
    ...ORACLE_RULES.survives,
    // Tool input has its own oracle, the MUST of TOOL-SEC-01: one crash is reported once.
    applies: (c) => !isToolInput(c),
    judge: survives,
  },
  {
    ...ORACLE_RULES.toolInputSurvives,
    applies: isToolInput,
    judge: survives,
  },
  {
    ...ORACLE_RULES.oneResponse,
    readsResponse: true,
    applies: (c) => (c.expects === 'response' || c.expects === 'invalid-params' || c.expects === 'refused') && caseId(c) !== undefined,
    judge(c, o) {
      const why = gone(o);
      if (why) return { unexercised: why };
      const id = caseId(c);
      const all = responses(o);
      const mine = all.filter((r) => r.message.id === id);
      if (mine.length === 1 && all.length === 1) return HELD;
      if (mine.length > 1) return { failed: `${mine.length} responses with id ${show(id)} to one ${c.method} request (${c.mutation})` };
      if (all.length > 0) return { failed: `${c.method} request with id ${show(id)} (${c.mutation}) answered with id ${all.map((r) => show(r.message.id)).join(', ')}` };
      // A tool call was given the whole --case-timeout before the ping; a live server owes it an answer by then,
      // unless the call asked it to take longer.
      if (c.timed) return { unexercised: `no response within ${o.waitedMs} ms to a call whose time argument ${c.at} was mutated (it may ask the tool to run that long)` };
      return { failed: `${c.method} request with id ${show(id)} (${c.mutation}) got no response within ${o.waitedMs} ms, while the ping sent after it was answered` };
    },
  },
  {
    ...ORACLE_RULES.notificationUnanswered,
    applies: (c) => c.expects === 'no-response',
    judge(c, o) {
      const why = gone(o);
      if (why) return { unexercised: why };
      const answers = responses(o).filter((r) => !httpRejection(r));
      return answers.length ? { failed: `${c.method} (${c.mutation}) was answered: ${show(answers[0]!.message).slice(0, 160)}` } : HELD;
    },
  },
  {
    ...ORACLE_RULES.responsesValidate,
    applies: () => true,
    judge(c, o) {
      if (responses(o).length === 0) return { unexercised: 'no response to judge' };
      const bad = schemaViolation(o.findings);
      return bad ? { failed: `in answer to ${c.mutation} (${c.method}): ${bad.message}` } : HELD;
    },
  },
  {
    ...ORACLE_RULES.parseErrorCode,
    applies: (c) => c.expects === 'parse-error',
    judge(c, o) {
      const why = gone(o);
      if (why) return { unexercised: why };
      const errors = responses(o).filter((r) => isObject(r.message.error));
      if (errors.length === 0) return { unexercised: 'the unparsable frame was dropped without an answer' };
      const codes = errors.map((r) => (r.message.error as Record<string, unknown>).code);
      return codes.includes(-32700) ? HELD : { failed: `an unparsable frame (${c.mutation}) was answered with error code ${codes.map((x) => show(x)).join(', ')}, not −32700` };
    },
  },
  {
    ...ORACLE_RULES.invalidParams,
    readsResponse: true,
    applies: (c) => c.expects === 'invalid-params',
    judge(c, o) {
      const mine = ownResponse(c, o);
      if (typeof mine === 'string') return { unexercised: mine };
      const { error, result } = mine;
      // A tool may need client input (or a capability the request did not declare) before it reads its arguments.
      if (asksInput(result)) return { unexercised: `the call was answered with an InputRequiredResult: the arguments were not judged yet` };
      if (isObject(error) && error.code === MODERN_ERRORS.missingClientCapability) return { unexercised: 'the call needs a client capability the request did not declare (−32021): the arguments were not judged' };
      if (isObject(error)) return error.code === -32602 ? HELD : { failed: `${c.mutation} at ${c.at} answered with error code ${show(error.code)}, not −32602 (nor an isError result)` };
      if (isObject(result) && result.isError === true) return HELD;
      return { failed: `${c.mutation} at ${c.at} was accepted: a success result instead of −32602 or isError: true` };
    },
  },
  {
    ...ORACLE_RULES.validArgumentsAccepted,
    readsResponse: true,
    applies: (c) => validCall(c) !== undefined,
    judge(c, o) {
      const call = validCall(c)!;
      const mine = ownResponse(c, o);
      if (typeof mine === 'string') return { unexercised: mine };
      // The generator aims at the schema; only arguments the schema accepts make a refusal the server's.
      const checked = validateWithSchema(call.tool.inputSchema, call.args);
      if (checked.status !== 'valid') return { unexercised: checked.status === 'invalid' ? `mcpcheck's generated arguments do not validate against the inputSchema (${checked.errors[0]})` : `the inputSchema cannot be used (${checked.reason})` };
      const error = isObject(mine.error) ? mine.error : undefined;
      if (error?.code === -32602) return { failed: `tool ${call.name} called with arguments its inputSchema accepts (${show(call.args)}) was refused with −32602 ${show(error.message)}` };
      return HELD;
    },
  },
  {
    ...ORACLE_RULES.structuredOutput,
    readsResponse: true,
    applies: (c) => validCall(c)?.tool.outputSchema !== undefined,
    judge(c, o) {
      const call = validCall(c)!;
      const mine = ownResponse(c, o);
      if (typeof mine === 'string') return { unexercised: mine };
      if (!isObject(mine.result)) return { unexercised: `tool ${call.name} answered with a JSON-RPC error, no result to judge` };
      if (mine.result.isError === true) return { unexercised: `tool ${call.name} reported an error (isError: true), which needs no structuredContent` };
      if (asksInput(mine.result)) return { unexercised: `tool ${call.name} asked for client input (an InputRequiredResult), no final result to judge` };
      const bad = checkCallToolResult(mine.result, { name: call.name, outputSchema: call.tool.outputSchema }).find((f) => f.requirements.includes('TOOL-OUT-01'));
      return bad ? { failed: `tool ${call.name} called with ${show(call.args)}: ${bad.message}` } : HELD;
    },
  },
  {
    ...ORACLE_RULES.metaRequired,
    readsResponse: true,
    applies: (c) => c.refusal === 'meta-required',
    judge: (c, o) => refusedWith(c, o, o.status !== undefined ? [-32602, MODERN_ERRORS.headerMismatch] : [-32602], o.status !== undefined ? ` (−32602 preferred; ${ruling('missing-meta-error').cite})` : ''),
  },
  {
    ...ORACLE_RULES.versionRefused,
    readsResponse: true,
    applies: (c) => c.refusal === 'version',
    // Over HTTP the header carries the session's version: the body's differs from it.
    judge: (c, o) => refusedWith(c, o, o.status !== undefined ? [MODERN_ERRORS.unsupportedProtocolVersion, MODERN_ERRORS.headerMismatch] : [MODERN_ERRORS.unsupportedProtocolVersion], o.status !== undefined ? ` (${ruling('version-mismatch-error').cite})` : ''),
  },
  {
    ...ORACLE_RULES.headerRefused,
    readsResponse: true,
    applies: (c) => c.refusal === 'header',
    judge(c, o) {
      const version = c.at === MODERN_HEADERS.protocolVersion;
      return refusedWith(c, o, version ? [MODERN_ERRORS.headerMismatch, MODERN_ERRORS.unsupportedProtocolVersion] : [MODERN_ERRORS.headerMismatch], version ? ` (−32020 preferred; ${ruling('version-mismatch-error').cite})` : '');
    },
  },
  {
    ...ORACLE_RULES.metaServed,
    readsResponse: true,
    applies: (c) => (c.mutation === 'valid' || c.mutation === 'meta.unknown-keys') && c.refusal === undefined,
    judge(c, o) {
      const mine = ownResponse(c, o);
      if (typeof mine === 'string') return { unexercised: mine };
      const code = isObject(mine.error) ? mine.error.code : undefined;
      const refusals: unknown[] = [MODERN_ERRORS.headerMismatch, MODERN_ERRORS.unsupportedProtocolVersion];
      return refusals.includes(code) ? { failed: `${describeMutation(c)}, its _meta and headers well-formed, was refused with ${show(code)}: ${show(mine.error)}` } : HELD;
    },
  },
];

/** The oracles a run in `revision` judges by: those of its era whose requirements its catalog has. */
export function oraclesIn(revision: Revision): Oracle[] {
  return ORACLES.filter((o) => judgedIn(o, revision));
}

/** The oracles of `active` that judge a case, minus those already reported (each is reported once per run). */
export function oraclesFor(c: FuzzCase, skip: ReadonlySet<string>, active: readonly Oracle[]): Oracle[] {
  return active.filter((o) => !skip.has(o.id) && o.applies(c));
}
