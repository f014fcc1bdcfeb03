/**
 * The steps of a stateful fuzz run: what a client does to a session, as plain data (a failing
 * sequence is saved and sent again exactly), and the model that says which steps make sense
 * next: subscribe only where the server offers subscriptions, unsubscribe only what is
 * subscribed, set a level only where it logs. Pure: no I/O.
 */
import fc from 'fast-check';
import { LOG_LEVELS, type LogLevel } from '../spec/log-levels.js';

export type Step =
  | { kind: 'ping' }
  | { kind: 'list'; method: string }
  /** A list walked to its end, following nextCursor. */
  | { kind: 'paginate'; method: string }
  | { kind: 'call'; tool: string; arguments: Record<string, unknown> }
  | { kind: 'subscribe'; uri: string }
  | { kind: 'unsubscribe'; uri: string }
  | { kind: 'set-level'; level: LogLevel }
  /** A call of a tool that takes its time, cancelled while it runs. */
  | { kind: 'cancel-call'; tool: string; arguments: Record<string, unknown> }
  /** Several requests sent at once, before any is answered. */
  | { kind: 'concurrent'; methods: string[] }
  /** The same requests sent at once on this session and on a second session of the same server (HTTP). */
  | { kind: 'second-session'; requests: Request[] }
  /**
   * A call of a tool that may ask for client input (2026-07-28 multi round-trip), every input kind
   * declared; when it answers input_required, a retry of the kind `retry` says, under a fresh id.
   */
  | { kind: 'mrtr'; tool: string; arguments: Record<string, unknown>; retry: MrtrRetry }
  /** subscriptions/listen opened (2026-07-28, stdio), these requests sent at once while it is open, then the subscription cancelled. */
  | { kind: 'listen'; during: string[] };

/**
 * How a multi round-trip retry is sent: `tampered` (the requestState changed as `tamper` says,
 * beside the untampered retry), `forged` (a requestState the server never issued, beside the same
 * call without one), `missing-responses` (requestState echoed, no inputResponses), or
 * `extra-responses` (an entry nobody asked for added, beside the plain retry).
 */
export type MrtrRetry = { kind: 'tampered'; tamper: 'extend' | 'flip' | 'truncate' | 'replace' } | { kind: 'forged' } | { kind: 'missing-responses' } | { kind: 'extra-responses' };

/** A request as data: a method and its params. */
export interface Request {
  method: string;
  params?: Record<string, unknown>;
}

/** What the model knows of the server: what it offers, and what this session has set up so far. */
export interface Model {
  lists: string[];
  /** Listed resource URIs, when the server offers subscriptions. */
  subscribable: string[];
  logs: boolean;
  /** Whether a second session on the same server can be opened (over HTTP). */
  sessions: boolean;
  subscribed: Set<string>;
  level?: LogLevel;
}

/** Whether a step makes sense in the model's state (fast-check drops the others from a sequence). */
export function allowed(step: Step, m: Model): boolean {
  switch (step.kind) {
    case 'subscribe':
      return m.subscribable.includes(step.uri);
    case 'unsubscribe':
      return m.subscribed.has(step.uri);
    case 'set-level':
      return m.logs;
    case 'list':
    case 'paginate':
      return m.lists.includes(step.method);
    case 'second-session':
      return m.sessions;
    default:
      return true;
  }
}

/** The model after a step the server accepted. */
export function advance(step: Step, m: Model): void {
  if (step.kind === 'subscribe') m.subscribed.add(step.uri);
  else if (step.kind === 'unsubscribe') m.subscribed.delete(step.uri);
  else if (step.kind === 'set-level') m.level = step.level;
}

export interface StepSources {
  lists: string[];
  subscribable: string[];
  logs: boolean;
  sessions: boolean;
  /** Generated arguments per tool the policy lets mcpcheck call. */
  calls: Array<{ tool: string; arguments: fc.Arbitrary<Record<string, unknown>> }>;
  /** Tools that take a time argument, with arguments that make them run for a while. */
  slow: Array<{ tool: string; arguments: Record<string, unknown> }>;
  /** The request that tells a live server from a hung one: ping, or server/discover in the stateless era. */
  probe: string;
  /** Multi round-trip retries are generated (the stateless era). */
  mrtr: boolean;
  /** Subscriptions are opened and closed amid other requests (the stateless era over stdio, where notifications/cancelled ends one). */
  listen: boolean;
  /** Why the last multi round-trip step run stopped before its retry (no input asked for, say). */
  mrtrStopped?: string;
}

