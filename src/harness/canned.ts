import { isObject } from '../json.js';

/**
 * The answers mcpcheck, playing the client, gives to server→client requests. Each is valid for
 * its method in every revision that has it; a test may override them.
 */
export interface CannedAnswers {
  roots: Array<{ uri: string; name?: string }>;
  sampling: { role: 'assistant'; content: { type: 'text'; text: string }; model: string; stopReason: string };
  elicitation: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
}

export const DEFAULT_CANNED: CannedAnswers = {
  roots: [{ uri: 'file:///tmp/mcpcheck-root', name: 'mcpcheck scratch root' }],
  sampling: {
    role: 'assistant',
    content: { type: 'text', text: 'mcpcheck canned sampling answer' },
    model: 'mcpcheck-canned-model',
    stopReason: 'endTurn',
  },
  elicitation: { action: 'decline' },
};

/** The client capabilities that go with the canned answers. */
export function cannedCapabilities(): Record<string, unknown> {
  return { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } };
}

/**
 * The canned answer to each input request of an InputRequiredResult (2026-07-28 `inputRequests`,
 * keyed as the server keyed them), by its method: the `inputResponses` of the retry.
 */
export function cannedInputResponses(inputRequests: Record<string, unknown>): Record<string, unknown> {
  const canned: Record<string, unknown> = { 'elicitation/create': DEFAULT_CANNED.elicitation, 'sampling/createMessage': DEFAULT_CANNED.sampling, 'roots/list': { roots: DEFAULT_CANNED.roots } };
  return Object.fromEntries(Object.entries(inputRequests).map(([key, r]) => [key, canned[isObject(r) ? String(r.method) : ''] ?? {}]));
}
