import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import type { Side } from '../message.js';
import { obj } from '../../json.js';
import { isTerminal } from '../tasks.js';
import type { AnswerHook, Concern, NotificationHook, RequestHook, Routes } from './concern.js';
import { type Key, other, type Pending } from './ledger.js';
import type { SessionState } from './state.js';

interface TokenUse {
  owner: Key;
  last?: number;
  /** The request became a task: its token stays valid after the CreateTaskResult (PROG-05). */
  task?: boolean;
  /** How the task was last seen to be terminal (a status, or its tasks/result answered): its progress is over. */
  ended?: string;
  /** A progress notification of it came. */
  progressed?: boolean;
}

/**
 * Progress tokens unique among a side's active requests, progress only for an active one, and
 * always increasing; a task's progress goes on under its request's token until the task is
 * terminal, and stops then (PROG-05: judged over stdio only, whose one stream keeps the order the
 * peer sent in; over HTTP a status and a progress notification may travel on different streams).
 */
export class Progress implements Concern {
  static readonly rules: RuleTable = ['PROG-01', 'PROG-02', 'PROG-04', 'PROG-05'];
  /** The tokens of each side's requests. */
  private readonly client = new Map<Key, TokenUse>();
  private readonly server = new Map<Key, TokenUse>();
  /** The token use of each task a request with a token became. */
  private readonly tasks = new Map<string, TokenUse>();

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
    'notifications/tasks/status': (params) => this.statusSeen(params),
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
      if (entry.ended !== undefined && this.s.options.transport === 'stdio') {
        this.s.applied.add('PROG-05');
        findings.push(violation('PROG-05', `expected no progress once the task of token ${show(token)} is terminal; it was seen ${entry.ended} before this notification`, '/params/progressToken'));
      }
      entry.progressed = true;
      const progress = params?.progress;
      if (typeof progress !== 'number') return;
      this.s.applied.add('PROG-02');
      if (entry.last !== undefined && !(progress > entry.last)) {
        findings.push(violation('PROG-02', `expected progress to increase with every notification; token ${show(token)} went from ${entry.last} to ${progress}`, '/params/progress'));
      }
      entry.last = progress;
    },
  };

  /** An answered request's token is free again; an answer about a task may show it terminal. */
  readonly answers: Routes<AnswerHook> = {
    '*': (request) => {
      if (request.progressToken !== undefined) this.tokens(other(this.s.side)).delete(request.progressToken);
    },
    'tasks/get': (_request, _kind, message) => this.statusSeen(obj(message.result)),
    'tasks/cancel': (_request, _kind, message) => this.statusSeen(obj(message.result)),
    'tasks/result': (request, kind) => {
      const taskId = request.params?.taskId;
      if (kind === 'result' && typeof taskId === 'string') this.ended(taskId, 'ended (its tasks/result answered)');
    },
  };

  taskCreated(request: Pending, message: Record<string, unknown>): void {
    const entry = request.progressToken === undefined ? undefined : this.tokens(other(this.s.side)).get(request.progressToken);
    if (!entry) return;
    entry.task = true;
    const taskId = obj(obj(message.result)?.task)?.taskId;
    if (typeof taskId === 'string') this.tasks.set(taskId, entry);
  }

  /** A Task as a result or notification shows it: a terminal status ends its progress. */
  private statusSeen(task: Record<string, unknown> | undefined): void {
    if (typeof task?.taskId === 'string' && isTerminal(task.status)) this.ended(task.taskId, `"${String(task.status)}"`);
  }

  private ended(taskId: string, how: string): void {
    const entry = this.tasks.get(taskId);
    if (!entry || entry.ended !== undefined) return;
    entry.ended = how;
    // A task that reported progress and then ended: any more of it would break the rule, which so had its chance.
    if (entry.progressed && this.s.options.transport === 'stdio') this.s.applied.add('PROG-05');
  }
}
