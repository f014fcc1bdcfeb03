import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { awaitListening, freePort, runToEnd, spawnGroup, stopGroup } from './processes.js';
import { type Launch, sweepTargets, type SweepTarget } from './sweep-targets.js';

/**
 * `npm run sweep`: mcpcheck's server suite against the real servers of issue 20, over stdio and over
 * Streamable HTTP where a server offers it, one run at a time. Each run is `mcpcheck server` as a user
 * runs it (the built CLI, --json into reports/sweep/), bounded in time; every process is stopped on
 * every path. Prints one table row per run; exits 1 when a run was not graded cleanly (mcpcheck's
 * exit code 2, 3 or 4, a timeout, a check that could not run, a server missing or not starting).
 * `node dist/bench/sweep.js WORD…` runs only the servers whose name contains one of the words.
 */

/** One run's ceiling: the suite takes 20–60 s on these servers; past this, mcpcheck is interrupted. */
const RUN_TIMEOUT_MS = 300_000;
/** A server's start-up until it listens (the .NET and Go binaries take a few seconds on a busy machine). */
const LISTEN_TIMEOUT_MS = 60_000;

interface Row {
  server: string;
  transport: string;
  exit: string;
  grade: string;
  fail: string[];
  warn: string[];
  couldNotRun: string[];
  harness: string[];
}

interface ReportCheck {
  id: string;
  status: 'pass' | 'fail' | 'warn' | 'skip' | 'error';
}

const root = packageRoot();
const cli = join(root, 'dist/src/cli.js');
const out = join(root, 'reports/sweep');

/** The sweep's packages are installed by the sweep itself, as a fresh clone has none. */
function ensureSweepPackages(): string {
  const modules = join(root, 'sweep/node_modules');
  if (!existsSync(modules)) execFileSync('npm', ['ci', '--prefix', join(root, 'sweep'), '--no-audit', '--no-fund'], { stdio: 'inherit', timeout: 600_000 });
  return modules;
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

function slug(name: string, transport: string): string {
  return `${name.replace(/[^\w]+/g, '-').replace(/^-|-$/g, '')}-${transport.toLowerCase()}`;
}

/** Runs the built CLI to its end (or its ceiling), its console report and errors into `log`. */
async function runMcpcheck(targetArgs: string[], env: Record<string, string>, json: string, log: string): Promise<{ code: number | null; timedOut: boolean }> {
  const fd = openSync(log, 'w');
  try {
    const child = spawnGroup(process.execPath, [cli, 'server', '--quiet', ...targetArgs, '--json', json], env, ['ignore', fd, fd]);
    return await runToEnd(child, RUN_TIMEOUT_MS, 'SIGINT');
  } finally {
    closeSync(fd);
  }
}

/** What one run tells: mcpcheck's exit code, the grade line, the checks that did not pass, and what kept it from grading. */
function readRun(row: Row, run: { code: number | null; timedOut: boolean }, json: string, log: string): Row {
  row.exit = run.timedOut ? `${run.code ?? 'killed'} (timeout)` : String(run.code);
  if (run.timedOut) row.harness.push(`mcpcheck still running after ${RUN_TIMEOUT_MS / 1000} s`);
  // mcpcheck's own errors (usage, setup, internal) are its lines starting "mcpcheck:"
  row.harness.push(...readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('mcpcheck:')));
  if (!existsSync(json)) return row;
  let report: { summary: { headline: string }; checks: ReportCheck[] };
  try {
    report = JSON.parse(readFileSync(json, 'utf8')) as typeof report;
  } catch (e) {
    row.harness.push(`the JSON report is unreadable: ${(e as Error).message}`);
    return row;
  }
  row.grade = report.summary.headline.replace(/^requirements: /, '');
  const ids = (status: ReportCheck['status']): string[] => [...new Set(report.checks.filter((c) => c.status === status).map((c) => c.id))].sort();
  row.fail = ids('fail');
  row.warn = ids('warn');
  row.couldNotRun = ids('error');
  return row;
}

