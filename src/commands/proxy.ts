import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { checksFromFindings } from '../checks.js';
import { SetupError } from '../errors.js';
import { grade, type Baseline } from '../grade/index.js';
import { untestedContext } from '../grade/coverage.js';
import type { CheckResult, Evidence, RunReport } from '../model.js';
import { startReverseProxy } from '../proxy/http-reverse.js';
import { HttpSessions, type JudgedSession } from '../proxy/http-sessions.js';
import { runStdioShim, type StdioShimEnd } from '../proxy/stdio-shim.js';
import { TrafficJudge } from '../proxy/traffic-judge.js';
import type { Redactor } from '../redact.js';
import { requirement } from '../spec/catalog.js';
import type { Era } from '../spec/revisions.js';
import { TranscriptStream } from '../transcript/stream.js';
import { validatorRulesOf } from '../validate/coverage.js';
import type { Finding } from '../validate/finding.js';
import { versionConsistency } from '../validate/versions.js';
import { toolInfo } from '../version.js';
import { WireLogs } from '../wire.js';
import { describeEras } from './validate.js';

interface CommonOptions {
  /** Where each violation is told as one line while the session runs. */
  log: (line: string) => void;
  /** Notes too. */
  verbose?: boolean;
  redactor: Redactor;
  baseline?: Baseline;
  /** How reproduce lines name mcpcheck. */
  invokedAs?: string;
}

export interface StdioProxyOptions extends CommonOptions {
  /** The server's command line (`--stdio`). */
  stdio: string;
  /** The file the whole exchange is written to, as a transcript `validate` reads. */
  transcript?: string;
  /** The client's side of the connection (default: this process's stdin, stdout and stderr). */
  client?: { input: Readable; output: Writable; errors: Writable };
}

export interface HttpProxyOptions extends CommonOptions {
  /** The server's MCP endpoint (`--url`). */
  url: string;
  /** Where the proxy listens (`--listen`, loopback only). */
  host: string;
  port: number;
  /** A folder for one transcript per session. */
  transcript?: string;
  /** Told where the proxy listens, once it does. */
  listening?: (endpoint: string) => void;
  /** Resolves when the run is to end (the CLI: SIGINT or SIGTERM). */
  until: Promise<unknown>;
}

export interface ProxyRun {
  report: RunReport;
  /** stdio: how the server ended, which the proxy's own exit repeats. */
  end?: StdioShimEnd;
}

/**
 * `mcpcheck proxy --stdio`: carries a real client's session with a real server unchanged, judges
 * every frame of both sides as it passes (the live validators of `validate`, per era), writes the
 * transcript as it goes, and grades the session when it ends.
 */
export async function runStdioProxy(o: StdioProxyOptions): Promise<ProxyRun> {
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
  const session: JudgedSession = { label: 'proxied session', judged, ...(o.transcript !== undefined ? { transcript: o.transcript } : {}), ...(transcriptProblem !== undefined ? { transcriptProblem } : {}) };
  const report = reportOf(o, [session], {
    started,
    target: { kind: 'stdio', description: `${o.stdio}, through mcpcheck proxy` },
    limits: [end.startupFailure].filter((why): why is string => why !== undefined),
    notes: [`session: ${end.ended}; ${frames(judged.frames.length)} passed`],
    transcriptFlag: o.transcript,
  });
  return { report, end };
}

/**
 * `mcpcheck proxy --url … --listen …`: a reverse proxy on loopback in front of a Streamable HTTP
 * server; every exchange is forwarded as it is and judged per session (an MCP-Session-Id, or the
 * traffic that carried none) until `until` resolves; then one report with every session.
 */
export async function runHttpProxy(o: HttpProxyOptions): Promise<ProxyRun> {
  const started = Date.now();
  const upstream = new URL(o.url);
  const sessions = new HttpSessions({
    endpointPath: upstream.pathname,
    ...(o.transcript !== undefined ? { transcriptDir: o.transcript } : {}),
    redact: (text) => o.redactor.text(text),
    onLine: (line) => o.log(o.redactor.text(line)),
    tellNotes: o.verbose === true,
  });
  const proxy = await startReverseProxy({ upstream, host: o.host, port: o.port, tap: sessions }).catch((e: NodeJS.ErrnoException) => {
    throw new SetupError(`--listen ${o.host}:${o.port}: cannot listen there (${e.code ?? e.message})`);
  });
  const endpoint = `${proxy.origin}${upstream.pathname}${upstream.search}`;
  sessions.listeningAt(endpoint);
  o.log(`listening on ${endpoint}, forwarding to ${upstream.href}; give the client the first URL, stop with Ctrl-C`);
  o.listening?.(endpoint);
  await o.until;
  await proxy.close();
  const judged = await sessions.finish();
  const total = judged.reduce((n, s) => n + s.judged.frames.length, 0);
  o.log(`stopped: ${judged.length} session(s), ${frames(total)} judged`);
  const report = reportOf(o, judged, {
    started,
    target: { kind: 'http', description: `${upstream.href}, through mcpcheck proxy at ${endpoint}` },
    limits: sessions.unreached > 0 ? [`the server could not be reached for ${sessions.unreached} exchange(s); the client was answered 502`] : [],
    notes: [...(judged.length === 0 ? ['no client traffic passed: nothing was judged'] : judged.map((s) => `${s.label}: ${frames(s.judged.frames.length)} passed`)), ...sessions.setupNotes],
    transcriptFlag: o.transcript,
  });
  return { report };
}

