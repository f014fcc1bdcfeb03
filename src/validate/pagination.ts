/**
 * What one walk of a paginated list shows (PAGE-01, PAGE-05): the `server.utilities.pagination`
 * scenario and the fuzzer's paginate step judge a walk by these predicates. Pure: the walk is
 * done by `walkList` (src/runner/discovery.ts).
 */
import { list, show } from './finding.js';

/** The paginated lists: the result member holding each page's items, and the capability that offers it. */
export const LISTS = {
  'tools/list': { key: 'tools', capability: 'tools' },
  'resources/list': { key: 'resources', capability: 'resources' },
  'resources/templates/list': { key: 'resourceTemplates', capability: 'resources' },
  'prompts/list': { key: 'prompts', capability: 'prompts' },
} as const;

export type ListMethod = keyof typeof LISTS;

/** What identifies an item of each list. */
export const ITEM_KEY: Record<ListMethod, string> = {
  'tools/list': 'name',
  'resources/list': 'uri',
  'resources/templates/list': 'uriTemplate',
  'prompts/list': 'name',
};

/** The keys seen more than once, each once. */
function duplicates(keys: string[]): string[] {
  const seen = new Set<string>();
  const dupes = new Set<string>();
  for (const k of keys) (seen.has(k) ? dupes : seen).add(k);
  return [...dupes];
}

export interface WalkProblems {
  /** PAGE-01: a page that is no list, or the server's own cursor refused. */
  broken?: string;
  /** PAGE-05: the walk does not end (a loop, no end in sight), items on two pages. */
  unstable: string[];
}

/**
 * What walkProblems reads of a walk: runner/discovery.ts's ListWalk is one, with the session's
 * reply type as `R` (declared here so the validator needs nothing from the layers that walk).
 */
export interface WalkSeen<R> {
  method: string;
  items: ReadonlyArray<Record<string, unknown>>;
  pages: number;
  cursors: readonly string[];
  /** 'complete', 'loop', 'limit', 'invalid', or the kind of the reply that ended the walk. */
  end: string;
  lastReply?: R;
}

/** Judges one walk; `describe` renders the reply that ended it. */
export function walkProblems<R>(walk: WalkSeen<R>, describe: (reply: R) => string): WalkProblems {
  const method = walk.method as ListMethod;
  const out: WalkProblems = { unstable: [] };
  switch (walk.end) {
    case 'complete':
      break;
    case 'loop':
      out.unstable.push(`${method}: the walk looped (nextCursor ${show(walk.cursors.at(-1), 60)} led back to a cursor or page seen before)`);
      break;
    case 'limit':
      out.unstable.push(`${method}: still handing out cursors after ${walk.pages} pages`);
      break;
    case 'invalid':
      out.broken = `${method}: page ${walk.pages} has no ${LISTS[method].key} array`;
      break;
    default:
      if (walk.pages > 0) out.broken = `${method}: the server's own cursor ${show(walk.cursors.at(-1), 60)} (page ${walk.pages + 1}) was refused: ${walk.lastReply ? describe(walk.lastReply) : walk.end}`;
  }
  // The same item twice is identical JSON; two different items sharing a name are TOOL-NAME-03's business.
  const dupes = duplicates(walk.items.map((item) => JSON.stringify(item)));
  if (dupes.length && walk.end !== 'loop') {
    const key = ITEM_KEY[method];
    out.unstable.push(`${method}: ${dupes.length} item(s) listed on more than one page: ${list(dupes.map((d) => show((JSON.parse(d) as Record<string, unknown>)[key], 80)), 4)}`);
  }
  return out;
}
