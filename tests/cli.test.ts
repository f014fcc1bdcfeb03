import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort, REFERENCE, requireBuild, ROOT } from './server-helpers.js';

const CLI = join(ROOT, 'dist/src/cli.js');

beforeAll(requireBuild);

function mcpcheck(args: string[], env: NodeJS.ProcessEnv = {}) {
  const started = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

/** Processes whose environment carries `marker` (every child of a run inherits it). */
function processesMarked(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // a zombie is gone, only not yet reaped by an init that never reaps
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

const tmp = () => mkdtempSync(join(tmpdir(), 'mcpcheck-cli-'));

describe('bad input to mcpcheck: one line on stderr, exit 2', () => {
  it('an unreachable URL, within 10 s', async () => {
    const port = await freePort();
    const r = mcpcheck(['server', '--url', `http://127.0.0.1:${port}/mcp`]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: connection refused/);
    expect(r.ms).toBeLessThan(10_000);
  });

  it('a command that does not start', () => {
    const r = mcpcheck(['server', '--stdio', 'mcpcheck-no-such-command-xyz']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('target did not start');
  });

  it('a command that exits at once', () => {
    const r = mcpcheck(['server', '--stdio', `${process.execPath} -e "process.exit(3)"`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/exited with code 3/);
  });

  it('a --start command that never serves the URL', async () => {
    const port = await freePort();
    const r = mcpcheck(['server', '--url', `http://127.0.0.1:${port}/mcp`, '--start', `${process.execPath} -e "setTimeout(() => {}, 60000)"`], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/did not accept connections/);
  }, 30_000);

  it.each([
    [['server'], /exactly one target/],
    [['server', '--stdio', 'x', '--url', 'http://127.0.0.1:1/mcp'], /exactly one target/],
    [['server', '--url', 'not a url'], /not a valid URL/],
    [['server', '--stdio', 'x', '--concurrency', '0'], /--concurrency takes a positive whole number/],
    [['server', '--stdio', 'x', '--bogus'], /Unknown argument: bogus/],
    [['server', '--stdio', 'x', '--only', 'no.such.scenario'], /left no scenario/],
    [['frobnicate'], /Unknown argument|name a command/],
    [['validate', '/nonexistent/session.jsonl'], /no such file/],
  ])('%j', (args, message) => {
    const r = mcpcheck(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a file that is not a transcript names the file and line', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'not.jsonl'), '<html>\n<body>\n');
    const r = mcpcheck(['validate', join(dir, 'not.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not\.jsonl: not an mcpcheck transcript .*line 1/);
  });

  it('a corrupt line inside a transcript is a finding, not a crash', () => {
    const dir = tmp();
    const good = readFileSync(join(ROOT, 'tests/fixtures/transcripts/valid/2025-11-25-tools.jsonl'), 'utf8').split('\n');
    good.splice(3, 0, '{"from":"server","message":');
    writeFileSync(join(dir, 't.jsonl'), good.join('\n'));
    const r = mcpcheck(['validate', join(dir, 't.jsonl'), '--json', join(dir, 'r.json')]);
    // A line that could not be judged leaves the grade incomplete: exit 3, not a pass.
    expect(r.code).toBe(3);
    const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    expect(report.checks.some((c: { status: string; message: string }) => c.status === 'error' && c.message.includes('t.jsonl:4'))).toBe(true);
  });
});

describe('mcpcheck server', () => {
  it('exits 1 on a MUST failure, writes JSON (valid against its schema) and JUnit, and leaves no process behind', () => {
    const dir = tmp();
    const marker = `MCPCHECK_TEST_MARKER=${randomUUID()}`;
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE} --break init-missing-serverinfo`, '--json', join(dir, 'r.json'), '--junit', join(dir, 'j.xml'), '--transcript', join(dir, 't')], {
      MCPCHECK_TEST_MARKER: marker.split('=')[1],
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('LIFE-INIT-02');
    const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'schemas/report.schema.json'), 'utf8')));
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(readFileSync(join(dir, 'j.xml'), 'utf8')).toMatch(/<testsuites[\s\S]*LIFE-INIT-02[\s\S]*<failure/);
    expect(processesMarked(marker.split('=')[1]!)).toEqual([]);
    // What --transcript wrote is what validate reads.
    const transcripts = readdirSync(join(dir, 't')).map((f) => join(dir, 't', f));
    expect(transcripts.length).toBeGreaterThan(3);
    const v = mcpcheck(['validate', ...transcripts]);
    expect(v.code, v.stdout.slice(-2000)).toBe(1);
    expect(v.stdout).toContain('LIFE-INIT-02');
  });

  it("what --transcript records of a correct server validates clean when the server's side is judged", () => {
    const dir = tmp();
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--transcript', dir]);
    expect(r.code).toBe(0);
    const files = readdirSync(dir).map((f) => join(dir, f));
    const v = mcpcheck(['validate', '--judge', 'server', ...files]);
    expect(v.code, v.stdout.slice(-2000)).toBe(0);
    expect(v.stdout).not.toMatch(/FAIL|WARN/);
    // Both sides judged, mcpcheck's own deliberately malformed probes show up as client violations.
    expect(mcpcheck(['validate', ...files]).stdout).toContain('BASE-ID-02');
  });

  it('a baseline holds expected failures; a stale entry fails the run', () => {
    const dir = tmp();
    // The missing serverInfo also fails the InitializeResult schema (BASE-RES-03).
    writeFileSync(join(dir, 'b.json'), JSON.stringify(['LIFE-INIT-02', 'BASE-RES-03']));
    const held = mcpcheck(['server', '--stdio', `node ${REFERENCE} --break init-missing-serverinfo`, '--baseline', join(dir, 'b.json')]);
    expect(held.code, held.stdout.slice(-1500)).toBe(0);
    const stale = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--baseline', join(dir, 'b.json')]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/stale/i);
  });

  it('--only selects by requirement id and `list` names every scenario', () => {
    const out = join(tmp(), 'r.json');
    const r = mcpcheck(['server', '--stdio', `node ${REFERENCE}`, '--only', 'ROBUST-01', '--json', out]);
    expect(r.code).toBe(0);
    const scenarios = new Set(JSON.parse(readFileSync(out, 'utf8')).checks.map((c: { scenario?: string }) => c.scenario).filter(Boolean));
    expect([...scenarios]).toEqual(['server.base.null-id-rejected']);
    const list = mcpcheck(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/server\.base\.null-id-rejected {2}\[ROBUST-01\]/);
  });

  it('redacts header values in every report', async () => {
    const dir = tmp();
    const port = await freePort();
    const secret = `s3cret-${randomUUID()}`;
    const r = mcpcheck([
      'server', '--url', `http://127.0.0.1:${port}/mcp`, '--start', `node ${REFERENCE} --http --port ${port}`,
      '--header', `Authorization: Bearer ${secret}`, '--only', 'server.base', '--json', join(dir, 'r.json'), '--junit', join(dir, 'j.xml'), '--transcript', join(dir, 't'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const everything = [r.stdout, r.stderr, readFileSync(join(dir, 'r.json'), 'utf8'), readFileSync(join(dir, 'j.xml'), 'utf8'), ...readdirSync(join(dir, 't')).map((f) => readFileSync(join(dir, 't', f), 'utf8'))];
    for (const text of everything) expect(text).not.toContain(secret);
  });
});
