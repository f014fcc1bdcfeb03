import { readFile } from 'node:fs/promises';
import yargs from 'yargs';
import { SetupError } from '../errors.js';
import type { Baseline } from '../grade/index.js';
import type { RunReport } from '../model.js';
import { toolInfo } from '../version.js';
import { parseSeed, PROPERTY_CASES } from '../property/seed.js';
import { EXIT_CODES_HELP, write } from './exit.js';
import { checkReportPaths, emitReport, errnoText, STDOUT, type ReportFlags } from './report-output.js';

// Each command imports what it runs when it runs: `mcpcheck --help` or `list` must not pay for
// ajv, the schemas and every suite.

async function readBaseline(path: string | undefined): Promise<Baseline | undefined> {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new SetupError(`--baseline ${path}: cannot read it (${errnoText(e)})`);
  }
  const { loadBaseline } = await import('../grade/index.js');
  try {
    return loadBaseline(text, path);
  } catch (e) {
    throw new SetupError((e as Error).message);
  }
}

async function finish(report: RunReport, flags: ReportFlags): Promise<never> {
  await emitReport(report, flags);
  const { exitCode } = await import('../grade/index.js');
  process.exit(exitCode(report));
}

/** Comma-separated or repeated list flags, as one list. */
function list(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
}

const reportOptions = {
  json: { type: 'string', describe: `write the JSON report to this file (${STDOUT}: to stdout, the console report then goes to stderr)`, requiresArg: true },
  junit: { type: 'string', describe: `write a JUnit XML report to this file (${STDOUT}: to stdout, as for --json)`, requiresArg: true },
  html: { type: 'string', describe: 'write a single-file HTML report (filters, search, wire logs; works offline) to this file', requiresArg: true },
  baseline: { type: 'string', describe: 'JSON list of expected failures (check or requirement ids)', requiresArg: true },
  verbose: { type: 'boolean', describe: 'list passing and skipped checks too' },
  color: { type: 'boolean', describe: 'force colour on or off (default: on for a terminal, off when NO_COLOR is set)' },
} as const;

const serverOptions = {
  stdio: { type: 'string', describe: 'command that starts the server on stdio (a fresh process per isolated scenario)', requiresArg: true },
  url: { type: 'string', describe: 'Streamable HTTP endpoint of the server', requiresArg: true },
  start: { type: 'string', describe: 'with --url: command that serves the URL; started first, stopped last', requiresArg: true },
  header: { type: 'string', array: true, describe: 'with --url: "Name: value" sent on every request (redacted in reports)', requiresArg: true },
  concurrency: { type: 'number', describe: 'scenarios run at once (default: number of cores)', requiresArg: true },
  timeout: { type: 'number', describe: 'per-scenario timeout in ms (default 30000)', requiresArg: true },
  'request-timeout': { type: 'number', describe: 'per-request timeout in ms (default 10000)', requiresArg: true },
  only: { type: 'string', array: true, describe: 'run only these scenario ids, areas, requirement ids or live checks (live.REQ-ID); comma-separated or repeated', requiresArg: true },
  skip: { type: 'string', array: true, describe: 'skip these scenario ids, areas, requirement ids or live checks', requiresArg: true },
  'call-tools': { type: 'string', describe: 'which tools to call: readonly (default: readOnlyHint true), all, none, or NAME,NAME', requiresArg: true },
  'origin-probe': { type: 'string', describe: 'the foreign Origin sent by the HTTP Origin check', requiresArg: true },
  transcript: { type: 'string', describe: 'write one transcript per session into this folder', requiresArg: true },
  seed: { type: 'string', describe: 'seed of the generated cases of property scenarios (default: a fresh one, printed in the report)', requiresArg: true },
  properties: { type: 'number', describe: `generated cases per property scenario (default ${PROPERTY_CASES}; 0 turns them off)`, requiresArg: true },
} as const;

const clientOptions = {
  command: { type: 'string', describe: 'the client command; {url} becomes mcpcheck\'s HTTP endpoint, {stdio} a command line starting mcpcheck\'s stdio server (neither: the URL is appended)', requiresArg: true, demandOption: true },
  shell: { type: 'boolean', describe: 'run --command through sh -c (default: split into words, no shell)' },
  concurrency: { type: 'number', describe: 'client processes at once (default: twice the number of cores)', requiresArg: true },
  timeout: serverOptions.timeout,
  'request-timeout': serverOptions['request-timeout'],
  only: serverOptions.only,
  skip: serverOptions.skip,
  transcript: serverOptions.transcript,
  seed: serverOptions.seed,
  properties: serverOptions.properties,
} as const;

