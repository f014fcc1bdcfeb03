import type { Finding } from '../validate/finding.js';
import type { Side } from '../validate/message.js';
import { SessionValidator, type SessionValidatorOptions } from '../validate/session.js';
import { obj } from '../json.js';
import { META } from '../spec/modern.js';
import { type Era, isStatefulRevision } from '../spec/revisions.js';

/**
 * The era of a client request read from the request itself: `initialize` opens a stateful
 * conversation; a protocolVersion in `_meta` that no initialize could negotiate (2026-07-28, or
 * one mcpcheck does not know, judged by 2026-07-28's rules) makes it modern. Undefined when the
 * request says neither.
 */
export function eraOfRequest(message: Record<string, unknown>): Era | undefined {
  if (message.method === 'initialize') return 'stateful';
  const version = obj(obj(message.params)?._meta)?.[META.protocolVersion];
  if (typeof version !== 'string') return undefined;
  return isStatefulRevision(version) ? 'stateful' : 'stateless';
}

/**
 * Judges a transcript exchange by exchange, each by its own era's validator: a dual-era HTTP
 * transcript (an initialize session and modern requests interleaved, two clients of one dual-era
 * server) gets the stateful rules on the one and the stateless rules on the other; on stdio an
 * initialize turns the rest of the process stateful. A request that
 * says nothing of its era goes with an open stateful conversation, else with the era of the
 * client's previous request (stateful at first, as every transcript was before 2026-07-28); a
 * response goes with the era whose request it answers, a notification with the era it names (a
 * subscription id, a cancelled request) or the client's last.
 */
export class EraJudge {
  private readonly validators = new Map<Era, SessionValidator>();
  private last: Era = 'stateful';

  constructor(private readonly options: SessionValidatorOptions) {}

  /** The eras judged so far, stateful first. */
  get eras(): Era[] {
    return (['stateful', 'stateless'] as const).filter((era) => this.validators.has(era));
  }

  /** The stateful era's validator (its negotiation), when the transcript had a stateful exchange. */
  get stateful(): SessionValidator | undefined {
    return this.validators.get('stateful');
  }

  /** Requirement ids each side's traffic gave a chance to fail, in any era. */
  get appliedBy(): Readonly<Record<Side, Set<string>>> {
    const merged = { client: new Set<string>(), server: new Set<string>() };
    for (const v of this.validators.values()) for (const side of ['client', 'server'] as const) for (const id of v.appliedBy[side]) merged[side].add(id);
    return merged;
  }

  message(from: Side, message: unknown, frame: number, raw?: string, source?: string, inResponseTo?: string | number): Finding[] {
    return this.validator(this.eraOf(from, message)).message(from, message, frame, raw, source, inResponseTo);
  }

  raw(from: Side, text: string, frame: number): Finding[] {
    return this.validator(this.last).raw(from, text, frame);
  }

  /** `side` sent something the peer could not read as a request (an HTTP error status refusing a POST whole): an error without id may answer it. */
  unreadableFrame(side: Side): void {
    this.validator(this.last).unreadableFrame(side);
  }

  end(): Finding[] {
    return [...this.validators.values()].flatMap((v) => v.end());
  }

  private validator(era: Era): SessionValidator {
    let v = this.validators.get(era);
    if (!v) this.validators.set(era, (v = new SessionValidator(this.options, era)));
    return v;
  }

  private eraOf(from: Side, message: unknown): Era {
    const m = obj(message);
    if (!m) return this.last;
    if (!('method' in m) && ('result' in m || 'error' in m)) {
      const requester: Side = from === 'client' ? 'server' : 'client';
      for (const [era, v] of this.validators) if (v.awaits(requester, m.id)) return era;
      return this.last;
    }
    if (from === 'client' && typeof m.method === 'string' && 'id' in m) {
      const opened = this.validators.get('stateful')?.requestedVersion !== undefined;
      // One stdio process has one client: initialize starts legacy semantics for the whole process
      // (VER-BC-02), so what follows is judged as that conversation, modern-looking or not. Over
      // HTTP a request that names no era belongs to an open initialize conversation (a modern
      // request always names its revision), else to the era of the client's traffic so far.
      if (opened && this.options.transport !== 'http') this.last = 'stateful';
      else this.last = eraOfRequest(m) ?? (opened ? 'stateful' : this.last);
      return this.last;
    }
    if (m.method === 'notifications/initialized') return 'stateful';
    if (obj(obj(m.params)?._meta)?.[META.subscriptionId] !== undefined) return 'stateless';
    const cancelled = m.method === 'notifications/cancelled' ? obj(m.params)?.requestId : undefined;
    for (const [era, v] of this.validators) if (cancelled !== undefined && v.awaits(from, cancelled)) return era;
    return this.last;
  }
}
