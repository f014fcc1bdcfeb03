import type { RuleTable } from '../rule-table.js';
import { note, show, violation } from '../finding.js';
import type { Concern, NotificationHook, Routes } from './concern.js';
import type { SessionState } from './state.js';

/** notifications/cancelled names one of the sender's own earlier requests, never initialize, and carries its id. */
export class Cancellation implements Concern {
  static readonly rules: RuleTable = ['CANCEL-01', 'CANCEL-02', 'CANCEL-04'];

  constructor(private readonly s: SessionState) {}

  readonly notifications: Routes<NotificationHook> = {
    'notifications/cancelled': (params, findings) => {
      const s = this.s;
      const from = s.side;
      const id = params?.requestId;
      s.applied.add('CANCEL-04');
      if (id === undefined) {
        findings.push(violation('CANCEL-04', 'expected requestId when cancelling an ordinary request; notifications/cancelled has none', '/params'));
        return;
      }
      if (typeof id !== 'string' && typeof id !== 'number') return;
      const ledger = s.ledger(from);
      s.applied.add('CANCEL-01');
      if (!ledger.used.has(id)) {
        findings.push(violation('CANCEL-01', `expected notifications/cancelled to name one of the ${from}'s own earlier requests; ${show(id)} is not one`, '/params/requestId'));
      } else if (ledger.answered.has(id)) {
        findings.push(note('CANCEL-01', `cancelled request ${show(id)} had already been answered (a race the spec allows)`, '/params/requestId'));
      }
      if (from === 'client') {
        s.applied.add('CANCEL-02');
        if (id === s.initializeId) findings.push(violation('CANCEL-02', 'expected the client never to cancel initialize; it did', '/params/requestId'));
      }
      const pending = ledger.pending.get(id);
      if (pending) pending.cancelled = true;
    },
  };
}