/**
 * A signal stops the session (the shim stops the server); the proxy then still writes its report
 * and exits. A second signal quits at once. Without this, the process-group guard
 * (transport/process.ts) would re-raise the first signal once the server was gone. Resolves at
 * the first signal.
 */
export function holdSignals(): Promise<NodeJS.Signals> {
  let seen = 0;
  return new Promise((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(signal, () => {
        if (++seen > 1) process.exit(128 + constants.signals[signal]);
        resolve(signal);
      });
    }
  });
}

interface ReportFrame {
  started: number;
  target: { kind: 'stdio' | 'http'; description: string };
  /** mcpcheck's own limits: what kept a session from being judged whole. */
  limits: string[];
  notes: string[];
  transcriptFlag: string | undefined;
}

/** One report over every session: the checks of all merged per requirement, a wire log and evidence per session. */
function reportOf(o: CommonOptions, sessions: readonly JudgedSession[], r: ReportFrame): RunReport {
  const wire = new WireLogs();
  const findings: Finding[] = [];
  const evidence = new Map<Finding, Evidence>();
  const sessionOf = new Map<Finding, { log: string; session: JudgedSession }>();
  const applied = new Set<string>();
  const eras = new Set<Era>();
  const several = sessions.length > 1;
  const logOf = new Map<JudgedSession, string>();
  for (const s of sessions) {
    const log = wire.mark(s.label, s.judged.frames);
    logOf.set(s, log);
    for (const id of s.judged.applied) applied.add(id);
    for (const era of s.judged.eras) eras.add(era);
    for (const f of s.judged.findings) {
      const e = s.judged.evidence.get(f) ?? {};
      evidence.set(f, several ? { ...e, location: `${s.label}, ${e.location ?? 'session'}` } : e);
      sessionOf.set(f, { log, session: s });
      findings.push(f);
    }
  }
  // LIFE-VER-03 across sessions, as validate judges it across transcripts.
  const negotiations = sessions.flatMap((s) => {
    const n = s.judged.negotiated;
    return n?.requested !== undefined && n.frame !== undefined ? [{ session: s, frame: n.frame, label: s.label, requested: n.requested, negotiated: n.version, server: `${String(n.server?.name)} ${String(n.server?.version)}` }] : [];
  });
  if (negotiations.length > 1) applied.add('LIFE-VER-03');
  for (const { index, finding } of versionConsistency(negotiations)) {
    const n = negotiations[index]!;
    evidence.set(finding, { frame: n.frame, location: `${n.label}, frame ${n.frame}`, pointer: finding.pointer });
    sessionOf.set(finding, { log: logOf.get(n.session)!, session: n.session });
    findings.push(finding);
  }
  const replayable = (s: JudgedSession): string | undefined => (s.transcript !== undefined && s.transcriptProblem === undefined ? s.transcript : undefined);
  const checks = checksFromFindings({
    idPrefix: 'proxy.',
    findings,
    applied,
    coverage: [...new Set([...eras].flatMap(validatorRulesOf))],
    evidence: (f) => evidence.get(f) ?? {},
    skipReason: 'not exercised by the traffic that passed',
    wire: (cited) => [...new Set(cited.flatMap((f) => sessionOf.get(f)?.log ?? []))],
    ...(r.transcriptFlag !== undefined
      ? {
          reproduce: (_id: string, cited: Finding[]) => {
            const file = cited.map((f) => sessionOf.get(f)?.session).find((s) => s !== undefined && replayable(s) !== undefined);
            return file ? `${o.invokedAs ?? 'mcpcheck'} validate ${JSON.stringify(replayable(file))}` : undefined;
          },
        }
      : {}),
  });
  const unkept = sessions.reduce((n, s) => n + s.judged.unkept, 0);
  const limits = [...r.limits, ...sessions.flatMap((s) => (s.judged.stopped !== undefined ? [`${several ? `${s.label}: ` : ''}${s.judged.stopped}`] : []))];
  const negotiated = sessions.map((s) => s.judged.negotiated).find((n) => n !== undefined);
  const notes = [
    ...r.notes,
    ...(unkept > 0 ? [`${unkept} findings beyond the first 200 of a rule were told as they arose but not kept (none changed a verdict)`] : []),
    ...sessions.flatMap((s) => (s.transcriptProblem !== undefined ? [`transcript of ${s.label} incomplete: ${s.transcriptProblem}`] : [])),
    ...(r.transcriptFlag === undefined ? ['no --transcript: failures have no reproduce line (record the traffic with --transcript; `mcpcheck validate` of it then reproduces them)'] : []),
  ];
  return grade({
    tool: toolInfo(),
    target: {
      kind: r.target.kind,
      description: `${r.target.description}${eras.size > 0 ? ` (${describeEras(eras)})` : ''}`,
      ...(negotiated ? { protocolVersion: negotiated.version, ...(negotiated.server ? { serverInfo: negotiated.server } : {}) } : {}),
    },
    startedAt: new Date(r.started).toISOString(),
    durationMs: Date.now() - r.started,
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