/** Arbitraries of every step the server's offer allows. */
export function stepArbitraries(s: StepSources): Array<fc.Arbitrary<Step>> {
  // The stateless era has no ping: its probe, server/discover, is sent after every step anyway.
  const out: Array<fc.Arbitrary<Step>> = s.probe === 'ping' ? [fc.constant<Step>({ kind: 'ping' })] : [];
  if (s.lists.length) {
    out.push(fc.constantFrom(...s.lists).map((method): Step => ({ kind: 'list', method })));
    out.push(fc.constantFrom(...s.lists).map((method): Step => ({ kind: 'paginate', method })));
  }
  // One kind of step, one pick: many tools must not crowd out subscribing and setting the level.
  if (s.calls.length) out.push(fc.oneof(...s.calls.map((c) => c.arguments.map((args): Step => ({ kind: 'call', tool: c.tool, arguments: args })))));
  if (s.subscribable.length) {
    out.push(fc.constantFrom(...s.subscribable).map((uri): Step => ({ kind: 'subscribe', uri })));
    out.push(fc.constantFrom(...s.subscribable).map((uri): Step => ({ kind: 'unsubscribe', uri })));
  }
  if (s.logs) out.push(fc.constantFrom(...LOG_LEVELS).map((level): Step => ({ kind: 'set-level', level })));
  if (s.slow.length) out.push(fc.constantFrom(...s.slow).map((c): Step => ({ kind: 'cancel-call', ...c })));
  if (s.mrtr && s.calls.length) {
    const retry = fc.oneof(
      fc.constantFrom('extend', 'flip', 'truncate', 'replace').map((tamper): MrtrRetry => ({ kind: 'tampered', tamper })),
      fc.constantFrom<MrtrRetry>({ kind: 'forged' }, { kind: 'missing-responses' }, { kind: 'extra-responses' }),
    );
    out.push(fc.oneof(...s.calls.map((c) => fc.tuple(c.arguments, retry).map(([args, r]): Step => ({ kind: 'mrtr', tool: c.tool, arguments: args, retry: r })))));
  }
  const quick = [s.probe, ...s.lists];
  if (s.listen) out.push(fc.array(fc.constantFrom(...quick), { minLength: 1, maxLength: 4 }).map((during): Step => ({ kind: 'listen', during })));
  out.push(fc.array(fc.constantFrom(...quick), { minLength: 2, maxLength: 6 }).map((methods): Step => ({ kind: 'concurrent', methods })));
  if (s.sessions) {
    // Calls are what set off notifications: half the requests, whatever the number of tools.
    const listed = fc.constantFrom(...quick).map((method): Request => ({ method }));
    const calls = s.calls.map((c) => c.arguments.map((args): Request => ({ method: 'tools/call', params: { name: c.tool, arguments: args } })));
    const request = calls.length ? fc.oneof(listed, fc.oneof(...calls)) : listed;
    out.push(fc.array(request, { minLength: 1, maxLength: 4 }).map((requests): Step => ({ kind: 'second-session', requests })));
  }
  return out;
}

/** A bounded one-line rendering of a step. */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'ping':
      return 'ping';
    case 'list':
      return step.method;
    case 'paginate':
      return `${step.method} to its last page`;
    case 'call':
    case 'cancel-call': {
      const args = JSON.stringify(step.arguments);
      return `${step.kind === 'call' ? 'call' : 'call and cancel'} ${step.tool} ${args.length > 120 ? `${args.slice(0, 120)}…` : args}`;
    }
    case 'subscribe':
    case 'unsubscribe':
      return `${step.kind} ${step.uri}`;
    case 'set-level':
      return `logging/setLevel ${step.level}`;
    case 'concurrent':
      return `at once: ${step.methods.join(', ')}`;
    case 'second-session':
      return `on two sessions at once: ${step.requests.map(describeRequest).join(', ')}`;
    case 'listen':
      return `with subscriptions/listen open: ${step.during.join(', ')}, then cancel it`;
    case 'mrtr': {
      const retry = step.retry.kind === 'tampered' ? `requestState tampered (${step.retry.tamper})` : step.retry.kind === 'forged' ? 'a forged requestState' : step.retry.kind === 'missing-responses' ? 'requestState without inputResponses' : 'an inputResponses entry nobody asked for';
      return `${describeStep({ kind: 'call', tool: step.tool, arguments: step.arguments })}, retried with ${retry}`;
    }
  }
}

function describeRequest(r: Request): string {
  return r.method === 'tools/call' && r.params ? describeStep({ kind: 'call', tool: String(r.params.name), arguments: (r.params.arguments ?? {}) as Record<string, unknown> }) : r.method;
}
