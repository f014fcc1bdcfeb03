import type { Finding } from '../validate/finding.js';
import type { SessionValidator } from '../validate/session.js';
import type { Era } from '../spec/revisions.js';
import { EraJudge } from './eras.js';
import {
  eachLineOfBytes,
  frameOfLine,
  type LineChunk,
  type ParsedTranscript,
  type TranscriptFrame,
  type TranscriptHeader,
  type TranscriptProblem,
  type TranscriptRecord,
  TranscriptRecordReader,
} from './format.js';

export interface TranscriptValidation {
  findings: Finding[];
  /** Requirement ids each side's traffic gave a chance to fail. */
  appliedBy: Readonly<Record<'client' | 'server', Set<string>>>;
  /** The stateful exchange's session (its negotiation), when there was one. */
  session: SessionValidator | undefined;
  /** The eras the transcript's exchanges were judged in. */
  eras: Era[];
}

function sessionFor(header: TranscriptHeader | undefined): EraJudge {
  const transport = header?.transport;
  return new EraJudge(transport ? { transport, httpStatusUnknown: transport === 'http' } : {});
}

/** The findings of one frame; frame `i` of the transcript, read from the line `line` when it was read from one. */
function judge(session: EraJudge, frame: TranscriptFrame, i: number, line?: string): Finding[] {
  if (frame.raw === undefined) return session.message(frame.from, frame.message, i, undefined, line, frame.inResponseTo);
  let parsed: unknown;
  try {
    parsed = JSON.parse(frame.raw);
  } catch {
    return session.raw(frame.from, frame.raw, i);
  }
  return session.message(frame.from, parsed, i, frame.raw, undefined, frame.inResponseTo);
}

/** Judges a parsed transcript frame by frame, then the session as a whole. Pure. */
export function validateTranscript(transcript: ParsedTranscript): TranscriptValidation {
  const session = sessionFor(transcript.header);
  const findings: Finding[] = [];
  transcript.frames.forEach((frame, i) => {
    for (const f of judge(session, frame, i)) findings.push(f);
  });
  for (const f of session.end()) findings.push(f);
  return { findings, appliedBy: session.appliedBy, session: session.stateful, eras: session.eras };
}

/**
 * A transcript judged as it was read (validateStreamedTranscript). Its frames are not kept: each is
 * read again from its line when asked for (for a finding's evidence), so judging a long
 * transcript keeps two numbers a frame rather than every frame it judged.
 */
export interface ReadTranscript {
  header?: TranscriptHeader;
  /** Lines that are not transcript records: reported, skipped, never fatal. */
  problems: TranscriptProblem[];
  readonly frameCount: number;
  /** Frame `index` (0-based, as in findings), read again from its line; undefined when there is none. */
  frame(index: number): TranscriptFrame | undefined;
}

/** A transcript judged as it is read, record by record: where each frame's line starts is all that is kept of it. */
class TranscriptJudging implements ReadTranscript {
  header?: TranscriptHeader;
  readonly problems: TranscriptProblem[] = [];
  /** Where each frame's line starts, and its 1-based line number. */
  private readonly starts: number[] = [];
  private readonly lines: number[] = [];
  private session: EraJudge | undefined;
  private readonly findings: Finding[] = [];

  /** `lineAt` reads a line again by where it started. */
  constructor(private readonly lineAt: (at: number) => string | undefined) {}

  get frameCount(): number {
    return this.starts.length;
  }

  readonly take = (record: TranscriptRecord): void => {
    if (record.kind === 'header') this.header = record.header;
    else if (record.kind === 'problem') this.problems.push(record.problem);
    // An exchange's headers and status (a proxy's HTTP transcript) are the evidence of rules judged live: not judged again here.
    else if (record.kind === 'frame') {
      // The header, if any, is the first record: the session starts with the first frame.
      this.session ??= sessionFor(this.header);
      for (const f of judge(this.session, record.frame, this.frameCount, record.text)) this.findings.push(f);
      this.starts.push(record.at);
      this.lines.push(record.frame.line!);
    }
  };

  frame(index: number): TranscriptFrame | undefined {
    const at = this.starts[index];
    const text = at === undefined ? undefined : this.lineAt(at);
    return text === undefined ? undefined : frameOfLine(text, this.lines[index]!);
  }

  /** After the last record (TranscriptRecordReader.end() has thrown when there was no frame, so the session exists). */
  finish(): { transcript: ReadTranscript; validation: TranscriptValidation } {
    const judged = this.session!;
    for (const f of judged.end()) this.findings.push(f);
    return { transcript: this, validation: { findings: this.findings, appliedBy: judged.appliedBy, session: judged.stateful, eras: judged.eras } };
  }
}

/** A transcript read as it is judged: runs of whole lines in order, and a line read again by where it starts. */
export interface StreamedTranscript {
  chunks(): AsyncIterable<LineChunk>;
  lineAt(at: number): string | undefined;
}

/**
 * parseTranscript and validateTranscript in one pass, with the same findings, judging each run of
 * lines as it comes: only where each frame's line starts is kept. Throws TranscriptUnusable as
 * parseTranscript does.
 */
export async function validateStreamedTranscript(transcript: StreamedTranscript, source: string): Promise<{ transcript: ReadTranscript; validation: TranscriptValidation }> {
  const judging = new TranscriptJudging((at) => transcript.lineAt(at));
  const reader = new TranscriptRecordReader(source);
  const visit = reader.visitor(judging.take);
  for await (const { bytes, length, offset } of transcript.chunks()) eachLineOfBytes(bytes, 0, length, offset, visit);
  reader.end();
  return judging.finish();
}
