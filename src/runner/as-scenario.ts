import type { AuthorizationServerDriver } from '../harness/authorization-server.js';
import type { CheckRecorder } from './checks.js';
import type { RevisionSpan, ScenarioIdentity } from './scenario.js';

export interface AsScenarioContext {
  /** mcpcheck's OAuth client of the server: metadata, client and first grant, each found once per run. */
  as: AuthorizationServerDriver;
  check: CheckRecorder;
  note(text: string): void;
}

/** A scenario against an authorization server under test (`mcpcheck authorization`; mcpcheck plays the OAuth client and the user agent). */
export interface AsScenario extends ScenarioIdentity {
  /** The revisions whose catalog has its rule; in another the runner skips it, naming the one judged. */
  revisions?: RevisionSpan;
  /** It sends requests other than metadata GETs, which go to a loopback issuer only. */
  active?: true;
  run(ctx: AsScenarioContext): Promise<void>;
}

export function asScenario(s: AsScenario): AsScenario {
  return s;
}
