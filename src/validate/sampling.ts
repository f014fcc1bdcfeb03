import { type Finding, ptr, show, violation } from './finding.js';
import { obj } from '../json.js';

function blocks(content: unknown): Array<Record<string, unknown>> {
  const list = Array.isArray(content) ? content : [content];
  return list.map(obj).filter((b): b is Record<string, unknown> => b !== undefined);
}

/**
 * The message history of a sampling request: tool results stand alone in their user message
 * (SAMP-MSG-01), and every tool use is answered, right after, by results naming it (SAMP-MSG-02).
 */
export function checkSamplingMessages(messages: unknown): Finding[] {
  if (!Array.isArray(messages)) return [];
  const findings: Finding[] = [];
  const used = new Set<string>();
  let open: string[] = [];
  messages.forEach((message, i) => {
    const m = obj(message);
    if (!m) return;
    const bs = blocks(m.content);
    const results = bs.filter((b) => b.type === 'tool_result');
    const uses = bs.filter((b) => b.type === 'tool_use');
    const where = ptr('params', 'messages', i);
    if (m.role === 'user' && results.length > 0 && results.length < bs.length) {
      findings.push(violation('SAMP-MSG-01', `expected a user message with tool_result blocks to hold nothing else; message ${i} mixes them with ${show([...new Set(bs.filter((b) => b.type !== 'tool_result').map((b) => b.type))])}`, where + '/content'));
    }
    if (open.length > 0) {
      const answered = new Set(results.map((r) => r.toolUseId));
      const missing = open.filter((id) => !answered.has(id));
      // Other blocks beside the results are SAMP-MSG-01's to report.
      if (m.role !== 'user' || missing.length > 0) {
        findings.push(violation('SAMP-MSG-02', `expected the message after tool use(s) ${show(open)} to be a user message of tool_result blocks answering each; message ${i} ${m.role !== 'user' ? `has role ${show(m.role)}` : `leaves ${show(missing)} unanswered`}`, where));
      }
      open = [];
    }
    for (const r of results) {
      if (typeof r.toolUseId === 'string' && !used.has(r.toolUseId)) {
        findings.push(violation('SAMP-MSG-02', `expected every toolUseId to name an earlier tool_use; ${show(r.toolUseId)} in message ${i} does not`, where + '/content'));
      }
    }
    if (m.role === 'assistant') {
      for (const u of uses) {
        if (typeof u.id === 'string') {
          used.add(u.id);
          open.push(u.id);
        }
      }
    }
  });
  return findings;
}
