import { availableParallelism } from 'node:os';
import { SetupError } from '../errors.js';
import { grade, type Baseline } from '../grade/index.js';
import { HttpTarget, StdioTarget, asSetupError, type Target } from '../harness/target.js';
import type { RunReport, TargetInfo } from '../model.js';
import { discoverServer } from '../runner/discovery.js';
import { runScenarios } from '../runner/run.js';
import type { RunOptions, Scenario, ToolPolicy } from '../runner/scenario.js';
import { serverScenarios } from '../../suites/server/index.js';
import { scenarioRef, untestedContext } from '../grade/coverage.js';
import type { RunControl } from '../runner/observer.js';
import { toolInfo } from '../version.js';
import { planSelection } from './selection.js';
import { freshSeed, PROPERTY_CASES } from '../property/seed.js';

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
}

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
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** A URL host naming this machine's loopback interface (as `URL.hostname` spells it). */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}

export function makeTarget(o: Omit<ServerCommandOptions, 'targetFlags'>): Target {
  if ((o.stdio === undefined) === (o.url === undefined)) throw new SetupError('name exactly one target: --stdio "COMMAND" or --url URL');
  if (o.stdio !== undefined) {
    if (o.stdio.trim() === '') throw new SetupError('--stdio needs a command');
    if (o.start) throw new SetupError('--start goes with --url');
    if (o.headers?.length) throw new SetupError('--header goes with --url');
    return new StdioTarget({ command: o.stdio });
  }
  let url: URL;
  try {
    url = new URL(o.url!);
  } catch {
    throw new SetupError(`--url ${JSON.stringify(o.url)} is not a valid URL`);
  }
  if (o.start && !isLoopbackHost(url.hostname)) {
    throw new SetupError('--start serves a local server: its --url must be on 127.0.0.1, localhost or [::1]');
  }
  return new HttpTarget({ url: o.url!, headers: parseHeaders(o.headers ?? []), ...(o.start ? { start: o.start } : {}) });
}

/** The report's view of a server target: what it is, the revision it negotiated, what it said of itself. */
export function serverTargetInfo(target: Target, seen: { protocolVersion?: string; serverInfo?: Record<string, unknown> }): TargetInfo {
  const info = seen.serverInfo;
  return {
    kind: target.kind,
    description: target.description,
    ...(seen.protocolVersion ? { protocolVersion: seen.protocolVersion } : {}),
    ...(info ? { serverInfo: { ...(typeof info.name === 'string' ? { name: info.name } : {}), ...(typeof info.version === 'string' ? { version: info.version } : {}) } } : {}),
  };
}

/** `mcpcheck server`: runs the server suite against one target and grades it. */
export async function testServer(o: ServerCommandOptions, scenarios: Scenario[] = serverScenarios): Promise<RunReport> {
  const started = Date.now();
  const selection = planSelection(scenarios, o.only ?? [], o.skip ?? []);
  const target = makeTarget(o);
  const options: RunOptions = {
    callTools: parseToolPolicy(o.callTools),
    originProbe: o.originProbe ?? 'http://mcpcheck-evil.example',
    requestTimeoutMs: o.requestTimeoutMs ?? 10_000,
    seed: o.seed ?? freshSeed(),
    cases: o.properties ?? PROPERTY_CASES,
  };
  try {
    if (target instanceof HttpTarget) await target.prepare(o.control?.signal);
    const out = await runScenarios({
      ...o.control,
      target,
      scenarios: selection.scenarios,
      discover: discoverServer,
      options,
      // An HTTP lane mostly waits on the network; a stdio one also starts server processes.
      concurrency: o.concurrency ?? (target.kind === 'http' ? 2 : 1) * availableParallelism(),
      scenarioTimeoutMs: o.scenarioTimeoutMs ?? 30_000,
      ...(o.transcriptDir ? { transcriptDir: o.transcriptDir } : {}),
      reproduce: `mcpcheck server ${o.targetFlags} --only {scenario} --seed ${options.seed}`,
    });
    return grade({
      role: 'server',
      tool: toolInfo(),
      target: serverTargetInfo(target, out.discovery),
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      seed: options.seed,
      checks: out.checks.filter(selection.keep),
      notes: out.notes,
      untested: untestedContext('server', { scenarios: scenarios.map(scenarioRef), role: 'server', selected: selection.narrowed }),
      wire: out.wire,
      ...(o.baseline ? { baseline: o.baseline } : {}),
      ...(o.control?.signal?.aborted ? { interrupted: true } : {}),
    });
  } catch (e) {
    await target.close();
    throw asSetupError(e);
  }
}
