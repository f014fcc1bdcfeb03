import { describe, expect, it } from 'vitest';
import { exitCode, grade, type Baseline } from '../src/grade/grade.js';
import { formatBaseline, loadBaseline, updatedBaseline } from '../src/grade/baseline.js';
import { worstStatus } from '../src/grade/verdicts.js';
import type { CheckResult, Status } from '../src/model.js';
import { requirement } from '../src/spec/catalog.js';
import { checksFromFindings } from '../src/checks.js';
import { renderConsole } from '../src/report/console.js';
import { unsupportedVersionError } from '../src/validate/versions.js';
import type { RequirementId } from '../src/spec/requirement-id.js';

function check(id: string, status: Status, requirements: RequirementId[], extra: Partial<CheckResult> = {}): CheckResult {
  const first = requirement(requirements[0]!);
  return { id, title: `title of ${id}`, requirements, level: first.level, status, message: `${status} message`, area: first.area, evidence: [], ...extra };
}

function run(checks: CheckResult[], baseline?: Baseline) {
  return grade({
    tool: { name: 'mcpcheck', version: '0.1.0' },
    target: { kind: 'stdio', description: 'node server.js' },
    startedAt: '2025-01-01T00:00:00.000Z',
    durationMs: 1234,
    checks,
    ...(baseline ? { baseline } : {}),
  });
}

describe('worstStatus', () => {
  const order: Status[] = ['error', 'fail', 'warn', 'pass', 'skip'];
  it('ranks error > fail > warn > pass > skip', () => {
    for (let i = 0; i < order.length; i++) {
      for (let j = i; j < order.length; j++) {
        expect(worstStatus([order[j]!, order[i]!])).toBe(order[i]);
        expect(worstStatus([order[i]!, order[j]!])).toBe(order[i]);
      }
    }
  });
  it('treats nothing as skip', () => expect(worstStatus([])).toBe('skip'));
});

describe('requirement verdicts', () => {
  it('takes the worst status of the checks citing a requirement, with catalog data', () => {
    const report = run([
      check('a', 'pass', ['BASE-ID-01']),
      check('b', 'warn', ['BASE-ID-01', 'BASE-ERR-04']),
      check('c', 'skip', ['JSCH-DIAL-02']),
      check('d', 'pass', ['BASE-ERR-04']),
    ]);
    const byId = Object.fromEntries(report.requirements.map((r) => [r.id, r]));
    expect(Object.keys(byId).sort()).toEqual(['BASE-ERR-04', 'BASE-ID-01', 'JSCH-DIAL-02']);
    expect(byId['BASE-ID-01']).toMatchObject({ status: 'warn', level: 'MUST', checks: ['a', 'b'] });
    expect(byId['BASE-ID-01']!.url).toBe(requirement('BASE-ID-01').url);
    expect(byId['BASE-ID-01']!.title).toBe(requirement('BASE-ID-01').title);
    expect(byId['BASE-ERR-04']).toMatchObject({ status: 'warn', level: 'SHOULD' });
    expect(byId['JSCH-DIAL-02']).toMatchObject({ status: 'skip', level: 'MAY' });
  });

  it('never turns an error into a pass, and skips do not hide outcomes', () => {
    const report = run([
      check('a', 'pass', ['BASE-ID-01']),
      check('b', 'error', ['BASE-ID-01']),
      check('c', 'skip', ['BASE-ERR-04']),
      check('d', 'pass', ['BASE-ERR-04']),
    ]);
    expect(report.requirements.find((r) => r.id === 'BASE-ID-01')!.status).toBe('error');
    expect(report.requirements.find((r) => r.id === 'BASE-ERR-04')!.status).toBe('pass');
    expect(report.summary.levels.MUST).toEqual({ passed: 0, total: 1 });
  });

  it('lists requirements in catalog order whatever the check order', () => {
    const a = run([check('x', 'pass', ['JSCH-DIAL-02']), check('y', 'pass', ['BASE-ID-01'])]);
    const b = run([check('y', 'pass', ['BASE-ID-01']), check('x', 'pass', ['JSCH-DIAL-02'])]);
    expect(a.requirements.map((r) => r.id)).toEqual(b.requirements.map((r) => r.id));
  });
});

