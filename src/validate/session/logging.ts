import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import { type AnswerHook, type Concern, type NotificationHook, resultOf, type Routes } from './concern.js';
import { declared } from './capabilities.js';
import type { SessionState } from './state.js';
import { LOG_LEVELS, severityOf } from '../../spec/log-levels.js';

/** Log messages only from a server that declared logging, and none below the level the client set. */
export class Logging implements Concern {
  static readonly rules: RuleTable = ['LOG-CAP-01', 'LOG-SET-02'];
  /** The index in LOG_LEVELS of the level the client last set. */
  private level?: number;

  constructor(private readonly s: SessionState) {}

  readonly notifications: Routes<NotificationHook> = {
    'notifications/message': (params, findings) => {
      const s = this.s;
      if (s.side !== 'server') return;
      s.applied.add('LOG-CAP-01');
      if (s.negotiated && !declared(s.serverCapabilities, ['logging'])) {
        findings.push(violation('LOG-CAP-01', 'expected notifications/message only from a server that declared the logging capability; it did not', '/method'));
      }
      const level = severityOf(params?.level);
      if (this.level !== undefined && level >= 0) {
        s.applied.add('LOG-SET-02');
        if (level < this.level) {
          findings.push(violation('LOG-SET-02', `expected only messages at ${LOG_LEVELS[this.level]} or more severe after logging/setLevel; got ${show(params?.level)}`, '/params/level'));
        }
      }
    },
  };

  readonly answers: Routes<AnswerHook> = {
    'logging/setLevel': (request, kind, message) => {
      if (!resultOf(kind, message)) return;
      const level = severityOf(request.params?.level);
      if (level >= 0) this.level = level;
    },
  };
}
