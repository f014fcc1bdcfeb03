import { SetupError } from '../errors.js';
import type { Baseline } from '../grade/index.js';
import type { RunReport } from '../model.js';
import { toolInfo } from '../version.js';
import { command, type FlagSpec, parse, type ParsedFlags } from './args.js';
import { parseSeed, PROPERTY_CASES } from '../property/seed.js';
import { PACE_CEILING_MS, STARTUP_MS } from '../harness/pace.js';
import { STALLS_CEILING_MS } from '../runner/guard.js';
import { LATEST_REVISION, LATEST_STATEFUL_REVISION } from '../spec/revisions.js';
import type { RunControl } from '../runner/observer.js';
import { PROBE_TOKEN_FLAGS, type ProbeTokens } from '../runner/scenario.js';
import { EXIT_CODES_HELP, EXIT_INTERRUPTED, FUZZ_EXIT_CODES_HELP, PROXY_EXIT_CODES_HELP, useRedactor, write } from './exit.js';
import { redactorFor, type Redactor, targetEnv } from '../redact.js';
import { invocation } from './invocation.js';
import { FILE_FORMATS, FILE_FORMAT_NAMES, type FileFormatName } from '../report/formats.js';
import type { WatchFlags } from './run-control.js';
import { readBaseline, readSavedChecks, writeUpdatedBaseline } from './baseline-file.js';
import { checkReportPaths, emitReport, REPORTERS, STDOUT, type ReportFlags, writableFile } from './report-output.js';
import { startReads } from '../transcript/read-file.js';
import { CATALOG_REVISIONS } from '../spec/revisions.js';
import { inNetworkSandbox } from '../harness/network-sandbox.js';
import { runInNetworkSandbox } from './network-sandbox.js';

// Each command imports what it runs when it runs: `mcpcheck --help` or `list` must not pay for
// ajv, the schemas and every suite.

interface BaselineFlags {
  'update-baseline'?: string | undefined;
}

/**
 * Report files and the console report, the updated baseline on request, then the exit code: the
 * graded one, or 130 for an interrupted run. An interrupted run writes no baseline: the entries of
 * what it never finished would be dropped as if they passed.
 */
async function finish(report: RunReport, flags: ReportFlags & BaselineFlags, baseline: Baseline | undefined, redactor: Redactor): Promise<never> {
  await emitReport(report, flags, redactor);
  const update = flags['update-baseline'];
  const interrupted = report.summary.interrupted === true;
  if (update !== undefined && interrupted) await write(process.stderr, `mcpcheck: --update-baseline ${update}: not written, the run was interrupted\n`);
  const { allChecks, exitCode } = await import('../grade/index.js');
  if (update !== undefined && !interrupted) await writeUpdatedBaseline(`--update-baseline ${update}`, update, allChecks(report), baseline);
  process.exit(interrupted ? EXIT_INTERRUPTED : exitCode(report));
}

/** What a run keeps out of its output: the environment's values and its `--header` values (redact.ts); errors use it from now on. */
function runRedactor(args: { header?: string[] | undefined; 'token-env'?: string | undefined }): Redactor {
  const redactor = redactorFor(process.env, [...(args.header ?? []), ...tokenHeader(args)]);
  useRedactor(redactor);
  return redactor;
}

/**
 * The run of a command that grades: its report paths checked before anything runs, the baseline
 * read, then the report and the exit code (finish).
 */
function graded<A extends ReportFlags & BaselineFlags & { baseline?: string | undefined; header?: string[] | undefined }>(
  produce: (args: A, baseline: Baseline | undefined, positionals: string[], redactor: Redactor) => Promise<RunReport>,
): (args: A, positionals: string[]) => Promise<void> {
  return async (args, positionals) => {
    const redactor = runRedactor(args);
    await checkReportPaths(args);
    const baseline = await readBaseline(args.baseline);
    await finish(await produce(args, baseline, positionals, redactor), args, baseline, redactor);
  };
}

/**
 * A server or client run, watched (progress, Ctrl-C): the progress line is gone before anything
 * else prints. Ctrl-C that ends the run before it could grade anything (say, while --start's
 * server came up) exits 130 with one line.
 */
async function watched(flags: WatchFlags, redactor: Redactor, run: (control: RunControl) => Promise<RunReport>, unit?: string): Promise<RunReport> {
  const { watchRun } = await import('./run-control.js');
  const watch = watchRun(flags, redactor, unit);
  try {
    return await run(watch.control);
  } catch (e) {
    if (!watch.control.signal?.aborted) throw e;
    await write(process.stderr, 'mcpcheck: interrupted before any scenario ran: no report\n');
    process.exit(EXIT_INTERRUPTED);
  } finally {
    watch.settle();
  }
}

interface ServerTargetArgs {
  stdio?: string | undefined;
  url?: string | undefined;
  start?: string | undefined;
  header?: string[] | undefined;
  'token-env'?: string | undefined;
}

/**
 * `--token-env NAME`: the Authorization header carrying the variable's value as a bearer token, so
 * that the token is in no process list and a reproduce line names the variable, not the token.
 */
