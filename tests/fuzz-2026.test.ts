import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model.js';
import { found, fuzzAtAsync, mcpcheck, servedOverHttp } from './fuzz-helpers.js';
import { mcpcheckAsync, requireBuild, ROOT } from './server-helpers.js';

beforeAll(requireBuild);

// mcpcheck fuzz in the 2026-07-28 era: the era detected (or named), every request with a generated
// per-request _meta, its mutations and (over HTTP) header mismatches judged by their own rows, and
// multi round-trip retries in the sequences. Small runs with a fixed seed (CI budget).

const REFERENCE_2026 = join(ROOT, 'dist/tests/fixtures/reference-2026/server.js');
const SDK_V2 = join(ROOT, 'dist/tests/fixtures/sdk-v2/server.js');
/** Two tools of the reference server: a quick one, and greet, which asks for the user's name (multi round-trip). */
const QUICK = ['--runs', '60', '--sequences', '4', '--call-tools', 'echo,greet'];

function status(report: RunReport, id: string): string | undefined {
  return report.checks.find((c) => c.id === id)?.status;
}

describe.concurrent('mcpcheck fuzz against the 2026-07-28 reference server', () => {
  it('over stdio the correct server gives no finding; the era is detected, every check is graded in 2026-07-28, the modern oracles are exercised', async ({ expect }) => {
    const run = await fuzzAtAsync(['--stdio', `node ${REFERENCE_2026}`], QUICK);
    expect(found(run), JSON.stringify(run.report.checks.filter((c) => c.status === 'fail' || c.status === 'warn'))).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.report.notes).toContain('fuzzed in revision 2026-07-28 (the stateless era)');
    expect(run.report.notes[0]).toMatch(/^era detection .*stateless era \(2026-07-28\): served/);
    expect(run.report.checks.every((c) => c.revision === '2026-07-28')).toBe(true);
    for (const id of ['fuzz.meta-required', 'fuzz.version-refused', 'fuzz.meta-served', 'fuzz.sequence.mrtr-tampered-state', 'fuzz.sequence.listen-interleaved']) expect(status(run.report, id), id).toBe('pass');
    // Rules the 2026-07-28 catalog does not have are not judged there; a session rule is a skip that says why.
    expect(run.report.checks.map((c) => c.id)).not.toContain('fuzz.sequence.subscribe-result');
    expect(run.report.checks.find((c) => c.id === 'fuzz.sequence.second-session')?.message).toContain('no sessions');
    expect(status(run.report, 'fuzz.header-mismatch')).toBe('skip');
  });

  it('over HTTP (--spec-version 2026-07-28) the correct server gives no finding, header mismatches included', async ({ expect }) => {
    const run = await servedOverHttp(REFERENCE_2026, [], (url) => fuzzAtAsync(['--url', url, '--spec-version', '2026-07-28'], QUICK));
    expect(found(run), JSON.stringify(run.report.checks.filter((c) => c.status === 'fail' || c.status === 'warn'))).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.report.notes.some((n) => n.startsWith('era detection'))).toBe(false);
    for (const id of ['fuzz.header-mismatch', 'fuzz.meta-required', 'fuzz.meta-served']) expect(status(run.report, id), id).toBe('pass');
  });

  it('tampered-state-accepted (which the 2026 suite does not catch) is found by a sequence: a forged requestState completes greet (MRTR-SEC-01, a MUST); --replay reproduces it in 2026-07-28 and holds on the correct server; validate reads the transcript', async ({ expect }) => {
    const target = `node ${REFERENCE_2026} --break tampered-state-accepted`;
    const run = await fuzzAtAsync(['--stdio', target], ['--runs', '10', '--sequences', '5', '--call-tools', 'greet']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.sequence.mrtr-tampered-state']);
    const check = run.report.checks.find((c) => c.id === 'fuzz.sequence.mrtr-tampered-state')!;
    expect(check).toMatchObject({ status: 'fail', requirements: ['MRTR-SEC-01'], revision: '2026-07-28' });
    expect(check.message).toMatch(/requestState/);
    const file = check.reproduce!.split('--replay ')[1]!;
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ mcpcheck: 'fuzz-sequence', revision: '2026-07-28' });
    const again = await mcpcheckAsync(['fuzz', '--stdio', target, '--replay', file]);
    expect(again.code, again.stdout).toBe(1);
    expect(again.stdout).toContain('the saved sequence fails again');
    const fixed = await mcpcheckAsync(['fuzz', '--stdio', `node ${REFERENCE_2026}`, '--replay', file]);
    expect(fixed.code, fixed.stdout).toBe(0);
    // The transcript is read as a 2026-07-28 conversation; what it flags is mcpcheck's own deliberate forgery (MRTR-CLI-02 binds the client).
    const validated = await mcpcheckAsync(['validate', file.replace('.sequence.json', '.jsonl'), '--judge', 'server']);
    expect(validated.code, validated.stdout + validated.stderr).toBe(0);
  });

  it('a break only a fuzz run finds, call-meta-unchecked: tools/call served without its required _meta fields (META-REQ-03, a MUST); the saved case replays and fails again', async ({ expect }) => {
    const target = `node ${REFERENCE_2026} --break call-meta-unchecked`;
    const run = await fuzzAtAsync(['--stdio', target], ['--runs', '60', '--sequences', '0', '--call-tools', 'echo']);
    expect(found(run)).toEqual(['fuzz.meta-required']);
    const check = run.report.checks.find((c) => c.id === 'fuzz.meta-required')!;
    expect(check).toMatchObject({ status: 'fail', requirements: ['META-REQ-03'], revision: '2026-07-28' });
    expect(check.message).toMatch(/^tools\/call with meta\.missing.* was served/);
    const again = await mcpcheckAsync(['fuzz', '--stdio', target, '--replay', check.reproduce!.split('--replay ')[1]!]);
    expect(again.code, again.stdout).toBe(1);
    expect(again.stdout).toContain('the saved case fails again');
  });
});

