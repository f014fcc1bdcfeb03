import type { Finding } from '../finding.js';
import { obj } from '../../json.js';
import type { RuleTable } from '../rule-table.js';
import type { Pending } from './ledger.js';
import type { SessionState } from './state.js';

/** Judges a request as it is sent; the request is recorded as pending once every concern has seen it. */
export type RequestHook = (request: Pending, findings: Finding[]) => void;
export type NotificationHook = (params: Record<string, unknown> | undefined, findings: Finding[], method: string) => void;
/** Judges the response to `request` (a result or an error, not one that turned the request into a task). */
export type AnswerHook = (request: Pending, kind: 'result' | 'error', message: Record<string, unknown>, findings: Finding[]) => void;

/** Hooks by method; `'*'` for every method. */
export type Routes<H> = Readonly<Record<string, H>>;

/** The request a response is judged against: its method and params. */
export interface JudgedRequest {
  method: string;
  params?: Record<string, unknown> | undefined;
}

/**
 * One concern of a session (lifecycle, cancellation, progress …): the frames it wants, by kind and
 * method, and what it judges at the end. Its sender, frame and the shared facts are in the
 * SessionState it is made with; its findings go, in concern order, to the frame being judged.
 */
export interface Concern {
  readonly requests?: Routes<RequestHook>;
  readonly notifications?: Routes<NotificationHook>;
  readonly answers?: Routes<AnswerHook>;
  /** A task-augmented request was answered with a CreateTaskResult: its own result comes later, through tasks/result. */
  taskCreated?(request: Pending, message: Record<string, unknown>, findings: Finding[]): void;
  /** The request a response to `request` is to be judged as, when not `request` itself. */
  judgedAs?(request: Pending): JudgedRequest | undefined;
  /** Findings that only the end of the session shows. */
  end?(findings: Finding[]): void;
}

/** A concern module: its rule table and how a session makes one. */
export interface ConcernKind {
  /** The requirement ids the concern judges. */
  readonly rules: RuleTable;
  new (state: SessionState): Concern;
}

/** The result object of a response, when it is a result and an object. */
export function resultOf(kind: 'result' | 'error', message: Record<string, unknown>): Record<string, unknown> | undefined {
  return kind === 'result' ? obj(message.result) : undefined;
}
