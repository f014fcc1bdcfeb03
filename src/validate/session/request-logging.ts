import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import { META } from '../../spec/modern.js';
import type { Concern, NotificationHook, Routes } from './concern.js';
import { obj } from '../../json.js';
import type { SessionState } from './state.js';
import { severityOf } from '../../spec/log-levels.js';

/**
 * Per-request log levels (2026-07-28, server/utilities/logging.mdx#per-request-log-level): a log
 * message belongs to a request in flight that asked for logs with `logLevel` (LOG-REQ-01), at
 * that level or above (LOG-REQ-02). On stdio a message does not say which request it belongs to,
 * so it is judged against every request of the client still in flight.
 */
export class RequestLogging implements Concern {
  static readonly rules: RuleTable = ['LOG-REQ-01', 'LOG-REQ-02'];

  constructor(private readonly s: SessionState) {}

  readonly notifications: Routes<NotificationHook> = {
    'notifications/message': (params, findings) => {
      if (this.s.side !== 'server') return;
      this.s.applied.add('LOG-REQ-01');
      // The least severe level any request in flight asked for (−1: none asked), without allocating per message.
      let lowest = -1;
      let asked = '';
      for (const p of this.s.ledger('client').pending.values()) {
        const wanted = obj(p.params?._meta)?.[META.logLevel];
        const i = severityOf(wanted);
        if (i >= 0 && (lowest < 0 || i < lowest)) {
          lowest = i;
          asked = wanted as string;
        }
      }
      if (lowest < 0) {
        findings.push(violation('LOG-REQ-01', `expected no notifications/message unless a request in flight carries ${META.logLevel}; none does`, ''));
        return;
      }
      const level = severityOf(params?.level);
      if (level < 0) return;
      this.s.applied.add('LOG-REQ-02');
      if (level < lowest) {
        findings.push(violation('LOG-REQ-02', `expected log messages at the requested level or more severe; got ${show(params?.level)} while the least severe level a request in flight asked for is ${show(asked)}`, '/params/level'));
      }
    },
  };
}