describe('a MUST that a ruling grades as a warning is counted as a SHOULD', () => {
  // LIFE-VER-04 (MUST): "mcpcheck-unsupported" answered with −32602 warns under ruling unsupported-version-error.
  const ruled = check('v/unsupported-mcpcheck-unsupported', 'warn', ['LIFE-VER-04'], { level: 'SHOULD' });

  it('in the verdict, the tally and the headline, beside MUST checks that passed', () => {
    const report = run([check('v/unsupported-2099-01-01', 'pass', ['LIFE-VER-04']), ruled, check('p', 'pass', ['BASE-ID-01'])]);
    expect(report.requirements.find((r) => r.id === 'LIFE-VER-04')).toMatchObject({ status: 'warn', level: 'SHOULD' });
    expect(report.summary.levels).toMatchObject({ MUST: { passed: 1, total: 1 }, SHOULD: { passed: 0, total: 1 } });
    expect(report.summary.headline).toBe('requirements: MUST 1/1 · SHOULD 0/1 · 0 skipped · 0 could not run');
    expect(report.summary.mustFailures).toBe(0);
  });

  it('in the console, which names the level the check graded the rule at', () => {
    const text = renderConsole(run([ruled]), { color: false });
    expect(text).toContain('LIFE-VER-04 (SHOULD): ');
    expect(text).toContain('requirements: SHOULD 0/1');
  });

  it('in a live check, which takes the level of the ruling\'s finding', () => {
    const finding = { ...unsupportedVersionError('mcpcheck-unsupported', 'error -32602'), frame: 3 };
    const [live] = checksFromFindings({ idPrefix: 'live.', findings: [finding], applied: new Set(['LIFE-VER-04']), coverage: [], evidence: () => ({}), skipReason: 'not exercised' });
    expect(live).toMatchObject({ id: 'live.LIFE-VER-04', status: 'warn', level: 'SHOULD' });
    expect(run([live!]).requirements[0]).toMatchObject({ id: 'LIFE-VER-04', status: 'warn', level: 'SHOULD' });
  });

  it('while a MUST check failing beside it keeps the verdict a MUST failure, and a heuristic warning on a MUST stays a MUST', () => {
    const report = run([check('v/unsupported-2024-01-01', 'fail', ['LIFE-VER-04']), ruled, check('h', 'warn', ['BASE-ID-02'])]);
    expect(report.requirements.map((r) => [r.id, r.status, r.level])).toEqual([
      ['BASE-ID-02', 'warn', 'MUST'],
      ['LIFE-VER-04', 'fail', 'MUST'],
    ]);
  });
});

describe('summary', () => {
  const checks = [
    check('m1', 'pass', ['BASE-ID-01']),
    check('m2', 'fail', ['BASE-ID-02']),
    check('m3', 'pass', ['LIFE-VER-04']),
    check('m4', 'error', ['BASE-MSG-01']),
    check('s1', 'warn', ['BASE-ERR-04']),
    check('y1', 'pass', ['JSCH-DIAL-02']),
    check('k1', 'skip', ['JSCH-DIAL-03']),
    check('k2', 'skip', ['JSCH-DIAL-03']),
  ];

  it('writes the headline in the documented format', () => {
    expect(run(checks).summary.headline).toBe('requirements: MUST 2/4 · SHOULD 0/1 · MAY 1/1 · 1 skipped · 1 could not run');
  });

  it('leaves out levels with nothing graded', () => {
    expect(run([check('a', 'pass', ['BASE-ID-01']), check('b', 'skip', ['JSCH-DIAL-02'])]).summary.headline).toBe(
      'requirements: MUST 1/1 · 1 skipped · 0 could not run',
    );
    expect(run([]).summary.headline).toBe('requirements: 0 skipped · 0 could not run');
  });

  it('counts levels and statuses', () => {
    const { summary } = run(checks);
    expect(summary.levels).toEqual({ MUST: { passed: 2, total: 4 }, SHOULD: { passed: 0, total: 1 }, MAY: { passed: 1, total: 1 } });
    expect(summary.checks).toEqual({ pass: 3, fail: 1, warn: 1, skip: 2, error: 1 });
    expect(summary.durationMs).toBe(1234);
  });

  it('counts only unexpected MUST-level fails as mustFailures', () => {
    const report = run([
      check('a', 'fail', ['BASE-ID-01']),
      check('b', 'fail', ['BASE-ERR-04']), // SHOULD
      check('c', 'warn', ['BASE-ID-02']), // heuristic on a MUST
      check('d', 'error', ['LIFE-VER-04']), // could not run
    ]);
    expect(report.summary.mustFailures).toBe(1);
    expect(exitCode(report)).toBe(1);
  });

  it('exits 0 when nothing MUST-level failed and everything ran', () => {
    const report = run([check('a', 'pass', ['BASE-ID-01']), check('b', 'warn', ['BASE-ERR-04'])]);
    expect(exitCode(report)).toBe(0);
  });

  it('exits 3 (incomplete) when a check could not run, and 1 when a MUST also failed', () => {
    const incomplete = run([check('a', 'pass', ['BASE-ID-01']), check('c', 'error', ['BASE-ID-02'])]);
    expect(incomplete.summary.incomplete).toBe(1);
    expect(exitCode(incomplete)).toBe(3);
    expect(exitCode(run([check('a', 'fail', ['BASE-ID-01']), check('c', 'error', ['BASE-ID-02'])]))).toBe(1);
    expect(exitCode(run([check('c', 'error', ['BASE-ID-02'])], { expected: ['c'] }))).toBe(0);
  });

  it("grades a server only on rules that bind a server, dropping checks about the other side's rules", () => {
    const report = grade({
      role: 'server',
      tool: { name: 't', version: '1' },
      target: { kind: 'stdio', description: 'x' },
      startedAt: '2025-01-01T00:00:00.000Z',
      durationMs: 0,
      // LIFE-INIT-01 binds clients, PAGE-05 servers, BASE-ID-03 both.
      checks: [check('client-only', 'pass', ['LIFE-INIT-01']), check('server', 'warn', ['PAGE-05']), check('mixed', 'pass', ['BASE-ID-03', 'LIFE-INIT-01'])],
    });
    expect(report.checks.map((c) => c.id)).toEqual(['server', 'mixed']);
    expect(report.checks[1]!.requirements).toEqual(['BASE-ID-03']);
    expect(report.requirements.map((v) => v.id).sort()).toEqual(['BASE-ID-03', 'PAGE-05']);
    expect(report.target.role).toBe('server');
    expect(report.notes.some((n) => n.includes('do not bind a server'))).toBe(true);
  });

  it('defaults notes to an empty list and keeps the given ones', () => {
    expect(run([]).notes).toEqual([]);
    const withNotes = grade({
      tool: { name: 't', version: '1' },
      target: { kind: 'http', description: 'http://127.0.0.1/mcp' },
      startedAt: '2025-01-01T00:00:00.000Z',
      durationMs: 0,
      checks: [],
      notes: ['seed 42'],
    });
    expect(withNotes.notes).toEqual(['seed 42']);
  });
});

