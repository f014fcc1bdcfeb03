import type { RuleTable } from '../rule-table.js';
import { type Finding, note, show, violation } from '../finding.js';
import type { Side } from '../message.js';
import { beyondParserLimits } from '../parser-limits.js';
import { obj } from '../../json.js';
import { ruling } from '../../spec/rulings.js';
import type { Concern, RequestHook, Routes } from './concern.js';
import { isKey, type Key, type Ledger, other, type Pending, pending } from './ledger.js';
import type { SessionState } from './state.js';

/**
 * JSON-RPC ids, per direction (client and server id spaces overlap legally): ids never reused,
 * exactly one response per request, errors without id matched to what they may answer, batches
 * and their reactions. Every era has these; the session consults it before any other concern.
 */
export class Ids implements Concern {
  static readonly rules: RuleTable = ['BASE-ID-03', 'BASE-ID-05', 'BASE-ID-04', 'BASE-RES-01', 'BASE-ERR-01'];

  constructor(private readonly s: SessionState) {}

  readonly requests: Routes<RequestHook> = {
    '*': (request, findings) => {
      const ledger = this.s.ledger(this.s.side);
      if (this.s.era === 'stateless') {
        // No sessions: an id must only differ from those of the sender's requests still in flight.
        this.s.applied.add('BASE-ID-05');
        if (ledger.pending.has(request.id)) findings.push(violation('BASE-ID-05', `expected a request id other than those of the ${this.s.side}'s requests still in flight; id ${show(request.id)} is awaiting its response`, '/id'));
        return;
      }
      this.s.applied.add('BASE-ID-03');
      if (ledger.used.has(request.id)) {
        findings.push(violation('BASE-ID-03', `expected the ${this.s.side} never to reuse a request id in a session; id ${show(request.id)} was used before`, '/id'));
      }
      ledger.used.add(request.id);
    },
  };

  /** The outstanding request of the other side that a response from `from` with `id` answers, if any. */
  outstanding(from: Side, id: Key | undefined): Pending | undefined {
    return id === undefined ? undefined : this.s.ledger(other(from)).pending.get(id);
  }

  /**
   * Judges a response of the frame's sender against the other side's requests: the request it
   * answers, now answered, or undefined when it answers none (a finding says why, if it must).
   */
  answer(kind: 'result' | 'error', id: Key | undefined, findings: Finding[]): Pending | undefined {
    const from = this.s.side;
    const requester = this.s.ledger(other(from));
    const rule = kind === 'error' ? 'BASE-ERR-01' : 'BASE-RES-01';
    this.s.applied.add(rule);
    if (id === undefined) {
      if (kind === 'error') {
        if (requester.unreadable > 0) requester.unreadable--;
        else if (this.answersMalformed(requester)) return undefined;
        else if (this.answersUnparsable(requester, findings)) return undefined;
        else if (this.refusesBatch(requester, findings)) return undefined;
        else if (this.s.options.httpStatusUnknown) findings.push(note('BASE-ERR-01', 'an error response without id: over HTTP it may be the body of an error status (HTTP-POST-04), which a transcript does not record, so it is not judged', '/id'));
        else findings.push(violation('BASE-ERR-01', 'expected the error response to carry the id of the failed request; it has none, and no request that may be answered without id is waiting (an answer to a notification would break BASE-NOTIF-02 too)', '/id'));
      }
      return undefined;
    }
    const request = requester.pending.get(id);
    this.s.applied.add('BASE-ID-04');
    if (!request) {
      if (requester.answered.has(id)) findings.push(violation('BASE-ID-04', `expected exactly one response per request; request ${show(id)} was already answered`, '/id'));
      else findings.push(violation(rule, `expected a response to repeat the id of an outstanding ${other(from)} request; no ${other(from)} request has id ${show(id)}`, '/id'));
      return undefined;
    }
    requester.pending.delete(id);
    requester.answered.add(id);
    return request;
  }

  /** `from` sent a batch of requests: an array of their answers, or one error without id, is the other side's reaction. */
  batchSent(from: Side, message: unknown[]): void {
    this.s.ledger(from).batches.push(new Set(message.map((m) => obj(m)?.id).filter(isKey)));
  }

  /**
   * Whether `message`, an array from `from`, is made of exactly one response to each request of a
   * batch the other side sent (ruling batch-reaction); that batch is then answered.
   */
  batchAnswered(from: Side, message: unknown[]): boolean {
    const batches = this.s.ledger(other(from)).batches;
    const ids = message.map((m) => obj(m)).map((m) => (m && !('method' in m) && ('result' in m || 'error' in m) && isKey(m.id) ? m.id : undefined));
    const i = batches.findIndex((b) => ids.length === b.size && ids.every((id) => id !== undefined && b.has(id)) && new Set(ids).size === ids.length);
    if (i < 0) return false;
    batches.splice(i, 1);
    return true;
  }

