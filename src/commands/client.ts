import { availableParallelism } from 'node:os';
import { grade, type Baseline } from '../grade/index.js';
import { ClientTarget, type EndpointFactory } from '../harness/client-target.js';
import { nameAndVersion } from '../json.js';
import type { RunReport } from '../model.js';
import { runClientScenarios } from '../runner/client-run.js';
import type { ClientScenario } from '../runner/client-scenario.js';
import { clientScenarios } from '../../suites/client/index.js';
import { openHttpEndpoint } from '../transport/http-endpoint.js';
import { StdioRelayChannel } from '../transport/stdio-relay.js';
import { scenarioRef, untestedContext } from '../grade/coverage.js';
import type { RunControl } from '../runner/observer.js';
import { toolInfo } from '../version.js';
import { planSelection } from './selection.js';
import { freshSeed, PROPERTY_CASES } from '../property/seed.js';
import type { Redactor } from '../redact.js';

export interface ClientCommandOptions {
  command: string;
  shell?: boolean;
  concurrency?: number;
  scenarioTimeoutMs?: number;
  requestTimeoutMs?: number;
  only?: string[];
  skip?: string[];
  transcriptDir?: string;
  baseline?: Baseline;
  /** Seeds the property scenarios (default: a fresh one, printed in the report). */
  seed?: number;
  /** Generated cases per property scenario (default PROPERTY_CASES; 0 turns the tier off). */
  properties?: number;
  /** Watches the run and stops it (Ctrl-C). */
  control?: RunControl;
  /** The flags that name the client, for reproduce commands. */
  targetFlags: string;
  /** How reproduce lines name mcpcheck (cli/invocation.ts: `npx mcpcheck`, `node dist/src/cli.js`…); default `mcpcheck`. */
  invokedAs?: string;
  /** The environment the client starts with (--target-env); mcpcheck's own by default. */
  env?: NodeJS.ProcessEnv;
  /** Keeps secrets out of the transcripts (the report is redacted where it is written). */
  redactor?: Redactor;
}

/** mcpcheck answers as a conformant server would: SSE streams primed with an event id. */
const openEndpoint: EndpointFactory = (transport) => (transport === 'http' ? openHttpEndpoint({ policy: { answerWith: 'sse', priming: true } }) : StdioRelayChannel.open());

/** `mcpcheck client`: runs the client suite against a client command and grades it. */
export async function testClient(o: ClientCommandOptions, scenarios: ClientScenario[] = clientScenarios): Promise<RunReport> {
  const started = Date.now();
  const selection = planSelection(scenarios, o.only ?? [], o.skip ?? []);
  const seed = o.seed ?? freshSeed();
  const target = new ClientTarget({ command: o.command, ...(o.shell ? { shell: true } : {}), ...(o.env ? { env: o.env } : {}) }, openEndpoint);
  try {
    const out = await runClientScenarios({
      ...o.control,
      target,
      scenarios: selection.scenarios,
      // A client scenario mostly waits on the client (its start-up, its steps): twice the cores keeps them busy.
      concurrency: o.concurrency ?? 2 * availableParallelism(),
      scenarioTimeoutMs: o.scenarioTimeoutMs ?? 30_000,
      requestTimeoutMs: o.requestTimeoutMs ?? 10_000,
      ...(o.transcriptDir ? { transcriptDir: o.transcriptDir } : {}),
      ...(o.redactor ? { redactor: o.redactor } : {}),
      reproduce: `${o.invokedAs ?? 'mcpcheck'} client ${o.targetFlags} --only {scenario} --seed ${seed}`,
      seed,
      cases: o.properties ?? PROPERTY_CASES,
    });
    const clientInfo = nameAndVersion(out.clientInfo);
    return grade({
      role: 'client',
      tool: toolInfo(),
      target: {
        kind: target.transport,
        description: target.description,
        ...(out.protocolVersion ? { protocolVersion: out.protocolVersion } : {}),
        ...(clientInfo ? { clientInfo } : {}),
      },
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      seed,
      checks: out.checks.filter(selection.keep),
      notes: out.notes,
      untested: untestedContext('client', { scenarios: scenarios.map(scenarioRef), role: 'client', selected: selection.narrowed }),
      wire: out.wire,
      ...(o.baseline ? { baseline: o.baseline } : {}),
      ...(o.control?.signal?.aborted ? { interrupted: true } : {}),
    });
  } finally {
    await target.close();
  }
}
