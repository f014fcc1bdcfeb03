import type { Finding } from '../validate/finding.js';
import { SessionValidator } from '../validate/session.js';
import type { ParsedTranscript } from './format.js';

export interface TranscriptValidation {
  findings: Finding[];
  /** Requirement ids each side's traffic gave a chance to fail. */
  appliedBy: Readonly<Record<'client' | 'server', Set<string>>>;
  session: SessionValidator;
}

/** Judges a parsed transcript frame by frame, then the session as a whole. Pure. */
export function validateTranscript(transcript: ParsedTranscript): TranscriptValidation {
  const transport = transcript.header?.transport;
  const session = new SessionValidator(transport ? { transport, httpStatusUnknown: transport === 'http' } : {});
  const findings: Finding[] = [];
  transcript.frames.forEach((frame, i) => {
    if (frame.raw === undefined) {
      findings.push(...session.message(frame.from, frame.message, i));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(frame.raw);
    } catch {
      findings.push(...session.raw(frame.from, frame.raw, i));
      return;
    }
    findings.push(...session.message(frame.from, parsed, i, frame.raw));
  });
  findings.push(...session.end());
  return { findings, appliedBy: session.appliedBy, session };
}
