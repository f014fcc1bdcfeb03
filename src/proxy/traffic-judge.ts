import { nameAndVersion } from '../json.js';
import type { Evidence } from '../model.js';
import type { IncomingFrame } from '../transport/channel.js';
import { parseJson, type Parsed } from '../transport/common.js';
import { isAnonymousError } from '../validate/envelope.js';
import { excerptOf } from '../wire.js';
import { LineFramer } from '../transport/stdio.js';
import { EraJudge } from '../transcript/eras.js';
import type { TranscriptStream } from '../transcript/stream.js';
import type { Finding } from '../validate/finding.js';
import type { Side } from '../validate/message.js';
import type { Era } from '../spec/revisions.js';
import { KeptFrames } from './kept-frames.js';

/** Findings kept per requirement; beyond it only a finding more severe than all kept is (the verdict stays true). */
const KEPT_PER_RULE = 200;

const SOURCES: Record<Side, { source: string; noise: 'STDIO-OUT-01' | 'STDIO-IN-01' }> = {
  client: { source: "the client's stdout", noise: 'STDIO-IN-01' },
  server: { source: "the server's stdout", noise: 'STDIO-OUT-01' },
};

const RANK = { info: 0, warn: 1, fail: 2 } as const;

export interface TrafficJudgeOptions {
  transport: 'stdio' | 'http';
  /** Where every frame is written as it is judged. */
  transcript?: TranscriptStream;
  /** Told each violation as it arises, as one line (and why judging stopped, if it did). */
  onLine?: (line: string) => void;
  /** Notes too, not only violations. */
  tellNotes?: boolean;
  /** When what is being judged passed the proxy (ms since the epoch): judging may run after it passed. */
  clock?: () => number;
}

/** What a proxied session showed, once it ended. */
export interface JudgedTraffic {
  findings: Finding[];
  evidence: ReadonlyMap<Finding, Evidence>;
  /** Requirement ids each side's traffic gave a chance to fail. */
  applied: ReadonlySet<string>;
  eras: Era[];
  frames: KeptFrames;
  /** Why judging stopped before the session's end (a backlog, a bug in mcpcheck), if it did. */
  stopped?: string;
  /** Findings not kept beyond KEPT_PER_RULE. */
  unkept: number;
  /** The stateful exchange's negotiation (what the client asked for, in which frame the server chose), when there was one. */
  negotiated?: { version: string; requested?: string; frame?: number; server?: Named; client?: Named };
}

/**
 * Judges a session's traffic as it passed through mcpcheck proxy: the bytes each side sent are
 * split into frames (STDIO-FRAME-01's lines), each frame judged by the era's session validator and
 * written to the transcript, each finding told as one line. It runs apart from the forwarding (the
 * proxy's judging thread), so a slow judgement never delays the traffic; a bug in a validator, or
 * the forwarder giving up on a backlog (stop()), ends the judging of the session, not its traffic.
 */
export class TrafficJudge {
  private readonly judge: EraJudge;
  private readonly framers: Record<Side, LineFramer>;
  private readonly frames = new KeptFrames();
  private readonly findings: Finding[] = [];
  private readonly evidence = new Map<Finding, Evidence>();
  private readonly perRule = new Map<string, { count: number; worst: number }>();
  private readonly applied = new Set<string>();
  private stopped: string | undefined;
  private unkept = 0;
  private readonly clock: () => number;

  constructor(private readonly options: TrafficJudgeOptions) {
    this.judge = new EraJudge({ transport: options.transport });
    this.clock = options.clock ?? Date.now;
    const framer = (from: Side) =>
      new LineFramer({
        via: from,
        source: SOURCES[from].source,
        noiseRequirement: SOURCES[from].noise,
        reportNoise: false,
        deliverJoined: false,
        maxTotalBytes: Number.POSITIVE_INFINITY,
        clock: this.clock,
        onFrame: (frame) => this.onFrame(from, frame),
        onFinding: (finding) => {
          // The framer judges the bytes between frames: what it reports on, it exercised.
          for (const id of finding.requirements) this.applied.add(id);
          this.record(finding, from);
        },
        // Forwarded, not judged (said even without --verbose); the peer may answer it with an error without id.
        onDropping: (detail) => {
          this.options.onLine?.(`${detail}: forwarded, not judged`);
          this.judge.unreadableFrame(from);
        },
      });
    this.framers = { client: framer('client'), server: framer('server') };
  }

  /** Bytes `from` sent over stdio, already forwarded. */
  push(from: Side, chunk: Buffer): void {
    this.guarded(() => this.framers[from].push(chunk));
  }

  /** `from` closed its side of a stdio connection. */
  end(from: Side): void {
    this.guarded(() => this.framers[from].end());
  }

  /**
   * One whole message `from` sent over HTTP (a POST body, a JSON response, an SSE event's data),
   * already forwarded; `inResponseTo`: the request whose POST response carried it. `errorStatus`:
   * it is the body of an HTTP error status, which may be an error without id refusing the POST as
   * a whole (HTTP-POST-04).
   */
  message(from: Side, text: string, o: { exchange?: number; inResponseTo?: string | number; errorStatus?: boolean; parsed?: Parsed } = {}): void {
    const at = this.clock();
    this.guarded(() => {
      const parsed = o.parsed ?? parseJson(text);
      const carrier = { ...(o.exchange !== undefined ? { exchange: o.exchange } : {}), ...(o.inResponseTo !== undefined ? { inResponseTo: o.inResponseTo } : {}) };
      if (!parsed.ok) return this.onFrame(from, { raw: text, parseError: parsed.error, via: 'http', at, ...carrier });
      if (o.errorStatus && isAnonymousError(parsed.value)) this.judge.unreadableFrame(from === 'client' ? 'server' : 'client');
      this.onFrame(from, { raw: text, message: parsed.value, via: 'http', at, ...carrier });
    });
  }

