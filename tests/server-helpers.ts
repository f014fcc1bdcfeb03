import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { testServer, type ServerCommandOptions } from '../src/commands/server.js';
import type { RunReport } from '../src/model.js';
import { inEra, outsideRevisions, type ProbeTokens } from '../src/runner/scenario.js';
import type { Revision } from '../src/spec/revisions.js';
import { serverScenarios } from '../suites/server/index.js';

export const ROOT = join(import.meta.dirname, '..');
export const REFERENCE = join(ROOT, 'dist/tests/fixtures/reference/server.js');
export const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const LOOPBACK = join(ROOT, 'tests/fixtures/loopback-only.mjs');

/** mcpcheck (the built CLI) in a process of its own, awaited without blocking: other tests run meanwhile. `env` is added to this process's. */
export function mcpcheckAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function requireBuild(): void {
  if (!existsSync(REFERENCE)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
}

/**
 * A port free a moment ago on 127.0.0.1, below the system's ephemeral range (32768 and up on
 * Linux): the servers the tests start on ports of their own never meet the endpoints mcpcheck
 * and other tests bind to port 0, which the system hands out from that range. (A port from port 0
 * was handed out again within the second a test took to start its server there: a fastmcp server
 * lost its port to a client run's protected endpoint, and cli.test.ts's minute on a port nobody
 * serves met another test's endpoint.)
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/**
 * What a break run needs to show its rule and whatever else it cascades into: the scenarios of
 * `revision`'s era that cite `requirement` (the live checks judge all their traffic too), or the
 * whole suite (undefined) for a rule that only live checks judge and no `shownBy` names the traffic of.
 * `shownBy` adds the scenarios whose traffic a live check judges the break on, when the citing ones
 * do not make the traffic it shows in.
 * A whole suite per break spent most of CI's time starting fixture processes; the clean runs of the
 * correct fixture are whole suites.
 */
export function breakScope(requirement: string, revision: Revision, shownBy: readonly string[] = []): { only: string[] } | undefined {
  const citing = serverScenarios.filter((s) => (s.requirements as readonly string[]).includes(requirement) && inEra(s, revision) && outsideRevisions(s.revisions, revision) === undefined);
  const only = [...citing.map((s) => s.id), ...shownBy];
  return only.length > 0 ? { only } : undefined;
}

/**
 * The token the protected reference server (`--auth`) admits in tests, the ones it knows but
 * refuses or honours in part (the authorization scenarios' probe tokens), and how a command starts
 * it with them.
 */
export const PROTECTED_TOKEN = 'reference-test-token-1';
export const PROBE_TOKENS: ProbeTokens = { expired: 'reference-expired-token-1', otherAudience: 'reference-other-token-1', narrow: 'reference-narrow-token-1', otherUser: 'reference-second-user-token-1', broad: 'reference-broad-token-1' };
export const withProtectedToken = (command: string): string =>
  `MCPCHECK_REFERENCE_TOKEN=${PROTECTED_TOKEN} MCPCHECK_REFERENCE_SECOND_TOKEN=${PROBE_TOKENS.otherUser} MCPCHECK_REFERENCE_EXPIRED_TOKEN=${PROBE_TOKENS.expired} MCPCHECK_REFERENCE_OTHER_TOKEN=${PROBE_TOKENS.otherAudience} MCPCHECK_REFERENCE_NARROW_TOKEN=${PROBE_TOKENS.narrow} MCPCHECK_REFERENCE_BROAD_TOKEN=${PROBE_TOKENS.broad} ${command}`;
export { isProtectedBreak } from './fixtures/server-args.js';
export const PROTECTED_HEADER = `Authorization: Bearer ${PROTECTED_TOKEN}`;
/** What an in-process run against the protected reference server is given: its token and the probe tokens. */
export const PROTECTED_RUN = { headers: [PROTECTED_HEADER], probeTokens: PROBE_TOKENS };

export function runStdio(command: string, extra: Partial<ServerCommandOptions> = {}): Promise<RunReport> {
  return testServer({ stdio: command, targetFlags: `--stdio ${JSON.stringify(command)}`, concurrency: 2, ...extra });
}

/** Runs the suite against an HTTP server that mcpcheck starts; `{port}` in the command is replaced. */
export async function runHttp(command: (port: number) => string, extra: Partial<ServerCommandOptions> = {}): Promise<RunReport> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const start = command(port);
  return testServer({ url, start, targetFlags: `--url ${url} --start ${JSON.stringify(start)}`, concurrency: 2, ...extra });
}

/** The checks that failed, warned or could not run, as "id:status", sorted; `keep` narrows them (an era, a revision). */
export function findingsOf(report: RunReport, keep: (check: RunReport['checks'][number]) => boolean = () => true): string[] {
  return [...new Set(report.checks.filter((c) => keep(c) && (c.status === 'fail' || c.status === 'warn' || c.status === 'error')).map((c) => `${c.id}:${c.status}`))].sort();
}

/** Requirement ids whose verdict is fail or warn, excluding baselined checks. */
export function brokenRequirements(report: RunReport): string[] {
  return report.requirements.filter((r) => r.status === 'fail' || r.status === 'warn').map((r) => r.id).sort();
}

export function harnessErrors(report: RunReport): string[] {
  return report.checks.filter((c) => c.status === 'error').map((c) => `${c.id}: ${c.message}`);
}

export function describeFailures(report: RunReport): string {
  return report.checks
    .filter((c) => c.status === 'fail' || c.status === 'warn' || c.status === 'error')
    .map((c) => `${c.status} ${c.id} [${c.requirements.join(',')}]: ${c.message.slice(0, 300)}`)
    .join('\n');
}

/** Processes whose environment carries `marker` (every child of a run inherits it). */
export function processesMarked(marker: string): number[] {
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
