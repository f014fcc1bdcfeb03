import type { RuleTable } from '../rule-table.js';
import { note, show, violation } from '../finding.js';
import { declared } from './capabilities.js';
import type { Concern, RequestHook, Routes } from './concern.js';
import type { SessionState } from './state.js';

/** A sampling request asks only for what the client's sampling capability declared: context inclusion, tools. */
export class Sampling implements Concern {
  static readonly rules: RuleTable = ['SAMP-CTX-01', 'SAMP-TOOLS-01'];

  constructor(private readonly s: SessionState) {}

  readonly requests: Routes<RequestHook> = {
    'sampling/createMessage': ({ params }, findings) => {
      const s = this.s;
      const client = s.clientCapabilities;
      // Towards a client without sampling the request is LIFE-OP-02's (capabilities.ts).
      if (s.side !== 'server' || !s.negotiated || !params || !declared(client, ['sampling'])) return;
      const context = params.includeContext;
      if (context === 'thisServer' || context === 'allServers') {
        s.applied.add('SAMP-CTX-01');
        findings.push(
          declared(client, ['sampling', 'context'])
            ? note('SAMP-CTX-01', `includeContext ${show(context)} is soft-deprecated; servers avoid it`, '/params/includeContext')
            : violation('SAMP-CTX-01', `expected no includeContext ${show(context)} towards a client without sampling.context`, '/params/includeContext'),
        );
      }
      s.applied.add('SAMP-TOOLS-01');
      if (('tools' in params || 'toolChoice' in params) && !declared(client, ['sampling', 'tools'])) {
        findings.push(violation('SAMP-TOOLS-01', 'expected no tools or toolChoice in a sampling request to a client without sampling.tools; the request has them', '/params'));
      }
    },
  };
}