function tokenHeader(args: Pick<ServerTargetArgs, 'header' | 'token-env'>): string[] {
  const name = args['token-env'];
  if (name === undefined) return [];
  const value = process.env[name];
  if (value === undefined || value.trim() === '') throw new SetupError(`--token-env ${name}: the environment variable ${name} is not set`);
  if (/\s/.test(value.trim())) throw new SetupError(`--token-env ${name}: the value of ${name} is no bearer token (it holds white space)`);
  if ((args.header ?? []).some((h) => /^\s*authorization\s*:/i.test(h))) throw new SetupError('--token-env and --header "Authorization: …" both give the credential: give it once');
  return [`Authorization: Bearer ${value.trim()}`];
}

type ProbeTokenFlag = (typeof PROBE_TOKEN_FLAGS)[keyof ProbeTokens];
type ProbeTokenArgs = { url?: string | undefined } & { [flag in ProbeTokenFlag]?: string | undefined };

/** The tokens the authorization scenarios present, each from the environment variable its flag names. */
function probeTokensOption(args: ProbeTokenArgs): { probeTokens?: ProbeTokens } {
  const tokens: ProbeTokens = {};
  for (const [kind, flag] of Object.entries(PROBE_TOKEN_FLAGS) as Array<[keyof ProbeTokens, ProbeTokenFlag]>) {
    const name = args[flag];
    if (name === undefined) continue;
    if (args.url === undefined) throw new SetupError(`--${flag} goes with --url`);
    const value = process.env[name]?.trim();
    if (!value) throw new SetupError(`--${flag} ${name}: the environment variable ${name} is not set`);
    tokens[kind] = value;
  }
  return Object.keys(tokens).length > 0 ? { probeTokens: tokens } : {};
}

/** The server under test, as `server` and `fuzz` take it from their flags. */
function serverTarget(args: ServerTargetArgs): { stdio?: string; url?: string; start?: string; headers: string[] } {
  if (args['token-env'] !== undefined && args.url === undefined) throw new SetupError('--token-env goes with --url');
  return {
    ...(args.stdio !== undefined ? { stdio: args.stdio } : {}),
    ...(args.url !== undefined ? { url: args.url } : {}),
    ...(args.start !== undefined ? { start: args.start } : {}),
    headers: [...(args.header ?? []), ...tokenHeader(args)],
  };
}

/** The flags that name the server again in a reproduce line (header values never: they may be secrets; --token-env names a variable, not its value). */
function serverTargetFlags(args: ServerTargetArgs): string {
  if (args.stdio !== undefined) return `--stdio ${JSON.stringify(args.stdio)}`;
  return `--url ${JSON.stringify(args.url)}${args.start ? ` --start ${JSON.stringify(args.start)}` : ''}${args['token-env'] !== undefined ? ` --token-env ${args['token-env']}` : ''}`;
}

/** Comma-separated or repeated list flags, as one list. */
function list(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
}

/** `--json FILE`, `--junit FILE`, …: one flag per file format, from the format table. */
/** How long a process mcpcheck started may take to start, as the pace sets it (src/harness/pace.ts). */
const START_WAIT = `the first up to ${PACE_CEILING_MS} ms, measured; a later one twice that times the ones starting at once, at least ${STARTUP_MS} ms`;

const fileOptions = Object.fromEntries(
  FILE_FORMAT_NAMES.map((name): [FileFormatName, FlagSpec] => [name, { type: 'string', describe: `write ${FILE_FORMATS[name].what} to this file (${STDOUT}: to stdout, the console report then goes to stderr)`, arg: 'file' }]),
) as Record<FileFormatName, { type: 'string'; describe: string; arg: string }>;

const outputOptions = {
  ...fileOptions,
  reporter: {
    type: 'string',
    array: true,
    choices: REPORTERS,
    describe: 'send this format to stdout (console by default; the console report then goes to stderr); github adds annotations (on by default when GITHUB_ACTIONS=true). Repeatable, combines with file flags; only one format can own stdout'
  },
  verbose: { type: 'boolean', describe: 'list passing and skipped checks too (server, client: and print failing checks as they happen, on a terminal)' },
  color: { type: 'boolean', describe: 'force colour on or off (default: on for a terminal, off when NO_COLOR is set)' },
} as const;

const reportOptions = {
  ...outputOptions,
  baseline: { type: 'string', arg: 'file', describe: 'JSON list of expected failures (check or requirement ids, each optionally with a reason)' },
  'update-baseline': { type: 'string', arg: 'file', describe: "write this run's failures as a baseline to this file (keeps --baseline's entries that still fail, drops stale ones)" },
} as const;

