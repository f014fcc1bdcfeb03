/**
 * The session a fuzz run sends its cases on: opened and connected on demand, replaced by a
 * fresh one (over stdio a fresh process) after the target crashed or hung, and keeping the ids
 * it sent so a generated id is never reused within a session (BASE-ID-03 binds mcpcheck too).
 */
import { SetupError } from '../errors.js';
import { ClientSession } from '../harness/client-session.js';
import { connect } from '../harness/lifecycle/index.js';
import { type Pace, STARTUP_MS } from '../harness/pace.js';
import { asSetupError, type Target } from '../harness/target.js';
import { describeReply } from '../harness/describe-reply.js';
import { isObject } from '../json.js';
import type { Revision } from '../spec/revisions.js';
import { caseId, type FuzzCase } from './case.js';

export class Lane {
  private current: ClientSession | undefined;
  /** Ids the current session carried, mcpcheck's own included. */
  readonly used = new Set<unknown>();
  /** Sessions opened after the first (restarts after a crash or hang). */
  restarts = 0;
  private opened = 0;
  private readonly seconds = new Set<ClientSession>();

  constructor(
    private readonly target: Target,
    private readonly requestTimeoutMs: number,
    /** The run's measure of the target's starts (shared by every lane of the run). */
    private readonly pace: Pace,
    /** The revision every session speaks (its era's opening: initialize, or server/discover). */
    readonly speaks: Revision,
  ) {}

  get transport(): 'stdio' | 'http' {
    return this.target.kind;
  }

  /** The connected session, a new one when the last is gone. The first that fails to connect is a setup error. */
  async session(): Promise<ClientSession> {
    if (this.current && !this.current.closed) return this.current;
    if (this.current) await this.discard();
    const session = await this.open();
    if (this.opened++ > 0) this.restarts++;
    this.current = session;
    this.used.clear();
    this.used.add(1);
    return session;
  }

  /**
   * A second session beside the current one, on the same server (over HTTP only: over stdio a
   * session is a process of its own). It lives until the lane discards the current session.
   */
  async secondSession(): Promise<ClientSession> {
    if (this.target.kind !== 'http') throw new Error('a second session on the same server needs HTTP');
    const session = await this.open(true);
    this.seconds.add(session);
    return session;
  }

  private async open(second = false): Promise<ClientSession> {
    let channel;
    try {
      channel = await this.target.open();
    } catch (e) {
      throw asSetupError(e);
    }
    // Over stdio every session is a fresh process: the run's first start is waited for up to the
    // pace's ceiling and measured, the later ones (restarts after a crash) by that measure. The
    // pace sets starts only: the waits that decide a finding are --case-timeout's, as given.
    const stdio = this.target.kind === 'stdio';
    const session = new ClientSession({ channel, transport: this.target.kind, requestTimeoutMs: this.requestTimeoutMs, startupMs: stdio ? this.pace.startupMs(1) : STARTUP_MS, speaks: this.speaks });
    const outcome = await connect(session).catch((e: unknown) => {
      throw asSetupError(e);
    });
    if (outcome.ok && stdio && session.startedAfterMs !== undefined) this.pace.firstStart(session.startedAfterMs);
    if (!outcome.ok) {
      await session.close();
      throw new SetupError(second ? `the ${outcome.opening} of a second session got ${describeReply(outcome.reply)}` : `${this.target.description} is no MCP server: ${outcome.opening} got ${describeReply(outcome.reply)}`);
    }
    return session;
  }

  /**
   * Ends the current session (its process, over stdio): the next case gets a fresh one. After a
   * crash or hang (`recycle`), a server mcpcheck started behind a URL is started afresh too.
   */
  async discard(recycle = false): Promise<void> {
    const s = this.current;
    this.current = undefined;
    const ending = [...this.seconds, ...(s ? [s] : [])];
    this.seconds.clear();
    await Promise.all(ending.map((x) => x.close().catch(() => undefined)));
    if (recycle) await this.target.recycle?.();
  }

  /** The case with its id changed, keeping its kind (integer, fraction, string), when this session already used it. */
  freshen(c: FuzzCase): FuzzCase {
    let id = caseId(c);
    if (id === undefined) return c;
    // Text frames are sent as they are; their ids are only kept, so late answers are told apart.
    if (!this.used.has(id) || !('json' in c.body) || !isObject(c.body.json)) {
      this.used.add(id);
      return c;
    }
    const original = id;
    // Shrinking sends the same id again and again: a numbered suffix keeps a string id short.
    for (let n = 1; this.used.has(id); n++) id = typeof original === 'string' ? `${original}~${n}` : original + n * (original > 2 ** 52 ? -4096 : 1_000_003);
    this.used.add(id);
    return { ...c, body: { json: { ...(c.body as { json: Record<string, unknown> }).json, id } } };
  }
}
