import type { RuleTable } from '../rule-table.js';
import { type Finding, violation } from '../finding.js';
import { checkXMcpHeaderSchema, headerParameters } from '../modern-headers.js';
import { mayHoldMember, obj } from '../../json.js';
import { declared } from './capabilities.js';
import { type AnswerHook, type Concern, type NotificationHook, resultOf, type Routes } from './concern.js';
import type { SessionState } from './state.js';

/** What an answer offers, and the capability a server offering it declares (the …-CAP-01 rows). */
interface Offer {
  rule: 'TOOL-CAP-01' | 'RES-CAP-01' | 'PROMPT-CAP-01' | 'COMP-CAP-01';
  capability: string;
  /** What the result offers, as text ("3 tool(s)"); undefined when it offers nothing (an empty list). */
  offered(result: Record<string, unknown>): string | undefined;
  /** Where in the answer the offer is. */
  pointer: string;
}

const listed = (key: string, noun: string) => (result: Record<string, unknown>) => {
  const items = result[key];
  return Array.isArray(items) && items.length > 0 ? `${items.length} ${noun}(s)` : undefined;
};

/** An empty list, or a completion with no values, offers nothing: "a server offering …" does not apply to it. */
const OFFERS: Readonly<Record<string, Offer>> = {
  'tools/list': { rule: 'TOOL-CAP-01', capability: 'tools', offered: listed('tools', 'tool'), pointer: '/result/tools' },
  'resources/list': { rule: 'RES-CAP-01', capability: 'resources', offered: listed('resources', 'resource'), pointer: '/result/resources' },
  'resources/templates/list': { rule: 'RES-CAP-01', capability: 'resources', offered: listed('resourceTemplates', 'resource template'), pointer: '/result/resourceTemplates' },
  'resources/read': { rule: 'RES-CAP-01', capability: 'resources', offered: listed('contents', 'resource content'), pointer: '/result/contents' },
  'prompts/list': { rule: 'PROMPT-CAP-01', capability: 'prompts', offered: listed('prompts', 'prompt'), pointer: '/result/prompts' },
  'prompts/get': { rule: 'PROMPT-CAP-01', capability: 'prompts', offered: listed('messages', 'prompt message'), pointer: '/result/messages' },
  'completion/complete': { rule: 'COMP-CAP-01', capability: 'completions', offered: (r) => listed('values', 'completion value')(obj(r.completion) ?? {}), pointer: '/result/completion/values' },
};

/**
 * Server capabilities in the stateless era: no initialize settles them; the DiscoverResult says
 * what the server offers (server/discover.mdx), and the capability rows keep their ids there
 * (2026-07-28 catalog, §1). What the server then does is judged against its latest
 * DiscoverResult in the session: tools, resources, prompts and completions served only when their
 * capability is declared (TOOL-, RES-, PROMPT-, COMP-CAP-01), log messages only with `logging`
 * (LOG-CAP-01). Before any DiscoverResult nothing is judged. And the tools it lists carry only
 * valid `x-mcp-header` annotations (HDR-PARAM-02), on any transport.
 */
export class Discovered implements Concern {
  static readonly rules: RuleTable = ['TOOL-CAP-01', 'RES-CAP-01', 'PROMPT-CAP-01', 'COMP-CAP-01', 'LOG-CAP-01', 'HDR-PARAM-02'];

  constructor(private readonly s: SessionState) {}

  readonly answers: Routes<AnswerHook> = {
    'server/discover': (_request, kind, message) => {
      const capabilities = obj(resultOf(kind, message)?.capabilities);
      if (capabilities) this.s.serverCapabilities = capabilities;
    },
    'tools/list': (_request, kind, message, findings) => {
      const tools = resultOf(kind, message)?.tools;
      if (Array.isArray(tools)) this.checkHeaderAnnotations(tools, findings);
      this.judgeOffer('tools/list', kind, message, findings);
    },
    ...Object.fromEntries(
      Object.keys(OFFERS)
        .filter((method) => method !== 'tools/list')
        .map((method): [string, AnswerHook] => [method, (_request, kind, message, findings) => this.judgeOffer(method, kind, message, findings)]),
    ),
  };

  /** An answer that offers something, from a server whose DiscoverResult did not declare its capability. */
  private judgeOffer(method: string, kind: 'result' | 'error', message: Record<string, unknown>, findings: Finding[]): void {
    const offer = OFFERS[method]!;
    const result = resultOf(kind, message);
    const what = result ? offer.offered(result) : undefined;
    const s = this.s;
    if (!s.serverCapabilities || what === undefined) return;
    s.applied.add(offer.rule);
    if (!declared(s.serverCapabilities, [offer.capability])) {
      findings.push(violation(offer.rule, `expected a server offering ${offer.capability} to declare the ${offer.capability} capability in server/discover; ${method} served ${what} while its DiscoverResult capabilities have no ${offer.capability}`, offer.pointer));
    }
  }

  /** HDR-PARAM-02 on every listed tool that carries an x-mcp-header annotation anywhere in its inputSchema. */
  private checkHeaderAnnotations(tools: readonly unknown[], findings: Finding[]): void {
    // A frame whose text cannot hold the member has no annotation to judge.
    if (this.s.source !== undefined && !mayHoldMember(this.s.source, 'x-mcp-header')) return;
    tools.forEach((tool, i) => {
      const inputSchema = obj(tool)?.inputSchema;
      const found = checkXMcpHeaderSchema(inputSchema, `/result/tools/${i}/inputSchema`);
      if (found.length === 0 && headerParameters(inputSchema).length === 0) return;
      this.s.applied.add('HDR-PARAM-02');
      findings.push(...found);
    });
  }

  readonly notifications: Routes<NotificationHook> = {
    'notifications/message': (_params, findings) => {
      const s = this.s;
      if (s.side !== 'server' || !s.serverCapabilities) return;
      s.applied.add('LOG-CAP-01');
      if (!declared(s.serverCapabilities, ['logging'])) {
        findings.push(violation('LOG-CAP-01', 'expected notifications/message only from a server that declared the logging capability in server/discover; its DiscoverResult capabilities have no logging', '/method'));
      }
    },
  };
}