describe('mcpcheck fuzz against the SDK v2 server (dual-era)', () => {
  it('fuzzes its 2026-07-28 era, says 2025-11-25 was not fuzzed, and finds a request naming an unimplemented version served (VER-NEG-01), which needs earlier requests on the process', async ({ expect }) => {
    const run = await fuzzAtAsync(['--stdio', `node ${SDK_V2}`], ['--runs', '30', '--sequences', '1', '--call-tools', 'all']);
    expect(run.report.notes).toContain('the server also serves 2025-11-25 (the stateful era): not fuzzed in this run; fuzz it with --spec-version 2025-11-25');
    // basic/versioning.mdx#protocol-version-negotiation: a request whose protocol version the server
    // does not implement gets −32022. On one stdio process, after a valid modern request, the SDK serves
    // protocolVersion 1999-01-01 as 2026-07-28 (the server suite pins the same defect under BASE-STATE-01).
    expect(found(run)).toEqual(['fuzz.version-refused']);
    const check = run.report.checks.find((c) => c.id === 'fuzz.version-refused')!;
    expect(check).toMatchObject({ status: 'fail', requirements: ['VER-NEG-01'], revision: '2026-07-28' });
    expect(check.message).toMatch(/meta\.unsupported-version .*was served/);
    // Alone on a fresh process the SDK refuses the same case with −32022: the defect needs earlier
    // requests on the process, and the report says so; its replay runs in 2026-07-28 and holds.
    expect(check.message).toMatch(/did not fail again alone on a fresh session/);
    const again = mcpcheck(['fuzz', '--stdio', `node ${SDK_V2}`, '--replay', check.reproduce!.split('--replay ')[1]!]);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toMatch(/replayed .* in 2026-07-28/);
  });
});

describe('mcpcheck fuzz --spec-version', () => {
  it('an unknown revision is one line, exit 2', () => {
    const r = mcpcheck(['fuzz', '--stdio', `node ${REFERENCE_2026}`, '--spec-version', '2024-01-01']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain('2025-11-25');
  });
});