describe('baseline', () => {
  it('marks a failing check listed by id as expected and keeps it out of mustFailures', () => {
    const report = run([check('a', 'fail', ['BASE-ID-01']), check('b', 'pass', ['BASE-ID-02'])], { expected: ['a'] });
    expect(report.checks.find((c) => c.id === 'a')!.expected).toBe(true);
    expect(report.checks.find((c) => c.id === 'b')!.expected).toBeUndefined();
    expect(report.summary.mustFailures).toBe(0);
    expect(report.summary.expectedFailures).toBe(1);
    expect(report.summary.staleBaseline).toEqual([]);
    expect(exitCode(report)).toBe(0);
    // The verdict stays honest: a baselined failure is still a failed requirement.
    expect(report.requirements.find((r) => r.id === 'BASE-ID-01')!.status).toBe('fail');
  });

  it('matches a requirement id against every check citing it, failing ones only', () => {
    const report = run(
      [check('a', 'fail', ['BASE-ID-01']), check('b', 'error', ['BASE-ERR-04', 'BASE-ID-01']), check('c', 'pass', ['BASE-ID-01']), check('d', 'warn', ['BASE-ID-01'])],
      { expected: ['BASE-ID-01'] },
    );
    expect(report.checks.map((c) => c.expected ?? false)).toEqual([true, true, false, true]);
    expect(report.summary.mustFailures).toBe(0);
    expect(exitCode(report)).toBe(0);
  });

  it('reports entries whose checks now pass, are skipped, or that match nothing as stale', () => {
    const report = run([check('a', 'pass', ['BASE-ID-01']), check('b', 'skip', ['BASE-ERR-04']), check('c', 'fail', ['BASE-ID-02'])], {
      expected: ['a', 'BASE-ERR-04', 'no.such.check', 'c'],
    });
    expect(report.summary.staleBaseline).toEqual(['a', 'BASE-ERR-04', 'no.such.check']);
    expect(report.summary.mustFailures).toBe(0);
    expect(exitCode(report)).toBe(1);
  });

  it('is not stale while one matched check still fails', () => {
    const report = run([check('a', 'pass', ['BASE-ID-01']), check('b', 'fail', ['BASE-ID-01'])], { expected: ['BASE-ID-01'] });
    expect(report.summary.staleBaseline).toEqual([]);
  });

  it('leaves unlisted MUST failures failing the run', () => {
    const report = run([check('a', 'fail', ['BASE-ID-01']), check('b', 'fail', ['BASE-ID-02'])], { expected: ['a'] });
    expect(report.summary.mustFailures).toBe(1);
    expect(exitCode(report)).toBe(1);
  });

  it('does not mutate the input and clears a producer-set expected flag', () => {
    const input = [check('a', 'fail', ['BASE-ID-01'], { expected: true }), check('b', 'fail', ['BASE-ID-02'])];
    const before = structuredClone(input);
    const report = run(input);
    expect(report.checks[0]!.expected).toBeUndefined();
    expect(report.summary.mustFailures).toBe(2);
    expect(run(input, { expected: ['b'] }).checks[1]!.expected).toBe(true);
    expect(input).toEqual(before);
  });
});

