import type { Finding } from '../validate/finding.js';
import type { SessionValidator } from '../validate/session.js';
import type { Era } from '../spec/revisions.js';
import { EraJudge } from './eras.js';
import { frameAt, type ParsedTranscript, readRecords, type TranscriptFrame, type TranscriptHeader, type TranscriptProblem } from './format.js';

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
 * A transcript judged as it was read (validateTranscriptText). Its frames are not kept: each is
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

class FramesOfText implements ReadTranscript {
  header?: TranscriptHeader;
  readonly problems: TranscriptProblem[] = [];
  /** Where each frame's line starts in the text, and its 1-based line number. */
  private readonly starts: number[] = [];
  private readonly lines: number[] = [];

  constructor(private readonly text: string) {}

  get frameCount(): number {
    return this.starts.length;
  }

  add(at: number, line: number): void {
    this.starts.push(at);
    this.lines.push(line);
  }

  frame(index: number): TranscriptFrame | undefined {
    const at = this.starts[index];
    return at === undefined ? undefined : frameAt(this.text, at, this.lines[index]!);
  }
}

/**
 * parseTranscript and validateTranscript in one pass, with the same findings: each message is
 * judged as it is read, and only where its line starts is kept. Pure; throws TranscriptUnusable as parseTranscript does.
 */
export function validateTranscriptText(text: string, source: string): { transcript: ReadTranscript; validation: TranscriptValidation } {
  const transcript = new FramesOfText(text);
  let session: EraJudge | undefined;
  const findings: Finding[] = [];
  for (const record of readRecords(text, source)) {
    if (record.kind === 'header') transcript.header = record.header;
    else if (record.kind === 'problem') transcript.problems.push(record.problem);
    // An exchange's headers and status (a proxy's HTTP transcript) are the evidence of rules judged live: not judged again here.
    else if (record.kind === 'frame') {
      // The header, if any, is the first record: the session starts with the first frame.
      session ??= sessionFor(transcript.header);
      for (const f of judge(session, record.frame, transcript.frameCount, record.text)) findings.push(f);
      transcript.add(record.at, record.frame.line!);
    }
  }
  // readRecords throws when there is no frame, so the session exists here.
  const judged = session!;
  for (const f of judged.end()) findings.push(f);
  return { transcript, validation: { findings, appliedBy: judged.appliedBy, session: judged.stateful, eras: judged.eras } };
}
