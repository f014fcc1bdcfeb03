/**
 * How a conversation with a server starts, per protocol era, behind one `connect()`: the only
 * place that knows which request opens it and what carries the negotiated revision and
 * capabilities. Callers that want a working conversation connect; scenarios that test the
 * opening itself (a chosen protocolVersion, a withheld notifications/initialized) drive the
 * era's requests by hand.
 */
import type { ClientSession } from '../client-session.js';
import type { ServerSession } from '../server-session.js';
import type { ConnectOptions, ConnectOutcome } from './conversation.js';
import { acceptStateful, connectStateful } from './stateful.js';
import { acceptStateless } from './stateless-accept.js';
import { connectStateless } from './stateless-connect.js';
import { isStatefulRevision } from '../../spec/revisions.js';

export type { AcceptedConversation, ConnectOptions, ConnectOutcome, Conversation } from './conversation.js';

/**
 * Starts a conversation on `session` (opened, not yet started) and, when it began, keeps what was
 * negotiated on the session (`session.conversation`). The era of the revision to speak (the
 * option, else the session's) picks the module: initialize and a session, or server/discover and
 * per-request `_meta`.
 */
export async function connect(session: ClientSession, options: ConnectOptions = {}): Promise<ConnectOutcome> {
  const revision = options.revision ?? session.speaks;
  const outcome = isStatefulRevision(revision) ? await connectStateful(session, options) : await connectStateless(session, revision, options);
  if (outcome.ok) session.conversation = outcome.conversation;
  return outcome;
}

/**
 * Makes `session` (mcpcheck playing the server) take in the conversations a client begins, in
 * both eras on one endpoint or process (VER-BC-02): an initialize opens a stateful conversation;
 * a modern request is one by itself, served statelessly. It keeps what the client declared
 * (`session.conversation`); `session.serves` narrows the eras served.
 */
export function accept(session: ServerSession): void {
  acceptStateful(session);
  acceptStateless(session);
}
