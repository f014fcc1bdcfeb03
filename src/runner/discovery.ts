import { SetupError, TokenWanted } from '../errors.js';
import type { ClientSession } from '../harness/client-session.js';
import { connect, type Conversation } from '../harness/lifecycle/index.js';
import { type Pace, STARTUP_MS } from '../harness/pace.js';
import type { Reply } from '../harness/peer-session.js';
import type { Target } from '../harness/target.js';
import { LISTS, type ListMethod } from '../validate/pagination.js';

export type { ListMethod };

/** What the server declares and offers, learned once before the scenarios run. */
export interface Discovery {
  protocolVersion?: string;
  serverInfo?: Record<string, unknown>;
  capabilities: Record<string, unknown>;
  instructions?: string;
  tools: Array<Record<string, unknown>>;
  resources: Array<Record<string, unknown>>;
  resourceTemplates: Array<Record<string, unknown>>;
  prompts: Array<Record<string, unknown>>;
  /** Per list method, how the walk went (PAGE-* scenarios look here). */
  walks: Record<string, ListWalk>;
}

export interface ListWalk {
  method: string;
  items: Array<Record<string, unknown>>;
  pages: number;
  /** The cursors in the order the server handed them out. */
  cursors: string[];
  /** How the walk ended. */
  end: 'complete' | 'loop' | 'limit' | 'invalid' | Exclude<Reply['kind'], 'result'>;
  /** The reply that ended the walk abnormally, and the frames of every page. */
  lastReply?: Reply;
  frames: number[];
}

const MAX_PAGES = 200;

/** Walks a paginated list to its end, stopping at a repeated cursor (a loop) or after MAX_PAGES. */
export async function walkList(session: ClientSession, method: ListMethod): Promise<ListWalk> {
  const key = LISTS[method].key;
  const walk: ListWalk = { method, items: [], pages: 0, cursors: [], end: 'complete', frames: [] };
  let cursor: string | undefined;
  const signatures = new Set<string>();
  for (;;) {
    if (walk.pages >= MAX_PAGES) {
      walk.end = 'limit';
      return walk;
    }
    const reply = await session.request(method, cursor === undefined ? {} : { cursor });
    if (reply.kind !== 'result') {
      walk.end = reply.kind;
      walk.lastReply = reply;
      return walk;
    }
    walk.pages++;
    walk.frames.push(reply.frame);
    const items = reply.result[key];
    if (!Array.isArray(items)) {
      walk.end = 'invalid';
      walk.lastReply = reply;
      return walk;
    }
    // A cursor that leads back to a page already seen is a loop even when the cursor string is new.
    const signature = JSON.stringify(items);
    if (items.length > 0 && signatures.has(signature)) {
      walk.end = 'loop';
      walk.lastReply = reply;
      return walk;
    }
    signatures.add(signature);
    for (const item of items) if (item !== null && typeof item === 'object') walk.items.push(item as Record<string, unknown>);
    const next = reply.result.nextCursor;
    if (typeof next !== 'string') return walk;
    if (walk.cursors.includes(next)) {
      walk.cursors.push(next);
      walk.end = 'loop';
      walk.lastReply = reply;
      return walk;
    }
    walk.cursors.push(next);
    cursor = next;
  }
}

export function hasCapability(capabilities: Record<string, unknown> | undefined, path: string): boolean {
  let node: unknown = capabilities;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(part in node)) return false;
    node = (node as Record<string, unknown>)[part];
    if (node === false || node === null || node === undefined) return false;
  }
  return true;
}

export function emptyDiscovery(): Discovery {
  return { capabilities: {}, tools: [], resources: [], resourceTemplates: [], prompts: [], walks: {} };
}

/** Walks every list the server declared, in the conversation `conversation` began on `session`. */
async function discover(session: ClientSession, conversation: Conversation): Promise<Discovery> {
  const { capabilities } = conversation;
  const discovery: Discovery = {
    ...emptyDiscovery(),
    capabilities,
    protocolVersion: conversation.revision,
    ...(conversation.serverInfo ? { serverInfo: conversation.serverInfo } : {}),
    ...(conversation.instructions !== undefined ? { instructions: conversation.instructions } : {}),
  };
  const methods = (Object.keys(LISTS) as ListMethod[]).filter((method) => hasCapability(capabilities, LISTS[method].capability));
  // The lists are walked side by side: a walk's pages follow one another (each names the next), the lists do not.
  const walks = await Promise.all(methods.map((method) => walkList(session, method)));
  methods.forEach((method, i) => {
    discovery.walks[method] = walks[i]!;
    discovery[LISTS[method].key] = walks[i]!.items;
  });
  return discovery;
}

/** What the discovery step gets from the run it starts: the session to open (the run tracks and labels it), the run's pace and wait. */
export interface DiscoveryRun {
  /** Opens the session discovery runs on; the run keeps it for lane 0's shared scenarios afterwards. */
  open(): Promise<ClientSession>;
  target: Target;
  pace: Pace;
  requestTimeoutMs: number;
}

/** How a run learns what the server declares and offers before the scenarios that need it start. */
export type DiscoveryStep = (run: DiscoveryRun) => Promise<Discovery>;

/**
 * The server command's discovery: connects (in whichever era the run speaks) and lists everything
 * the server declared. A target whose first conversation cannot start is no MCP peer to grade: a
 * setup error, with what it answered.
 */
export const discoverServer: DiscoveryStep = async ({ open, target, pace, requestTimeoutMs }) => {
  const session = await open();
  // A process's start is waited for up to the pace's ceiling, and measured: the later starts
  // are waited for by it. A server behind a URL gets at least STARTUP_MS for its first answer.
  const outcome = await connect(session, { timeoutMs: Math.max(requestTimeoutMs, STARTUP_MS) });
  if (!outcome.ok && outcome.reply.kind === 'rejected' && outcome.reply.status === 401) throw tokenWanted(target, outcome.opening);
  if (!outcome.ok) throw new SetupError(`${target.description} ${outcome.why}`);
  if (session.startedAfterMs !== undefined && target.kind === 'stdio') pace.firstStart(session.startedAfterMs);
  return discover(session, outcome.conversation);
};

/** What a 401 to the run's opening request (`opening`: its method) means, by whether the run sent a token. */
export function tokenWanted(target: Target, opening: string): TokenWanted {
  if (target.credentialed) {
    return new TokenWanted(`${target.description} refused the token mcpcheck was given: ${opening} got HTTP 401 (an expired token, or one for another server? check the value --token-env names, or the Authorization --header)`, true);
  }
  return new TokenWanted(`${target.description} requires authorization: ${opening} without a token got HTTP 401; give mcpcheck an access token with --token-env NAME (NAME an environment variable holding it) or --header "Authorization: Bearer …"`, false);
}

/**
 * Discovery for a run that starts no conversation: a protected server mcpcheck has no token for
 * answers nothing but its authorization, whose scenarios need nothing discovery would find.
 */
export const noConversation: DiscoveryStep = async () => emptyDiscovery();
