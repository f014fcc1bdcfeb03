import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { checksFromFindings } from '../checks.js';
import { grade, type Baseline } from '../grade/index.js';
import { untestedContext } from '../grade/coverage.js';
import type { CheckResult, RunReport } from '../model.js';
import { runStdioShim, type StdioShimEnd } from '../proxy/stdio-shim.js';
import { type JudgedTraffic, TrafficJudge } from '../proxy/traffic-judge.js';
import type { Redactor } from '../redact.js';
import { requirement } from '../spec/catalog.js';
import { TranscriptStream } from '../transcript/stream.js';
import { validatorRulesOf } from '../validate/coverage.js';
import { toolInfo } from '../version.js';
import { WireLogs } from '../wire.js';
import { describeEras } from './validate.js';

export interface ProxyOptions {
  /** The server's command line (`--stdio`). */
  stdio: string;
  /** Where the whole exchange is written as a transcript `validate` reads. */
  transcript?: string;
  /** Where each violation is told as one line while the session runs. */
  log: (line: string) => void;
  /** Notes too. */
  verbose?: boolean;
  redactor: Redactor;
  baseline?: Baseline;
  /** How reproduce lines name mcpcheck. */
  invokedAs?: string;
  /** The client's side of the connection (default: this process's stdin, stdout and stderr). */
  client?: { input: Readable; output: Writable; errors: Writable };
}

export interface ProxyRun {
  report: RunReport;
  /** How the server ended, which the proxy's own exit repeats. */
  end: StdioShimEnd;
  /** Why the transcript is incomplete, when it is. */
  transcriptProblem?: string;
}

/**
 * `mcpcheck proxy --stdio`: carries a real client's session with a real server unchanged, judges
 * every frame of both sides as it passes (the live validators of `validate`, per era), writes the
 * transcript as it goes, and grades the session when it ends.
 */
export async function runProxy(o: ProxyOptions): Promise<ProxyRun> {
  const started = Date.now();
  const transcript = o.transcript !== undefined ? new TranscriptStream(o.transcript, 'stdio', (text) => o.redactor.text(text)) : undefined;
  const judge = new TrafficJudge({ transport: 'stdio', ...(transcript ? { transcript } : {}), onLine: (line) => o.log(o.redactor.text(line)), tellNotes: o.verbose === true });
  const client = o.client ?? { input: process.stdin, output: process.stdout, errors: process.stderr };
  const end = await runStdioShim({
    command: o.stdio,
    ...client,
    onBytes: (from, chunk) => judge.push(from, chunk),
    onEnd: (from) => judge.end(from),
  });
  const judged = judge.finish();
  const transcriptProblem = await transcript?.close();
  o.log(`session ended: ${end.ended}; ${frames(judged.frames.length)} judged`);
  return { report: reportOf(o, judged, end, started, transcriptProblem), end, ...(transcriptProblem !== undefined ? { transcriptProblem } : {}) };
}

/**
 * A signal stops the session (the shim stops the server); the proxy then still writes its report
 * and exits as the server did. A second signal quits at once. Without this, the process-group
 * guard (transport/process.ts) would re-raise the first signal once the server was gone.
 */
export function holdSignals(): void {
  let seen = 0;
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (++seen > 1) process.exit(128 + constants.signals[signal]);
    });
  }
}

function reportOf(o: ProxyOptions, judged: JudgedTraffic, end: StdioShimEnd, started: number, transcriptProblem: string | undefined): RunReport {
  const wire = new WireLogs();
  const log = wire.mark('proxied session', judged.frames);
  const reproduce = o.transcript !== undefined && transcriptProblem === undefined ? `${o.invokedAs ?? 'mcpcheck'} validate ${JSON.stringify(o.transcript)}` : undefined;
  const checks = checksFromFindings({
    idPrefix: 'proxy.',
    findings: judged.findings,
    applied: judged.applied,
    coverage: [...new Set(judged.eras.flatMap(validatorRulesOf))],
    evidence: (f) => judged.evidence.get(f) ?? {},
    skipReason: 'not exercised by the traffic that passed',
    wire: () => [log],
    ...(reproduce ? { reproduce } : {}),
  });
  const limits = [judged.stopped, end.startupFailure].filter((why): why is string => why !== undefined);
  const notes = [
    `session: ${end.ended}; ${frames(judged.frames.length)} passed`,
    ...(judged.unkept > 0 ? [`${judged.unkept} findings beyond the first ${200} of a rule were told as they arose but not kept (none changed a verdict)`] : []),
    ...(transcriptProblem !== undefined ? [`transcript incomplete: ${transcriptProblem}`] : []),
    ...(o.transcript === undefined ? ['no --transcript: failures have no reproduce line (record the session with --transcript FILE; `mcpcheck validate FILE` then reproduces them)'] : []),
  ];
  return grade({
    tool: toolInfo(),
    target: {
      kind: 'stdio',
      description: `${o.stdio}, through mcpcheck proxy${judged.eras.length > 0 ? ` (${describeEras(new Set(judged.eras))})` : ''}`,
      ...(judged.negotiated ? { protocolVersion: judged.negotiated.version, ...(judged.negotiated.server ? { serverInfo: judged.negotiated.server } : {}) } : {}),
    },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    checks: [...checks, ...(limits.length > 0 ? [couldNotJudge(limits.join('; '))] : [])],
    notes,
    untested: untestedContext('proxy'),
    wire: wire.build(checks),
    ...(o.baseline ? { baseline: o.baseline } : {}),
  });
}

const frames = (n: number): string => `${n} frame${n === 1 ? '' : 's'}`;

/** mcpcheck's own limit: the session was not judged to its end. */
function couldNotJudge(why: string): CheckResult {
  const req = requirement('BASE-MSG-01');
  return { id: 'proxy.session-judged', title: 'Every frame of the session judged', requirements: [req.id], level: req.level, status: 'error', message: why, area: req.area, evidence: [] };
}
