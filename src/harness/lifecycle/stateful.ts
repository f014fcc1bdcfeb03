import type { ClientSession } from '../client-session.js';
import type { ServerSession } from '../server-session.js';
import { toolInfo } from '../../version.js';
import { describeReply } from '../describe-reply.js';
import type { RecordedFrame, Reply } from '../peer-session.js';
import { show } from '../../validate/finding.js';
import { isObject } from '../../json.js';
import type { ConnectOptions, ConnectOutcome, Diagnosis } from './conversation.js';

const OPENING = 'initialize';

/**
 * The initialize-based era (2024-11-05 … 2025-11-25): initialize, then notifications/initialized;
 * the session it opens (over HTTP the session id and MCP-Protocol-Version the channel carries from
 * then on) is the one to send on.
 */
export async function connectStateful(session: ClientSession, options: ConnectOptions): Promise<ConnectOutcome> {
  const reply = await session.initialize({ capabilities: options.capabilities ?? {}, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
  if (reply.kind !== 'result' || typeof reply.result.protocolVersion !== 'string') return { ok: false, reply, opening: OPENING, ...notAConversation(reply, session.peerFrames()) };
  const { result } = reply;
  return {
    ok: true,
    opening: OPENING,
    reply,
    conversation: {
      revision: reply.result.protocolVersion,
      capabilities: isObject(result.capabilities) ? result.capabilities : {},
      ...(isObject(result.serverInfo) ? { serverInfo: result.serverInfo } : {}),
      ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
    },
  };
}

/**
 * Why the answer to initialize began no conversation, as a sentence after the target's name, and
 * whether it shows the target is no MCP server: nothing is graded then, as a grade of something
 * that is not an MCP peer would be meaningless.
 */
function notAConversation(reply: Reply, received: RecordedFrame[]): { why: string; diagnosis?: Diagnosis } {
  const noMcp = (why: string) => ({ why: `is not an MCP server: ${why}`, diagnosis: 'not-mcp' as const });
  const noise = received.find((f) => f.raw !== undefined);
  if (reply.kind === 'timeout' && noise) return noMcp(`it wrote ${show(noise.raw, 80)} where a JSON-RPC answer to initialize belongs`);
  switch (reply.kind) {
    case 'result':
      return noMcp(`initialize was answered with a result that has no protocolVersion: ${describeReply(reply)}`);
    case 'error':
      return { why: `refused initialize (${describeReply(reply)}); nothing can be tested without a session` };
    case 'timeout':
      return reply.strays.length > 0 ? noMcp(describeReply(reply)) : { why: `did not answer initialize within ${reply.waitedMs} ms (if it is slow to start, raise --request-timeout)` };
    case 'unanswered':
      return { why: `left initialize unanswered: ${describeReply(reply)}; nothing can be tested without a session` };
    case 'closed':
      return { why: `closed the connection before answering initialize: ${describeReply(reply)}` };
    default:
      return noMcp(`initialize got ${describeReply(reply)}`);
  }
}

/**
 * mcpcheck as the server in the stateful era: the client's initialize is answered with the
 * version the session chooses (a scenario may choose another), and each one begins the
 * session's current conversation (a client may open another: a connection test first, a new one
 * after a 404).
 */
export function acceptStateful(session: ServerSession): void {
  session.opening = OPENING;
  session.handle(OPENING, (params) => {
    const revision = session.chooseVersion(params.protocolVersion);
    session.channel.setProtocolVersion(revision);
    session.conversation = { revision, capabilities: isObject(params.capabilities) ? params.capabilities : {}, ...(isObject(params.clientInfo) ? { clientInfo: params.clientInfo } : {}) };
    return { result: { protocolVersion: revision, capabilities: session.capabilities, serverInfo: toolInfo() } };
  });
}
