import type { RuleTable } from '../rule-table.js';
import { note, show, violation } from '../finding.js';
import type { Concern, NotificationHook, Routes } from './concern.js';
import type { SessionState } from './state.js';

/** CANCEL-10: a client's notifications/cancelled names a request of its own it believes still in progress. */
export class RequestCancellation implements Concern {
  static readonly rules: RuleTable = ['CANCEL-10'];

  constructor(private readonly s: SessionState) {}

  readonly notifications: Routes<NotificationHook> = {
    'notifications/cancelled': (params, findings) => {
      if (this.s.side !== 'client') return;
      const id = params?.requestId;
      if (typeof id !== 'string' && typeof id !== 'number') return;
      const ledger = this.s.ledger('client');
      this.s.applied.add('CANCEL-10');
      const pending = ledger.pending.get(id);
      if (pending) pending.cancelled = true;
      else if (ledger.answered.has(id)) findings.push(note('CANCEL-10', `cancelled request ${show(id)} had already been answered (a race the spec allows)`, '/params/requestId'));
      else findings.push(violation('CANCEL-10', `expected notifications/cancelled to name a request of the client still in flight; ${show(id)} is none`, '/params/requestId'));
    },
  };
}
