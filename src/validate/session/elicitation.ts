import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import { obj } from '../../json.js';
import { declared } from './capabilities.js';
import type { Concern, NotificationHook, RequestHook, Routes } from './concern.js';
import type { SessionState } from './state.js';

/** Elicitations in the modes the client declared, and completion notices only for URL-mode ones the server sent. */
export class Elicitation implements Concern {
  static readonly rules: RuleTable = ['ELIC-CAP-02', 'ELIC-CMPL-01'];
  /** elicitationIds of URL-mode elicitations the server sent (ELIC-CMPL-01). */
  private readonly sent = new Set<string>();

  constructor(private readonly s: SessionState) {}

  readonly requests: Routes<RequestHook> = {
    'elicitation/create': ({ params }, findings) => {
      const s = this.s;
      // Towards a client without elicitation the request is LIFE-OP-02's (capabilities.ts).
      if (s.side !== 'server' || !s.negotiated || !params || !declared(s.clientCapabilities, ['elicitation'])) return;
      if (params.mode === 'url' && typeof params.elicitationId === 'string') this.sent.add(params.elicitationId);
      s.applied.add('ELIC-CAP-02');
      const elicitation = obj(s.clientCapabilities?.elicitation) ?? {};
      const formOnly = Object.keys(elicitation).length === 0;
      const mode = params.mode === 'url' ? 'url' : 'form';
      if (!(mode in elicitation) && !(formOnly && mode === 'form')) {
        findings.push(violation('ELIC-CAP-02', `expected only elicitation modes the client declared; got a ${mode}-mode request, the client declared ${show(Object.keys(elicitation))}${formOnly ? ' (empty = form only)' : ''}`, '/params/mode'));
      }
    },
  };

  readonly notifications: Routes<NotificationHook> = {
    'notifications/elicitation/complete': (params, findings) => {
      const id = params?.elicitationId;
      if (this.s.side !== 'server' || typeof id !== 'string') return;
      this.s.applied.add('ELIC-CMPL-01');
      if (!this.sent.has(id)) {
        findings.push(violation('ELIC-CMPL-01', `expected elicitation/complete only for a URL-mode elicitation sent in this session; ${show(id)} is none of them`, '/params/elicitationId'));
      }
    },
  };
}
