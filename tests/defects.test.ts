import { describe, expect, it } from 'vitest';
import { groupDefects } from '../src/grade/defects.js';
import type { CheckResult, Evidence } from '../src/model.js';

function check(id: string, status: CheckResult['status'], requirements: string[], o: { evidence?: Evidence[]; wire?: string[]; scenario?: string; expected?: boolean } = {}): CheckResult {
  return { id, title: id, requirements, level: 'MUST', status, message: '', area: 'a', evidence: o.evidence ?? [], ...(o.wire ? { wire: o.wire } : {}), ...(o.scenario ? { scenario: o.scenario } : {}), ...(o.expected ? { expected: true } : {}) };
}

const grouped = (checks: CheckResult[]) => groupDefects(checks).map((c) => `${c.id}${c.also ? ` also ${c.also.join(',')}` : ''}${c.defectOf ? ` of ${c.defectOf}` : ''}`);

describe('groupDefects: one defect, one report', () => {
  it('one finding under several live rules (the same spot of the same frame) and the scenario verdict on that frame', () => {
    const spot = { frame: 16, pointer: '/result/content/0', wire: 'w3' };
    expect(
      grouped([
        check('server.lifecycle.older-revisions/2024-11-05', 'warn', ['LIFE-OP-01'], { evidence: [{ frame: 4 }, { frame: 16 }], wire: ['w3'], scenario: 'server.lifecycle.older-revisions' }),
        check('live.BASE-RES-03', 'warn', ['BASE-RES-03'], { evidence: [spot], wire: ['w3'] }),
        check('live.LIFE-OP-01', 'warn', ['LIFE-OP-01'], { evidence: [spot], wire: ['w3'] }),
        check('live.BASE-ERR-03', 'warn', ['BASE-ERR-03'], { evidence: [{ frame: 16, pointer: '/error/message', wire: 'w9' }], wire: ['w9'] }),
      ]),
    ).toEqual(['server.lifecycle.older-revisions/2024-11-05 also live.BASE-RES-03,live.LIFE-OP-01', 'live.BASE-RES-03 of server.lifecycle.older-revisions/2024-11-05', 'live.LIFE-OP-01 of server.lifecycle.older-revisions/2024-11-05', 'live.BASE-ERR-03']);
  });

  it("a scenario's frameless verdict and the live check of its rule (whichever session showed the frames); a failure is told before a warning, a scenario before a live rule", () => {
    expect(
      grouped([
        check('live.TOOL-LIST-01', 'fail', ['TOOL-LIST-01'], { evidence: [{ frame: 4, pointer: '/result/tools/1', wire: 'w1' }], wire: ['w1', 'w5'] }),
        check('server.tools.list/shape', 'fail', ['TOOL-LIST-01'], { wire: ['w2'], scenario: 'server.tools.list' }),
        check('server.tools.other', 'warn', ['TOOL-NAME-01'], { wire: ['w3'], scenario: 'server.tools.other' }),
      ]),
    ).toEqual(['live.TOOL-LIST-01 of server.tools.list/shape', 'server.tools.list/shape also live.TOOL-LIST-01', 'server.tools.other']);
  });

  it("one scenario's probes of one rule; other rules, other scenarios, passes and baselined failures stay apart", () => {
    expect(
      grouped([
        check('server.http.origin/initialize', 'fail', ['HTTP-ORIGIN-01'], { scenario: 'server.http.origin' }),
        check('server.http.origin/get', 'fail', ['HTTP-ORIGIN-01'], { scenario: 'server.http.origin' }),
        check('server.http.origin/delete', 'fail', ['HTTP-ORIGIN-01'], { scenario: 'server.http.origin', expected: true }),
        check('server.http.origin/ok', 'pass', ['HTTP-ORIGIN-01'], { scenario: 'server.http.origin' }),
        check('server.http.other', 'fail', ['HTTP-ORIGIN-01'], { scenario: 'server.http.other' }),
        check('server.http.origin/header', 'warn', ['HTTP-HDR-01'], { scenario: 'server.http.origin' }),
      ]),
    ).toEqual(['server.http.origin/initialize also server.http.origin/get', 'server.http.origin/get of server.http.origin/initialize', 'server.http.origin/delete', 'server.http.origin/ok', 'server.http.other', 'server.http.origin/header']);
  });

  it('a rule and its declared consequence, in one scenario (a subscription dropped with neither its cancel nor its result)', () => {
    expect(
      grouped([
        check('server.modern.subscriptions.end-at-shutdown/result', 'warn', ['SUBS-END-01'], { scenario: 'server.modern.subscriptions.end-at-shutdown' }),
        check('server.modern.subscriptions.end-at-shutdown/ended', 'warn', ['SUBS-END-02'], { scenario: 'server.modern.subscriptions.end-at-shutdown' }),
        check('server.modern.subscriptions.other', 'warn', ['SUBS-END-01'], { scenario: 'server.modern.subscriptions.other' }),
      ]),
    ).toEqual(['server.modern.subscriptions.end-at-shutdown/result of server.modern.subscriptions.end-at-shutdown/ended', 'server.modern.subscriptions.end-at-shutdown/ended also server.modern.subscriptions.end-at-shutdown/result', 'server.modern.subscriptions.other']);
  });

  it('two framed checks of one rule on different frames of a session are not one defect by that alone', () => {
    expect(
      grouped([
        check('server.tools.call/a', 'fail', ['TOOL-CALL-01'], { evidence: [{ frame: 10 }], wire: ['w2'], scenario: 'server.tools.call-a' }),
        check('live.TOOL-CALL-01', 'fail', ['TOOL-CALL-01'], { evidence: [{ frame: 12, pointer: '/result', wire: 'w2' }], wire: ['w2'] }),
      ]),
    ).toEqual(['server.tools.call/a', 'live.TOOL-CALL-01']);
  });
});
