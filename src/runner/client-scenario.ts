import type { ServerSession } from '../harness/server-session.js';
import type { ExitInfo, TargetProcess } from '../transport/process.js';
import type { ClientExchange, StdioClientEvent } from '../transport/server-channel.js';
import type { CheckRecorder } from './checks.js';
import type { RevisionSpan, ScenarioIdentity } from './scenario.js';

/** One thing the client under test is asked to do (MCPCHECK_STEPS; the contract is in the README). */
export type Step =
  | { do: 'list-tools' }
  | { do: 'call-tool'; name: string; arguments?: Record<string, unknown>; timeoutMs?: number }
  | { do: 'list-resources' }
  | { do: 'read-resource'; uri: string }
  | { do: 'list-prompts' }
  | { do: 'get-prompt'; name: string; arguments?: Record<string, string> }
  /** 2025-11-25: tasks/list, following nextCursor (a server that declared tasks.list). */
  | { do: 'list-tasks' }
  | { do: 'ping' }
  /** 2026-07-28: hold a `subscriptions/listen` subscription to tools list changes for `ms`, then end it. */
  | { do: 'listen'; ms: number }
  /** 2026-07-28: call, with arguments `{}`, every tool the client's own tool list shows (a tool it left out, HDR-PARAM-03, is not called). */
  | { do: 'call-listed-tools' }
  | { do: 'wait'; ms: number };

export interface ClientScenarioContext {
  /** Towards the client; serving already when the client starts. */
  session: ServerSession;
  /** The client's process (its stderr tail, its exit). */
  client: TargetProcess;
  transport: 'stdio' | 'http';
  check: CheckRecorder;
  /** HTTP: every exchange so far, in order (empty over stdio). */
  exchanges: readonly ClientExchange[];
  /** stdio: what the client did to the process it started as its server (empty over HTTP). */
  stdioEvents: readonly StdioClientEvent[];
  /** Waits for the client to exit by itself. */
  exited(timeoutMs: number): Promise<ExitInfo | undefined>;
  /** The URLs the client handed the browser mcpcheck gave it (its BROWSER), in order. */
  opened(): string[];
  note(text: string): void;
  /** The run's seed, for what a property scenario generates. */
  seed: number;
  /** How many generated cases a property scenario tries (0: the property tier is off). */
  cases: number;
  /** Milliseconds until the scenario's timeout (--timeout) cuts it short. */
  timeLeft(): number;
  /**
   * How long the client may take over a step of its own (a process it starts, such as a browser; a
   * pause in its flow) when `baseMs` is the wait on an idle machine: scaled by how long its starts
   * took on this run, so that a busy machine does not turn a slow step into a missing one.
   */
  paceMs(baseMs: number): number;
  /** Tells the run's later scenarios something this one learnt of the client (see ClientScenario.skipIf). */
  learn(key: string, what: string): void;
  /**
   * Starts another client process, exactly as for the scenario, at a fresh endpoint shaped by the
   * scenario's serve() (a property's next case needs a client that is alive). Undefined when that
   * client made no contact. The runner stops every one at the scenario's end.
   */
  relaunch(): Promise<ClientScenarioContext | undefined>;
}

/** What a scenario judging another's client run is given: that run's outcome is judged, with a recorder of its own. */
export type SharedJudgeContext = Pick<ClientScenarioContext, 'check' | 'note' | 'learn'>;

/** A scenario against a client under test (mcpcheck plays the server). */
export interface ClientScenario extends ScenarioIdentity {
  /** What the client is asked to do after connecting, before it ends the session and exits. */
  steps: Step[];
  /**
   * The official contract's scenario name the client is told (MCP_CONFORMANCE_SCENARIO) when the
   * scenario has no official twin (`alias`) but asks for the behaviour of one (an OAuth flow);
   * without either, `initialize`.
   */
  contract?: string;
  /** What the official contract hands the client beside the scenario's name (MCP_CONFORMANCE_CONTEXT), such as pre-registered credentials. */
  context?: Readonly<Record<string, string>>;
  needs?: { transport?: 'stdio' | 'http' };
  /** The revisions it applies to; a client that spoke another one (in the run's first scenario) has it skipped, naming that revision. */
  revisions?: RevisionSpan;
  /** Written for the stateful era and checked to hold in the stateless one too (it waits for a conversation of either era). */
  carriedOver?: true;
  /** How long the scenario may wait on a client that is doing nothing, beyond its steps' own waits (it starts early then). */
  waitsMs?: number;
  /**
   * Its clients keep state on disk (an OAuth client's registrations and tokens, in one file for
   * all its processes): the scenarios so marked run one after another in a lane of their own, so
   * that two of their clients never race on that state.
   */
  oneAtATime?: true;
  /**
   * Why the scenario need not start a client at all, from what an earlier scenario of the run
   * learnt of it (`learn`); undefined: it runs. The skip it makes says so.
   */
  skipIf?(learnt: ReadonlyMap<string, string>): string | undefined;
  /**
   * Shapes what mcpcheck serves, before the client starts; `attempt` counts the clients of the
   * scenario from 0 (relaunch starts more), `learnt` is what earlier scenarios learnt of the client.
   */
  serve?(session: ServerSession, attempt: number, learnt: ReadonlyMap<string, string>): void | Promise<void>;
  /**
   * Scenarios of one key set the client the same task with the same setup, and differ only in what
   * they judge of it: the first of them to run starts the client, and the outcome its run returns
   * is judged by the others (`judge`), which start none. A client started twice on the same setup
   * does the same; each of its starts costs a process. Alone (--only), each starts its own.
   */
  sharesClient?: { key: string; judge(outcome: unknown, ctx: SharedJudgeContext): void | Promise<void> };
  /** Judges the client; a scenario that sharesClient returns what the others of its key judge (undefined: nothing to share, they start their own). */
  run(ctx: ClientScenarioContext): Promise<unknown>;
}

export function clientScenario(s: ClientScenario): ClientScenario {
  return s;
}

/** The steps in words, as `list` and the README show them. */
export function describeSteps(steps: readonly Step[]): string {
  const words = steps.map((s) => {
    switch (s.do) {
      case 'call-tool':
        return `call ${s.name}${s.timeoutMs !== undefined ? ` (timeout ${s.timeoutMs} ms)` : ''}`;
      case 'read-resource':
        return `read ${s.uri}`;
      case 'get-prompt':
        return `get prompt ${s.name}`;
      case 'wait':
        return `stay connected ${s.ms} ms`;
      case 'listen':
        return `listen for tools list changes ${s.ms} ms`;
      case 'call-listed-tools':
        return 'call every tool its list shows';
      default:
        return s.do.replace('-', ' ');
    }
  });
  return ['connect', ...words, 'exit'].join(', ');
}
