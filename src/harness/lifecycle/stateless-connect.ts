import type { ClientSession } from '../client-session.js';
import { describeReply } from '../describe-reply.js';
import type { Reply } from '../peer-session.js';
import { isObject } from '../../json.js';
import { META } from '../../spec/modern.js';
import type { StatelessRevision } from '../../spec/revisions.js';
import type { ConnectOptions, ConnectOutcome, Diagnosis } from './conversation.js';

const METHOD_NOT_FOUND = -32601;

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
  if (reply.kind !== 'result' || !Array.isArray(supported)) return { ok: false, reply, opening: OPENING, ...(await notServed(session, reply, revision, options)) };
  // A DiscoverResult answering a request of `revision` serves it even when its list leaves it out:
  // an untrue list is DISC-RES-03's finding, judged by the run, not a reason to run nothing.
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

/**
 * Why server/discover began no conversation in `revision`, as a sentence after the target's name.
 * A server that does not know server/discover (−32601) yet answers a modern tools/list with a
 * result carrying resultType speaks the revision without the method every server of it must
 * implement (DISC-IMPL-01): said as such, since the suite starts with server/discover.
 */
async function notServed(session: ClientSession, reply: Reply, revision: StatelessRevision, options: ConnectOptions): Promise<{ why: string; diagnosis?: Diagnosis }> {
  switch (reply.kind) {
    case 'result':
      return { why: `answered server/discover with a result that has no supportedVersions: ${describeReply(reply)}` };
    case 'timeout':
      return { why: `did not answer server/discover within ${reply.waitedMs} ms (if it is slow to start, raise --request-timeout)` };
    case 'closed':
      return { why: `closed the connection before answering server/discover: ${describeReply(reply)}` };
  }
  const refused = `server/discover got ${describeReply(reply)}`;
  if (!((reply.kind === 'error' || reply.kind === 'rejected') && reply.error?.code === METHOD_NOT_FOUND)) return { why: `does not serve ${revision}: ${refused}` };
  const list = await session.request('tools/list', {}, options.timeoutMs);
  if (list.kind !== 'result' || typeof list.result.resultType !== 'string') return { why: `does not serve ${revision}: ${refused}` };
  return {
    why: `does not implement server/discover, which every ${revision} server must (DISC-IMPL-01), yet serves ${revision} requests: ${refused}, while tools/list with protocolVersion ${revision} got a result with resultType ${JSON.stringify(list.result.resultType)}; the ${revision} suite starts with server/discover and cannot run`,
    diagnosis: 'lacks-discover',
  };
}
