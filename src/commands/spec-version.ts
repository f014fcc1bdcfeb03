import { SetupError } from '../errors.js';
import { LATEST_REVISION, LATEST_STATEFUL_REVISION, type Revision } from '../spec/revisions.js';

/** The revisions --spec-version takes: the newest of each era. */
export const SPEC_VERSIONS = [LATEST_STATEFUL_REVISION, LATEST_REVISION] as const;

/** The revision --spec-version names, checked: an unknown one is the user's mistake, said in one line. */
export function parseSpecVersion(value: string | undefined): Revision | undefined {
  if (value === undefined) return undefined;
  if (!(SPEC_VERSIONS as readonly string[]).includes(value)) throw new SetupError(`--spec-version takes one of ${SPEC_VERSIONS.join(', ')} (got ${JSON.stringify(value)})`);
  return value as Revision;
}

