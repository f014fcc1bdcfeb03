/**
 * A rule is graded at its level in the revision the session negotiated (revisions.json `levels`,
 * `levelIn`): LIFE-OP-01/02 are SHOULD in 2024-11-05 and 2025-03-26, MUST from 2025-06-18. The live
 * validator, scenario checks and the tally all grade them so; a later revision's construct on an
 * older session is a LIFE-OP-01 departure at that level (ruling later-revision-construct).
 */
import { describe, expect, it } from 'vitest';
import { checksFromFindings } from '../src/checks.js';
import { gradedLevel, requirementVerdicts } from '../src/grade/verdicts.js';
import type { PeerSession } from '../src/harness/peer-session.js';
import { CheckRecorder } from '../src/runner/checks.js';
import { levelIn } from '../src/spec/catalog.js';
import type { Finding } from '../src/validate/finding.js';
import type { StatefulRevision as Revision } from '../src/spec/revisions.js';
import { SessionValidator } from '../src/validate/session.js';
import type { RequirementId } from '../src/spec/requirement-id.js';

const tags = (findings: Finding[]) => findings.map((f) => `${f.requirements.join('+')}:${f.level}:${f.severity}`);

describe('levelIn', () => {
  it('gives LIFE-OP-01/02 the level each revision\'s lifecycle page states, and other rules the catalog\'s', () => {
    for (const id of ['LIFE-OP-01', 'LIFE-OP-02'] satisfies RequirementId[]) {
      expect(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'].map((r) => levelIn(id, r as Revision)), id).toEqual(['SHOULD', 'SHOULD', 'MUST', 'MUST']);
    }
    expect(levelIn('TOOL-CALL-01', '2024-11-05')).toBe('MUST');
  });
});

/** A session on `revision` in which the server answers tools/call with a resource_link block (new in 2025-06-18). */
function toolCall(revision: Revision, content: unknown[]): Finding[] {
  const s = new SessionValidator({ transport: 'stdio' });
  return [
    ...s.message('client', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, 0),
    ...s.message('server', { jsonrpc: '2.0', id: 1, result: { protocolVersion: revision, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } }, 1),
    ...s.message('client', { jsonrpc: '2.0', method: 'notifications/initialized' }, 2),
    ...s.message('client', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get', arguments: {} } }, 3),
    ...s.message('server', { jsonrpc: '2.0', id: 2, result: { content } }, 4),
  ];
}

const LINK = { type: 'resource_link', uri: 'test://static/resource/1', name: 'Resource 1' };

describe('the live validator on a 2024-11-05 session with a resource_link result', () => {
  it('reports a LIFE-OP-01 departure graded SHOULD (a warn), with the schema rules it also fails at that level', () => {
    const findings = toolCall('2024-11-05', [LINK]);
    expect(tags(findings)).toEqual(['LIFE-OP-01+BASE-RES-03+TOOL-CALL-01:SHOULD:warn']);
    expect(findings[0]!.message).toMatch(/matches the 2025-06-18 schema.*ruling later-revision-construct/);
    const checks = checksFromFindings({ idPrefix: 'live.', findings, applied: new Set(), coverage: [], evidence: () => ({}), skipReason: 'not exercised' });
    expect(checks.map((c) => `${c.id}:${c.status}:${c.level}`).sort()).toEqual(['live.BASE-RES-03:warn:SHOULD', 'live.LIFE-OP-01:warn:SHOULD', 'live.TOOL-CALL-01:warn:SHOULD']);
    expect(requirementVerdicts(checks).map((v) => `${v.id}:${v.status}:${v.level}`).sort()).toEqual(['BASE-RES-03:warn:SHOULD', 'LIFE-OP-01:warn:SHOULD', 'TOOL-CALL-01:warn:SHOULD']);
  });

  it('grades it the same on 2025-03-26 (SHOULD there too), and not at all on 2025-06-18, where resource_link exists', () => {
    expect(tags(toolCall('2025-03-26', [LINK]))).toEqual(['LIFE-OP-01+BASE-RES-03+TOOL-CALL-01:SHOULD:warn']);
    expect(toolCall('2025-06-18', [LINK])).toEqual([]);
  });

  it('keeps a result valid in no revision a plain MUST schema failure', () => {
    const findings = toolCall('2024-11-05', [{ type: 'no-such-block' }]);
    expect(tags(findings).filter((t) => t.includes('BASE-RES-03'))).toEqual(['BASE-RES-03+TOOL-CALL-01:MUST:fail']);
    expect(findings.some((f) => f.requirements.includes('LIFE-OP-01'))).toBe(false);
  });
});

describe('scenario checks and the tally', () => {
  const on = (revision: Revision) => ({ revision, judgedIn: revision, speaks: revision, frames: [] }) as unknown as PeerSession;

  it('record a LIFE-OP-01 check on a 2024-11-05 session at SHOULD (a warn) and stamp its revision', () => {
    const check = new CheckRecorder('s', 'older', ['LIFE-OP-01'], () => on('2024-11-05'), 'reproduce');
    check.expect(false, { key: 'a', expected: 'the negotiated version kept', actual: 'a resource_link' });
    check.expect(false, { key: 'b', expected: 'the negotiated version kept', actual: 'a resource_link', session: on('2025-06-18') });
    expect(check.results.map((r) => `${r.status}:${r.level}:${r.revision}`)).toEqual(['warn:SHOULD:2024-11-05', 'fail:MUST:2025-06-18']);
  });

  it('grade a rule a check cites after its leader at its level in the check\'s revision', () => {
    const check = new CheckRecorder('s', 'list', ['TOOL-LIST-01', 'LIFE-OP-02'], () => on('2024-11-05'), 'reproduce');
    check.expect(false, { expected: 'x', actual: 'y' });
    const [result] = check.results;
    expect(result).toMatchObject({ status: 'fail', level: 'MUST' });
    expect(gradedLevel(result!, 'LIFE-OP-02')).toBe('SHOULD');
    expect(requirementVerdicts(check.results).map((v) => `${v.id}:${v.level}`)).toEqual(['LIFE-OP-02:SHOULD', 'TOOL-LIST-01:MUST']);
  });
});
