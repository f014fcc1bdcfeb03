import type { RuleTable } from '../rule-table.js';
import { type Finding, show, violation } from '../finding.js';
import { obj } from '../../json.js';
import { META } from '../../spec/modern.js';
import type { AnswerHook, Concern, NotificationHook, RequestHook, Routes } from './concern.js';
import { isKey, type Key } from './ledger.js';
import type { SessionState } from './state.js';

/** A subscription opened by a subscriptions/listen request. */
interface Subscription {
  filter: Record<string, unknown>;
  acknowledged: boolean;
}

/** The filter flag each list_changed notification needs (SUBS-FILT-01). */
const LIST_FLAGS: Readonly<Record<string, string>> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
const UPDATED = 'notifications/resources/updated';

/** Whether `uri` is one of `listed` or beneath one of them (RES-SUB-04). */
function subscribedTo(uri: unknown, listed: unknown): boolean {
  if (typeof uri !== 'string' || !Array.isArray(listed)) return false;
  return listed.some((u) => typeof u === 'string' && (uri === u || uri.startsWith(u.endsWith('/') ? u : `${u}/`)));
}

/**
 * Subscriptions (basic/patterns/subscriptions.mdx): every notification on one carries the listen
 * request's id as its subscriptionId (SUBS-ID-01), the first is the acknowledgement (SUBS-ACK-01)
 * of no more than was asked (SUBS-ACK-02), and only the types asked for follow (SUBS-FILT-01); a
 * server's notifications/cancelled only ends a subscription (CANCEL-11).
 */
export class Listen implements Concern {
  static readonly rules: RuleTable = ['SUBS-ID-01', 'SUBS-ACK-01', 'SUBS-ACK-02', 'SUBS-FILT-01', 'CANCEL-11'];
  private readonly open = new Map<Key, Subscription>();

  constructor(private readonly s: SessionState) {}

  readonly requests: Routes<RequestHook> = {
    'subscriptions/listen': (request) => {
      if (this.s.side === 'client') this.open.set(request.id, { filter: obj(request.params?.notifications) ?? {}, acknowledged: false });
    },
  };

  /** The listen result ends its subscription gracefully. */
  readonly answers: Routes<AnswerHook> = {
    'subscriptions/listen': (request) => {
      this.open.delete(request.id);
    },
  };

  readonly notifications: Routes<NotificationHook> = {
    '*': (params, findings, method) => {
      if (this.s.side !== 'server') return;
      if (method === 'notifications/cancelled') this.cancelled(params, findings);
      else if (method === ACKNOWLEDGED || method === UPDATED || method in LIST_FLAGS) this.delivered(method, params, findings);
    },
  };

  private delivered(method: string, params: Record<string, unknown> | undefined, findings: Finding[]): void {
    this.s.applied.add('SUBS-ID-01');
    const id = obj(params?._meta)?.[META.subscriptionId];
    const subscription = isKey(id) ? this.open.get(id) : undefined;
    if (!subscription) {
      const why = id === undefined ? 'it has none' : `no subscriptions/listen request with id ${show(id)} (same JSON type) is open`;
      findings.push(violation('SUBS-ID-01', `expected ${method} to carry ${META.subscriptionId} equal to the id of an open subscriptions/listen request; ${why}`, '/params/_meta'));
      return;
    }
    this.s.applied.add('SUBS-ACK-01');
    if (method === ACKNOWLEDGED) {
      subscription.acknowledged = true;
      this.checkAcknowledged(subscription.filter, obj(params?.notifications) ?? {}, findings);
      return;
    }
    if (!subscription.acknowledged) {
      findings.push(violation('SUBS-ACK-01', `expected the first message of subscription ${show(id)} to be ${ACKNOWLEDGED}; got ${method} first`, '/method'));
      subscription.acknowledged = true;
    }
    this.s.applied.add('SUBS-FILT-01');
    const flag = LIST_FLAGS[method];
    const asked = flag !== undefined ? subscription.filter[flag] === true : subscribedTo(params?.uri, subscription.filter.resourceSubscriptions);
    if (!asked) {
      const what = flag !== undefined ? `${flag}: true` : `resourceSubscriptions naming ${show(params?.uri)} or a resource above it`;
      findings.push(violation('SUBS-FILT-01', `expected on subscription ${show(id)} only the notifications it asked for; ${method} came, though its filter ${show(subscription.filter)} has no ${what}`, '/method'));
    }
  }

  /** SUBS-ACK-02: the acknowledged filter is part of the requested one. */
  private checkAcknowledged(requested: Record<string, unknown>, acknowledged: Record<string, unknown>, findings: Finding[]): void {
    this.s.applied.add('SUBS-ACK-02');
    const added = Object.entries(acknowledged).filter(([key, value]) => {
      if (key === 'resourceSubscriptions') return Array.isArray(value) && value.some((u) => !(Array.isArray(requested.resourceSubscriptions) && requested.resourceSubscriptions.includes(u)));
      return value === true && requested[key] !== true;
    });
    if (added.length > 0) {
      findings.push(violation('SUBS-ACK-02', `expected the acknowledgement to honour part of the requested filter ${show(requested)} and add nothing; it adds ${show(Object.fromEntries(added))}`, '/params/notifications'));
    }
  }

  /** CANCEL-11: a server cancels only an open subscription, naming its listen request. */
  private cancelled(params: Record<string, unknown> | undefined, findings: Finding[]): void {
    const id = params?.requestId;
    this.s.applied.add('CANCEL-11');
    if (isKey(id) && this.open.delete(id)) return;
    findings.push(violation('CANCEL-11', `expected a server's notifications/cancelled only to end an open subscription, naming its subscriptions/listen request; ${show(id)} names none`, '/params/requestId'));
  }
}
