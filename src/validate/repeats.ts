import type { Finding } from './finding.js';
import type { Side } from './message.js';
import type { Revision } from '../spec/revisions.js';
import { sameJson } from '../json.js';

/** Results a peer sends again unchanged whenever it is asked: each list page of a walk. */
const LIST_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);

/** Bounds the parsed messages kept alive: a walk of a few pages for each list. */
const KEPT = 32;

interface Judged {
  revision: Revision;
  /** The response as it came, which the repeat must equal but for its id. */
  message: Record<string, unknown>;
  /** Text that held the response's JSON (its transcript line), when there was one. */
  source: string | undefined;
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

  /**
   * The earlier response this one repeats, with its own findings (fresh copies); undefined when it
   * repeats none. `source` is text that holds the response's JSON, as in remember().
   */
  repeated(from: Side, revision: Revision, request: { method: string; params?: unknown } | undefined, message: Record<string, unknown>, source?: string): { message: Record<string, unknown>; findings: Finding[] } | undefined {
    const key = RepeatedResults.key(from, request);
    const earlier = key === undefined ? undefined : this.judged.get(key);
    if (!earlier || earlier.revision !== revision) return undefined;
    const same = (source !== undefined && earlier.source !== undefined && sameTextButId(earlier.source, earlier.message.id, source, message.id)) || sameJson(message, earlier.message, 'id');
    return same ? { message: earlier.message, findings: earlier.findings.map((f) => ({ ...f })) } : undefined;
  }

  /** Records a response judged by itself, with the findings judging it added; `source` is text that held its JSON, if any. */
  remember(from: Side, revision: Revision, request: { method: string; params?: unknown } | undefined, message: Record<string, unknown>, findings: readonly Finding[], source?: string): void {
    const key = RepeatedResults.key(from, request);
    if (key === undefined) return;
    if (this.judged.size >= KEPT && !this.judged.has(key)) this.judged.clear();
    this.judged.set(key, { revision, message, source, findings: findings.map((f) => ({ ...f })) });
  }
}

/**
 * Whether `text` is `earlier` with the first `"id":` of its id written anew, `id` being the id of
 * the message parsed from `text` and `earlierId` that of the one parsed from `earlier`. The texts
 * then differ in one place at most; had that place not been the message's id, the two ids would
 * be the same. So the messages are equal but for their ids, which comparing the texts shows at a
 * fraction of the cost of walking both parsed pages. False says nothing (another layout, a
 * changed timestamp): the caller compares the messages then.
 */
function sameTextButId(earlier: string, earlierId: unknown, text: string, id: unknown): boolean {
  const before = `"id":${JSON.stringify(earlierId)}`;
  const after = `"id":${JSON.stringify(id)}`;
  const at = earlier.indexOf(before);
  if (at < 0 || text.length !== earlier.length - before.length + after.length) return false;
  return text.startsWith(after, at) && text.slice(0, at) === earlier.slice(0, at) && text.slice(at + after.length) === earlier.slice(at + before.length);
}