const serverOptions = {
  stdio: { type: 'string', arg: 'command', describe: 'command that starts the server on stdio (a fresh process per isolated scenario)' },
  url: { type: 'string', arg: 'url', describe: 'Streamable HTTP endpoint of the server' },
  start: { type: 'string', arg: 'command', describe: `with --url: command that serves the URL; started first (its start, until the URL accepts connections: ${START_WAIT}), stopped last` },
  header: { type: 'string', array: true, arg: 'Name: value', describe: 'with --url: "Name: value" sent on every request (redacted in reports)' },
  'token-env': {
    type: 'string',
    arg: 'NAME',
    describe: 'with --url: send "Authorization: Bearer <the value of environment variable NAME>" on every request; the token is in no process list, report or reproduce line (they name NAME)',
  },
  'expired-token-env': { type: 'string', arg: 'NAME', describe: 'with --url: an expired token of the server\'s, in environment variable NAME: server.auth.expired-token expects it refused with 401' },
  'other-audience-token-env': { type: 'string', arg: 'NAME', describe: 'with --url: a token issued for another resource, in environment variable NAME: server.auth.other-audience-token expects it refused with 401' },
  'narrow-token-env': { type: 'string', arg: 'NAME', describe: 'with --url: a valid token lacking a scope some request needs, in environment variable NAME: server.auth.insufficient-scope expects 403 insufficient_scope naming the scope' },
  'other-user-token-env': { type: 'string', arg: 'NAME', describe: 'with --url: a valid token of another user (another authorization context), in environment variable NAME: the task isolation and session scenarios expect that user refused the tasks and the session the run\'s token made' },
  'broad-token-env': { type: 'string', arg: 'NAME', describe: 'with --url: a valid token holding only a scope that, by the server\'s scope hierarchy, covers every scope its requests need (a parent scope), in environment variable NAME: server.modern.auth.scope-hierarchy expects it served (2026-07-28)' },
  local: { type: 'boolean', describe: 'the server is meant to run on its user\'s machine: judged on the security best practices\' rule for local servers (stdio, or HTTP refusing requests without credentials: SEC-LOCAL-02)' },
  'client-id': {
    type: 'string',
    describe: "with --url and --client-secret-env: get the run's token by the client credentials grant, from the authorization server the server's Protected Resource Metadata names (the secret goes over https or to loopback only)",
  },
  'client-secret-env': { type: 'string', arg: 'NAME', describe: "with --client-id: the client's secret, in environment variable NAME" },
  concurrency: { type: 'number', describe: 'scenarios run at once (default: number of cores; twice that over HTTP)' },
  timeout: {
    type: 'number',
    describe: `per-scenario budget in ms for its own work (default 30000), a floor: what its sessions wait on the target to start (stdio), to read what is sent or to answer ping comes on top, up to ${STALLS_CEILING_MS} ms more`,
  },
  'request-timeout': {
    type: 'number',
    describe: `per-request timeout in ms (default 10000), a floor: stretched to 20 of the target's typical ping round trips when it is slower, up to ${PACE_CEILING_MS} ms; a fresh process's start: ${START_WAIT}`,
  },
  only: { type: 'string', array: true, describe: 'run only these scenario ids, areas, requirement ids or live checks (live.REQ-ID); comma-separated or repeated' },
  skip: { type: 'string', array: true, describe: 'skip these scenario ids, areas, requirement ids or live checks' },
  'call-tools': { type: 'string', describe: 'which tools to call: readonly (default: readOnlyHint true), all, none, or NAME,NAME' },
  'origin-probe': { type: 'string', describe: 'the foreign Origin sent by the HTTP Origin check' },
  transcript: { type: 'string', arg: 'dir', describe: 'write one transcript per session into this folder' },
  seed: { type: 'string', describe: 'seed of the generated cases of property scenarios (default: a fresh one, printed in the report)' },
  properties: { type: 'number', describe: `generated cases per property scenario (default ${PROPERTY_CASES}; 0 turns them off)` },
  quiet: { type: 'boolean', describe: 'no progress line on the terminal (the report still prints)' },
  'target-env': {
    type: 'string',
    array: true,
    arg: 'NAME',
    describe: "start the target with only these of mcpcheck's environment variables (comma-separated or repeated; name PATH too unless the command is a full path). Default: all of them. Either way, reports show $NAME in place of a variable's value",
  },
} as const;

const clientOptions = {
  command: { type: 'string', arg: 'command', describe: `the client command; {url} becomes mcpcheck's HTTP endpoint, {stdio} a command line starting mcpcheck's stdio server (neither: the URL is appended); its start, until its first message: ${START_WAIT}`, demandOption: true },
  shell: { type: 'boolean', describe: 'run --command through sh -c (default: split into words, no shell)' },
  concurrency: { type: 'number', describe: 'client processes at once (default: twice the number of cores)' },
  timeout: { type: 'number', describe: 'per-scenario timeout in ms (default 30000)' },
  'request-timeout': { type: 'number', describe: 'per-request timeout in ms (default 10000)' },
  only: serverOptions.only,
  skip: serverOptions.skip,
  transcript: serverOptions.transcript,
  seed: serverOptions.seed,
  properties: serverOptions.properties,
  quiet: serverOptions.quiet,
  'target-env': serverOptions['target-env'],
  'network-sandbox': { type: 'boolean', describe: 'run in a network namespace of its own (Linux: unshare and ip), whose loopback carries a private and a non-loopback address too: the client\'s OAuth discovery is judged there (SEC-SSRF-*), and nothing can leave the machine; the client must not need the network' },
} as const;

