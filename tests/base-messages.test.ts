/**
 * Messages that must state the ruling they apply: the derived robustness checks say "derived",
 * and an HTTP refusal whose body is no JSON-RPC error says which rule wins, with status and body.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE, requireBuild, runHttp, runStdio } from './server-helpers.js';

beforeAll(requireBuild);

describe('messages state their ruling', () => {
  it('the derived robustness checks (a server still answering ping after a probe) say so', async () => {
    const report = await runStdio(`node ${REFERENCE}`, { only: ['server.base.hostile-input', 'server.base.batch', 'server.base.null-id-rejected'] });
    const robust = report.checks.filter((c) => c.id.startsWith('server.base.') && c.requirements.some((r) => r.startsWith('ROBUST-')));
    expect(robust.length).toBeGreaterThan(6);
    for (const c of robust) expect(c.message, c.id).toMatch(/derived robustness check, no spec keyword; ruling derived-robustness/);
  });

  it("records the 10 MB probe as its value with the string cut, as every long string of a frame's record is", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-hostile-'));
    try {
      const report = await runStdio(`node ${REFERENCE}`, { only: ['server.base.hostile-input'], transcriptDir: dir });
      expect(report.checks.find((c) => c.id === 'server.base.hostile-input/huge-string')?.status).toBe('pass');
      const frames = readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { from?: string; message?: { id?: unknown; method?: string; params?: { _meta?: Record<string, unknown> } } }));
      const probe = frames.find((f) => f.from === 'client' && f.message?.params?._meta?.['dev.mcpcheck/padding'] !== undefined)!.message!;
      expect(probe.method).toBe('ping');
      expect(probe.params!._meta!['dev.mcpcheck/padding']).toBe(`${'x'.repeat(4096)}…(${10 * 1024 * 1024 - 4096} more characters)`);
      // The probe's id is the one the live validation tracked: no finding calls it unknown or unanswered.
      expect(report.checks.filter((c) => c.status !== 'pass' && c.status !== 'skip').map((c) => c.id)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('HTTP 400 with a text body: HTTP-POST-04 wins, BASE-ERR-04 is not exercised, status and body shown', async () => {
    const report = await runHttp((port) => `node ${REFERENCE} --http --port ${port} --break http-text-error-body`, { only: ['server.base.parse-error', 'server.base.invalid-request'] });
    for (const id of ['server.base.parse-error', 'server.base.invalid-request/code']) {
      const c = report.checks.find((x) => x.id === id)!;
      expect(c.status, c.message).toBe('skip');
      expect(c.message).toContain('HTTP 400');
      // The body, bounded and escaped as JSON text.
      expect(c.message).toContain(JSON.stringify('Bad Request: "not a JSON-RPC message"\n'));
      expect(c.message).toMatch(/HTTP-POST-04 .*wins over BASE-ERR-04.*ruling http-error-body/);
    }
  });
});
