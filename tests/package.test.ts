/**
 * The package as `npm pack` makes it, installed into a project the way npm lays it out
 * (node_modules/mcpcheck, node_modules/.bin/mcpcheck), and used as the README says. The project sits
 * under this repository's node_modules, so the package's dependencies resolve from there without a
 * registry; what is tested is the package's own files, its bin and the lines it prints.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model.js';
import { EVERYTHING, requireBuild, ROOT } from './server-helpers.js';

let project: string;
let files: string[];

beforeAll(() => {
  requireBuild();
  const packed = mkdtempSync(join(tmpdir(), 'mcpcheck-pack-'));
  // dist/ is built already (npm test builds first): the tarball is what `npm pack` makes of it.
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packed], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  const [info] = JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = info!.files.map((f) => f.path);
  mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
  project = mkdtempSync(join(ROOT, 'node_modules/.cache/mcpcheck-package-test-'));
  const installed = join(project, 'node_modules/mcpcheck');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(packed, info!.filename), '-C', installed, '--strip-components', '1']);
  rmSync(packed, { recursive: true, force: true });
  mkdirSync(join(project, 'node_modules/.bin'));
  symlinkSync('../mcpcheck/dist/src/cli.js', join(project, 'node_modules/.bin/mcpcheck'));
  chmodSync(join(installed, 'dist/src/cli.js'), 0o755);
  writeFileSync(join(project, 'package.json'), '{ "name": "a-project", "private": true }\n');
}, 180_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

/** A command line run by the shell in the project folder, as a user types it there. */
function inProject(line: string): { code: number | null; stdout: string; stderr: string } {
  const { GITHUB_ACTIONS: _a, GITHUB_STEP_SUMMARY: _s, npm_lifecycle_script: _l, ...env } = process.env;
  const r = spawnSync('sh', ['-c', line], { cwd: project, encoding: 'utf8', timeout: 90_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the package npm pack makes', () => {
  it('holds the CLI, its schemas and validators, and the example client; not mcpcheck\'s own tests', () => {
    expect(files).toEqual(expect.arrayContaining(['dist/src/cli.js', 'schemas/report.schema.json', 'examples/sdk-client.js', 'examples/README.md', 'README.md']));
    expect(files.filter((f) => f.startsWith('dist/src/generated/')).length).toBeGreaterThan(0);
    expect(files.filter((f) => f.startsWith('dist/tests/') || f.startsWith('tests/'))).toEqual([]);
  });

  it('installed, `npx mcpcheck` runs; the example client runs from the package as the README says, over HTTP and stdio', () => {
    expect(inProject('npx mcpcheck --version').stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    for (const command of ['node node_modules/mcpcheck/examples/sdk-client.js', 'node node_modules/mcpcheck/examples/sdk-client.js {stdio}']) {
      const r = inProject(`npx mcpcheck client --command "${command}" --only client.lifecycle.handshake --json r.json`);
      expect(r.code, r.stdout.slice(-800) + r.stderr).toBe(0);
      expect(existsSync(join(project, 'r.json'))).toBe(true);
    }
  }, 120_000);

  it('a failing check\'s reproduce line starts with `npx mcpcheck` and runs as pasted in the project', () => {
    const r = inProject(`npx mcpcheck server --stdio "node ${EVERYTHING} stdio" --only server.lifecycle.older-revisions --json r.json`);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(inProject('cat r.json').stdout) as RunReport;
    const check = report.checks.find((c) => c.reproduce !== undefined && c.status === 'warn')!;
    expect(check.reproduce).toMatch(/^npx mcpcheck server --stdio /);
    const again = inProject(`${check.reproduce!} --json again.json`);
    expect(again.code, again.stderr).toBe(0);
    const second = JSON.parse(inProject('cat again.json').stdout) as RunReport;
    expect(second.checks.find((c) => c.id === check.id)?.status).toBe('warn');
  }, 120_000);
});