  /** `from` sent a frame too large to judge (forwarded all the same): the peer may answer it with an error without id. */
  unread(from: Side): void {
    this.guarded(() => this.judge.unreadableFrame(from));
  }

  /** What the transport showed of `side`'s HTTP exchanges (headers, statuses): the rules it exercised and its findings. */
  outside(side: Side, applied: readonly string[], findings: readonly Finding[]): void {
    if (this.stopped !== undefined) return;
    for (const id of applied) this.applied.add(id);
    for (const f of findings) this.record(f, side);
  }

  /** Ends the session: a line left unfinished is judged, then what the session as a whole owed. */
  finish(): JudgedTraffic {
    if (this.stopped === undefined) {
      this.guarded(() => {
        for (const framer of Object.values(this.framers)) framer.end();
        for (const f of this.judge.end()) this.record(f);
      });
    }
    const applied = this.judge.appliedBy;
    for (const side of ['client', 'server'] as const) for (const id of applied[side]) this.applied.add(id);
    const stateful = this.judge.stateful;
    const server = nameAndVersion(stateful?.serverInfo);
    const client = nameAndVersion(stateful?.clientInfo);
    return {
      findings: this.findings,
      evidence: this.evidence,
      applied: this.applied,
      eras: this.judge.eras,
      frames: this.frames,
      unkept: this.unkept,
      ...(this.stopped !== undefined ? { stopped: this.stopped } : {}),
      ...(stateful?.negotiatedVersion !== undefined
        ? { negotiated: { version: stateful.negotiatedVersion, ...(stateful.requestedVersion !== undefined ? { requested: stateful.requestedVersion } : {}), ...(stateful.negotiationFrame !== undefined ? { frame: stateful.negotiationFrame } : {}), ...(server ? { server } : {}), ...(client ? { client } : {}) } }
        : {}),
    };
  }

  private onFrame(from: Side, frame: IncomingFrame): void {
    const raw = frame.raw ?? JSON.stringify(frame.message) ?? '';
    const time = new Date(frame.at).toISOString();
    const json = frame.parseError === undefined;
    this.options.transcript?.frame({ from, raw, time, ...(frame.inResponseTo !== undefined ? { inResponseTo: frame.inResponseTo } : {}), ...(frame.exchange !== undefined ? { exchange: frame.exchange } : {}) });
    const index = this.frames.add(from, raw, frame.at);
    const found = json ? this.judge.message(from, frame.message, index, raw, undefined, frame.inResponseTo) : this.judge.raw(from, raw, index);
    for (const f of found) this.record(f, from);
  }

  /** A bug in a validator stops judging this session; the traffic goes on. */
  private guarded(work: () => void): void {
    if (this.stopped !== undefined) return;
    try {
      work();
    } catch (e) {
      this.stop(`mcpcheck failed judging frame ${this.frames.length - 1} (${e instanceof Error ? e.message : String(e)}); the rest was forwarded unjudged — a bug in mcpcheck`);
    }
  }

  /** Judges nothing more of the session, for this reason (told once). */
  stop(why: string): void {
    if (this.stopped !== undefined) return;
    this.stopped = why;
    this.options.onLine?.(`stopped judging: ${why}`);
  }

  private record(finding: Finding, side?: Side): void {
    const from = finding.frame !== undefined ? this.frames.sideOf(finding.frame) : side;
    if (finding.severity !== 'info' || this.options.tellNotes) this.options.onLine?.(lineOf(finding, from));
    const key = finding.requirements.join(' ');
    const seen = this.perRule.get(key) ?? { count: 0, worst: -1 };
    this.perRule.set(key, seen);
    const rank = RANK[finding.severity];
    if (seen.count >= KEPT_PER_RULE && rank <= seen.worst) {
      this.unkept++;
      return;
    }
    seen.count++;
    seen.worst = Math.max(seen.worst, rank);
    if (finding.frame !== undefined) this.frames.cite(finding.frame);
    // Only a frame still held has its text to quote: a finding at the session's end may cite one long gone.
    const text = finding.frame !== undefined ? this.frames.textOf(finding.frame)?.raw : undefined;
    this.findings.push(finding);
    this.evidence.set(finding, {
      ...(finding.frame !== undefined ? { frame: finding.frame } : {}),
      ...(from ? { from } : {}),
      ...(finding.pointer ? { pointer: finding.pointer } : {}),
      ...(text !== undefined ? { excerpt: excerptOf(text) } : {}),
      location: finding.frame !== undefined ? `frame ${finding.frame}` : from ? `${from} traffic` : 'session',
    });
  }
}

type Named = { name?: string; version?: string };

const WORDS = { fail: 'FAIL', warn: 'WARN', info: 'note' } as const;

/** `FAIL BASE-ID-01 MUST (server, frame 12): …`: one line, whatever the message holds. */
function lineOf(finding: Finding, from: Side | undefined): string {
  const where = [from, finding.frame !== undefined ? `frame ${finding.frame}` : undefined].filter(Boolean).join(', ');
  return `${WORDS[finding.severity]} ${finding.requirements.join(', ')} ${finding.level}${where ? ` (${where})` : ''}: ${finding.message.replace(/[\r\n]+/g, ' ')}`;
}
