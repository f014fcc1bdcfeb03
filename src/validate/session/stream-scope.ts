import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import { META } from '../../spec/modern.js';
import type { Concern, NotificationHook, Routes } from './concern.js';
import { isKey } from './ledger.js';
import { obj } from '../../json.js';
import type { SessionState } from './state.js';

/**
 * Request-scoped notifications on HTTP (2026-07-28, basic/transports/streamable-http.mdx#receiving-messages):
 * what a server sends on a request's SSE stream before the response relates to that request
 * (HTTP-SSE-09) — progress for its token, log messages for its `logLevel`. Judged where the
 * transport says which request's response carried the frame: mcpcheck's own HTTP client, and a
 * transcript's `inResponseTo`; without it the rule is not exercised.
 */
export class StreamScope implements Concern {
  static readonly rules: RuleTable = ['HTTP-SSE-09'];

  constructor(private readonly s: SessionState) {}

  readonly notifications: Routes<NotificationHook> = {
    'notifications/progress': (params, findings) => {
      const request = this.streamRequest();
      if (!request) return;
      this.s.applied.add('HTTP-SSE-09');
      const token = params?.progressToken;
      if (!isKey(token) || token === request.progressToken) return;
      findings.push(
        violation('HTTP-SSE-09', `expected notifications on the response stream of request ${show(request.id)} (${request.method}) to relate to it; this progress is for token ${show(token)}, ${request.progressToken === undefined ? 'and the request asked for no progress' : `not the request's ${show(request.progressToken)}`}`, '/params/progressToken'),
      );
    },
    'notifications/message': (_params, findings) => {
      const request = this.streamRequest();
      // A log message on a subscription's stream is that rule's to judge (LOG-REQ-03).
      if (!request || request.method === 'subscriptions/listen') return;
      this.s.applied.add('HTTP-SSE-09');
      if (obj(request.params?._meta)?.[META.logLevel] !== undefined) return;
      findings.push(violation('HTTP-SSE-09', `expected notifications on the response stream of request ${show(request.id)} (${request.method}) to relate to it; a log message came, and the request carried no ${META.logLevel}`, ''));
    },
  };

  /** The client's request whose response stream carried the frame, while it awaits its response. */
  private streamRequest() {
    const id = this.s.inResponseTo;
    if (this.s.side !== 'server' || id === undefined || this.s.options.transport !== 'http') return undefined;
    return this.s.ledger('client').pending.get(id);
  }
}
