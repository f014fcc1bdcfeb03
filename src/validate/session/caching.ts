import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import { obj } from '../../json.js';
import type { AnswerHook, Concern, Routes } from './concern.js';
import type { SessionState } from './state.js';

const LISTS = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];

/** CACHE-SCOPE-02: every page of one list carries the cacheScope of the page whose nextCursor led to it. */
export class Caching implements Concern {
  static readonly rules: RuleTable = ['CACHE-SCOPE-02'];
  /** `method cursor` → the cacheScope of the page that handed the cursor out. */
  private readonly scopes = new Map<string, unknown>();

  constructor(private readonly s: SessionState) {}

  readonly answers: Routes<AnswerHook> = Object.fromEntries(
    LISTS.map((method): [string, AnswerHook] => [
      method,
      (request, kind, message, findings) => {
        const result = kind === 'result' ? obj(message.result) : undefined;
        if (!result || !('cacheScope' in result)) return;
        const cursor = request.params?.cursor;
        const before = typeof cursor === 'string' ? this.scopes.get(`${method} ${cursor}`) : undefined;
        if (before !== undefined) {
          this.s.applied.add('CACHE-SCOPE-02');
          if (before !== result.cacheScope) findings.push(violation('CACHE-SCOPE-02', `expected every page of one ${method} to carry the same cacheScope; the page before said ${show(before)}, this one ${show(result.cacheScope)}`, '/result/cacheScope'));
        }
        if (typeof result.nextCursor === 'string') this.scopes.set(`${method} ${result.nextCursor}`, result.cacheScope);
      },
    ]),
  );
}