const fuzzOptions = {
  stdio: { type: 'string', arg: 'command', describe: 'command that starts the server on stdio (restarted after a crash)' },
  url: { type: 'string', arg: 'url', describe: 'Streamable HTTP endpoint of the server (loopback only, unless --allow-remote)' },
  start: { type: 'string', arg: 'command', describe: `with --url: command that serves the URL; started first, started again after the server crashed or hung (its start, until the URL accepts connections: ${START_WAIT}), stopped last` },
  header: serverOptions.header,
  'token-env': serverOptions['token-env'],
  'target-env': serverOptions['target-env'],
  'allow-remote': { type: 'boolean', describe: 'allow a --url that is not a loopback address' },
  runs: { type: 'number', describe: 'generated cases (default 200; shrinking steps come on top)' },
  sequences: { type: 'number', describe: 'generated sequences of operations (list, call, subscribe, setLevel, cancel, at once), each on a fresh session (default 10; 0: none)' },
  seed: clientOptions.seed,
  'time-budget': { type: 'number', describe: 'seconds; no case starts after it: cases left unsent make the run incomplete (exit 3); sequences cut once every case ran are reported (k of N ran), not incomplete' },
  'call-tools': serverOptions['call-tools'],
  quiet: serverOptions.quiet,
  'case-timeout': { type: 'number', describe: `ms a case's response and the ping after it may take (default 5000), as given; a ping slower than this is a hang, a response that never comes while ping is answered fails fuzz.one-response. A fresh process's start is waited for apart from it: ${START_WAIT}` },
  'max-string': { type: 'number', describe: 'longest generated string in characters (default 100000; up to 10485760)' },
  out: { type: 'string', arg: 'dir', describe: 'folder for the failures: a case to --replay and a transcript each (default reports/fuzz)' },
  replay: { type: 'string', arg: 'file', describe: 'send one saved case (a .case.json from --out) instead of generating; it is sent in the revision it was found in' },
  'spec-version': {
    choices: [LATEST_STATEFUL_REVISION, LATEST_REVISION],
    arg: 'revision',
    describe: `fuzz in this protocol revision: ${LATEST_STATEFUL_REVISION} (initialize, sessions) or ${LATEST_REVISION} (server/discover, per-request _meta, multi round-trip retries). Default: the newest era the server serves (a dual-era server is fuzzed in ${LATEST_REVISION}; the notes say the other era was not fuzzed)`,
  },
  ...outputOptions,
} as const;

/** Fuzz flags: whole numbers in range. */
function fuzzNumbers(a: Record<string, unknown>): void {
  const ranges: Record<string, [number, number]> = { runs: [1, 1_000_000], sequences: [0, 100_000], 'time-budget': [1, 86_400], 'case-timeout': [1, 600_000], 'max-string': [1, 10 * 1024 * 1024] };
  for (const [name, [min, max]] of Object.entries(ranges)) {
    const v = a[name];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)) throw new SetupError(`--${name} takes a whole number from ${min} to ${max}`);
  }
}

function positiveWholeNumbers(a: Record<string, unknown>): void {
  for (const name of ['concurrency', 'timeout', 'request-timeout']) {
    const v = a[name];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)) throw new SetupError(`--${name} takes a positive whole number`);
  }
}

/** `--seed` is a 32-bit whole number (fast-check's range); `--properties` a whole number, 0 allowed. */
function propertyOptions(a: Record<string, unknown>): void {
  if (a.seed !== undefined && parseSeed(a.seed) === undefined) throw new SetupError('--seed takes a whole number from -2147483648 to 2147483647');
  const n = a.properties;
  if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 1000)) throw new SetupError('--properties takes a whole number from 0 to 1000');
}

interface RunFlags {
  concurrency?: number | undefined;
  timeout?: number | undefined;
  'request-timeout'?: number | undefined;
  only?: string[] | undefined;
  skip?: string[] | undefined;
  transcript?: string | undefined;
  seed?: string | undefined;
  properties?: number | undefined;
  'target-env'?: string[] | undefined;
}

/** The target's environment: --target-env's variables alone, when given. */
function targetEnvOption(args: { 'target-env'?: string[] | undefined }): { env?: NodeJS.ProcessEnv } {
  return args['target-env'] !== undefined ? { env: targetEnv(process.env, list(args['target-env'])) } : {};
}

/** How this process was started, as a reproduce line should start. */
function invokedAs(): string {
  return invocation(process.argv[1] ?? 'mcpcheck', process.env, process.cwd());
}

/** What server and client runs take alike from their flags. */
function runOptions(args: RunFlags, baseline: Baseline | undefined, redactor: Redactor) {
  return {
    redactor,
    invokedAs: invokedAs(),
    ...targetEnvOption(args),
    ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
    ...(args.timeout !== undefined ? { scenarioTimeoutMs: args.timeout } : {}),
    ...(args['request-timeout'] !== undefined ? { requestTimeoutMs: args['request-timeout'] } : {}),
    only: list(args.only),
    skip: list(args.skip),
    ...(args.transcript !== undefined ? { transcriptDir: args.transcript } : {}),
    ...(baseline ? { baseline } : {}),
    ...(args.seed !== undefined ? { seed: parseSeed(args.seed)! } : {}),
    ...(args.properties !== undefined ? { properties: args.properties } : {}),
  };
}

/** Server and client runs: their numbers, then their property flags. */
function runNumbers(a: Record<string, unknown>): void {
  positiveWholeNumbers(a);
  propertyOptions(a);
}

