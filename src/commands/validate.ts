import { checksFromFindings } from '../checks.js';
import { SetupError } from '../errors.js';
import { grade, type Baseline } from '../grade/index.js';
import { nameAndVersion } from '../json.js';
import type { CheckResult, Evidence, RunReport } from '../model.js';
import { type TranscriptFrame, TranscriptUnusable } from '../transcript/format.js';
import { startReads, type TranscriptFile } from '../transcript/read-file.js';
import { type ReadTranscript, type TranscriptValidation, validateStreamedTranscript } from '../transcript/validate.js';
import { requirement } from '../spec/catalog.js';
import { untestedContext } from '../grade/coverage.js';
import { validatorRulesOf } from '../validate/coverage.js';
import type { Era } from '../spec/revisions.js';
import type { Finding } from '../validate/finding.js';
import { type Negotiation, versionConsistency } from '../validate/versions.js';
import { toolInfo } from '../version.js';
import { excerptOf, type FrameList, type SourceFrame, WireLogs } from '../wire.js';

export interface ValidateOptions {
  files: string[];
  baseline?: Baseline;
  /** Judge only what this side sent (e.g. 'server' for transcripts of mcpcheck's own probing sessions). */
  judge?: 'client' | 'server';
  /** The files, opened and their reads started, when the caller did so (the CLI does, before it loads the validator); validateFiles closes them. */
  reads?: ReadonlyArray<Promise<TranscriptFile>>;
  /** How reproduce lines name mcpcheck (cli/invocation.ts: `npx mcpcheck`, `node dist/src/cli.js`…); default `mcpcheck`. */
  invokedAs?: string;
}

