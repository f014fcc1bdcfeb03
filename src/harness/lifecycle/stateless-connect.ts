import type { ClientSession } from '../client-session.js';
import { describeReply } from '../describe-reply.js';
import type { Reply } from '../peer-session.js';
import { isObject } from '../../json.js';
import { META } from '../../spec/modern.js';
import type { StatelessRevision } from '../../spec/revisions.js';
import type { ConnectOptions, ConnectOutcome } from './conversation.js';

const OPENING = 'server/discover';

/**
 * The stateless era (2026-07-28): no handshake and no session. server/discover, sent with the
 * per-request `_meta` every request of the session carries from then on (over HTTP, with the
 * headers that mirror it), tells what the server supports; the conversation is nothing more than
 * what it answered (server/discover.mdx).
 */
export async function connectStateless(session: ClientSession, revision: StatelessRevision, options: ConnectOptions): Promise<ConnectOutcome> {
  session.clientCapabilities = options.capabilities ?? {};
  // Over HTTP the MCP-Protocol-Version header equals the body's version (HDR-VER-02), from the first request on.
  session.channel.setProtocolVersion(revision);
  const reply = await session.request(OPENING, {}, options.timeoutMs);
  const supported = reply.kind === 'result' ? reply.result.supportedVersions : undefined;
  if (reply.kind !== 'result' || !Array.isArray(supported)) return { ok: false, reply, opening: OPENING, why: notServed(reply, revision) };
  if (!supported.includes(revision)) {
    return { ok: false, reply, opening: OPENING, why: `answered server/discover listing supportedVersions ${JSON.stringify(supported)}, without ${revision}` };
  }
  const { result } = reply;
  const serverInfo = isObject(result._meta) ? result._meta[META.serverInfo] : undefined;
  return {
    ok: true,
    opening: OPENING,
    reply,
    conversation: {
      revision,
      capabilities: isObject(result.capabilities) ? result.capabilities : {},
      ...(isObject(serverInfo) ? { serverInfo } : {}),
      ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
    },
  };
}

/** Why server/discover began no conversation in `revision`, as a sentence after the target's name. */
function notServed(reply: Reply, revision: StatelessRevision): string {
  switch (reply.kind) {
    case 'result':
      return `answered server/discover with a result that has no supportedVersions: ${describeReply(reply)}`;
    case 'timeout':
      return `did not answer server/discover within ${reply.waitedMs} ms (if it is slow to start, raise --request-timeout)`;
    case 'closed':
      return `closed the connection before answering server/discover: ${describeReply(reply)}`;
    default:
      return `does not serve ${revision}: server/discover got ${describeReply(reply)}`;
  }
}
