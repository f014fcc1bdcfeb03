import type { HarnessSession, RecordedFrame, Reply } from '../../src/harness/session.js';
import type { CheckRecorder } from '../../src/runner/checks.js';
import { describeReply } from '../../src/runner/checks.js';

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A response frame (result or error) that answers no request of ours still waiting. */
export function isResponse(frame: RecordedFrame): boolean {
  const m = frame.message;
  return isObject(m) && !('method' in m) && ('result' in m || 'error' in m);
}

/** Responses among the server's frames since `mark` whose id is not in `ours`. */
export function strayResponses(session: HarnessSession, mark: number, ours: ReadonlySet<unknown>): RecordedFrame[] {
  return session.serverFrames(mark).filter((f) => isResponse(f) && !ours.has((f.message as Record<string, unknown>).id));
}

/** ROBUST-05 and friends: after a probe, the target must still answer ping. */
export async function stillAnswers(session: HarnessSession, check: CheckRecorder, after: string, key: string, requirements = ['ROBUST-05']): Promise<boolean> {
  const reply = await session.request('ping', undefined, 3_000);
  return check.expect(reply.kind === 'result', {
    key,
    requirements,
    expected: `the server still answers ping after ${after}`,
    actual: describeReply(reply),
    frames: [reply.kind === 'result' || reply.kind === 'error' ? reply.frame : undefined],
  });
}

export function errorCodeOf(reply: Reply): unknown {
  return reply.kind === 'error' ? reply.error.code : undefined;
}

/** The first object of a frame's message, or of its raw text when that parses. */
export function messageOf(frame: RecordedFrame | undefined): Record<string, unknown> | undefined {
  if (!frame) return undefined;
  if (isObject(frame.message)) return frame.message;
  return undefined;
}