const validateCommand = command({
  name: 'validate',
  describe: 'validate recorded MCP sessions (JSON Lines transcripts)',
  positional: { name: '<files..>', what: 'transcript file', variadic: true },
  flags: { judge: { choices: ['client', 'server'], describe: 'judge only what this side sent (default: both)' }, ...reportOptions },
  epilogue: EXIT_CODES_HELP,
  run: graded(async (args, baseline, files) => {
    // Read while the validator loads.
    const reads = startReads(files);
    const { validateFiles } = await import('../commands/validate.js');
    return validateFiles({ files, reads, invokedAs: invokedAs(), ...(baseline ? { baseline } : {}), ...(args.judge ? { judge: args.judge } : {}) });
  }),
});

/** --client-id with --client-secret-env: the client whose token, from the client credentials grant, the run carries. */
function clientCredentialsOption(args: ServerTargetArgs & { 'client-id'?: string | undefined; 'client-secret-env'?: string | undefined }): { clientCredentials?: { clientId: string; secret: string } } {
  const id = args['client-id'];
  const name = args['client-secret-env'];
  if (id === undefined && name === undefined) return {};
  if (id === undefined || name === undefined) throw new SetupError('--client-id and --client-secret-env go together');
  if (args.url === undefined) throw new SetupError('--client-id goes with --url');
  if (args['token-env'] !== undefined || (args.header ?? []).some((h) => /^\s*authorization\s*:/i.test(h))) throw new SetupError('--client-id and --token-env (or --header "Authorization: …") both give the credential: give it once');
  const secret = process.env[name];
  if (secret === undefined || secret === '') throw new SetupError(`--client-secret-env ${name}: the environment variable ${name} is not set`);
  return { clientCredentials: { clientId: id, secret } };
}

const serverFlags = {
  ...serverOptions,
  'spec-version': {
    choices: [LATEST_STATEFUL_REVISION, LATEST_REVISION],
    arg: 'revision',
    describe: `test this protocol revision alone: ${LATEST_STATEFUL_REVISION} (initialize, sessions) or ${LATEST_REVISION} (server/discover, per-request _meta). Default: find out which eras the server serves and test each, one report with a section per era, the exit code covering both`,
  },
  'allow-remote-metadata': {
    type: 'boolean',
    describe: "with --url, of a protected server: the authorization servers its metadata names are graded on their metadata, each in a section of its own (the exit code covers them); one on neither loopback nor the server's host is contacted only with this flag, and then only sent GETs of its public metadata documents",
  },
  ...reportOptions,
} as const;

const gradedServer = graded<ParsedFlags<typeof serverFlags>>(async (args, baseline, _files, redactor) => {
  const { testServer } = await import('../commands/server.js');
  // The probe tokens' flags name variables, not tokens: a reproduce line keeps them and runs as pasted.
  const probeFlags = Object.values(PROBE_TOKEN_FLAGS).flatMap((flag) => (args[flag] !== undefined ? [` --${flag} ${args[flag]}`] : [])).join('');
  const credentialFlags = args['client-id'] !== undefined ? ` --client-id ${JSON.stringify(args['client-id'])} --client-secret-env ${args['client-secret-env']}` : '';
  const targetFlags = serverTargetFlags(args) + probeFlags + credentialFlags + (args.local ? ' --local' : '');
  return watched(args, redactor, (control) => testServer({
    control,
    ...serverTarget(args),
    ...runOptions(args, baseline, redactor),
    ...(args['call-tools'] !== undefined ? { callTools: args['call-tools'] } : {}),
    ...(args['origin-probe'] !== undefined ? { originProbe: args['origin-probe'] } : {}),
    ...(args['spec-version'] !== undefined ? { specVersion: args['spec-version'] } : {}),
    ...probeTokensOption(args),
    ...clientCredentialsOption(args),
    ...(args.local ? { local: true } : {}),
    ...(args['allow-remote-metadata'] ? { allowRemoteMetadata: true } : {}),
    targetFlags,
  }));
});

const serverCommand = command({
  name: 'server',
  describe: 'test an MCP server over stdio or Streamable HTTP',
  flags: serverFlags,
  check: runNumbers,
  epilogue: EXIT_CODES_HELP,
  run: gradedServer,
});

const clientCommand = command({
  name: 'client',
  describe: 'test an MCP client: mcpcheck plays the server, over Streamable HTTP or stdio',
  flags: { ...clientOptions, ...reportOptions },
  check: runNumbers,
  epilogue: EXIT_CODES_HELP,
  run: async (args, positionals) => {
    // The whole run moves into the sandbox: mcpcheck's endpoints and the client it starts.
    if (args['network-sandbox'] && !inNetworkSandbox()) return void (process.exitCode = await runInNetworkSandbox(process.argv.slice(2)));
    await clientRun(args, positionals);
  },
});

const clientRun = graded<ParsedFlags<typeof clientOptions & typeof reportOptions>>(async (args, baseline, _files, redactor) => {
  const { testClient } = await import('../commands/client.js');
  return watched(args, redactor, (control) => testClient({
    control,
    command: args.command,
    ...(args.shell ? { shell: true } : {}),
    ...runOptions(args, baseline, redactor),
    targetFlags: `--command ${JSON.stringify(args.command)}${args.shell ? ' --shell' : ''}${args['network-sandbox'] ? ' --network-sandbox' : ''}`,
  }));
});

