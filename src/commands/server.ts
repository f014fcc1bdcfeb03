import { setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import { SetupError, TokenWanted } from '../errors.js';
import { grade, withAuthorizationServers, type Baseline } from '../grade/index.js';
import { HttpTarget, StdioTarget, asSetupError, type Target } from '../harness/target.js';
import type { ClientCredentials } from '../harness/client-credentials.js';
import { isLoopbackHost } from '../harness/listening.js';
import { nameAndVersion } from '../json.js';
import { discoverServer, type DiscoveryStep, noConversation, tokenWanted } from '../runner/discovery.js';
import { runScenarios } from '../runner/run.js';
import type { ProbeTokens, RunOptions, Scenario, ToolPolicy } from '../runner/scenario.js';
import { serverScenarios } from '../../suites/server/index.js';
import { authorization } from '../../suites/server/authorization.js';
import { namedAuthorizationServers } from '../../suites/server/authorization-helpers.js';
import { gradeNamedIssuer } from './authorization.js';
import { scenarioRef, untestedContext } from '../grade/coverage.js';
import type { RunControl } from '../runner/observer.js';
import { toolInfo } from '../version.js';
import { planSelection } from './selection.js';
import { parseSpecVersion } from './spec-version.js';
import { freshSeed, PROPERTY_CASES } from '../property/seed.js';
import { LATEST_STATEFUL_REVISION, eraOf, type Revision } from '../spec/revisions.js';
import { join } from 'node:path';
import { inEra } from '../runner/scenario.js';
import { describeEras, detectEras, type EraProbe, toTest } from '../runner/eras.js';
import { atOnce, inTurn } from '../runner/at-once.js';
import type { AuthorizationServerSection, CheckResult, EraSection, RunReport, TargetInfo } from '../model.js';
import { eraCheck, inEraSection } from '../runner/era-checks.js';
import type { Redactor } from '../redact.js';

export interface ServerCommandOptions {
  stdio?: string;
  url?: string;
  /** A command that serves --url; mcpcheck starts it first and stops it last. */
  start?: string;
  headers?: string[];
  concurrency?: number;
  scenarioTimeoutMs?: number;
  requestTimeoutMs?: number;
  only?: string[];
  skip?: string[];
  callTools?: string;
  originProbe?: string;
  transcriptDir?: string;
  baseline?: Baseline;
  /** Seeds the property scenarios (default: a fresh one, printed in the report). */
  seed?: number;
  /** Generated cases per property scenario (default PROPERTY_CASES; 0 turns the tier off). */
  properties?: number;
  /** Watches the run and stops it (Ctrl-C). */
  control?: RunControl;
  /** The flags that name the target, for reproduce commands. */
  targetFlags: string;
  /** How reproduce lines name mcpcheck (cli/invocation.ts: `npx mcpcheck`, `node dist/src/cli.js`…); default `mcpcheck`. */
  invokedAs?: string;
  /** The one revision to test (--spec-version); none: every era the server serves, each in its own section. */
  specVersion?: string;
  /** The environment the server starts with (--target-env); mcpcheck's own by default. */
  env?: NodeJS.ProcessEnv;
  /** Keeps secrets out of the transcripts (the report is redacted where it is written). */
  redactor?: Redactor;
  /** Tokens for the authorization and task isolation scenarios (--expired-token-env, --other-audience-token-env, --narrow-token-env, --other-user-token-env). */
  probeTokens?: ProbeTokens;
  /** Get the run's token by the client credentials grant (--client-id, --client-secret-env). */
  clientCredentials?: ClientCredentials;
  /** The server is meant to run on its user's machine (--local). */
  local?: boolean;
  /** --allow-remote-metadata: the authorization servers the server names may be sent GETs of their metadata wherever they are. */
  allowRemoteMetadata?: boolean;
}

/** At most this many of the authorization servers a protected resource names are graded (the metadata is the target's to write). */
const MAX_NAMED_ISSUERS = 4;

export function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new SetupError(`--header ${JSON.stringify(line.slice(0, 40))} is not "Name: value"`);
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

export function parseToolPolicy(value: string | undefined): ToolPolicy {
  if (value === undefined || value === 'readonly') return { mode: 'readonly' };
  if (value === 'all' || value === 'none') return { mode: value };
  const names = value.split(',').map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new SetupError('--call-tools takes all, none, readonly or a comma-separated list of tool names');
  return { mode: 'named', names };
}

/** The target the flags name (exactly one of --stdio and --url), checked. */
export function makeTarget(o: Omit<ServerCommandOptions, 'targetFlags'>): Target {
  if ((o.stdio === undefined) === (o.url === undefined)) throw new SetupError('name exactly one target: --stdio "COMMAND" or --url URL');
  if (o.stdio !== undefined) {
    if (o.stdio.trim() === '') throw new SetupError('--stdio needs a command');
    if (o.start) throw new SetupError('--start goes with --url');
    if (o.headers?.length) throw new SetupError('--header goes with --url');
    return new StdioTarget({ command: o.stdio, ...(o.env ? { env: o.env } : {}) });
  }
  const target = new HttpTarget({
    url: o.url!,
    headers: parseHeaders(o.headers ?? []),
    ...(o.start ? { start: o.start } : {}),
    ...(o.env ? { env: o.env } : {}),
    ...(o.clientCredentials ? { credentials: o.clientCredentials, onSecret: (value: string) => o.redactor?.add([{ value, shownAs: '[token of --client-id]' }]) } : {}),
  });
  if (o.start && !isLoopbackHost(target.address.hostname)) {
    throw new SetupError('--start serves a local server: its --url must be on 127.0.0.1, localhost or [::1]');
  }
  return target;
}

/** The report's view of a server target: what it is, the revision it negotiated, what it said of itself. */
export function serverTargetInfo(target: Target, seen: { protocolVersion?: string; serverInfo?: Record<string, unknown> }): TargetInfo {
  const info = nameAndVersion(seen.serverInfo);
  return {
    kind: target.kind,
    description: target.description,
    ...(seen.protocolVersion ? { protocolVersion: seen.protocolVersion } : {}),
    ...(info ? { serverInfo: info } : {}),
  };
}

/** What one era's run gave: its checks, what discovery found, notes and wire logs. */
type EraRun = Awaited<ReturnType<typeof runScenarios>> & { revision: Revision };

/** One era's part of the report: its section, its checks, and its run when one started. */
interface EraOutcome {
  section: EraSection;
  checks: CheckResult[];
  run?: EraRun;
}

/**
 * `mcpcheck server`: runs the server suite against one target and grades it. With --spec-version
 * it speaks that revision alone; without, it finds out which eras the server serves and tests each
 * in one report, a section per era (a check's id and revision say its era; the exit code covers
 * both). An era the probes found but whose run could not start is "could not run" there.
 */
export async function testServer(o: ServerCommandOptions, scenarios: Scenario[] = serverScenarios): Promise<RunReport> {
  const started = Date.now();
  const asked = parseSpecVersion(o.specVersion);
  const selection = planSelection(scenarios, o.only ?? [], o.skip ?? []);
  // The target flags are checked before anything starts.
  makeTarget(o);
  const options: RunOptions = {
    callTools: parseToolPolicy(o.callTools),
    originProbe: o.originProbe ?? 'http://mcpcheck-evil.example',
    requestTimeoutMs: o.requestTimeoutMs ?? 10_000,
    seed: o.seed ?? freshSeed(),
    cases: o.properties ?? PROPERTY_CASES,
    ...(o.probeTokens ? { probeTokens: o.probeTokens } : {}),
    ...(o.local ? { local: true as const } : {}),
  };
  const probeNotes: string[] = [];
  // A protected server shows its eras to no request without a token: its run speaks the mission's revision.
  let locked = false;
  let probes: EraProbe[] | undefined;
  if (asked === undefined) {
    try {
      probes = await probeEras(o, options.requestTimeoutMs, probeNotes);
    } catch (e) {
      if (!(e instanceof TokenWanted) || e.tokenGiven) throw e;
      locked = true;
    }
  }
  const revisions: Revision[] = asked !== undefined ? [asked] : locked ? [LATEST_STATEFUL_REVISION] : probes!.filter(toTest).map((p) => p.revision);
  const dual = revisions.length > 1;
  // Ctrl-C stops every era's run; so does another era's failure (atOnce).
  const stop = new AbortController();
  const signal = o.control?.signal ? AbortSignal.any([o.control.signal, stop.signal]) : stop.signal;
  // Every running scenario listens for the stop, and --concurrency may run more than ten at once.
  setMaxListeners(0, signal);
  // The authorization servers the protected resource names, graded once, by the first era's run that
  // found its metadata, in the newest revision the run tests (an authorization server speaks no era).
  // Eras run at once call this in turn (a chain), so the first to find the metadata grades it.
  let issuers: AuthorizationServerSection[] | undefined;
  let grading: Promise<void> = Promise.resolve();
  const newest = [...revisions].sort().at(-1)!;
  const gradeOnce = async (target: Target) => {
    if (issuers !== undefined || !(target instanceof HttpTarget)) return;
    const named = await namedAuthorizationServers(target, MAX_NAMED_ISSUERS);
    if (named === undefined) return;
    issuers = [];
    for (const issuer of named) {
      issuers.push(
        await gradeNamedIssuer(issuer, {
          endpoint: target.address,
          allowRemoteMetadata: o.allowRemoteMetadata === true,
          ...(o.start !== undefined ? { start: o.start } : {}),
          revision: newest,
          requestTimeoutMs: options.requestTimeoutMs,
          scenarioTimeoutMs: o.scenarioTimeoutMs ?? 30_000,
          ...(o.baseline ? { baseline: o.baseline } : {}),
          control: { ...o.control, signal },
          ...(o.invokedAs !== undefined ? { invokedAs: o.invokedAs } : {}),
        }),
      );
    }
  };
  const gradeIssuers = (target: Target) => (grading = grading.catch(() => undefined).then(() => gradeOnce(target)));
  const runIn = async (revision: Revision): Promise<EraOutcome> => {
    if (o.control?.signal?.aborted) return { section: { revision, era: eraOf(revision), status: 'could not run', detail: 'interrupted (Ctrl-C) before this era ran' }, checks: [] };
    const inThisEra = selection.scenarios.filter((s) => inEra(s, revision));
    const namesRevision = dual || eraOf(revision) === 'stateless';
    let run = await runEra(o, revision, inThisEra, options, namesRevision, signal, discoverServer, gradeIssuers);
    if ('locked' in run) {
      // No token: what a request without one can show is all there is to judge.
      const why = run.locked;
      run = await runEra(o, revision, inThisEra.filter((s) => authorization.includes(s)), options, namesRevision, signal, noConversation, gradeIssuers);
      if (!('unreachable' in run) && !('locked' in run)) {
        return {
          run,
          checks: [eraCheck(revision, `${why}. Without one, only the authorization scenarios ran (what a request without a token shows)`), ...inEraSection(run.checks.filter(selection.keep), revision)],
          section: { revision, era: eraOf(revision), status: 'could not run', detail: 'the server requires a token and mcpcheck was given none: only the authorization scenarios ran' },
        };
      }
    }
    if ('locked' in run) throw new SetupError(run.locked);
    if ('unreachable' in run) {
      return { checks: [eraCheck(revision, `the probes found the ${revision} era, but its run could not start a conversation: ${run.unreachable}`)], section: { revision, era: eraOf(revision), status: 'could not run', detail: run.unreachable } };
    }
    return { run, checks: inEraSection(run.checks.filter(selection.keep), revision), section: { revision, era: eraOf(revision), status: 'tested', detail: `${run.sessions} session(s)` } };
  };
  // The eras of one server run at once, each on a target of its own, unless mcpcheck starts the
  // server (--start): one serving command on one URL, so one era after the other.
  const outcomes = o.start === undefined ? await atOnce(revisions, runIn, stop) : await inTurn(revisions, runIn);
  const runs = outcomes.flatMap((x) => (x.run ? [x.run] : []));
  const checks = outcomes.flatMap((x) => x.checks);
  const sections = outcomes.map((x) => x.section);
  const notes = [...probeNotes, ...runs.flatMap((r) => r.notes)];
  for (const p of probes ?? []) if (!revisions.includes(p.revision)) sections.push({ revision: p.revision, era: p.era, status: 'not served', detail: p.detail });
  if (probes) notes.unshift(describeEras(probes));
  if (locked) notes.unshift(`era detection: every probe got HTTP 401 (a protected resource), so which eras the server serves is unknown: the run spoke ${LATEST_STATEFUL_REVISION}`);
  sections.sort((a, b) => (a.revision < b.revision ? -1 : 1));
  const primary = runs[0];
  const report = grade({
    role: 'server',
    tool: toolInfo(),
    target: serverTargetInfo(makeTarget(o), primary?.discovery ?? {}),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    seed: options.seed,
    checks,
    notes,
    untested: untestedContext('server', { scenarios: scenarios.map(scenarioRef), role: 'server', selected: selection.narrowed }),
    wire: runs.flatMap((r) => r.wire),
    ...(probes || locked || asked !== undefined ? { eras: sections } : {}),
    ...(o.baseline ? { baseline: o.baseline } : {}),
    ...(o.control?.signal?.aborted ? { interrupted: true } : {}),
  });
  return withAuthorizationServers(report, issuers ?? []);
}

/**
 * Which eras the server serves, each probed on a fresh connection and judged by nobody. A server
 * that serves neither is no MCP server to grade: a setup error, with what each probe got.
 */
export async function probeEras(o: Pick<ServerCommandOptions, 'stdio' | 'url' | 'start' | 'headers' | 'control'>, requestTimeoutMs: number, notes: string[]): Promise<EraProbe[]> {
  const target = makeTarget(o);
  try {
    if (target instanceof HttpTarget) await target.prepare(o.control?.signal);
    // A URL already served has no start for the first probe to measure: both probe at once.
    const probes = await detectEras(target, requestTimeoutMs, notes, target instanceof HttpTarget && o.start === undefined);
    // A protected server refuses every probe without a valid token.
    if (probes.every((p) => p.unauthorized)) throw tokenWanted(target, 'initialize');
    if (!probes.some(toTest)) {
      // A target that went away answered nothing: say why it went, as a run of one era would.
      const gone = probes.find((p) => p.gone !== undefined)?.gone;
      // What one probe diagnosed (no MCP server: noise on stdout, an HTTP 404; a modern server without server/discover) says more than two refusals.
      const noMcp = probes.find((p) => p.diagnosis !== undefined);
      const others = probes.filter((p) => p !== noMcp).map((p) => p.detail);
      throw new SetupError(`${target.description} ${gone ?? (noMcp ? [noMcp.why, ...others].join('; ') : `answers neither era: ${probes.map((p) => p.detail).join('; ')}`)}`);
    }
    return probes;
  } catch (e) {
    throw asSetupError(e);
  } finally {
    await target.close();
  }
}

/**
 * One era's run, on a target of its own (the previous era's run stopped what it started). A run
 * whose first conversation cannot start in an era the probes found is that era's "could not run".
 */
async function runEra(o: ServerCommandOptions, revision: Revision, scenarios: Scenario[], options: RunOptions, namesRevision: boolean, signal: AbortSignal | undefined, discover: DiscoveryStep, whileServing: (target: Target) => Promise<void>): Promise<EraRun | { unreachable: string } | { locked: string }> {
  const target = makeTarget(o);
  try {
    if (target instanceof HttpTarget) await target.prepare(signal);
    const out = await runScenarios({
      ...o.control,
      ...(signal ? { signal } : {}),
      target,
      scenarios,
      discover,
      options,
      speaks: revision,
      // An HTTP lane mostly waits on the network; a stdio one also starts server processes.
      concurrency: o.concurrency ?? (target.kind === 'http' ? 2 : 1) * availableParallelism(),
      scenarioTimeoutMs: o.scenarioTimeoutMs ?? 30_000,
      ...(o.transcriptDir ? { transcriptDir: join(o.transcriptDir, namesRevision ? revision : '') } : {}),
      ...(o.redactor ? { redactor: o.redactor } : {}),
      reproduce: `${o.invokedAs ?? 'mcpcheck'} server ${o.targetFlags}${namesRevision ? ` --spec-version ${revision}` : ''} --only {scenario} --seed ${options.seed}`,
      whileServing: () => whileServing(target),
    });
    return { ...out, revision };
  } catch (e) {
    await target.close();
    // A token it needs and was not given: the caller runs what needs none.
    if (e instanceof TokenWanted && !e.tokenGiven) return { locked: e.message };
    const setup = asSetupError(e);
    // --spec-version named the era: a server that does not serve it is the user's setup to fix.
    if (o.specVersion !== undefined || !(setup instanceof SetupError)) throw setup;
    return { unreachable: setup.message };
  }
}