function excerpt(value: unknown): string {
  return excerptOf(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
}

/** Parses and judges in one pass (each message judged as it is read, none kept). */
async function judgeTranscript(file: string, opened: TranscriptFile): Promise<{ transcript: ReadTranscript; validation: TranscriptValidation }> {
  try {
    return await validateStreamedTranscript(opened, file);
  } catch (e) {
    if (e instanceof TranscriptUnusable) throw new SetupError(e.message);
    throw e;
  }
}

/** Corrupt lines of a transcript are the file's fault, not the target's: they become 'error' checks. */
function corruptLineChecks(file: string, transcript: ReadTranscript): CheckResult[] {
  return transcript.problems.map((p) => {
    const req = requirement('BASE-MSG-01');
    return {
      id: `validate.transcript-line.${file}:${p.line}`,
      title: 'Transcript line could not be read',
      requirements: [req.id],
      level: req.level,
      status: 'error',
      message: `${file}:${p.line} is not a transcript record (${p.message}); the line was skipped and not judged`,
      area: req.area,
      evidence: [{ location: `${file}:${p.line}` }],
    };
  });
}

/** How far into a transcript its first timed frame is looked for (a transcript times all its frames or none). */
const TIME_SEARCH = 100;

/** A transcript frame as a wire log's source, read from its line only if the log keeps it. */
class TranscriptSourceFrame implements SourceFrame {
  private read: TranscriptFrame | undefined;
  constructor(
    private readonly transcript: ReadTranscript,
    readonly index: number,
    private readonly start: () => number | undefined,
  ) {}
  private get frame(): TranscriptFrame | undefined {
    return (this.read ??= this.transcript.frame(this.index));
  }
  get from(): 'client' | 'server' {
    return this.frame?.from ?? 'client';
  }
  get at(): number | undefined {
    const time = this.frame?.time;
    const start = this.start();
    return time !== undefined && start !== undefined ? Date.parse(time) - start : undefined;
  }
  get raw(): string | undefined {
    return this.frame?.raw;
  }
  get message(): unknown {
    return this.frame?.message;
  }
}

/** A transcript's frames as a wire log's source, each made when the log reads it; times are counted from its first timed frame. */
function sourceFrames(transcript: ReadTranscript): FrameList {
  let start: number | undefined | null = null;
  const startTime = () => {
    if (start !== null) return start;
    start = undefined;
    for (let i = 0; i < Math.min(transcript.frameCount, TIME_SEARCH) && start === undefined; i++) {
      const time = transcript.frame(i)?.time;
      if (time !== undefined) start = Date.parse(time);
    }
    return start;
  };
  const length = transcript.frameCount;
  return {
    length,
    at: (position) => {
      const index = position < 0 ? length + position : position;
      return index >= 0 && index < length ? new TranscriptSourceFrame(transcript, index, startTime) : undefined;
    },
  };
}

/** Which eras a validation judged, for the report's target line. */
export function describeEras(eras: ReadonlySet<Era>): string {
  const names = [...eras].map((era) => (era === 'stateful' ? 'stateful era (initialize, 2024-11-05…2025-11-25)' : 'stateless era (per-request _meta, 2026-07-28)'));
  return `judged in the ${names.join(' and the ')}`;
}

/** A session's negotiation, with where it was recorded. */
interface Recorded extends Negotiation {
  transcript: ReadTranscript;
  frame: number;
  /** Its wire log. */
  log: string;
}

/** Judges recorded sessions: one session per file; the checks of all files are merged per requirement. */
export async function validateFiles(options: ValidateOptions): Promise<RunReport> {
  const reads = options.reads ?? startReads(options.files);
  try {
    return await judgeFiles(options, reads);
  } finally {
    await Promise.all(reads.map((opened) => opened.then((file) => file.close(), () => undefined)));
  }
}

/** validateFiles, the files opened: a frame is read again from its file for its evidence until the report is made. */
async function judgeFiles(options: ValidateOptions, reads: ReadonlyArray<Promise<TranscriptFile>>): Promise<RunReport> {
  const started = Date.now();
  const findings: Finding[] = [];
  const evidenceOf = new Map<Finding, Evidence>();
  const applied = new Set<string>();
  const corrupt: CheckResult[] = [];
  const negotiations: Recorded[] = [];
  const wire = new WireLogs();
  const wireOf = new Map<Finding, string>();
  let protocolVersion: string | undefined;
  let serverInfo: { name?: string; version?: string } | undefined;
  const eras = new Set<Era>();
  for (const [i, file] of options.files.entries()) {
    const { transcript, validation: result } = await judgeTranscript(file, await reads[i]!);
    for (const era of result.eras) eras.add(era);
    const log = wire.mark(file, sourceFrames(transcript));
    for (const side of options.judge ? [options.judge] : (['client', 'server'] as const)) for (const id of result.appliedBy[side]) applied.add(id);
    for (const f of result.findings) {
      const frame = f.frame !== undefined ? transcript.frame(f.frame) : undefined;
      if (options.judge && frame && frame.from !== options.judge) continue;
      evidenceOf.set(f, {
        ...(f.frame !== undefined ? { frame: f.frame } : {}),
        ...(frame ? { from: frame.from, excerpt: excerpt(frame.raw ?? frame.message), location: `${file}:${frame.line}` } : { location: file }),
        ...(f.pointer ? { pointer: f.pointer } : {}),
      });
      wireOf.set(f, log);
      findings.push(f);
    }
    corrupt.push(...corruptLineChecks(file, transcript));
    const stateful = result.session;
    const { requestedVersion, negotiatedVersion, negotiationFrame } = stateful ?? {};
    if (requestedVersion !== undefined && negotiatedVersion !== undefined && negotiationFrame !== undefined) {
      const name = stateful?.serverInfo;
      negotiations.push({ label: file, transcript, log, requested: requestedVersion, negotiated: negotiatedVersion, frame: negotiationFrame, server: `${String(name?.name)} ${String(name?.version)}` });
    }
    protocolVersion ??= stateful?.negotiatedVersion;
    serverInfo ??= nameAndVersion(stateful?.serverInfo);
  }
  for (const { index, finding } of versionConsistency(negotiations)) {
    const n = negotiations[index]!;
    const frame = n.transcript.frame(n.frame);
    applied.add('LIFE-VER-03');
    evidenceOf.set(finding, { frame: n.frame, ...(frame ? { from: frame.from, excerpt: excerpt(frame.raw ?? frame.message), location: `${n.label}:${frame.line}` } : {}), pointer: finding.pointer });
    wireOf.set(finding, n.log);
    findings.push(finding);
  }
  if (negotiations.length > 1) applied.add('LIFE-VER-03');
  const checks = checksFromFindings({
    idPrefix: 'validate.',
    findings,
    applied,
    coverage: [...new Set([...eras].flatMap(validatorRulesOf))],
    eras: [...eras],
    evidence: (f) => evidenceOf.get(f) ?? {},
    skipReason: 'not exercised by this transcript',
    wire: (cited) => [...new Set(cited.flatMap((f) => wireOf.get(f) ?? []))],
    reproduce: `${options.invokedAs ?? 'mcpcheck'} validate ${options.judge ? `--judge ${options.judge} ` : ''}${options.files.map((f) => JSON.stringify(f)).join(' ')}`,
  });
  return grade({
    ...(options.judge ? { role: options.judge } : {}),
    tool: toolInfo(),
    target: {
      kind: 'transcript',
      description: `${options.files.join(', ')} (${describeEras(eras)})`,
      ...(protocolVersion ? { protocolVersion } : {}),
      ...(serverInfo ? { serverInfo } : {}),
    },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    checks: [...checks, ...corrupt],
    untested: untestedContext('validate', options.judge ? { role: options.judge } : {}),
    wire: wire.build(checks),
    ...(options.baseline ? { baseline: options.baseline } : {}),
  });
}
