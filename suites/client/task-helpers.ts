import { hasCapability, isObject } from '../kit.js';
import { formOnly } from './helpers.js';

// What the scenarios of a client as the receiver of tasks (basic/utilities/tasks.mdx, 2025-11-25)
// share: the task-augmented request mcpcheck may send it.

/** A request mcpcheck sends a client as a task, and the result the plain request would have. */
export interface TaskRequest {
  method: 'elicitation/create' | 'sampling/createMessage';
  params: Record<string, unknown>;
  /** The schema definition of that result. */
  result: 'ElicitResult' | 'CreateMessageResult';
}

/**
 * The request a client that takes tasks is sent as one: a form elicitation where it declared
 * tasks.requests.elicitation.create (and form mode), else a sampling request where it declared
 * tasks.requests.sampling.createMessage (and sampling); a string says why there is none.
 */
export function taskRequestFor(caps: Record<string, unknown>): TaskRequest | string {
  if (hasCapability(caps, 'tasks.requests.elicitation.create') && formOnly(caps) === undefined) {
    return { method: 'elicitation/create', params: { message: 'mcpcheck asks, as a task: which batch?', requestedSchema: { type: 'object', properties: { batch: { type: 'string', title: 'Batch' } } } }, result: 'ElicitResult' };
  }
  if (hasCapability(caps, 'tasks.requests.sampling.createMessage') && isObject(caps.sampling)) {
    return { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'mcpcheck asks, as a task: say done.' } }], maxTokens: 50 }, result: 'CreateMessageResult' };
  }
  return 'the client declared task support for neither elicitation/create (with form mode) nor sampling/createMessage (with sampling)';
}
