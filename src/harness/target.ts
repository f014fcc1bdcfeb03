import { SetupError } from '../errors.js';
import type { ChannelToServer } from './client-session.js';
import { HttpChannel, redactUrl, TargetUnreachable } from '../transport/http.js';
import { HeaderList, httpExchange } from '../transport/http-client.js';
import { TargetDidNotStart, TargetProcess } from '../transport/process.js';
import { StdioChannel } from '../transport/stdio.js';
import { Pace } from './pace.js';
import { type ClientCredentials, clientCredentialsToken } from './client-credentials.js';
import { LATEST_STATEFUL_REVISION } from '../spec/revisions.js';

/**
 * What mcpcheck tests: a command it runs over stdio (a fresh process per `open()`), or a
 * Streamable HTTP URL (a fresh HTTP session per `open()`), optionally served by a command that
 * mcpcheck starts first and stops last.
 */
export interface Target {
  readonly kind: 'stdio' | 'http';
  /** For reports: the command or the URL, never header values or URL credentials. */
  readonly description: string;
  /** Whether its requests carry a credential (an Authorization header): a 401 then refuses it, not its absence. */
  readonly credentialed: boolean;
  /**
   * Whether the server has refused that credential: a 401 to a session's own request that carried
   * it, confirmed by a fresh request with it that gets 401 too (a 401 for, say, an ended session
   * is the session's matter, not the token's). Once refused, always refused.
   */
  tokenRefused(): Promise<boolean>;
  open(): Promise<ChannelToServer>;
  /**
   * Stops the server process mcpcheck started for this target, if any, so the next `open` starts
   * a fresh one (after a hang). Over stdio every session is a process of its own already.
   */
  recycle?(): Promise<void>;
  /** The process group of the serving command mcpcheck started for this target, while it runs. */
  readonly startedGroup?: number | undefined;
  /**
   * HTTP: the session ids the server issued with its InitializeResults on this target's channels so
   * far, in the order they came (bounded): a sample of its ids that costs the server no sessions more.
   */
  issuedSessionIds?(): readonly string[];
  /** Stops everything the target started. */
  close(): Promise<void>;
}

export interface StdioTargetOptions {
  command: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export class StdioTarget implements Target {
  readonly kind = 'stdio' as const;
  readonly credentialed = false;
  readonly description: string;
  private readonly open_ = new Set<StdioChannel>();
  private closed = false;

  constructor(private readonly options: StdioTargetOptions) {
    this.description = options.command;
  }

  async open(): Promise<StdioChannel> {
    if (this.closed) throw new Error('the target was closed');
    try {
      const channel = await StdioChannel.start({ command: this.options.command, ...(this.options.cwd ? { cwd: this.options.cwd } : {}), ...(this.options.env ? { env: this.options.env } : {}) });
      // Closed while this one was starting: it must not outlive the run.
      if (this.closed) {
        await channel.close();
        throw new Error('the target was closed');
      }
      this.open_.add(channel);
      channel.onClose(() => this.open_.delete(channel));
      return channel;
    } catch (e) {
      if (e instanceof TargetDidNotStart) throw new SetupError(e.message);
      throw e;
    }
  }

  /** A process's stdio carries no credential to refuse. */
  async tokenRefused(): Promise<boolean> {
    return false;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.open_].map((c) => c.close()));
  }
}

export interface HttpTargetOptions {
  url: string;
  headers?: Record<string, string>;
  /** A command that serves the URL; started before the run, its process group killed after. */
  start?: string;
  requestTimeoutMs?: number;
  /** The environment `start` runs with (mcpcheck's own by default). */
  env?: NodeJS.ProcessEnv;
  /** Get the bearer token by the client credentials grant once the server answers (and again after each --start). */
  credentials?: ClientCredentials;
  /** Told of each token obtained, before any request carries it (the run's redactor learns it). */
  onSecret?: (value: string) => void;
}

/**
 * A server's --url, checked once: a URL, http: or https:, and without user name or password, which
 * fetch refuses to send and a report would show (a credential goes in a --header).
 */
export function targetUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SetupError(`--url ${JSON.stringify(text)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SetupError(`--url must be http: or https:, got ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw new SetupError('--url must not carry a user name or password: pass a credential with --header "Authorization: …"');
  return url;
}

/** Session ids kept for `issuedSessionIds`: far more than a sample needs, few enough for a run of any length. */
const MAX_ISSUED_KEPT = 1_000;

/** The request that tells a refused token from a refused session: an initialize outside any session. */
const TOKEN_CHECK = JSON.stringify({ jsonrpc: '2.0', id: 'mcpcheck-token-check', method: 'initialize', params: { protocolVersion: LATEST_STATEFUL_REVISION, capabilities: {}, clientInfo: { name: 'mcpcheck', version: '0.1.0' } } });

export class HttpTarget implements Target {
  readonly kind = 'http' as const;
  readonly description: string;
  private server: TargetProcess | undefined;
  private readonly channels = new Set<HttpChannel>();
  private readonly issued: string[] = [];
  /** How long the serving command's first start took to accept connections: its later starts are waited for by it. */
  private readonly pace = new Pace();

  /** The --url, parsed once here: every later use reads this value. */
  readonly address: URL;
  /** A session's request carrying the credential got 401 since the last confirmation. */
  private suspect = false;
  private refused: Promise<boolean> | undefined;

  constructor(private readonly options: HttpTargetOptions) {
    this.address = targetUrl(options.url);
    this.description = redactUrl(this.address) + (options.start ? ` (started by: ${options.start})` : '');
  }

  get url(): string {
    return this.address.href;
  }

