import type { RuleTable } from '../rule-table.js';
import { type Finding, show, violation } from '../finding.js';
import type { SessionState } from './state.js';

/** What a frame's text shows, whatever it holds: its framing on stdio, its encoding, whether it is JSON at all. */
export const FRAME_RULES: RuleTable = ['STDIO-FRAME-01', 'BASE-MSG-02', 'BASE-MSG-01', 'STDIO-OUT-01', 'STDIO-IN-01'];

/** STDIO-FRAME-01 and BASE-MSG-02 on the exact text of the frame's sender. */
export function checkFrameText(s: SessionState, raw: string, findings: Finding[]): void {
  if (s.options.transport === 'stdio') {
    s.applied.add('STDIO-FRAME-01');
    if (/[\r\n]/.test(raw.replace(/\r$/, ''))) {
      findings.push(violation('STDIO-FRAME-01', `expected one message per line with no embedded newline; the ${s.side}'s frame spans several lines: ${show(raw, 120)}`));
    }
  }
  s.applied.add('BASE-MSG-02');
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(raw)) {
    findings.push(violation('BASE-MSG-02', 'expected UTF-8 text; the frame holds a lone surrogate, which no UTF-8 byte sequence encodes'));
  }
}

/** A frame of the sender's that is not JSON at all: on stdio the stream's own rule, elsewhere BASE-MSG-01. */
export function checkNotJson(s: SessionState, text: string, findings: Finding[]): void {
  s.applied.add('BASE-MSG-01');
  const rule = s.options.transport === 'stdio' ? (s.side === 'server' ? 'STDIO-OUT-01' : 'STDIO-IN-01') : 'BASE-MSG-01';
  s.applied.add(rule);
  findings.push(violation(rule, `expected a JSON-RPC message; got a frame that is not JSON: ${show(text, 200)}`));
}
