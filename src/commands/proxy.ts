import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { SetupError } from '../errors.js';
import type { Baseline } from '../grade/index.js';
import type { RunReport } from '../model.js';
import { startReverseProxy } from '../proxy/http-reverse.js';
import { runStdioShim, type StdioShimEnd } from '../proxy/stdio-shim.js';
import { JudgingThread } from './proxy-thread.js';

interface CommonOptions {
  /** Where each violation is told as one line while the session runs. */
  log: (line: string) => void;
  /** Notes too. */
  verbose?: boolean;
  baseline?: Baseline;
  /** How reproduce lines name mcpcheck. */
  invokedAs?: string;
}

export interface StdioProxyOptions extends CommonOptions {
  /** The server's command line (`--stdio`). */
  stdio: string;
  /** The file the whole exchange is written to, as a transcript `validate` reads. */
  transcript?: string;
  /** The client's side of the connection (default: this process's stdin, stdout and stderr). */
  client?: { input: Readable; output: Writable; errors: Writable };
}

export interface HttpProxyOptions extends CommonOptions {
  /** The server's MCP endpoint (`--url`). */
  url: string;
  /** Where the proxy listens (`--listen`, loopback only). */
  host: string;
  port: number;
  /** A folder for one transcript per session. */
  transcript?: string;
  /** Told where the proxy listens, once it does. */
  listening?: (endpoint: string) => void;
  /** Resolves when the run is to end (the CLI: SIGINT or SIGTERM). */
  until: Promise<unknown>;
}

export interface ProxyRun {
  report: RunReport;
  /** stdio: how the server ended, which the proxy's own exit repeats. */
  end?: StdioShimEnd;
}

/**
 * `mcpcheck proxy --stdio`: carries a real client's session with a real server unchanged, judges
 * every frame of both sides as it passes (the live validators of `validate`, per era, in the
 * judging thread), writes the transcript as it goes, and grades the session when it ends.
 */
export async function runStdioProxy(o: StdioProxyOptions): Promise<ProxyRun> {
  const thread = new JudgingThread({ ...setupOf(o), kind: 'stdio', command: o.stdio, ...(o.transcript !== undefined ? { transcript: o.transcript } : {}) }, o.log);
  const client = o.client ?? { input: process.stdin, output: process.stdout, errors: process.stderr };
  const end = await runStdioShim({
    command: o.stdio,
    ...client,
    onBytes: (from, chunk) => thread.bytes(from, chunk),
    onEnd: (from) => thread.end(from),
  });
  const report = await thread.finish({ kind: 'stdio', ended: end.ended, ...(end.startupFailure !== undefined ? { startupFailure: end.startupFailure } : {}) });
  return { report, end };
}

/**
 * `mcpcheck proxy --url … --listen …`: a reverse proxy on loopback in front of a Streamable HTTP
 * server; every exchange is forwarded as it is and judged per session (an MCP-Session-Id, or the
 * traffic that carried none) until `until` resolves; then one report with every session.
 */
export async function runHttpProxy(o: HttpProxyOptions): Promise<ProxyRun> {
  const upstream = new URL(o.url);
  const thread = new JudgingThread({ ...setupOf(o), kind: 'http', upstream: upstream.href, ...(o.transcript !== undefined ? { transcriptDir: o.transcript } : {}) }, o.log);
  const proxy = await startReverseProxy({ upstream, host: o.host, port: o.port, tap: thread }).catch((e: NodeJS.ErrnoException) => {
    throw new SetupError(`--listen ${o.host}:${o.port}: cannot listen there (${e.code ?? e.message})`);
  });
  const endpoint = `${proxy.origin}${upstream.pathname}${upstream.search}`;
  thread.listening(endpoint);
  o.log(`listening on ${endpoint}, forwarding to ${upstream.href}; give the client the first URL, stop with Ctrl-C`);
  o.listening?.(endpoint);
  await o.until;
  await proxy.close();
  return { report: await thread.finish({ kind: 'http', endpoint }) };
}

function setupOf(o: CommonOptions): { started: number; verbose: boolean; headers: string[]; baseline?: Baseline; invokedAs?: string } {
  return { started: Date.now(), verbose: o.verbose === true, headers: [], ...(o.baseline ? { baseline: o.baseline } : {}), ...(o.invokedAs !== undefined ? { invokedAs: o.invokedAs } : {}) };
}

/**
 * A signal stops the session (the shim stops the server); the proxy then still writes its report
 * and exits. A second signal quits at once. Without this, the process-group guard
 * (transport/process.ts) would re-raise the first signal once the server was gone. Resolves at
 * the first signal.
 */
export function holdSignals(): Promise<NodeJS.Signals> {
  let seen = 0;
  return new Promise((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(signal, () => {
        if (++seen > 1) process.exit(128 + constants.signals[signal]);
        resolve(signal);
      });
    }
  });
}

