import type { Finding } from '../validate/finding.js';
import { SessionValidator } from '../validate/session.js';
import { type ParsedTranscript, readRecords, type TranscriptFrame, type TranscriptHeader } from './format.js';

export interface TranscriptValidation {
  findings: Finding[];
  /** Requirement ids each side's traffic gave a chance to fail. */
  appliedBy: Readonly<Record<'client' | 'server', Set<string>>>;
  session: SessionValidator;
}

function sessionFor(header: TranscriptHeader | undefined): SessionValidator {
  const transport = header?.transport;
  return new SessionValidator(transport ? { transport, httpStatusUnknown: transport === 'http' } : {});
}

/** The findings of one frame; frame `i` of the transcript. */
function judge(session: SessionValidator, frame: TranscriptFrame, i: number): Finding[] {
  if (frame.raw === undefined) return session.message(frame.from, frame.message, i);
  let parsed: unknown;
  try {
    parsed = JSON.parse(frame.raw);
  } catch {
    return session.raw(frame.from, frame.raw, i);
  }
  return session.message(frame.from, parsed, i, frame.raw);
}

/** Judges a parsed transcript frame by frame, then the session as a whole. Pure. */
export function validateTranscript(transcript: ParsedTranscript): TranscriptValidation {
  const session = sessionFor(transcript.header);
  const findings: Finding[] = [];
  transcript.frames.forEach((frame, i) => {
    for (const f of judge(session, frame, i)) findings.push(f);
  });
  for (const f of session.end()) findings.push(f);
  return { findings, appliedBy: session.appliedBy, session };
}

/**
 * A frame whose message is read again from its line when asked for (for a finding's evidence),
 * so judging a long transcript does not keep every message it has judged.
 */
class ReadAgain implements TranscriptFrame {
  readonly from: TranscriptFrame['from'];
  readonly line: number | undefined;
  readonly raw: string | undefined;
  readonly time: string | undefined;

  constructor(frame: TranscriptFrame, private readonly text: string) {
    this.from = frame.from;
    this.line = frame.line;
    this.raw = frame.raw;
    this.time = frame.time;
  }

  get message(): unknown {
    return this.raw === undefined ? (JSON.parse(this.text) as { message?: unknown }).message : undefined;
  }
}

/**
 * parseTranscript and validateTranscript in one pass, with the same results: each message is
 * judged as it is read, and only its line is kept. Pure; throws TranscriptUnusable as parseTranscript does.
 */
export function validateTranscriptText(text: string, source: string): { transcript: ParsedTranscript; validation: TranscriptValidation } {
  const transcript: ParsedTranscript = { frames: [], problems: [] };
  let session: SessionValidator | undefined;
  const findings: Finding[] = [];
  for (const record of readRecords(text, source)) {
    if (record.kind === 'header') transcript.header = record.header;
    else if (record.kind === 'problem') transcript.problems.push(record.problem);
    else {
      // The header, if any, is the first record: the session starts with the first frame.
      session ??= sessionFor(transcript.header);
      for (const f of judge(session, record.frame, transcript.frames.length)) findings.push(f);
      transcript.frames.push(new ReadAgain(record.frame, record.text));
    }
  }
  // readRecords throws when there is no frame, so the session exists here.
  const judged = session!;
  for (const f of judged.end()) findings.push(f);
  return { transcript, validation: { findings, appliedBy: judged.appliedBy, session: judged } };
}