const fuzzOptions = {
  stdio: { type: 'string', describe: 'command that starts the server on stdio (restarted after a crash)', requiresArg: true },
  url: { type: 'string', describe: 'Streamable HTTP endpoint of the server (loopback only, unless --allow-remote)', requiresArg: true },
  'allow-remote': { type: 'boolean', describe: 'allow a --url that is not a loopback address' },
  runs: { type: 'number', describe: 'generated cases (default 200; shrinking steps come on top)', requiresArg: true },
  seed: clientOptions.seed,
  'time-budget': { type: 'number', describe: 'seconds; no case starts after it, and a run cut short is reported incomplete (exit 3)', requiresArg: true },
  'call-tools': serverOptions['call-tools'],
  'case-timeout': { type: 'number', describe: 'ms a case\'s response and the ping after it may take (default 5000); a ping slower than this is a hang', requiresArg: true },
  'max-string': { type: 'number', describe: 'longest generated string in characters (default 100000; up to 10485760)', requiresArg: true },
  out: { type: 'string', describe: 'folder for the failures: a case to --replay and a transcript each (default reports/fuzz)', requiresArg: true },
  replay: { type: 'string', describe: 'send one saved case (a .case.json from --out) instead of generating', requiresArg: true },
  json: reportOptions.json,
  junit: reportOptions.junit,
  html: reportOptions.html,
  verbose: reportOptions.verbose,
  color: reportOptions.color,
} as const;

/** Fuzz flags: whole numbers in range. */
function fuzzNumbers(a: Record<string, unknown>): true {
  const ranges: Record<string, [number, number]> = { runs: [1, 1_000_000], 'time-budget': [1, 86_400], 'case-timeout': [1, 600_000], 'max-string': [1, 10 * 1024 * 1024] };
  for (const [name, [min, max]] of Object.entries(ranges)) {
    const v = a[name];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)) throw new SetupError(`--${name} takes a whole number from ${min} to ${max}`);
  }
  return true;
}

function positiveWholeNumbers(a: Record<string, unknown>): true {
  for (const name of ['concurrency', 'timeout', 'request-timeout']) {
    const v = a[name];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)) throw new SetupError(`--${name} takes a positive whole number`);
  }
  return true;
}

/** `--seed` is a 32-bit whole number (fast-check's range); `--properties` a whole number, 0 allowed. */
function propertyOptions(a: Record<string, unknown>): true {
  if (a.seed !== undefined && parseSeed(a.seed) === undefined) throw new SetupError('--seed takes a whole number from -2147483648 to 2147483647');
  const n = a.properties;
  if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 1000)) throw new SetupError('--properties takes a whole number from 0 to 1000');
  return true;
}