function emptyRow(server: string, transport: string): Row {
  return { server, transport, exit: '-', grade: '-', fail: [], warn: [], couldNotRun: [], harness: [] };
}

async function sweepStdio(target: SweepTarget, launch: Launch): Promise<Row> {
  const name = slug(target.name, 'stdio');
  const json = join(out, `${name}.json`);
  const log = join(out, `${name}.log`);
  rmSync(json, { force: true });
  const run = await runMcpcheck(['--stdio', launch.argv.map(shellQuote).join(' ')], launch.env ?? {}, json, log);
  return readRun(emptyRow(target.name, 'stdio'), run, json, log);
}

async function sweepHttp(target: SweepTarget, http: NonNullable<SweepTarget['http']>): Promise<Row> {
  const row = emptyRow(target.name, 'HTTP');
  const name = slug(target.name, 'http');
  const json = join(out, `${name}.json`);
  const log = join(out, `${name}.log`);
  rmSync(json, { force: true });
  const port = await freePort();
  const launch = http.launch(port);
  const serverLog = openSync(join(out, `${name}.server.log`), 'w');
  const server = spawnGroup(launch.argv[0]!, launch.argv.slice(1), launch.env ?? {}, ['ignore', serverLog, serverLog]);
  try {
    await awaitListening(server, port, target.name, LISTEN_TIMEOUT_MS);
  } catch (e) {
    row.harness.push((e as Error).message);
    closeSync(serverLog);
    return row;
  }
  try {
    const run = await runMcpcheck(['--url', `http://127.0.0.1:${port}${http.path}`], {}, json, log);
    return readRun(row, run, json, log);
  } finally {
    await stopGroup(server);
    closeSync(serverLog);
  }
}

function cell(values: string[]): string {
  return values.length === 0 ? '' : values.join(', ').replaceAll('|', '\\|');
}

function table(rows: Row[]): string {
  const lines = [
    '| server | transport | exit | grade | failing checks | warning checks | could not run | harness errors |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.server} | ${r.transport} | ${r.exit} | ${r.grade} | ${cell(r.fail)} | ${cell(r.warn)} | ${cell(r.couldNotRun)} | ${cell(r.harness)} |`),
  ];
  return lines.join('\n') + '\n';
}

/** Graded cleanly: mcpcheck ran to its end with exit 0 or 1 (a verdict), and every check could run. */
function clean(r: Row): boolean {
  return (r.exit === '0' || r.exit === '1') && r.couldNotRun.length === 0 && r.harness.length === 0;
}

async function sweep(): Promise<number> {
  const words = process.argv.slice(2).map((w) => w.toLowerCase());
  const sweepModules = ensureSweepPackages();
  mkdirSync(out, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'mcpcheck-sweep-'));
  const rows: Row[] = [];
  try {
    const targets = sweepTargets({ root, sweepModules, scratch }).filter((t) => words.length === 0 || words.some((w) => t.name.toLowerCase().includes(w)));
    for (const target of targets) {
      if (target.missing !== undefined) {
        const row = emptyRow(target.name, '-');
        row.harness.push(`missing: ${target.missing}`);
        rows.push(row);
        continue;
      }
      for (const transport of ['stdio', 'HTTP'] as const) {
        const t0 = performance.now();
        const row = transport === 'stdio' ? target.stdio && (await sweepStdio(target, target.stdio)) : target.http && (await sweepHttp(target, target.http));
        if (!row) continue;
        rows.push(row);
        console.error(`sweep: ${target.name}, ${transport}: exit ${row.exit}, ${row.grade} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const text = table(rows);
  writeFileSync(join(out, 'table.md'), text);
  console.log(text);
  const unclean = rows.filter((r) => !clean(r));
  console.log(unclean.length === 0 ? `all ${rows.length} runs graded cleanly` : `${unclean.length} of ${rows.length} runs not graded cleanly: ${unclean.map((r) => `${r.server} (${r.transport})`).join('; ')}`);
  return unclean.length === 0 ? 0 : 1;
}

process.exitCode = await sweep();
