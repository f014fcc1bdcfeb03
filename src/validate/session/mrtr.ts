import type { RuleTable } from '../rule-table.js';
import { type Finding, ptr, show, violation } from '../finding.js';
import { INPUT_REQUIRED, describeErrors } from '../schemas.js';
import { mistypedResponses } from '../input-responses.js';
import { obj } from '../../json.js';
import type { AnswerHook, Concern, RequestHook, Routes } from './concern.js';
import type { Pending } from './ledger.js';
import type { SessionState } from './state.js';

/** An InputRequiredResult the client has not retried yet. */
interface Open {
  request: Pending;
  /** The original params without the members a retry adds or changes. */
  core: string;
  inputRequests: Record<string, unknown>;
  requestState: string | undefined;
}

const MRTR_METHODS = ['tools/call', 'prompts/get', 'resources/read'];

/** A request's params without `_meta`, `inputResponses` and `requestState`: what a retry repeats. */
function coreOf(params: Record<string, unknown> | undefined): string {
  const { _meta: _m, inputResponses: _r, requestState: _s, ...rest } = params ?? {};
  return stableJson(rest);
}

/**
 * JSON with object keys sorted, so that two params equal as values compare equal as text.
 * Iterative: a client's (or a fuzzer's) params nested 10,000 deep must not overflow the stack.
 */
function stableJson(value: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or a literal piece of text (punctuation, a key).
  const work: Array<{ value: unknown } | string> = [{ value }];
  while (work.length > 0) {
    const item = work.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const v = item.value;
    const o = Array.isArray(v) ? undefined : obj(v);
    if (Array.isArray(v)) {
      const parts: Array<{ value: unknown } | string> = ['['];
      v.forEach((x, i) => parts.push(...(i > 0 ? [','] : []), { value: x }));
      parts.push(']');
      for (let i = parts.length - 1; i >= 0; i--) work.push(parts[i]!);
    } else if (o) {
      const parts: Array<{ value: unknown } | string> = ['{'];
      Object.keys(o).sort().forEach((k, i) => parts.push(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`, { value: o[k] }));
      parts.push('}');
      for (let i = parts.length - 1; i >= 0; i--) work.push(parts[i]!);
    } else out.push(JSON.stringify(v) ?? 'null');
  }
  return out.join('');
}

/**
 * Multi round-trip requests across a transcript (basic/patterns/mrtr.mdx): each retry of an
 * InputRequiredResult repeats its request with a fresh id, echoes its requestState unchanged and
 * answers each of its inputRequests keys with a result of that kind; state and responses go only
 * on the retry of the request they were issued for.
 */
export class Mrtr implements Concern {
  static readonly rules: RuleTable = ['MRTR-CLI-02', 'MRTR-CLI-03', 'MRTR-CLI-04', 'MRTR-CLI-05'];
  private readonly open: Open[] = [];

  constructor(private readonly s: SessionState) {}

  readonly answers: Routes<AnswerHook> = Object.fromEntries(
    MRTR_METHODS.map((method): [string, AnswerHook] => [
      method,
      (request, kind, message) => {
        const result = kind === 'result' ? obj(message.result) : undefined;
        if (result?.resultType !== INPUT_REQUIRED) return;
        const state = typeof result.requestState === 'string' ? result.requestState : undefined;
        this.open.push({ request, core: coreOf(request.params), inputRequests: obj(result.inputRequests) ?? {}, requestState: state });
      },
    ]),
  );

  readonly requests: Routes<RequestHook> = {
    '*': (request, findings) => {
      const params = request.params;
      const carries = params !== undefined && ('inputResponses' in params || 'requestState' in params);
      const retried = this.retried(request);
      if (retried === undefined) {
        if (carries) this.stray(request, findings);
        return;
      }
      this.open.splice(this.open.indexOf(retried), 1);
      this.s.applied.add('MRTR-CLI-02');
      this.s.applied.add('MRTR-CLI-03');
      this.s.applied.add('MRTR-CLI-05');
      this.s.applied.add('MRTR-CLI-04');
      const state = params?.requestState;
      if (state !== retried.requestState) {
        const expected = retried.requestState === undefined ? 'no requestState (none was given)' : `requestState ${show(retried.requestState, 60)} byte for byte`;
        findings.push(violation('MRTR-CLI-02', `expected the retry of ${request.method} (frame ${retried.request.frame}) to carry ${expected}; got ${state === undefined ? 'none' : show(state, 60)}`, '/params/requestState'));
      }
      if (coreOf(params) !== retried.core) findings.push(violation('MRTR-CLI-05', `expected the retry to repeat the original params (frame ${retried.request.frame}) besides _meta, inputResponses and requestState; they differ`, '/params'));
      if (request.id === retried.request.id) findings.push(violation('MRTR-CLI-03', `expected the retry to be a new request with an id other than the original's; both are ${show(request.id)}`, '/id'));
      this.checkResponses(retried, obj(params?.inputResponses), findings);
    },
  };

  /**
   * The open InputRequiredResult `request` retries: the same method and params (what MRTR-CLI-05
   * requires), or failing that the one whose requestState it carries.
   */
  private retried(request: Pending): Open | undefined {
    if (this.s.side !== 'client' || this.open.length === 0) return undefined;
    const core = coreOf(request.params);
    const same = this.open.filter((o) => o.request.method === request.method && o.core === core);
    const state = request.params?.requestState;
    if (same.length > 0) return same.find((o) => o.requestState === state) ?? same[0];
    const byState = typeof state === 'string' ? this.open.find((o) => o.requestState === state && o.request.method === request.method) : undefined;
    return byState;
  }

  /**
   * A request carrying inputResponses or requestState that retries no open InputRequiredResult of
   * its own: a finding only when the state it carries was issued to another request (a transcript
   * may begin after the result that issued it).
   */
  private stray(request: Pending, findings: Finding[]): void {
    const state = request.params?.requestState;
    const owner = typeof state === 'string' ? this.open.find((o) => o.requestState === state) : undefined;
    if (!owner) return;
    this.s.applied.add('MRTR-CLI-04');
    findings.push(violation('MRTR-CLI-04', `expected requestState and inputResponses only on the retry of the request they were issued for; this ${request.method} carries the state issued to ${owner.request.method} (frame ${owner.request.frame})`, '/params/requestState'));
  }

  /** MRTR-CLI-05: the retry answers each inputRequests key, each with a result of that input request's kind. */
  private checkResponses(retried: Open, responses: Record<string, unknown> | undefined, findings: Finding[]): void {
    const asked = Object.keys(retried.inputRequests);
    if (asked.length === 0) return;
    const given = Object.keys(responses ?? {});
    const missing = asked.filter((k) => !given.includes(k));
    const extra = given.filter((k) => !asked.includes(k));
    if (missing.length > 0 || extra.length > 0) {
      findings.push(violation('MRTR-CLI-05', `expected inputResponses to answer exactly the inputRequests keys ${show(asked)} of frame ${retried.request.frame}'s result; ${missing.length > 0 ? `missing ${show(missing)}` : ''}${missing.length > 0 && extra.length > 0 ? ', ' : ''}${extra.length > 0 ? `not asked ${show(extra)}` : ''}`, '/params/inputResponses'));
    }
    for (const { key, def, method, errors } of mistypedResponses(retried.inputRequests, responses ?? {})) {
      const at = ptr('params', 'inputResponses', key);
      findings.push(violation('MRTR-CLI-05', `expected inputResponses ${show(key)} to be the ${def} answering ${method}; ${describeErrors(errors, at)}`, at));
    }
  }
}
