import type { RuleTable } from '../rule-table.js';
import { note, ptr } from '../finding.js';
import { obj } from '../../json.js';
import { META } from '../../spec/modern.js';
import type { Concern, RequestHook, Routes } from './concern.js';
import type { SessionState } from './state.js';

/**
 * DEPR-GEN-01 (info, never a failure): the deprecated features a client's requests use — the
 * per-request logLevel, the sampling and roots capabilities — each noted on its first use only.
 */
export class Deprecations implements Concern {
  static readonly rules: RuleTable = ['DEPR-GEN-01'];
  private readonly noted = new Set<string>();

  constructor(private readonly s: SessionState) {}

  readonly requests: Routes<RequestHook> = {
    '*': (request, findings) => {
      if (this.s.side !== 'client') return;
      const meta = obj(request.params?._meta);
      if (!meta) return;
      this.s.applied.add('DEPR-GEN-01');
      const capabilities = obj(meta[META.clientCapabilities]) ?? {};
      const used: Array<[string, string]> = [
        ...(META.logLevel in meta ? [['logging', `/params/_meta${ptr(META.logLevel)}`] as [string, string]] : []),
        ...(['sampling', 'roots'] as const).filter((c) => c in capabilities).map((c): [string, string] => [c, `/params/_meta${ptr(META.clientCapabilities, c)}`]),
      ];
      for (const [feature, at] of used) {
        if (this.noted.has(feature)) continue;
        this.noted.add(feature);
        findings.push(note('DEPR-GEN-01', `the client uses ${feature}, deprecated at 2026-07-28 (still fully specified; noted on first use only)`, at));
      }
    },
  };
}
