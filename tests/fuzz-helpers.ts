/** Shared by the fuzz test files: run `mcpcheck fuzz`, read its report, serve the fuzz fixture over HTTP. */
import { spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { FuzzCase } from '../src/fuzz/case.js';
import type { RunReport } from '../src/model.js';
import { freePort, mcpcheckAsync, ROOT } from './server-helpers.js';

export const CLI = join(ROOT, 'dist/src/cli.js');
export const FIXTURE = `node ${join(ROOT, 'dist/tests/fixtures/fuzz/server.js')}`;


/** Resolves once something accepts connections on the loopback port (at most 10 s). */
export async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

export function mcpcheck(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 90_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface Run {
  code: number | null;
  report: RunReport;
  out: string;
  stdout: string;
}

export function fuzz(target: string, extra: string[] = []): Run {
  return fuzzAt(['--stdio', target], extra);
}

/** mcpcheck as a child that leaves the event loop free, for tests that run side by side (`describe.concurrent`). */
/** The arguments of a seeded fuzz run that writes its report and failures to a fresh folder. */
function fuzzRun(targetFlags: string[], extra: string[]): { args: string[]; out: string; json: string } {
  const out = mkdtempSync(join(tmpdir(), 'mcpcheck-fuzz-'));
  const json = join(out, 'report.json');
  return { args: ['fuzz', ...targetFlags, '--seed', '1', '--out', out, '--json', json, ...extra], out, json };
}

function asRun(r: { code: number | null; stdout: string; stderr: string }, out: string, json: string): Run {
  expect(r.stderr, r.stderr).not.toMatch(/internal error/);
  return { code: r.code, report: JSON.parse(readFileSync(json, 'utf8')) as RunReport, out, stdout: r.stdout };
}

export function fuzzAt(targetFlags: string[], extra: string[] = []): Run {
  const { args, out, json } = fuzzRun(targetFlags, extra);
  return asRun(mcpcheck(args), out, json);
}

export async function fuzzAtAsync(targetFlags: string[], extra: string[] = []): Promise<Run> {
  const { args, out, json } = fuzzRun(targetFlags, extra);
  return asRun(await mcpcheckAsync(args), out, json);
}

export function saved(run: Run, oracle: string): { file: string; input: FuzzCase } {
  const name = readdirSync(run.out).find((f) => f.startsWith(`${oracle}-`) && f.endsWith('.case.json'));
  expect(name, `no saved case for ${oracle} in ${readdirSync(run.out).join(', ')}`).toBeDefined();
  const file = join(run.out, name!);
  return { file, input: (JSON.parse(readFileSync(file, 'utf8')) as { input: FuzzCase }).input };
}

export function found(run: Run): string[] {
  return run.report.checks.filter((c) => c.status === 'fail' || c.status === 'warn').map((c) => c.id);
}

/** Runs `fn` with the fuzz fixture serving Streamable HTTP on a free loopback port. */
export function overHttp<T>(fixtureArgs: string[], fn: (url: string) => T | Promise<T>): Promise<T> {
  return servedOverHttp(join(ROOT, 'dist/tests/fixtures/fuzz/server.js'), fixtureArgs, fn);
}

/** Runs `fn` with a fixture script (taking --http --port N) serving Streamable HTTP on a free loopback port. */
export async function servedOverHttp<T>(script: string, fixtureArgs: string[], fn: (url: string) => T | Promise<T>): Promise<T> {
  const port = await freePort();
  const server = spawn(process.execPath, [script, '--http', '--port', String(port), ...fixtureArgs], { stdio: 'ignore' });
  try {
    await waitForPort(port);
    return await fn(`http://127.0.0.1:${port}/mcp`);
  } finally {
    server.kill('SIGKILL');
  }
}
