import type { RuleTable } from '../rule-table.js';
import { show, violation } from '../finding.js';
import { toolsOf } from '../tools.js';
import { obj } from '../../json.js';
import { type AnswerHook, type Concern, resultOf, type Routes } from './concern.js';
import { declared } from './capabilities.js';
import type { SessionState } from './state.js';

/**
 * The pages of one pagination walk, to tell a page served again from a new one. A page can only
 * repeat an earlier one if one of its names was seen already, so the pages' text is only built
 * (once each) when a name recurs; a walk without repeats never serialises a page.
 */
class Pages {
  private readonly pages: Array<{ items: unknown; text?: string | undefined }> = [];

  /** Records the page; true when the same page came earlier in the walk. */
  seenBefore(items: unknown, nameRecurs: boolean): boolean {
    const entry: { items: unknown; text?: string | undefined } = { items };
    if (nameRecurs) {
      entry.text = JSON.stringify(items);
      for (const p of this.pages) {
        if (!('text' in p)) p.text = JSON.stringify(p.items);
        if (p.text === entry.text) return true;
      }
    }
    this.pages.push(entry);
    return false;
  }
}

/**
 * The tools the server lists, page by page: names unique across a walk's pages (TOOL-NAME-03),
 * each tool kept for the rules on its calls' results; embedded resources in a call's result only
 * from a server that declared resources (TOOL-CONT-02).
 */
export class Tools implements Concern {
  static readonly rules: RuleTable = ['TOOL-NAME-03', 'TOOL-CONT-02'];
  private walk = new Set<string>();
  private pages = new Pages();

  constructor(private readonly s: SessionState) {}

  readonly answers: Routes<AnswerHook> = {
    'tools/list': (request, kind, message, findings) => {
      const result = resultOf(kind, message);
      if (!result) return;
      this.s.applied.add('TOOL-NAME-03');
      if (!request.params?.cursor) {
        this.walk = new Set();
        this.pages = new Pages();
      }
      const tools = toolsOf(result);
      // A page seen before in this walk is a pagination loop (PAGE-05), not a duplicate name.
      if (this.pages.seenBefore(result.tools, tools.some((t) => this.walk.has(t.name)))) return;
      for (const tool of tools) {
        if (this.walk.has(tool.name) && !findings.some((f) => f.requirements[0] === 'TOOL-NAME-03')) {
          findings.push(violation('TOOL-NAME-03', `expected unique tool names across all pages; ${show(tool.name)} was listed on an earlier page`, '/result/tools'));
        }
        this.walk.add(tool.name);
        this.s.tools.set(tool.name, tool);
      }
    },
    'tools/call': (_request, kind, message, findings) => {
      const result = resultOf(kind, message);
      const embedded = result && Array.isArray(result.content) && result.content.some((b) => obj(b)?.type === 'resource');
      // Judged against the capabilities the server declared, when the traffic shows them.
      if (!embedded || this.s.serverCapabilities === undefined) return;
      this.s.applied.add('TOOL-CONT-02');
      if (!declared(this.s.serverCapabilities, ['resources'])) {
        findings.push(violation('TOOL-CONT-02', 'expected a server that returns embedded resources to declare the resources capability; this one did not', '/result/content'));
      }
    },
  };
}
