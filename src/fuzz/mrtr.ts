/**
 * One multi round-trip step of a stateful fuzz run (basic/patterns/mrtr.mdx): a tool call with
 * every input kind declared; when it answers input_required, retries under fresh ids, one of them
 * altered as the step says, each judged against the retry a correct client sends. The requests go
 * through the session (so they carry the per-request `_meta`); what they show comes back as data.
 */
import type { ClientSession } from '../harness/client-session.js';
import { cannedCapabilities, cannedInputResponses } from '../harness/canned.js';
import { describeReply } from '../harness/describe-reply.js';
import type { Reply } from '../harness/peer-session.js';
import { isObject } from '../json.js';
import { META } from '../spec/modern.js';
import type { MrtrRetry, Step } from './steps.js';

type MrtrStep = Extract<Step, { kind: 'mrtr' }>;

/** The rule a retry broke, by the key of SEQUENCE_RULES that names it. */
export type MrtrRule = 'mrtrTampered' | 'mrtrMissing' | 'mrtrExtra';

export interface MrtrRound {
  /** Every request sent and its reply, for the one-response and schema invariants. */
  replies: Array<{ method: string; reply: Reply }>;
  /** The rules the round put to the test. */
  exercised: MrtrRule[];
  broken?: { rule: MrtrRule; message: string };
  /** Why the round stopped before its altered retry (no input asked for, no requestState). */
  stopped?: string;
}

const inputRequired = (r: Reply): r is Extract<Reply, { kind: 'result' }> => r.kind === 'result' && r.result.resultType === 'input_required';
const refused = (r: Reply) => r.kind === 'error' || r.kind === 'rejected';

/** The requestState altered: extended, a character flipped, cut short, or replaced outright. */
export function tamper(state: string, how: Extract<MrtrRetry, { kind: 'tampered' }>['tamper']): string {
  switch (how) {
    case 'extend':
      return `${state}mcpcheck`;
    case 'flip': {
      // The last character: where a MAC or signature usually sits.
      const i = state.length - 1;
      return i < 0 ? 'x' : `${state.slice(0, i)}${state[i] === 'A' ? 'B' : 'A'}`;
    }
    case 'truncate':
      return state.slice(0, Math.max(0, state.length - 4));
    case 'replace':
      return 'mcpcheck';
  }
}

/** A final result without its `_meta` (serverInfo, timing): what two retries are compared by. */
function outcome(r: Reply): string {
  if (r.kind !== 'result') return r.kind === 'error' ? `error ${JSON.stringify(r.error.code)}` : r.kind;
  const { _meta, ...rest } = r.result;
  void _meta;
  return JSON.stringify(rest);
}

export async function mrtrRound(session: ClientSession, step: MrtrStep, replyMs: number): Promise<MrtrRound> {
  const replies: MrtrRound['replies'] = [];
  const call = async (extra: Record<string, unknown> = {}) => {
    const reply = await session.request('tools/call', { name: step.tool, arguments: step.arguments, ...extra, _meta: { [META.clientCapabilities]: cannedCapabilities() } }, replyMs);
    replies.push({ method: 'tools/call', reply });
    return reply;
  };
  const first = await call();
  if (!inputRequired(first)) return { replies, exercised: [], stopped: `${step.tool} did not ask for input (${describeReply(first)})` };
  const asked = isObject(first.result.inputRequests) ? first.result.inputRequests : {};
  const state = typeof first.result.requestState === 'string' ? first.result.requestState : undefined;
  const answers = cannedInputResponses(asked);
  const echoed = state !== undefined ? { requestState: state } : {};
  const retry = step.retry;
  switch (retry.kind) {
    case 'tampered': {
      if (state === undefined) return { replies, exercised: [], stopped: 'the InputRequiredResult carried no requestState to tamper with' };
      const altered = tamper(state, retry.tamper);
      const tampered = await call({ inputResponses: answers, requestState: altered });
      const plain = await call({ inputResponses: answers, ...echoed });
      const held = refused(tampered) || inputRequired(tampered) || outcome(tampered) === outcome(plain);
      return { replies, exercised: ['mrtrTampered'], ...(held ? {} : { broken: { rule: 'mrtrTampered', message: `the retry of ${step.tool} with its requestState tampered (${retry.tamper}: ${JSON.stringify(altered.slice(0, 80))}) was served with ${describeReply(tampered)}, while the untampered retry got ${describeReply(plain)}: state that fails verification must be rejected (an error or a fresh InputRequiredResult)` } }) };
    }
    case 'forged': {
      // The same call without a state is the untampered one: a forged state must change nothing for the better.
      const forged = await call({ inputResponses: answers, requestState: 'mcpcheck-forged-request-state' });
      const plain = await call({ inputResponses: answers });
      const held = refused(forged) || inputRequired(forged) || outcome(forged) === outcome(plain);
      return { replies, exercised: ['mrtrTampered'], ...(held ? {} : { broken: { rule: 'mrtrTampered', message: `a call of ${step.tool} carrying a requestState the server never issued ("mcpcheck-forged-request-state") was served with ${describeReply(forged)}, while the same call without it got ${describeReply(plain)}: a forged state must be rejected (an error or a fresh InputRequiredResult)` } }) };
    }
    case 'missing-responses': {
      if (state === undefined || Object.keys(asked).length === 0) return { replies, exercised: [], stopped: 'the InputRequiredResult asked for no input, or carried no requestState to echo' };
      const missing = await call(echoed);
      return { replies, exercised: ['mrtrMissing'], ...(refused(missing) ? { broken: { rule: 'mrtrMissing', message: `the retry of ${step.tool} echoing requestState without the inputResponses asked for (${Object.keys(asked).join(', ')}) got ${describeReply(missing)}, not a fresh InputRequiredResult` } } : {}) };
    }
    case 'extra-responses': {
      const plain = await call({ inputResponses: answers, ...echoed });
      const extra = await call({ inputResponses: { ...answers, mcpcheck_extra: { action: 'accept', content: {} } }, ...echoed });
      const held = outcome(extra) === outcome(plain) || (inputRequired(extra) && inputRequired(plain));
      return { replies, exercised: ['mrtrExtra'], ...(held ? {} : { broken: { rule: 'mrtrExtra', message: `the retry of ${step.tool} with an inputResponses entry nobody asked for ("mcpcheck_extra") got ${describeReply(extra)}, while the same retry without it got ${describeReply(plain)}` } }) };
    }
  }
}
