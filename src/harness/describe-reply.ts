import { show } from '../validate/finding.js';
import type { Reply } from './peer-session.js';

/** One line describing a reply, for "got …" in messages. */
export function describeReply(reply: Reply): string {
  switch (reply.kind) {
    case 'result':
      return `a result ${show(reply.result, 160)}`;
    case 'malformed-result':
      return `a response whose result is not an object: ${show(reply.value, 160)}`;
    case 'error':
      return `error ${show(reply.error.code)} ${show(reply.error.message, 100)}`;
    case 'timeout':
      return reply.strays.length > 0
        ? `no response with its id within ${reply.waitedMs} ms; meanwhile the server sent ${reply.strays.length} response(s) that answer no request (frame ${reply.strays.slice(0, 3).join(', ')})`
        : `no response within ${reply.waitedMs} ms${reply.pingedAfter ? `, nor to a ${reply.probe ?? 'ping'} sent after it` : ''}`;
    case 'closed':
      return `the connection closed (${reply.detail})`;
    case 'unanswered':
      return `no response within ${reply.waitedMs} ms, while a ${reply.probe ?? 'ping'} sent after it was answered in ${reply.pingMs} ms`;
    case 'rejected':
      return reply.error
        ? `HTTP ${reply.status} with error ${show(reply.error.code)} ${show(reply.error.message, 100)} (no id)`
        : `HTTP ${reply.status} with no JSON-RPC response${reply.body ? `: ${show(reply.body, 100)}` : ''}`;
  }
}
