import type { Finding } from './finding.js';
import type { Side } from './message.js';
import type { Revision } from './revisions.js';
import { sameJson } from '../json.js';

/** Results a peer sends again unchanged whenever it is asked: each list page of a walk. */
const LIST_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);

/** Bounds the parsed messages kept alive: a walk of a few pages for each list. */
const KEPT = 32;

interface Judged {
  revision: Revision;
  /** The response as it came, which the repeat must equal but for its id. */
  message: Record<string, unknown>;
  /** What judging the response by itself added to its envelope's findings (validateEnvelope). */
  findings: readonly Finding[];
}

/**
 * List results judged earlier in a session, to judge a repeat by what it repeats. A response
 * that equals an earlier one but for its id, answering the same request from the same side in
 * the same revision, gets the earlier findings: judging a message by itself is a pure function of
 * these (validateEnvelope), and the rules it marked applied were marked then. Re-listed pages
 * with large tool schemas were about a quarter of judging a long transcript.
 */
export class RepeatedResults {
  private readonly judged = new Map<string, Judged>();

  private static key(from: Side, request: { method: string; params?: unknown } | undefined): string | undefined {
    if (!request || !LIST_METHODS.has(request.method)) return undefined;
    return `${from}\n${request.method}\n${JSON.stringify(request.params ?? null)}`;
  }

  /** The earlier response this one repeats, with its own findings (fresh copies); undefined when it repeats none. */
  repeated(from: Side, revision: Revision, request: { method: string; params?: unknown } | undefined, message: Record<string, unknown>): { message: Record<string, unknown>; findings: Finding[] } | undefined {
    const key = RepeatedResults.key(from, request);
    const earlier = key === undefined ? undefined : this.judged.get(key);
    if (!earlier || earlier.revision !== revision || !sameJson(message, earlier.message, 'id')) return undefined;
    return { message: earlier.message, findings: earlier.findings.map((f) => ({ ...f })) };
  }

  /** Records a response judged by itself, with the findings judging it added. */
  remember(from: Side, revision: Revision, request: { method: string; params?: unknown } | undefined, message: Record<string, unknown>, findings: readonly Finding[]): void {
    const key = RepeatedResults.key(from, request);
    if (key === undefined) return;
    if (this.judged.size >= KEPT && !this.judged.has(key)) this.judged.clear();
    this.judged.set(key, { revision, message, findings: findings.map((f) => ({ ...f })) });
  }
}