  get headers(): Record<string, string> {
    const headers = this.options.headers ?? {};
    return this.bearer !== undefined ? { ...headers, Authorization: `Bearer ${this.bearer}` } : headers;
  }

  /** The token the client credentials grant gave (--client-id), once obtained. */
  private bearer: string | undefined;

  /** Obtains the token of --client-id from the authorization server the server names. */
  private async obtainToken(): Promise<void> {
    if (!this.options.credentials) return;
    const token = await clientCredentialsToken(this.address, this.options.credentials, this.options.requestTimeoutMs ?? 10_000);
    this.options.onSecret?.(token);
    this.bearer = token;
  }

  async tokenRefused(): Promise<boolean> {
    if (this.refused && (await this.refused)) return true;
    if (!this.suspect) return false;
    this.suspect = false;
    this.refused = this.refusesToken();
    return this.refused;
  }

  /**
   * Whether an initialize carrying the run's credential, outside any session, gets 401 within 5 s
   * (no answer says nothing of the token). A session it opened is ended again.
   */
  private async refusesToken(): Promise<boolean> {
    const channel = new HttpChannel({ url: this.address.href, headers: this.headers });
    try {
      const res = await channel.request({ method: 'POST', body: TOKEN_CHECK, timeoutMs: 5_000, readMs: 1_000 });
      const opened = res.headers['mcp-session-id'];
      if (res.status >= 200 && res.status < 300 && opened !== undefined) await channel.request({ method: 'DELETE', sessionIdOverride: opened, timeoutMs: 1_000 });
      return res.status === 401;
    } finally {
      await channel.close();
    }
  }

  get credentialed(): boolean {
    return Object.keys(this.headers).some((name) => name.toLowerCase() === 'authorization');
  }

  /** The process group of the serving command mcpcheck started (`--start`) while it runs, else undefined. */
  get startedGroup(): number | undefined {
    return this.server?.running ? this.server.pid : undefined;
  }

  /**
   * Starts the serving command, if any, and waits until the URL answers: the first start up to the
   * pace's ceiling, and measured; a later one (after a crash or hang) by that measure. `signal`
   * (Ctrl-C) ends the wait: the serving command runs in a process group of its own, so the
   * terminal's Ctrl-C does not stop it.
   */
  async prepare(signal?: AbortSignal): Promise<void> {
    await this.startServer(signal);
    // A started server may have forgotten the tokens of the one before it: each start gets its own.
    if (this.bearer === undefined || this.options.start) await this.obtainToken();
  }

  private async startServer(signal?: AbortSignal): Promise<void> {
    if (!this.options.start) return;
    const startedAt = performance.now();
    this.server = new TargetProcess({ command: this.options.start, ...(this.options.env ? { env: this.options.env } : {}) });
    try {
      await this.server.ready(100);
    } catch (e) {
      throw new SetupError(e instanceof Error ? e.message : String(e));
    }
    const waitMs = this.pace.startupMs(1);
    for (;;) {
      if (signal?.aborted) throw new Error('the run was interrupted');
      const failure = this.server.startupFailure();
      if (failure || this.server.exit) {
        throw new SetupError(failure?.message ?? `the server command \`${this.options.start}\` exited (code ${this.server.exit?.code}) before ${redactUrl(this.address)} answered`);
      }
      if (await answers(this.address.href, 1000)) {
        this.pace.firstStart(performance.now() - startedAt);
        return;
      }
      if (performance.now() - startedAt > waitMs) throw new SetupError(`${redactUrl(this.address)} did not accept connections within ${waitMs} ms of starting \`${this.options.start}\` (${this.pace.startupReason(1)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** A channel for a new HTTP session (initialize assigns the session id). */
  newChannel(): HttpChannel {
    const channel = new HttpChannel({
      url: this.address.href,
      headers: this.headers,
      ...(this.options.requestTimeoutMs ? { timeoutMs: this.options.requestTimeoutMs } : {}),
      onCredentialRefused: () => (this.suspect = true),
      onSessionId: (id) => {
        if (this.issued.length < MAX_ISSUED_KEPT) this.issued.push(id);
      },
    });
    this.channels.add(channel);
    channel.onClose(() => this.channels.delete(channel));
    return channel;
  }

  issuedSessionIds(): readonly string[] {
    return this.issued;
  }

  /** A channel for a new session; a started server (`--start`) that has exited is started again first. */
  async open(): Promise<HttpChannel> {
    if (this.server && !this.server.running) await this.prepare();
    return this.newChannel();
  }

  async recycle(): Promise<void> {
    // Its sessions go with it; the next open() starts it again.
    if (this.server) await this.close();
  }

  async close(): Promise<void> {
    await Promise.all([...this.channels].map((c) => c.close()));
    if (this.server) await this.server.terminateGroup();
  }
}

/**
 * Whether anything answers HTTP at `url` within `ms`. The body is dropped once the headers are in
 * (it may be an endless stream), and the abort bounds the whole of it.
 */
async function answers(url: string, ms: number): Promise<boolean> {
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The timer settles it even if the aborted exchange itself never does.
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const answered = httpExchange(new URL(url), { method: 'GET', headers: new HeaderList(), signal: ctl.signal }).then(
    (res) => {
      res.cancel();
      return true;
    },
    () => false,
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
    ctl.abort();
  }
}

/** Maps the transports' own "could not reach / could not start" errors to setup errors (exit 2). */
export function asSetupError(e: unknown): unknown {
  if (e instanceof TargetUnreachable || e instanceof TargetDidNotStart) return new SetupError(e.message);
  return e;
}
