import { SetupError } from '../errors.js';
import { TargetProcess } from '../transport/process.js';
import type { ServerChannel } from '../transport/server-channel.js';
import { type BrowserOfClient, LoopbackBrowser } from './loopback-browser.js';
import { TrustFile } from './loopback-trust.js';
import { splitWords } from './words.js';

export const URL_PLACEHOLDER = '{url}';
export const STDIO_PLACEHOLDER = '{stdio}';

export interface ClientTargetOptions {
  /** The client's command line, with {url} or {stdio} where mcpcheck's endpoint goes. */
  command: string;
  /** Run it through `sh -c` (pipes, variables) instead of as plain words. */
  shell?: boolean;
  cwd?: string;
  /** The environment it starts with (mcpcheck's own by default); mcpcheck's variables for it come on top. */
  env?: NodeJS.ProcessEnv;
}

/** Opens the endpoint a client reaches mcpcheck through, one per scenario. */
export type EndpointFactory = (transport: 'stdio' | 'http') => Promise<ServerChannel>;

/**
 * What mcpcheck tests when it plays the server: a client command it starts once per scenario,
 * pointed at a fresh endpoint. `{stdio}` makes it a stdio client (it starts mcpcheck's relay as
 * its server); otherwise it gets the Streamable HTTP URL, at `{url}` or as its last argument.
 */
export class ClientTarget {
  readonly transport: 'stdio' | 'http';
  readonly description: string;
  private readonly words: string[] | undefined;
  private readonly running = new Set<TargetProcess>();
  private trust: TrustFile | undefined;
  private browser: LoopbackBrowser | undefined;

  constructor(
    private readonly options: ClientTargetOptions,
    readonly openEndpoint: EndpointFactory,
  ) {
    if (options.command.trim() === '') throw new SetupError('--command needs a command');
    const stdio = options.command.includes(STDIO_PLACEHOLDER);
    if (stdio && options.command.includes(URL_PLACEHOLDER)) throw new SetupError(`--command takes ${URL_PLACEHOLDER} or ${STDIO_PLACEHOLDER}, not both`);
    this.transport = stdio ? 'stdio' : 'http';
    this.description = options.command;
    if (!options.shell) {
      const split = splitWords(options.command);
      if ('error' in split) throw new SetupError(`--command: ${split.error}`);
      this.words = split.words;
    }
  }

  /**
   * Starts the client for one scenario, pointed at `address`, with mcpcheck's browser as its
   * BROWSER (`browser`: what it opens there).
   */
  launch(address: string, env: Record<string, string>, browser: BrowserOfClient): TargetProcess {
    const placeholder = this.transport === 'stdio' ? STDIO_PLACEHOLDER : URL_PLACEHOLDER;
    const present = this.options.command.includes(placeholder);
    // The client trusts mcpcheck's loopback certificate, so that its https: icons can be watched.
    this.trust ??= new TrustFile();
    const fullEnv = { ...(this.options.env ?? process.env), ...this.trust.env(), ...browser.env, ...env };
    let child: TargetProcess;
    if (this.words) {
      // The address is one argument (a command line, for {stdio}, that the client splits on spaces).
      const argv = present ? this.words.map((w) => w.split(placeholder).join(address)) : [...this.words, address];
      child = new TargetProcess({ command: argv.join(' '), argv, env: fullEnv, ...(this.options.cwd ? { cwd: this.options.cwd } : {}) });
    } else {
      // Through a shell the address is text: unquoted, {stdio} becomes the words of its command line.
      const command = present ? this.options.command.split(placeholder).join(address) : `${this.options.command} ${address}`;
      child = new TargetProcess({ command, env: fullEnv, ...(this.options.cwd ? { cwd: this.options.cwd } : {}) });
    }
    this.running.add(child);
    return child;
  }

  /** Stops one client's whole process group (what it started, mcpcheck's relay among it, goes too). */
  async stop(child: TargetProcess): Promise<void> {
    await child.stop(0);
    this.running.delete(child);
  }

  /** The browser the next client process is given, with a log of what it opens of its own. */
  browserForClient(): BrowserOfClient {
    this.browser ??= new LoopbackBrowser();
    return this.browser.forClient();
  }

  /** Stops every client process group still running, and removes the trust file and browser they were given. */
  async close(): Promise<void> {
    await Promise.all([...this.running].map((c) => c.stop(0)));
    this.trust?.remove();
    this.trust = undefined;
    this.browser?.remove();
    this.browser = undefined;
  }
}