const fuzzCommand = command({
  name: 'fuzz',
  describe: 'send generated and mutated input to an MCP server; failures are shrunk, saved and replayable',
  flags: fuzzOptions,
  check(args) {
    fuzzNumbers(args);
    propertyOptions(args);
  },
  epilogue: FUZZ_EXIT_CODES_HELP,
  async run(args) {
    const redactor = runRedactor(args);
    await checkReportPaths(args);
    const { fuzzServer } = await import('../commands/fuzz.js');
    const { freshSeed } = await import('../property/seed.js');
    const report = await watched(args, redactor, (control) => fuzzServer({
      control,
      ...serverTarget(args),
      ...targetEnvOption(args),
      redactor,
      invokedAs: invokedAs(),
      ...(args['allow-remote'] ? { allowRemote: true } : {}),
      runs: args.runs ?? 200,
      ...(args.sequences !== undefined ? { sequences: args.sequences } : {}),
      seed: args.seed !== undefined ? parseSeed(args.seed)! : freshSeed(),
      ...(args['time-budget'] !== undefined ? { timeBudget: args['time-budget'] } : {}),
      ...(args['call-tools'] !== undefined ? { callTools: args['call-tools'] } : {}),
      ...(args['case-timeout'] !== undefined ? { caseTimeoutMs: args['case-timeout'] } : {}),
      ...(args['max-string'] !== undefined ? { maxString: args['max-string'] } : {}),
      outDir: args.out ?? 'reports/fuzz',
      ...(args.replay !== undefined ? { replay: args.replay } : {}),
      ...(args['spec-version'] !== undefined ? { specVersion: args['spec-version'] } : {}),
      targetFlags: `${serverTargetFlags(args)}${args['allow-remote'] ? ' --allow-remote' : ''}`,
    }), 'cases and sequences');
    await emitReport(report, args, redactor);
    if (report.summary.interrupted) process.exit(EXIT_INTERRUPTED);
    // Anything fuzzing finds counts, a SHOULD (warn) as much as a MUST: it is a bug to look at.
    const found = report.summary.checks.fail + report.summary.checks.warn > 0;
    const { exitCode } = await import('../grade/index.js');
    process.exit(found ? 1 : exitCode(report));
  },
});

const authorizationCommand = command({
  name: 'authorization',
  describe: 'test an OAuth authorization server as MCP clients need it: metadata, registration, the code grant with PKCE, token errors (loopback only)',
  flags: {
    url: { type: 'string', arg: 'issuer', demandOption: true, describe: 'the issuer identifier (as protected resource metadata lists it); on 127.0.0.1, localhost or [::1] unless --allow-remote-metadata' },
    start: { type: 'string', arg: 'command', describe: `command that serves --url; started first (its start, until the URL accepts connections: ${START_WAIT}), stopped last` },
    'allow-remote-metadata': { type: 'boolean', describe: 'let a --url off loopback be named: mcpcheck then only GETs its public metadata documents, and sends it nothing else' },
    'client-id': { type: 'string', describe: 'a client the server knows, registered with --redirect-uri (default: mcpcheck registers one where the server offers dynamic registration)' },
    'client-secret-env': { type: 'string', arg: 'NAME', describe: "with --client-id: the client's secret, in environment variable NAME (never shown: reports and reproduce lines name NAME)" },
    'redirect-uri': { type: 'string', arg: 'uri', describe: 'the redirect URI of --client-id (default http://127.0.0.1/mcpcheck/callback; never listened on: mcpcheck reads the redirect, not follows it)' },
    scope: { type: 'string', describe: 'the scope of authorization requests (default: none)' },
    resource: { type: 'string', arg: 'uri', describe: 'the RFC 8707 resource of authorization and token requests, an MCP server the authorization server serves (default: none)' },
    'spec-version': { choices: [LATEST_STATEFUL_REVISION, LATEST_REVISION], arg: 'revision', describe: `the catalog verdicts cite (default ${LATEST_REVISION}, which adds the RFC 9207 iss checks)` },
    timeout: { type: 'number', describe: 'per-scenario timeout in ms (default 30000)' },
    'request-timeout': { type: 'number', describe: 'per-request timeout in ms (default 10000): a request unanswered by then is a could-not-run' },
    only: serverOptions.only,
    skip: serverOptions.skip,
    quiet: serverOptions.quiet,
    ...reportOptions,
  },
  check: positiveWholeNumbers,
  epilogue: EXIT_CODES_HELP,
  run: graded(async (args, baseline, _files, redactor) => {
    const { testAuthorizationServer } = await import('../commands/authorization.js');
    const secretName = args['client-secret-env'];
    const secret = secretName !== undefined ? process.env[secretName] : undefined;
    if (secretName !== undefined && (secret === undefined || secret === '')) throw new SetupError(`--client-secret-env ${secretName}: the environment variable ${secretName} is not set`);
    const shown = (flag: string, value: string | undefined) => (value !== undefined ? ` --${flag} ${JSON.stringify(value)}` : '');
    const targetFlags = `--url ${JSON.stringify(args.url)}${shown('start', args.start)}${args['allow-remote-metadata'] ? ' --allow-remote-metadata' : ''}${shown('client-id', args['client-id'])}${secretName !== undefined ? ` --client-secret-env ${secretName}` : ''}${shown('redirect-uri', args['redirect-uri'])}${shown('scope', args.scope)}${shown('resource', args.resource)}`;
    return watched(args, redactor, (control) => testAuthorizationServer({
      control,
      url: args.url,
      ...(args.start !== undefined ? { start: args.start } : {}),
      invokedAs: invokedAs(),
      targetFlags,
      only: list(args.only),
      skip: list(args.skip),
      ...(args['allow-remote-metadata'] ? { allowRemoteMetadata: true } : {}),
      ...(args['client-id'] !== undefined ? { clientId: args['client-id'] } : {}),
      ...(secret !== undefined ? { clientSecret: secret } : {}),
      ...(args['redirect-uri'] !== undefined ? { redirectUri: args['redirect-uri'] } : {}),
      ...(args.scope !== undefined ? { scope: args.scope } : {}),
      ...(args.resource !== undefined ? { resource: args.resource } : {}),
      ...(args['spec-version'] !== undefined ? { specVersion: args['spec-version'] } : {}),
      ...(args.timeout !== undefined ? { scenarioTimeoutMs: args.timeout } : {}),
      ...(args['request-timeout'] !== undefined ? { requestTimeoutMs: args['request-timeout'] } : {}),
      ...(baseline ? { baseline } : {}),
    }), 'scenarios');
  }),
});

