import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import { type AnswerHook, type Concern, type NotificationHook, resultOf, type Routes } from './concern.js';
import { declared } from './capabilities.js';
import type { SessionState } from './state.js';

/** RES-SUB-02: resources/updated only for URIs the client subscribed to (or resources beneath one). */
export class Subscriptions implements Concern {
  static readonly rules: RuleTable = ['RES-SUB-02'];
  /** URIs the client subscribed to (and the server accepted). */
  private readonly uris = new Set<string>();

  constructor(private readonly s: SessionState) {}

  readonly notifications: Routes<NotificationHook> = {
    'notifications/resources/updated': (params, findings) => {
      const s = this.s;
      const uri = params?.uri;
      // Without the subscribe capability the update is LIFE-OP-02's to judge: no one could subscribe.
      if (s.side !== 'server' || typeof uri !== 'string' || !declared(s.serverCapabilities, ['resources', 'subscribe'])) return;
      s.applied.add('RES-SUB-02');
      const covered = [...this.uris].some((u) => uri === u || uri.startsWith(u.endsWith('/') ? u : u + '/'));
      if (!covered) {
        findings.push(violation('RES-SUB-02', `expected resources/updated only for resources the client subscribed to; ${show(uri)} was never subscribed${this.uris.size ? ` (subscribed: ${show([...this.uris].slice(0, 5))})` : ''}`, '/params/uri'));
      }
    },
  };

  private readonly accepted: AnswerHook = (request, kind, message) => {
    const uri = request.params?.uri;
    if (!resultOf(kind, message) || typeof uri !== 'string') return;
    if (request.method === 'resources/subscribe') this.uris.add(uri);
    else this.uris.delete(uri);
  };

  readonly answers: Routes<AnswerHook> = { 'resources/subscribe': this.accepted, 'resources/unsubscribe': this.accepted };
}
