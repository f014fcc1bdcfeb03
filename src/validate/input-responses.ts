import type { ErrorObject } from 'ajv';
import { schemaFor } from './schemas.js';
import { obj } from '../json.js';
import { LATEST_REVISION } from '../spec/revisions.js';

/** The result definition each input request's answer validates as (MRTR-CLI-05, TASK-UPD-03). */
const RESPONSE_DEFS: Readonly<Record<string, string>> = {
  'elicitation/create': 'ElicitResult',
  'sampling/createMessage': 'CreateMessageResult',
  'roots/list': 'ListRootsResult',
};

export interface MistypedResponse {
  key: string;
  /** The input request's method, and the result definition its answer had to match. */
  method: string;
  def: string;
  errors: ErrorObject[];
}

/**
 * The answers in `responses` that are not the result their input request calls for (an ElicitResult
 * for an elicitation/create …): whether a retry (multi round-trip) or a tasks/update carries them,
 * each answers one of `inputRequests`, as that standalone request's result would. Keys that answer
 * nothing asked, and requests of a method with no result definition, are not judged here.
 */
export function mistypedResponses(inputRequests: Record<string, unknown>, responses: Record<string, unknown>): MistypedResponse[] {
  const schema = schemaFor(LATEST_REVISION);
  const out: MistypedResponse[] = [];
  for (const key of Object.keys(responses)) {
    if (!Object.hasOwn(inputRequests, key)) continue;
    const method = obj(inputRequests[key])?.method;
    const def = typeof method === 'string' && Object.hasOwn(RESPONSE_DEFS, method) ? RESPONSE_DEFS[method]! : undefined;
    const errors = def ? schema.validate(def, responses[key]) : null;
    if (def && errors) out.push({ key, method: method as string, def, errors });
  }
  return out;
}
