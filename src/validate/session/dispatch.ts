import type { Finding } from '../finding.js';
import type { AnswerHook, Concern, JudgedRequest, NotificationHook, RequestHook, Routes } from './concern.js';
import type { Pending } from './ledger.js';

/** The hooks of one kind of frame, by method, in concern order; built once, so a frame costs one lookup. */
class Router<H> {
  private readonly byMethod = new Map<string, readonly H[]>();
  /** The hooks for a method no concern names: those that take every method. */
  private readonly any: readonly H[];

  constructor(concerns: readonly Concern[], routes: (c: Concern) => Routes<H> | undefined) {
    const hooks = (method: string) => concerns.flatMap((c) => {
      const r = routes(c);
      return r === undefined ? [] : [r['*'], method !== '*' && Object.hasOwn(r, method) ? r[method] : undefined].filter((h): h is H => h !== undefined);
    });
    this.any = hooks('*');
    for (const c of concerns) for (const method of Object.keys(routes(c) ?? {})) if (method !== '*' && !this.byMethod.has(method)) this.byMethod.set(method, hooks(method));
  }

  for(method: string): readonly H[] {
    return this.byMethod.get(method) ?? this.any;
  }
}

/** Routes each frame to the concerns of the session's era that want it, in their order. */
export class Dispatcher {
  private readonly requests: Router<RequestHook>;
  private readonly notifications: Router<NotificationHook>;
  private readonly answers: Router<AnswerHook>;
  private readonly taskWatchers: readonly Concern[];
  private readonly judges: readonly Concern[];
  private readonly enders: readonly Concern[];

  constructor(concerns: readonly Concern[]) {
    this.requests = new Router(concerns, (c) => c.requests);
    this.notifications = new Router(concerns, (c) => c.notifications);
    this.answers = new Router(concerns, (c) => c.answers);
    this.taskWatchers = concerns.filter((c) => c.taskCreated !== undefined);
    this.judges = concerns.filter((c) => c.judgedAs !== undefined);
    this.enders = concerns.filter((c) => c.end !== undefined);
  }

  request(request: Pending, findings: Finding[]): void {
    for (const hook of this.requests.for(request.method)) hook(request, findings);
  }

  notification(method: string, params: Record<string, unknown> | undefined, findings: Finding[]): void {
    for (const hook of this.notifications.for(method)) hook(params, findings, method);
  }

  answer(request: Pending, kind: 'result' | 'error', message: Record<string, unknown>, findings: Finding[]): void {
    for (const hook of this.answers.for(request.method)) hook(request, kind, message, findings);
  }

  taskCreated(request: Pending, message: Record<string, unknown>, findings: Finding[]): void {
    for (const c of this.taskWatchers) c.taskCreated!(request, message, findings);
  }

  /** The request a response to `request` is judged against. */
  judgedAs(request: Pending): JudgedRequest {
    for (const c of this.judges) {
      const judged = c.judgedAs!(request);
      if (judged) return judged;
    }
    return request;
  }

  end(findings: Finding[]): void {
    for (const c of this.enders) c.end!(findings);
  }
}
