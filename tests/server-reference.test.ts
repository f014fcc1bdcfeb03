import { beforeAll, describe, expect, it } from 'vitest';
import { BREAKS } from './fixtures/reference/breaks.js';
import { brokenRequirements, describeFailures, harnessErrors, REFERENCE, requireBuild, runHttp, runStdio } from './server-helpers.js';

beforeAll(requireBuild);

/**
 * Requirements that a break also breaks by necessity, beside its own. Each entry says why; keep
 * the list minimal — an entry here is a place where one violation shows up under two rules.
 */
const ALSO: Record<string, string[]> = {};

describe('the reference server', () => {
  it('passes with zero failures over stdio', async () => {
    const report = await runStdio(`node ${REFERENCE}`);
    expect(describeFailures(report)).toBe('');
    expect(report.summary.checks.pass).toBeGreaterThan(40);
  });

  it('passes with zero failures over Streamable HTTP', async () => {
    const report = await runHttp((port) => `node ${REFERENCE} --http --port ${port}`);
    expect(describeFailures(report)).toBe('');
    expect(report.summary.checks.pass).toBeGreaterThan(40);
  });
});

describe('each broken variant fails exactly its rule', () => {
  for (const b of BREAKS) {
    const transport = b.transport === 'http' ? 'http' : 'stdio';
    it(`${b.name} → ${b.requirement} (${transport})`, async () => {
      const report =
        transport === 'http'
          ? await runHttp((port) => `node ${REFERENCE} --http --port ${port} --break ${b.name}`)
          : await runStdio(`node ${REFERENCE} --break ${b.name}`);
      expect(harnessErrors(report)).toEqual([]);
      const broken = brokenRequirements(report);
      expect(broken, describeFailures(report)).toContain(b.requirement);
      const allowed = new Set([b.requirement, ...(ALSO[b.name] ?? [])]);
      expect(broken.filter((id) => !allowed.has(id)), describeFailures(report)).toEqual([]);
    });
  }
});
