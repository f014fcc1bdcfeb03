/**
 * Verdicts that used to be wrong (issue 6), each shown on a fixture that earned it: a rule that
 * was never exercised is a skip, never a pass; a harness limit is "could not run", never the
 * target's failure; something that is not an MCP server is not graded at all.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult, RunReport } from '../src/model.js';
import { freePort, REFERENCE, requireBuild, ROOT, runStdio } from './server-helpers.js';

beforeAll(requireBuild);

const QUIRKS = join(ROOT, 'dist/tests/fixtures/quirks/server.js');
const NOT_MCP = join(ROOT, 'dist/tests/fixtures/quirks/not-mcp.js');
const CLI = join(ROOT, 'dist/src/cli.js');

function quirky(quirk: string | undefined, only: string[]): Promise<RunReport> {
  return runStdio(`node ${QUIRKS}${quirk ? ` --quirk ${quirk}` : ''}`, { only });
}

function check(report: RunReport, id: string): CheckResult {
  const found = report.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id} in: ${report.checks.map((c) => c.id).join(', ')}`);
  return found;
}

function verdict(report: RunReport, requirement: string): string | undefined {
  return report.requirements.find((r) => r.id === requirement)?.status;
}

describe('a rule not exercised is a skip, not a pass', () => {
  it('RES-TPL-01: resources/templates/list answered with −32601', async () => {
    const [quirk, plain] = await Promise.all([quirky('templates-unsupported', ['server.resources.templates']), quirky(undefined, ['server.resources.templates'])]);
    expect(check(quirk, 'server.resources.templates').status).toBe('skip');
    expect(check(quirk, 'server.resources.templates').message).toMatch(/not served/);
    // Served, but with no template listed: still nothing to judge.
    expect(check(plain, 'server.resources.templates').status).toBe('skip');
  });

  it('TOOL-NAME-02: a server that runs any tool name shows nothing about case', async () => {
    const [quirk, plain] = await Promise.all([quirky('any-tool-name', ['server.tools.case-sensitive']), quirky(undefined, ['server.tools.case-sensitive'])]);
    expect(check(quirk, 'server.tools.case-sensitive').status).toBe('skip');
    expect(check(plain, 'server.tools.case-sensitive').status).toBe('pass');
  });

  it('TOOL-OUT-01: isError results are not counted as conforming', async () => {
    const [quirk, plain] = await Promise.all([quirky('output-errors-only', ['server.tools.call']), quirky(undefined, ['server.tools.call'])]);
    const skipped = check(quirk, 'server.tools.call/output-schema');
    expect(skipped.status).toBe('skip');
    expect(skipped.message).toMatch(/isError/);
    expect(verdict(quirk, 'TOOL-OUT-01')).toBe('skip');
    const judged = check(plain, 'server.tools.call/output-schema');
    expect(judged.status).toBe('pass');
    expect(judged.message).toMatch(/outputSchema of status/);
    expect(verdict(plain, 'TOOL-OUT-01')).toBe('pass');
  });

  it('PAGE-01/05: lists that never hand out a nextCursor exercise no cursor', async () => {
    const report = await quirky(undefined, ['server.utilities.pagination']);
    expect(check(report, 'server.utilities.pagination/walk').status).toBe('skip');
    expect(check(report, 'server.utilities.pagination/stable').status).toBe('skip');
    // The reference server pages its lists, so there the rules are judged.
    const paged = await runStdio(`node ${REFERENCE}`, { only: ['server.utilities.pagination'] });
    expect(check(paged, 'server.utilities.pagination/walk').status).toBe('pass');
  });

  it("META-*, CANCEL-01, PROG-01: a server that never sends _meta or cancels is not credited for mcpcheck's own frames", async () => {
    const report = await quirky(undefined, []);
    for (const id of ['META-KEY-01', 'META-KEY-02', 'META-KEY-04', 'META-RSV-01', 'CANCEL-01', 'CANCEL-04', 'PROG-01']) {
      expect(verdict(report, id) ?? 'skip', id).toBe('skip');
    }
  });

  it('client-bound rules are no part of a server grade', async () => {
    const report = await quirky(undefined, []);
    const clientOnly = ['LIFE-INIT-01', 'LIFE-INIT-03', 'LIFE-INIT-04', 'LIFE-VER-01', 'CANCEL-02', 'COMP-REQ-01', 'ROOTS-LIST-01'];
    for (const id of clientOnly) expect(report.requirements.some((r) => r.id === id), id).toBe(false);
    expect(report.target.role).toBe('server');
  });
});

describe('what came back is what scenarios see', () => {
  it('PING-01: a ping answered with "result": null fails, live and in its scenario', async () => {
    const report = await quirky('ping-null', ['server.utilities.ping']);
    expect(check(report, 'server.utilities.ping').status).toBe('fail');
    expect(check(report, 'server.utilities.ping').message).toMatch(/not an object: null/);
    expect(check(report, 'live.PING-01').status).toBe('fail');
  });

  it('a malformed answer to an undeclared method is no refusal: BASE-RES-02 fails, the capability check is not judged', async () => {
    const [quirk, plain] = await Promise.all([quirky('undeclared-null-result', ['server.lifecycle.capabilities-honoured']), quirky(undefined, ['server.lifecycle.capabilities-honoured'])]);
    expect(check(quirk, 'server.lifecycle.capabilities-honoured/completions-not-supported').status).toBe('skip');
    expect(check(quirk, 'live.BASE-RES-02').status).toBe('fail');
    expect(check(plain, 'server.lifecycle.capabilities-honoured/completions-not-supported').status).toBe('pass');
  });
});

describe('harness limits and non-MCP targets', () => {
  it("mcpcheck's own scenario timeout is 'could not run' (exit 3), never a failure of a correct server", () => {
    const out = join(mkdtempSync(join(tmpdir(), 'mcpcheck-verdicts-')), 'r.json');
    const r = spawnSync(process.execPath, [CLI, 'server', '--stdio', `node ${REFERENCE}`, '--timeout', '1', '--only', 'server.base,server.utilities.ping', '--json', out], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
    expect(report.checks.filter((c) => c.status === 'fail' || c.status === 'warn')).toEqual([]);
    expect(report.checks.some((c) => c.status === 'error' && /scenario timeout/.test(c.message))).toBe(true);
    expect(r.status).toBe(3);
  });

  it('an HTTP endpoint answering 404 to everything is not graded: one line, exit 2', async () => {
    const port = await freePort();
    const r = spawnSync(process.execPath, [CLI, 'server', '--url', `http://127.0.0.1:${port}/mcp`, '--start', `node ${NOT_MCP} --port ${port}`], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/is not an MCP server: .*HTTP 404/);
  });

  it('a stdio command that prints no JSON-RPC is not graded: one line, exit 2', () => {
    const r = spawnSync(process.execPath, [CLI, 'server', '--stdio', `node -e "process.stdin.on('data', () => process.stdout.write('hello\\\\n'))"`, '--request-timeout', '1000'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/is not an MCP server/);
  });
});

describe('a server that serves one session at a time', () => {
  const FUZZ_FIXTURE = join(ROOT, 'dist/tests/fixtures/fuzz/server.js');

  // It refuses a second session (the spec does not require two at once): every scenario that
  // opened one of its own used to fail on the refusal (version negotiation, Origin, initialize after a refused request).
  it('is not failed for refusing a second session: the shared scenarios run on one lane, the others are skipped with the refusal', async () => {
    const port = await freePort();
    const out = join(mkdtempSync(join(tmpdir(), 'mcpcheck-verdicts-')), 'r.json');
    const r = spawnSync(process.execPath, [CLI, 'server', '--url', `http://127.0.0.1:${port}/mcp`, '--start', `node ${FUZZ_FIXTURE} --http --port ${port} --single-session`, '--json', out], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
    expect(report.checks.filter((c) => c.status === 'fail' || c.status === 'error').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.status).toBe(0);
    for (const id of ['server.lifecycle.version-negotiation', 'server.http.origin', 'server.lifecycle.before-initialize']) {
      expect(check(report, id).status).toBe('skip');
      expect(check(report, id).message).toMatch(/the server refused a second session at once \(error -32600 "one session at a time"\)/);
    }
    // The shared scenarios did run, on the one session.
    expect(check(report, 'server.utilities.ping').status).toBe('pass');
    expect(report.notes.some((n) => /refused a second session/.test(n))).toBe(true);
  }, 120_000);
});
