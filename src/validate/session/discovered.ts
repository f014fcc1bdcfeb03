import type { RuleTable } from '../rule-table.js';
import { type Finding, violation } from '../finding.js';
import { checkXMcpHeaderSchema, headerParameters } from '../modern-headers.js';
import { obj } from '../../json.js';
import { declared } from './capabilities.js';
import { type AnswerHook, type Concern, type NotificationHook, resultOf, type Routes } from './concern.js';
import type { SessionState } from './state.js';

/**
 * Server capabilities in the stateless era: no initialize settles them; the DiscoverResult says
 * what the server offers (server/discover.mdx), and the capability rows keep their ids there
 * (2026-07-28 catalog, §1). What the server then does is judged against its latest
 * DiscoverResult in the session: tools served only when `tools` is declared (TOOL-CAP-01), log
 * messages only with `logging` (LOG-CAP-01). Before any DiscoverResult nothing is judged. And
 * the tools it lists carry only valid `x-mcp-header` annotations (HDR-PARAM-02), on any transport.
 */
export class Discovered implements Concern {
  static readonly rules: RuleTable = ['TOOL-CAP-01', 'LOG-CAP-01', 'HDR-PARAM-02'];

  constructor(private readonly s: SessionState) {}

  readonly answers: Routes<AnswerHook> = {
    'server/discover': (_request, kind, message) => {
      const capabilities = obj(resultOf(kind, message)?.capabilities);
      if (capabilities) this.s.serverCapabilities = capabilities;
    },
    'tools/list': (_request, kind, message, findings) => {
      const tools = resultOf(kind, message)?.tools;
      const s = this.s;
      if (Array.isArray(tools)) this.checkHeaderAnnotations(tools, findings);
      // An empty list offers no tools, so "a server offering tools" does not apply to it.
      if (!s.serverCapabilities || !Array.isArray(tools) || tools.length === 0) return;
      s.applied.add('TOOL-CAP-01');
      if (!declared(s.serverCapabilities, ['tools'])) {
        findings.push(violation('TOOL-CAP-01', `expected a server offering tools to declare the tools capability in server/discover; tools/list served ${tools.length} tool(s) while its DiscoverResult capabilities have no tools`, '/result/tools'));
      }
    },
  };

  /** HDR-PARAM-02 on every listed tool that carries an x-mcp-header annotation anywhere in its inputSchema. */
  private checkHeaderAnnotations(tools: readonly unknown[], findings: Finding[]): void {
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
