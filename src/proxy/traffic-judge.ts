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

/** How far judging may fall behind the traffic before it stops (the traffic itself never waits). */
const MAX_BEHIND_BYTES = 64 * 1024 * 1024;
/** Judging yields to the event loop after this long, so forwarding is never held up by a backlog. */
const SLICE_MS = 5;
/**
 * Judging waits for a pause this long in the traffic, so that it runs between exchanges rather than
 * while one is under way (a reply arriving while a frame is judged would wait for it)…
 */
const QUIET_MS = 1;
/** …but not longer than this after the oldest work queued, nor once this much is queued: the backlog stays small. */
const MAX_WAIT_MS = 50;
const PRESSURE_BYTES = 4 * 1024 * 1024;
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
  negotiated?: { version: string; requested?: string; frame?: number; server?: { name?: string; version?: string } };
}

/**
 * Judges a session's traffic as it passes through mcpcheck proxy: the bytes each side sends are
 * split into frames (STDIO-FRAME-01's lines), each frame judged by the era's session validator and
 * written to the transcript, each finding told as one line. The forwarder hands bytes over and
 * goes on: judging runs in slices after the event loop's I/O, so a slow judgement (or a bug in
 * one) never delays, blocks or drops the traffic; a backlog beyond a bound stops judging, not
 * forwarding.
 */
export class TrafficJudge {
  private readonly judge: EraJudge;
  private readonly framers: Record<Side, LineFramer>;
  private readonly frames = new KeptFrames();
  private readonly findings: Finding[] = [];
  private readonly evidence = new Map<Finding, Evidence>();
  private readonly perRule = new Map<string, { count: number; worst: number }>();
  private readonly applied = new Set<string>();
  /** Work in arrival order, each with the bytes it holds (what the backlog bound counts). */
  private queue: Array<{ bytes: number; run: () => void }> = [];
  private queued = 0;
  private scheduled = false;
  /** The wait for a pause in the traffic (re-armed by each arrival). */
  private quiet: NodeJS.Timeout | undefined;
  /** When the oldest queued work arrived. */
  private oldest = 0;
  private stopped: string | undefined;
  private unkept = 0;
  /** When the chunk being framed arrived. */
  private arrival = 0;

  constructor(private readonly options: TrafficJudgeOptions) {
    this.judge = new EraJudge({ transport: options.transport });
    const framer = (from: Side) =>
      new LineFramer({
        via: from,
        source: SOURCES[from].source,
        noiseRequirement: SOURCES[from].noise,
        reportNoise: false,
        deliverJoined: false,
        maxTotalBytes: Number.POSITIVE_INFINITY,
        clock: () => this.arrival,
        onFrame: (frame) => this.onFrame(from, frame),
        onFinding: (finding) => {
          // The framer judges the bytes between frames: what it reports on, it exercised.
          for (const id of finding.requirements) this.applied.add(id);
          this.record(finding, from);
        },
      });
    this.framers = { client: framer('client'), server: framer('server') };
  }

  /** Bytes `from` sent over stdio, already forwarded. Cheap: they are queued and judged later. */
  push(from: Side, chunk: Buffer): void {
    const at = Date.now();
    this.enqueue(chunk.length, () => {
      // A frame passed when the chunk holding its last byte did, not when it is judged.
      this.arrival = at;
      this.framers[from].push(chunk);
    });
  }

  /** `from` closed its side of a stdio connection. */
  end(from: Side): void {
    this.enqueue(0, () => this.framers[from].end());
  }

  /**
   * One whole message `from` sent over HTTP (a POST body, a JSON response, an SSE event's data),
   * already forwarded; `inResponseTo`: the request whose POST response carried it. `errorStatus`:
   * it is the body of an HTTP error status, which may be an error without id refusing the POST as
   * a whole (HTTP-POST-04).
   */
  message(from: Side, text: string, o: { inResponseTo?: string | number; errorStatus?: boolean; parsed?: Parsed } = {}): void {
    const at = Date.now();
    this.enqueue(text.length, () => {
      const parsed = o.parsed ?? parseJson(text);
      if (!parsed.ok) return this.onFrame(from, { raw: text, parseError: parsed.error, via: 'http', at });
      if (o.errorStatus && isAnonymousError(parsed.value)) this.judge.unreadableFrame(from === 'client' ? 'server' : 'client');
      this.onFrame(from, { raw: text, message: parsed.value, via: 'http', at, ...(o.inResponseTo !== undefined ? { inResponseTo: o.inResponseTo } : {}) });
    });
  }

  /** What the transport showed of `side`'s HTTP exchanges (headers, statuses): the rules it exercised and its findings. */
  outside(side: Side, applied: readonly string[], findings: readonly Finding[]): void {
    this.enqueue(0, () => {
      for (const id of applied) this.applied.add(id);
      for (const f of findings) this.record(f, side);
    });
  }