const baselineCommand = command({
  name: 'baseline',
  describe: 'baseline upkeep: write a baseline from a saved JSON report',
  flags: {},
  demand: 'name a baseline action: write',
  commands: [
    command({
      name: 'write',
      describe: "write the failures of a saved JSON report (--from) as a baseline file, each entry with the check's title and level as its reason",
      positional: { name: '<file>', what: 'baseline file to write' },
      flags: {
        from: { type: 'string', arg: 'file', demandOption: true, describe: 'a JSON report written with --json FILE' },
        baseline: { type: 'string', arg: 'file', describe: 'the baseline the report was graded with: its entries that still fail are kept as they are' },
      },
      async run(args, [file]) {
        const checks = await readSavedChecks(args.from);
        const baseline = await readBaseline(args.baseline);
        await writeUpdatedBaseline(file!, file!, checks, baseline);
      },
    }),
  ],
});

const listCommand = command({
  name: 'list',
  describe: 'list the scenarios with their requirement ids (and, for clients, what the client is asked to do)',
  flags: {
    role: { choices: ['server', 'client', 'AS'], default: 'server', describe: 'the role of the target the scenarios test (AS: an OAuth authorization server, `mcpcheck authorization`)' },
    only: serverOptions.only,
    skip: serverOptions.skip,
    json: { type: 'boolean', describe: 'print JSON: id, alias, title, requirements with levels, transports (and steps for clients)' },
  },
  async run(args) {
    const { listScenarios, listText } = await import('../commands/list.js');
    const scenarios = await listScenarios({ role: args.role, only: list(args.only), skip: list(args.skip) });
    await write(process.stdout, args.json ? `${JSON.stringify({ role: args.role, scenarios }, null, 2)}\n` : listText(scenarios));
  },
});

/** The proxy's report files: written when the session ends; stdout is the client's, so never `-`. */
const proxyFileOptions = Object.fromEntries(
  FILE_FORMAT_NAMES.map((name): [FileFormatName, FlagSpec] => [name, { type: 'string', describe: `write ${FILE_FORMATS[name].what} to this file when the session ends`, arg: 'file' }]),
) as Record<FileFormatName, { type: 'string'; describe: string; arg: string }>;