  /** The frame's sender sent something that is no valid message: the peer may answer it with an error without id, or with the id it could read. */
  invalidSent(message: unknown, id: unknown, frame: number): void {
    const mine = this.s.ledger(this.s.side);
    // A lenient peer may even run the requests inside a batch; their answers then carry those ids.
    if (Array.isArray(message)) {
      mine.unreadable++;
      for (const m of message) this.expectAnswer(mine, obj(m)?.id, frame);
      this.batchSent(this.s.side, message);
      return;
    }
    // A readable id is the message's one answer slot, answered with that id or (an Invalid Request,
    // JSON-RPC 2.0 §5) without: counting it as unreadable too left a slot open after an answer with
    // the id, which then took in an unrelated error without id, or not, as frames happened to interleave.
    if (isKey(id)) this.expectAnswer(mine, id, frame);
    else mine.unreadable++;
  }

  /** A frame from `from` that was no JSON: an error without id may answer it. */
  unreadable(from: Side): void {
    this.s.ledger(from).unreadable++;
  }

  /** See SessionValidator.leftUnanswered. */
  leftUnanswered(requester: Side, id: unknown, pingAnswer: number): void {
    const request = isKey(id) ? this.s.ledger(requester).pending.get(id) : undefined;
    if (request && request.silentBefore === undefined) request.silentBefore = pingAnswer;
  }

  end(findings: Finding[]): void {
    for (const side of ['client', 'server'] as const) {
      const open = [...this.s.ledger(side).pending.values()].filter((p) => !p.cancelled);
      const silent = open.filter((p) => p.silentBefore !== undefined);
      if (silent.length > 0) findings.push(this.leftSilent(side, silent));
      // A malformed message no ping showed unanswered may have been answered by an error without id.
      const unproven = open.filter((p) => p.silentBefore === undefined && !p.malformed);
      if (unproven.length > 0) {
        findings.push(note('BASE-ID-04', `${unproven.length} ${side} request(s) never answered before the session ended: ${listed(unproven)}`));
      }
    }
  }

  /** Records a malformed request's readable id so an answer to it is not taken for a stray response. */
  private expectAnswer(ledger: Ledger, id: unknown, frame: number): void {
    if (isKey(id)) ledger.pending.set(id, pending(id, '(malformed request)', undefined, frame, true));
  }

  /** An error without id may answer the oldest malformed message whose id was readable (an Invalid Request, JSON-RPC 2.0 §5): it is answered. */
  private answersMalformed(requester: Ledger): boolean {
    for (const [id, p] of requester.pending) {
      if (!p.malformed || requester.batches.some((b) => b.has(id))) continue;
      requester.pending.delete(id);
      requester.answered.add(id);
      return true;
    }
    return false;
  }

  /**
   * An error without id may answer a pending request that a parser may refuse (ruling
   * parser-limits): the oldest such request counts as answered, with a note saying why.
   */
  private answersUnparsable(requester: Ledger, findings: Finding[]): boolean {
    for (const [id, p] of requester.pending) {
      const beyond = beyondParserLimits(p.params);
      if (beyond === undefined) continue;
      requester.pending.delete(id);
      requester.answered.add(id);
      findings.push(note('BASE-ERR-01', `an error without id answering request ${show(id)} (frame ${p.frame}), ${beyond}: a message the server could not parse, whose error has no id to carry (${ruling('parser-limits').cite})`, '/id'));
      return true;
    }
    return false;
  }

  /**
   * An error without id may refuse a whole batch none of whose requests was answered: JSON-RPC 2.0
   * §6 answers a batch the server cannot take as one with a single Response, whose id it cannot
   * know. Whether the batch should have been processed is ROBUST-05's to judge (ruling batch-reaction).
   */
  private refusesBatch(requester: Ledger, findings: Finding[]): boolean {
    const i = requester.batches.findIndex((b) => b.size > 0 && [...b].every((id) => requester.pending.has(id)));
    if (i < 0) return false;
    const [batch] = requester.batches.splice(i, 1);
    for (const id of batch!) {
      requester.pending.delete(id);
      requester.answered.add(id);
    }
    findings.push(note('BASE-ERR-01', `an error without id refusing the batch of ${batch!.size} request(s) as a whole, as JSON-RPC 2.0 §6 answers a batch it cannot take: no id to carry; whether the batch should have been processed is judged under ROBUST-05 (${ruling('batch-reaction').cite})`, '/id'));
    return true;
  }

  /** BASE-ID-04 for the requests `requester` sent that the other side, alive, never answered nor saw cancelled. */
  private leftSilent(requester: Side, silent: Pending[]): Finding {
    const peer = other(requester);
    this.s.appliedBy[peer].add('BASE-ID-04');
    const malformed = silent.some((p) => p.malformed) ? ` (a message with a readable id is a call even when it is no valid Request object: ${ruling('invalid-request-answered').cite})` : '';
    const finding = violation(
      'BASE-ID-04',
      `expected exactly one response to every request that was not cancelled; the ${peer} never answered ${silent.length} ${requester} request(s), though it answered a ping sent after each: ${listed(silent)}${malformed}`,
    );
    // The evidence is the peer's own frame: its answer to the ping the request went unanswered before.
    finding.frame = silent[0]!.silentBefore;
    return finding;
  }
}

/** Up to five requests, each with its frame, for a message. */
function listed(requests: Pending[]): string {
  return requests.slice(0, 5).map((p) => `${p.method} (frame ${p.frame})`).join(', ') + (requests.length > 5 ? ', …' : '');
}