  /** The protocol version the stateful exchange negotiated, once it has (its HTTP requests must name it). */
  get negotiatedVersion(): string | undefined {
    return this.judge.stateful?.negotiatedVersion;
  }

  /** Judges what is still queued and ends the session. */
  finish(): JudgedTraffic {
    clearTimeout(this.quiet);
    this.drain(Number.POSITIVE_INFINITY);
    if (this.stopped === undefined) {
      this.guarded(() => {
        for (const framer of Object.values(this.framers)) framer.end();
        for (const f of this.judge.end()) this.record(f);
      });
    }
    const applied = this.judge.appliedBy;
    for (const side of ['client', 'server'] as const) for (const id of applied[side]) this.applied.add(id);
    const stateful = this.judge.stateful;
    const info = stateful?.serverInfo;
    return {
      findings: this.findings,
      evidence: this.evidence,
      applied: this.applied,
      eras: this.judge.eras,
      frames: this.frames,
      unkept: this.unkept,
      ...(this.stopped !== undefined ? { stopped: this.stopped } : {}),
      ...(stateful?.negotiatedVersion !== undefined
        ? { negotiated: { version: stateful.negotiatedVersion, ...(stateful.requestedVersion !== undefined ? { requested: stateful.requestedVersion } : {}), ...(stateful.negotiationFrame !== undefined ? { frame: stateful.negotiationFrame } : {}), ...(info ? { server: { ...(typeof info.name === 'string' ? { name: info.name } : {}), ...(typeof info.version === 'string' ? { version: info.version } : {}) } } : {}) } }
        : {}),
    };
  }

  private enqueue(bytes: number, run: () => void): void {
    if (this.stopped !== undefined) return;
    this.queued += bytes;
    if (this.queued > MAX_BEHIND_BYTES) {
      this.stop(`judging fell more than ${MAX_BEHIND_BYTES / 1024 / 1024} MiB behind the traffic at frame ${this.frames.length}; the rest was forwarded unjudged`);
      return;
    }
    if (this.queue.length === 0) this.oldest = performance.now();
    this.queue.push({ bytes, run });
    this.schedule();
  }

  /** Judges in the next pause of the traffic, or at once (in slices between I/O) when the backlog is old or large. */
  private schedule(): void {
    if (this.scheduled) return;
    if (performance.now() - this.oldest < MAX_WAIT_MS && this.queued < PRESSURE_BYTES) {
      if (this.quiet) this.quiet.refresh();
      else (this.quiet = setTimeout(() => this.slice(), QUIET_MS)).unref();
      return;
    }
    this.scheduled = true;
    setImmediate(() => this.slice());
  }

  private slice(): void {
    clearTimeout(this.quiet);
    this.quiet = undefined;
    this.scheduled = false;
    this.drain(SLICE_MS);
    if (this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.slice());
  }

  private drain(budgetMs: number): void {
    const until = performance.now() + budgetMs;
    // Taken from the front by index (shift() moves a long backlog at every step).
    let taken = 0;
    while (taken < this.queue.length && this.stopped === undefined && performance.now() < until) {
      const item = this.queue[taken++]!;
      this.queued -= item.bytes;
      this.guarded(item.run);
    }
    this.queue.splice(0, taken);
  }

  private onFrame(from: Side, frame: IncomingFrame): void {
    const raw = frame.raw ?? JSON.stringify(frame.message) ?? '';
    const time = new Date(frame.at).toISOString();
    const json = frame.parseError === undefined;
    this.options.transcript?.frame({ from, raw, time, ...(frame.inResponseTo !== undefined ? { inResponseTo: frame.inResponseTo } : {}) });
    const index = this.frames.add(from, raw, frame.at);
    const found = json ? this.judge.message(from, frame.message, index, raw, undefined, frame.inResponseTo) : this.judge.raw(from, raw, index);
    for (const f of found) this.record(f, from);
  }

  /** A bug in a validator stops judging this session; the traffic goes on. */
  private guarded(work: () => void): void {
    try {
      work();
    } catch (e) {
      this.stop(`mcpcheck failed judging frame ${this.frames.length - 1} (${e instanceof Error ? e.message : String(e)}); the rest was forwarded unjudged — a bug in mcpcheck`);
    }
  }

  private stop(why: string): void {
    this.stopped ??= why;
    this.queue = [];
    this.queued = 0;
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

const WORDS = { fail: 'FAIL', warn: 'WARN', info: 'note' } as const;

/** `FAIL BASE-ID-01 MUST (server, frame 12): …`: one line, whatever the message holds. */
function lineOf(finding: Finding, from: Side | undefined): string {
  const where = [from, finding.frame !== undefined ? `frame ${finding.frame}` : undefined].filter(Boolean).join(', ');
  return `${WORDS[finding.severity]} ${finding.requirements.join(', ')} ${finding.level}${where ? ` (${where})` : ''}: ${finding.message.replace(/[\r\n]+/g, ' ')}`;
}
