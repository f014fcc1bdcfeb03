import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import type { Side } from '../message.js';
import { obj } from '../../json.js';
import type { AnswerHook, Concern, NotificationHook, RequestHook, Routes } from './concern.js';
import { type Key, other, type Pending } from './ledger.js';
import type { SessionState } from './state.js';

interface TokenUse {
  owner: Key;
  last?: number;
  /** The request became a task: its token stays valid after the CreateTaskResult (PROG-05). */
  task?: boolean;
}

/** Progress tokens unique among a side's active requests, progress only for an active one, and always increasing. */
export class Progress implements Concern {
  static readonly rules: RuleTable = ['PROG-01', 'PROG-02', 'PROG-04'];
  /** The tokens of each side's requests. */
  private readonly client = new Map<Key, TokenUse>();
  private readonly server = new Map<Key, TokenUse>();

  constructor(private readonly s: SessionState) {}

  private tokens(side: Side): Map<Key, TokenUse> {
    return side === 'client' ? this.client : this.server;
  }

  readonly requests: Routes<RequestHook> = {
    '*': (request, findings) => {
      const token = obj(request.params?._meta)?.progressToken;
      if (typeof token !== 'string' && typeof token !== 'number') return;
      const from = this.s.side;
      const tokens = this.tokens(from);
      this.s.applied.add('PROG-01');
      const current = tokens.get(token);
      if (current && this.s.ledger(from).pending.has(current.owner)) {
        findings.push(violation('PROG-01', `expected progress tokens unique across the ${from}'s active requests; ${show(token)} is already in use`, '/params/_meta/progressToken'));
      }
      tokens.set(token, { owner: request.id });
      request.progressToken = token;
    },
  };

  readonly notifications: Routes<NotificationHook> = {
    'notifications/progress': (params, findings) => {
      const token = params?.progressToken;
      if (typeof token !== 'string' && typeof token !== 'number') return;
      const requester = other(this.s.side);
      const entry = this.tokens(requester).get(token);
      this.s.applied.add('PROG-04');
      const request = entry ? this.s.ledger(requester).pending.get(entry.owner) : undefined;
      if (!entry || (!request && !entry.task)) {
        const why = entry ? 'its request has already been answered' : `no ${requester} request carries that token`;
        findings.push(violation('PROG-04', `expected progress only for an active request; token ${show(token)}: ${why}`, '/params/progressToken'));
        return;
      }
      const progress = params?.progress;
      if (typeof progress !== 'number') return;
      this.s.applied.add('PROG-02');
      if (entry.last !== undefined && !(progress > entry.last)) {
        findings.push(violation('PROG-02', `expected progress to increase with every notification; token ${show(token)} went from ${entry.last} to ${progress}`, '/params/progress'));
      }
      entry.last = progress;
    },
  };

  /** An answered request's token is free again. */
  readonly answers: Routes<AnswerHook> = {
    '*': (request) => {
      if (request.progressToken !== undefined) this.tokens(other(this.s.side)).delete(request.progressToken);
    },
  };

  taskCreated(request: Pending): void {
    const entry = request.progressToken === undefined ? undefined : this.tokens(other(this.s.side)).get(request.progressToken);
    if (entry) entry.task = true;
  }
}
