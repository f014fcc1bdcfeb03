#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { testServer } from './commands/server.js';
import { validateFiles } from './commands/validate.js';
import { serverScenarios } from '../suites/server/index.js';
import { SetupError } from './errors.js';
import { exitCode, loadBaseline, type Baseline } from './grade/index.js';
import type { RunReport } from './model.js';
import { renderConsole, writeReports } from './report/index.js';
import { toolInfo } from './version.js';

/** Exit codes: 0 graded and nothing unexpected failed; 1 conformance failures; 2 usage or setup error. */
const EXIT_SETUP = 2;

interface ReportFlags {
  json?: string;
  junit?: string;
  baseline?: string;
  verbose?: boolean;
  color?: boolean;
}

async function readBaseline(path: string | undefined): Promise<Baseline | undefined> {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new SetupError(`${path}: cannot read the baseline (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return loadBaseline(text, path);
  } catch (e) {
    throw new SetupError((e as Error).message);
  }
}

async function finish(report: RunReport, flags: ReportFlags): Promise<never> {
  process.stdout.write(renderConsole(report, { color: flags.color ?? process.stdout.isTTY === true, verbose: flags.verbose ?? false }));
  await writeReports(report, { ...(flags.json ? { json: flags.json } : {}), ...(flags.junit ? { junit: flags.junit } : {}) });
  process.exit(exitCode(report));
}

function fail(message: string): never {
  process.stderr.write(`mcpcheck: ${message.split('\n')[0]}\n`);
  process.exit(EXIT_SETUP);
}

const reportOptions = {
  json: { type: 'string', describe: 'write the JSON report to this file', requiresArg: true },
  junit: { type: 'string', describe: 'write a JUnit XML report to this file', requiresArg: true },
  baseline: { type: 'string', describe: 'JSON list of expected failures (check or requirement ids)', requiresArg: true },
  verbose: { type: 'boolean', describe: 'list passing and skipped checks too' },
  color: { type: 'boolean', describe: 'force colour on or off (default: on for a terminal)' },
} as const;

export async function main(argv: string[]): Promise<void> {
  await yargs(argv)
    .scriptName('mcpcheck')
    .version(toolInfo().version)
    .strict()
    .command(
      'validate <files..>',
      'validate recorded MCP sessions (JSON Lines transcripts)',
      (y) =>
        y
          .positional('files', { type: 'string', array: true, demandOption: true })
          .options({ judge: { choices: ['client', 'server'] as const, describe: 'judge only what this side sent (default: both)' } })
          .options(reportOptions),
      async (args) => {
        const baseline = await readBaseline(args.baseline);
        const report = await validateFiles({ files: args.files as string[], ...(baseline ? { baseline } : {}), ...(args.judge ? { judge: args.judge } : {}) });
        await finish(report, args);
      },
    )
    .command(
      'server',
      'test an MCP server over stdio or Streamable HTTP',
      (y) =>
        y
          .options({
            stdio: { type: 'string', describe: 'command that starts the server on stdio (a fresh process per isolated scenario)', requiresArg: true },
            url: { type: 'string', describe: 'Streamable HTTP endpoint of the server', requiresArg: true },
            start: { type: 'string', describe: 'with --url: command that serves the URL; started first, stopped last', requiresArg: true },
            header: { type: 'string', array: true, describe: 'with --url: "Name: value" sent on every request (redacted in reports)', requiresArg: true },
            concurrency: { type: 'number', describe: 'scenarios run at once (default: number of cores)', requiresArg: true },
            timeout: { type: 'number', describe: 'per-scenario timeout in ms (default 30000)', requiresArg: true },
            'request-timeout': { type: 'number', describe: 'per-request timeout in ms (default 10000)', requiresArg: true },
            only: { type: 'string', array: true, describe: 'run only these scenario ids, areas or requirement ids (comma-separated or repeated)', requiresArg: true },
            skip: { type: 'string', array: true, describe: 'skip these scenario ids, areas or requirement ids', requiresArg: true },
            'call-tools': { type: 'string', describe: 'which tools to call: readonly (default: readOnlyHint true), all, none, or NAME,NAME', requiresArg: true },
            'origin-probe': { type: 'string', describe: 'the foreign Origin sent by the HTTP Origin check', requiresArg: true },
            transcript: { type: 'string', describe: 'write one transcript per session into this folder', requiresArg: true },
          })
          .options(reportOptions)
          .check((a) => {
            for (const [name, v] of [['concurrency', a.concurrency], ['timeout', a.timeout], ['request-timeout', a['request-timeout']]] as const) {
              if (v !== undefined && (!Number.isInteger(v) || v <= 0)) throw new SetupError(`--${name} takes a positive whole number`);
            }
            return true;
          }),
      async (args) => {
        const baseline = await readBaseline(args.baseline);
        const list = (v: string[] | undefined) => (v ?? []).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
        const targetFlags = args.stdio !== undefined ? `--stdio ${JSON.stringify(args.stdio)}` : `--url ${JSON.stringify(args.url)}${args.start ? ` --start ${JSON.stringify(args.start)}` : ''}`;
        const report = await testServer({
          ...(args.stdio !== undefined ? { stdio: args.stdio } : {}),
          ...(args.url !== undefined ? { url: args.url } : {}),
          ...(args.start !== undefined ? { start: args.start } : {}),
          headers: args.header ?? [],
          ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
          ...(args.timeout !== undefined ? { scenarioTimeoutMs: args.timeout } : {}),
          ...(args['request-timeout'] !== undefined ? { requestTimeoutMs: args['request-timeout'] } : {}),
          only: list(args.only),
          skip: list(args.skip),
          ...(args['call-tools'] !== undefined ? { callTools: args['call-tools'] } : {}),
          ...(args['origin-probe'] !== undefined ? { originProbe: args['origin-probe'] } : {}),
          ...(args.transcript !== undefined ? { transcriptDir: args.transcript } : {}),
          ...(baseline ? { baseline } : {}),
          targetFlags,
        });
        await finish(report, args);
      },
    )
    .command(
      'list',
      'list the server scenarios with their requirement ids',
      (y) => y,
      () => {
        for (const s of serverScenarios) process.stdout.write(`${s.id}  [${s.requirements.join(', ')}]  ${s.title}\n`);
      },
    )
    .demandCommand(1, 'name a command: server, validate or list')
    .fail((message, error) => {
      // yargs' own usage errors come as a message; ours as SetupError; anything else is a bug.
      if (error && !(error instanceof SetupError)) throw error;
      fail(`${error?.message ?? message} (see mcpcheck --help)`);
    })
    .help()
    .parseAsync();
}

main(hideBin(process.argv)).catch((e: unknown) => {
  if (e instanceof SetupError) fail(e.message);
  process.stderr.write(`mcpcheck: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(3);
});