describe('baseline upkeep', () => {
  it('keeps entries that still fail with their reasons, adds new failures by check id, drops stale ones', () => {
    const previous = loadBaseline(JSON.stringify({ expected: [{ id: 'BASE-ID-01', reason: 'upstream bug #12' }, 'fixed.check'] }), 'b.json');
    const checks = [
      check('a', 'fail', ['BASE-ID-01']),
      check('b', 'fail', ['BASE-ID-01']),
      check('fixed.check', 'pass', ['BASE-ID-02']),
      check('c', 'warn', ['BASE-ERR-04']),
      check('d', 'error', ['BASE-MSG-01']),
      check('e', 'skip', ['BASE-MSG-04']),
    ];
    const entries = updatedBaseline(run(checks, previous).checks, previous);
    expect(entries).toEqual([
      { id: 'BASE-ID-01', reason: 'upstream bug #12' },
      { id: 'c', reason: `title of c (${requirement('BASE-ERR-04').level})` },
    ]);
    // What it writes reads back as the baseline that holds exactly this run's failures.
    const written = loadBaseline(formatBaseline(entries), 'new.json');
    const rerun = run(checks, written);
    expect(rerun.summary.staleBaseline).toEqual([]);
    expect(rerun.checks.filter((x) => x.expected).map((x) => x.id)).toEqual(['a', 'b', 'c']);
    expect(rerun.checks.find((x) => x.id === 'a')!.baselineReason).toBe('upstream bug #12');
  });

  it('from a saved report alone, a baselined failure keeps the reason grading recorded on it', () => {
    const graded = run([check('a', 'fail', ['BASE-ID-01'])], { expected: ['a'], reasons: { a: 'known' } }).checks;
    expect(updatedBaseline(graded, undefined)).toEqual([{ id: 'a', reason: 'known' }]);
  });
});

describe('loadBaseline', () => {
  it('reads entries with a reason beside bare ids', () => {
    expect(loadBaseline('{"expected": ["a", {"id": " b ", "reason": " why "}, {"id": "c"}]}', 'b.json')).toEqual({ expected: ['a', 'b', 'c'], reasons: { b: 'why' } });
  });

  it('accepts the three documented shapes', () => {
    expect(loadBaseline('["a", "BASE-ID-01"]', 'b.json')).toEqual({ expected: ['a', 'BASE-ID-01'] });
    expect(loadBaseline('{"expected": ["a"]}', 'b.json')).toEqual({ expected: ['a'] });
    expect(loadBaseline('{"expectedFailures": ["a", " a "]}', 'b.json')).toEqual({ expected: ['a'] });
    expect(loadBaseline('[]', 'b.json')).toEqual({ expected: [] });
  });

  const bad: Array<[string, RegExp]> = [
    ['not json', /not valid JSON/],
    ['', /not valid JSON/],
    ['42', /expected a JSON array/],
    ['null', /expected a JSON array/],
    ['"a"', /expected a JSON array/],
    ['{}', /exactly one/],
    ['{"expected": [], "expectedFailures": []}', /exactly one/],
    ['{"expectedfailures": ["a"]}', /unknown key "expectedfailures"/],
    ['{"expected": "a"}', /not an array/],
    ['[1]', /entry 0/],
    ['["a", ""]', /entry 1/],
    ['[["a"]]', /entry 0/],
    ['[{"reason": "x"}]', /entry 0 needs "id"/],
    ['[{"id": "a", "why": "x"}]', /entry 0 has an unknown key "why"/],
    ['[{"id": "a", "reason": 3}]', /entry 0 has a "reason" that is not a string/],
  ];
  it.each(bad)('rejects %j with a one-line message naming the file', (text, why) => {
    let error: unknown;
    try {
      loadBaseline(text, 'ci/expected-failures.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(why);
    expect(message).toContain('ci/expected-failures.json');
    expect(message).not.toMatch(/[\r\n]/);
  });
});

describe('a requirement verdict names the catalog its checks were judged by', () => {
  it('a carried rule judged only in 2026-07-28 links the 2026-07-28 page; judged in both eras, the 2025-11-25 one', () => {
    const modern = check('server.modern.x', 'pass', ['BASE-ERR-04'], { revision: '2026-07-28' });
    const legacy = check('server.base.x', 'pass', ['BASE-ERR-04'], { revision: '2025-11-25' });
    expect(run([modern]).requirements[0]!.url).toContain('/specification/2026-07-28/');
    expect(run([legacy]).requirements[0]!.url).toContain('/specification/2025-11-25/');
    expect(run([legacy, modern]).requirements[0]!.url).toContain('/specification/2025-11-25/');
  });
});