const proxyCommand = command({
  name: 'proxy',
  describe: "stand between a real client and a real server: forward every byte unchanged, judge both sides' frames as they pass, report when the session ends",
  flags: {
    stdio: {
      type: 'string',
      arg: 'command',
      describe: "the server's command line: put `mcpcheck proxy --stdio \"<command>\"` where the client's configuration starts the server; the proxy starts it and carries the session",
    },
    url: { type: 'string', arg: 'url', describe: "a Streamable HTTP server's MCP endpoint: with --listen, the proxy forwards every request a client sends it there, and the answers back" },
    listen: { type: 'string', arg: 'host:port', describe: 'with --url: where the proxy listens, on loopback only (127.0.0.1:PORT, [::1]:PORT, localhost:PORT; port 0: any free one, told on the log); the client is given this address with the --url\'s path' },
    transcript: {
      type: 'string',
      arg: 'path',
      describe: 'write the whole exchange as it passes, in the format `mcpcheck validate` reads (secrets redacted): with --stdio to this file, with --url into this folder, one file per session',
    },
    log: { type: 'string', arg: 'file', describe: "each finding as it arises, and the report when the run ends, go to this file (default: stderr; never stdout, which is the client's with --stdio)" },
    ...proxyFileOptions,
    verbose: { type: 'boolean', describe: 'tell notes as they arise too, and list passing and skipped checks in the report' },
    color: outputOptions.color,
    baseline: reportOptions.baseline,
  },
  epilogue: PROXY_EXIT_CODES_HELP,
  async run(args) {
    if ((args.stdio === undefined) === (args.url === undefined)) throw new SetupError('name the server: --stdio "<command>", or --url URL with --listen HOST:PORT');
    if (args.stdio !== undefined && args.stdio.trim() === '') throw new SetupError('--stdio: the command is empty');
    if (args.stdio !== undefined && args.listen !== undefined) throw new SetupError('--listen goes with --url');
    const [{ targetUrl }, { isLoopbackHost }] = await Promise.all([import('../harness/target.js'), import('../validate/loopback.js')]);
    const listen = args.url !== undefined ? listenAddress(args.listen, isLoopbackHost) : undefined;
    const upstream = args.url !== undefined ? targetUrl(args.url) : undefined;
    for (const format of FILE_FORMAT_NAMES) {
      if (args[format] === STDOUT) throw new SetupError(`--${format} -: write the report to a file (the proxy's stdout is the client's connection with --stdio, and its own log with --url)`);
    }
    const redactor = runRedactor({});
    // With --stdio the transcript is a file; with --url a folder, as the other commands' --transcript.
    await checkReportPaths({ ...args, transcript: upstream !== undefined ? args.transcript : undefined });
    if (upstream === undefined && args.transcript !== undefined) await writableFile('--transcript', args.transcript);
    if (args.log !== undefined) await writableFile('--log', args.log);
    const baseline = await readBaseline(args.baseline);
    const { createWriteStream } = await import('node:fs');
    const log = args.log !== undefined ? createWriteStream(args.log, { flags: 'a' }) : process.stderr;
    const { runHttpProxy, runStdioProxy, holdSignals } = await import('../commands/proxy.js');
    const stopped = holdSignals();
    const common = {
      ...(args.transcript !== undefined ? { transcript: args.transcript } : {}),
      log: (line: string) => void log.write(`mcpcheck proxy: ${line}\n`),
      verbose: args.verbose === true,
      ...(baseline ? { baseline } : {}),
      invokedAs: invokedAs(),
    };
    const run = upstream !== undefined && listen !== undefined ? await runHttpProxy({ ...common, url: upstream.href, ...listen, until: stopped }) : await runStdioProxy({ ...common, stdio: args.stdio! });
    await emitReport(run.report, args, redactor, process.env, log);
    if (log !== process.stderr) await new Promise<void>((resolve) => log.end(resolve));
    const { exitCode } = await import('../grade/index.js');
    process.exit(run.end ? run.end.exitCode : exitCode(run.report));
  },
});

/** `--listen HOST:PORT`, loopback only: the proxy must not open the server to the network. */
function listenAddress(text: string | undefined, isLoopbackHost: (host: string) => boolean): { host: string; port: number } {
  if (text === undefined) throw new SetupError('--url goes with --listen HOST:PORT (a loopback address: 127.0.0.1:PORT)');
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new SetupError(`--listen ${JSON.stringify(text)}: expected HOST:PORT, e.g. 127.0.0.1:8808 (port 0: any free one)`);
  const host = m[1]!;
  if (!isLoopbackHost(host)) throw new SetupError(`--listen ${host}: the proxy listens on loopback only (127.0.0.1, [::1] or localhost)`);
  return { host: host.replace(/^\[|\]$/g, ''), port };
}

const coverageCommand = command({
  name: 'coverage',
  describe: 'the requirement matrix: which scenarios and validator rules judge each catalog requirement, for which role and transport (runs nothing)',
  flags: {
    format: { choices: ['text', 'json', 'markdown'], default: 'text', describe: 'output format' },
    role: { choices: ['server', 'client', 'AS'], describe: 'only the rules binding this role, judged for it (AS: an OAuth authorization server)' },
    area: { type: 'string', describe: 'only this catalog area (any part of its name) or id prefix (AUTH, HTTP-SSE)' },
    uncovered: { type: 'boolean', describe: 'list only the requirements no check judges (the totals still count all)' },
    'spec-version': { choices: CATALOG_REVISIONS, describe: 'only this revision\'s catalog (default: both, 2025-11-25 then 2026-07-28)' },
  },
  async run(args) {
    const { coverage } = await import('../commands/coverage.js');
    await write(
      process.stdout,
      coverage({
        format: args.format,
        ...(args.role ? { role: args.role } : {}),
        ...(args.area !== undefined ? { area: args.area } : {}),
        ...(args.uncovered ? { uncovered: true } : {}),
        ...(args['spec-version'] ? { revision: args['spec-version'] } : {}),
      }),
    );
  },
});

const program = {
  name: 'mcpcheck',
  version: toolInfo().version,
  commands: [validateCommand, serverCommand, clientCommand, fuzzCommand, authorizationCommand, proxyCommand, baselineCommand, listCommand, coverageCommand],
  demand: 'name a command: server, client, fuzz, authorization, validate, proxy, baseline, list or coverage',
  epilogue: EXIT_CODES_HELP,
};

export async function main(argv: string[]): Promise<void> {
  const invocation = parse(program, argv);
  if (invocation.kind === 'run') await invocation.run();
  else await write(process.stdout, invocation.text);
}