export async function main(argv: string[]): Promise<void> {
  await yargs(argv)
    .scriptName('mcpcheck')
    .version(toolInfo().version)
    .alias('version', 'V')
    .strict()
    .command(
      'validate <files..>',
      'validate recorded MCP sessions (JSON Lines transcripts)',
      (y) =>
        y
          .positional('files', { type: 'string', array: true, demandOption: true })
          .options({ judge: { choices: ['client', 'server'] as const, describe: 'judge only what this side sent (default: both)', requiresArg: true } })
          .options(reportOptions)
          .epilogue(EXIT_CODES_HELP),
      async (args) => {
        await checkReportPaths(args);
        const baseline = await readBaseline(args.baseline);
        const { validateFiles } = await import('../commands/validate.js');
        const report = await validateFiles({ files: args.files as string[], ...(baseline ? { baseline } : {}), ...(args.judge ? { judge: args.judge } : {}) });
        await finish(report, args);
      },
    )
    .command(
      'server',
      'test an MCP server over stdio or Streamable HTTP',
      (y) =>
        y
          .options(serverOptions)
          .options(reportOptions)
          .epilogue(EXIT_CODES_HELP)
          .check(positiveWholeNumbers)
          .check(propertyOptions),
      async (args) => {
        await checkReportPaths(args);
        const baseline = await readBaseline(args.baseline);
        const { testServer } = await import('../commands/server.js');
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
          ...(args.seed !== undefined ? { seed: parseSeed(args.seed)! } : {}),
          ...(args.properties !== undefined ? { properties: args.properties } : {}),
          targetFlags,
        });
        await finish(report, args);
      },
    )
    .command(
      'client',
      'test an MCP client: mcpcheck plays the server, over Streamable HTTP or stdio',
      (y) => y.options(clientOptions).options(reportOptions).epilogue(EXIT_CODES_HELP).check(positiveWholeNumbers).check(propertyOptions),
      async (args) => {
        await checkReportPaths(args);
        const baseline = await readBaseline(args.baseline);
        const { testClient } = await import('../commands/client.js');
        const report = await testClient({
          command: args.command,
          ...(args.shell ? { shell: true } : {}),
          ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
          ...(args.timeout !== undefined ? { scenarioTimeoutMs: args.timeout } : {}),
          ...(args['request-timeout'] !== undefined ? { requestTimeoutMs: args['request-timeout'] } : {}),
          only: list(args.only),
          skip: list(args.skip),
          ...(args.transcript !== undefined ? { transcriptDir: args.transcript } : {}),
          ...(baseline ? { baseline } : {}),
          ...(args.seed !== undefined ? { seed: parseSeed(args.seed)! } : {}),
          ...(args.properties !== undefined ? { properties: args.properties } : {}),
          targetFlags: `--command ${JSON.stringify(args.command)}${args.shell ? ' --shell' : ''}`,
        });
        await finish(report, args);
      },
    )
    .command(
      'fuzz',
      'send generated and mutated input to an MCP server; failures are shrunk, saved and replayable',
      (y) => y.options(fuzzOptions).epilogue(EXIT_CODES_HELP).check(fuzzNumbers).check(propertyOptions),
      async (args) => {
        await checkReportPaths(args);
        const { fuzzServer } = await import('../commands/fuzz.js');
        const { freshSeed } = await import('../property/seed.js');
        const report = await fuzzServer({
          ...(args.stdio !== undefined ? { stdio: args.stdio } : {}),
          ...(args.url !== undefined ? { url: args.url } : {}),
          ...(args['allow-remote'] ? { allowRemote: true } : {}),
          runs: args.runs ?? 200,
          seed: args.seed !== undefined ? parseSeed(args.seed)! : freshSeed(),
          ...(args['time-budget'] !== undefined ? { timeBudget: args['time-budget'] } : {}),
          ...(args['call-tools'] !== undefined ? { callTools: args['call-tools'] } : {}),
          ...(args['case-timeout'] !== undefined ? { caseTimeoutMs: args['case-timeout'] } : {}),
          ...(args['max-string'] !== undefined ? { maxString: args['max-string'] } : {}),
          outDir: args.out ?? 'reports/fuzz',
          ...(args.replay !== undefined ? { replay: args.replay } : {}),
          targetFlags: args.stdio !== undefined ? `--stdio ${JSON.stringify(args.stdio)}` : `--url ${JSON.stringify(args.url)}${args['allow-remote'] ? ' --allow-remote' : ''}`,
        });
        await emitReport(report, args);
        // Anything fuzzing finds counts, a SHOULD (warn) as much as a MUST: it is a bug to look at.
        const found = report.summary.checks.fail + report.summary.checks.warn > 0;
        const { exitCode } = await import('../grade/index.js');
        process.exit(found ? 1 : exitCode(report));
      },
    )
    .command(
      'list',
      'list the scenarios with their requirement ids (and, for clients, what the client is asked to do)',
      (y) => y.options({ role: { choices: ['server', 'client'] as const, default: 'server' as const, describe: 'the role of the target the scenarios test' } }),
      async (args) => {
        if (args.role === 'client') {
          const { clientScenarios } = await import('../../suites/client/index.js');
          const { describeSteps } = await import('../runner/client-scenario.js');
          const line = (s: (typeof clientScenarios)[number]) => `${s.id}${s.alias ? ` (alias ${s.alias})` : ''}  [${s.requirements.join(', ')}]${s.needs?.transport ? ` ${s.needs.transport} only` : ''}  ${s.title}\n    asks the client to: ${describeSteps(s.steps)}\n`;
          await write(process.stdout, clientScenarios.map(line).join(''));
          return;
        }
        const { serverScenarios } = await import('../../suites/server/index.js');
        await write(process.stdout, serverScenarios.map((s) => `${s.id}  [${s.requirements.join(', ')}]  ${s.title}\n`).join(''));
      },
    )
    .demandCommand(1, 'name a command: server, client, fuzz, validate or list')
    .fail((message, error) => {
      // yargs reports its own usage errors as a message or a YError; ours come as SetupError, bugs as anything else.
      if (error && error.name !== 'YError') throw error;
      throw new SetupError(`${message ?? error?.message} (see mcpcheck --help)`);
    })
    .help()
    .alias('help', 'h')
    .epilogue(EXIT_CODES_HELP)
    .parseAsync();
}
