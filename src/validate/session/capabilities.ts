import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import type { Side } from '../message.js';
import { hasCompletionsCapability } from '../revisions.js';
import { obj, table } from '../../json.js';
import type { Concern, NotificationHook, RequestHook, Routes } from './concern.js';
import { other } from './ledger.js';
import type { SessionState } from './state.js';

/** Whether `caps` declares the capability at `path` (e.g. resources.subscribe): present, and not false or null on the way. */
export function declared(caps: Record<string, unknown> | undefined, path: readonly string[]): boolean {
  let node: unknown = caps;
  for (const p of path) {
    const v = obj(node)?.[p];
    if (v === false || v === undefined || v === null) return false;
    node = v;
  }
  return true;
}

/** The capabilities of the side a request from `from` goes to. */
export function peerCapabilities(s: SessionState, from: Side): Record<string, unknown> | undefined {
  return from === 'client' ? s.serverCapabilities : s.clientCapabilities;
}

/** Which capability a client→server request needs from the server (LIFE-OP-02). */
function serverCapabilityFor(method: string): string[] | undefined {
  if (method.startsWith('tools/')) return ['tools'];
  if (method === 'resources/subscribe' || method === 'resources/unsubscribe') return ['resources', 'subscribe'];
  if (method.startsWith('resources/')) return ['resources'];
  if (method.startsWith('prompts/')) return ['prompts'];
  if (method === 'logging/setLevel') return ['logging'];
  if (method === 'completion/complete') return ['completions'];
  return undefined;
}

function clientCapabilityFor(method: string): string[] | undefined {
  if (method === 'sampling/createMessage') return ['sampling'];
  if (method === 'roots/list') return ['roots'];
  if (method === 'elicitation/create') return ['elicitation'];
  return undefined;
}

/** The notifications only a side that declared a capability may send. */
const LIST_CHANGED: ReadonlyMap<string, [Side, string[]]> = table({
  'notifications/tools/list_changed': ['server', ['tools', 'listChanged']],
  'notifications/resources/list_changed': ['server', ['resources', 'listChanged']],
  'notifications/prompts/list_changed': ['server', ['prompts', 'listChanged']],
  'notifications/resources/updated': ['server', ['resources', 'subscribe']],
  'notifications/roots/list_changed': ['client', ['roots', 'listChanged']],
});

/**
 * LIFE-OP-02, capabilities honoured both ways once negotiated: a request only towards a peer that
 * declared what it needs, a notification only from a side that declared it. The feature rules
 * that hang on a declared capability (sampling, elicitation …) are their own concerns'.
 */
export class Capabilities implements Concern {
  static readonly rules: RuleTable = ['LIFE-OP-02'];

  constructor(private readonly s: SessionState) {}

  readonly requests: Routes<RequestHook> = {
    '*': (request, findings) => {
      const s = this.s;
      if (!s.negotiated) return;
      const { method } = request;
      const from = s.side;
      const peer = peerCapabilities(s, from);
      if (method.startsWith('tasks/')) {
        s.applied.add('LIFE-OP-02');
        const sub = method === 'tasks/list' ? ['tasks', 'list'] : method === 'tasks/cancel' ? ['tasks', 'cancel'] : ['tasks'];
        if (!declared(peer, sub)) findings.push(violation('LIFE-OP-02', `expected ${method} only towards a peer that declared ${sub.join('.')}; the ${other(from)} did not`, '/method'));
        return;
      }
      const needed = from === 'client' ? serverCapabilityFor(method) : clientCapabilityFor(method);
      if (!needed) return;
      // 2024-11-05 had completion/complete but no capability to declare it.
      if (needed[0] === 'completions' && !hasCompletionsCapability(s.revision)) return;
      s.applied.add('LIFE-OP-02');
      if (!declared(peer, needed)) {
        findings.push(violation('LIFE-OP-02', `expected ${show(method)} only when the ${other(from)} declared the ${needed.join('.')} capability; it did not`, '/method'));
      }
    },
  };

  private readonly declaredNotification: NotificationHook = (_params, findings, method) => {
    const [side, path] = LIST_CHANGED.get(method)!;
    const s = this.s;
    if (side !== s.side || !s.negotiated) return;
    s.applied.add('LIFE-OP-02');
    const caps = side === 'server' ? s.serverCapabilities : s.clientCapabilities;
    if (!declared(caps, path)) {
      findings.push(violation('LIFE-OP-02', `expected ${method} only from a ${side} that declared ${path.join('.')}; it did not`, '/method'));
    }
  };

  readonly notifications: Routes<NotificationHook> = Object.fromEntries([...LIST_CHANGED.keys()].map((method) => [method, this.declaredNotification]));
}
