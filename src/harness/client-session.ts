import type { HttpChannel } from '../transport/http.js';
import type { StdioChannel } from '../transport/stdio.js';
import { LATEST_STATEFUL_REVISION as LATEST_REVISION } from '../spec/revisions.js';
import { type CannedAnswers, DEFAULT_CANNED } from './canned.js';
import type { Conversation } from './lifecycle/conversation.js';
import { PeerSession, type PeerSessionOptions, type Reply } from './peer-session.js';
import { META } from '../spec/modern.js';
import { toolInfo } from '../version.js';
import { isObject } from '../json.js';

/**
 * `params` with `meta` under its `_meta` (the caller's keys win). Params that are no object (a
 * probe of malformed params) are sent as given.
 */
function withRequestMeta(params: unknown, meta: Record<string, unknown>): unknown {
  if (params === undefined) return { _meta: meta };
  if (!isObject(params)) return params;
  return { ...params, _meta: { ...meta, ...(isObject(params._meta) ? params._meta : {}) } };
}

/** The channels towards a server: `kind` tells them apart, so transport probes need no cast. */
export type ChannelToServer = HttpChannel | StdioChannel;

export interface ClientSessionOptions extends PeerSessionOptions<ChannelToServer> {
  canned?: CannedAnswers;
}

export interface InitializeOptions {
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** Skip notifications/initialized (to test what a server does before it). */
  withholdInitialized?: boolean;
  timeoutMs?: number;
}

/** A session with a server under test, mcpcheck playing the client: initialize, and canned answers to the server's requests. */
export class ClientSession extends PeerSession<ChannelToServer> {
  private readonly canned: CannedAnswers;
  /** What the conversation began with, once `connect()` started it: read this, not the opening answer. */
  conversation?: Conversation;
  clientCapabilities: Record<string, unknown> = {};

  constructor(options: ClientSessionOptions) {
    super('client', options);
    this.canned = options.canned ?? DEFAULT_CANNED;
  }

  /**
   * Sends a request and waits for its answer. In the stateless era every request carries the
   * per-request `_meta` (protocol version, the capabilities `connect()` declared, mcpcheck's
   * clientInfo), merged under any `_meta` the caller gave, which wins: a scenario that sends a
   * chosen version or withholds a field says so in its params. A message sent as given
   * (`requestMessage`, `send`) is untouched.
   */
  override request(method: string, params?: unknown, timeoutMs?: number): Promise<Reply> {
    return super.request(method, this.era === 'stateless' ? withRequestMeta(params, this.requestMeta()) : params, timeoutMs);
  }

  /**
   * A request message as `request` would send it, under `id`: for scenarios that send a message
   * themselves (to hold its id, or send it raw) in whichever era the session speaks.
   */
  compose(id: unknown, method: string, params?: unknown): Record<string, unknown> {
    const sent = this.era === 'stateless' ? withRequestMeta(params, this.requestMeta()) : params;
    return { jsonrpc: '2.0', id, method, ...(sent === undefined ? {} : { params: sent }) };
  }

  /** The per-request `_meta` of the stateless era (basic/index.mdx#meta, META-REQ-01/02). */
  requestMeta(): Record<string, unknown> {
    return { [META.protocolVersion]: this.speaks, [META.clientCapabilities]: this.clientCapabilities, [META.clientInfo]: toolInfo() };
  }

  async initialize(options: InitializeOptions = {}): Promise<Reply> {
    this.clientCapabilities = options.capabilities ?? {};
    const reply = await this.request(
      'initialize',
      {
        protocolVersion: options.protocolVersion ?? LATEST_REVISION,
        capabilities: this.clientCapabilities,
        clientInfo: options.clientInfo ?? { name: 'mcpcheck', version: '0.1.0' },
      },
      options.timeoutMs,
    );
    if (reply.kind === 'result') {
      const version = reply.result.protocolVersion;
      if (typeof version === 'string') this.channel.setProtocolVersion(version);
      if (!options.withholdInitialized) await this.notify('notifications/initialized');
    }
    return reply;
  }

  /** Opens the channel's way for messages tied to no request (see Channel.listen). */
  async listen(): Promise<void> {
    // stdio always has its way open.
    if (!this.closedDetail && this.channel.kind === 'http') await this.channel.listen();
  }

  /** Per method, what its server→client requests wait for before they are answered (see holdAnswers). */
  private readonly holds = new Map<string, Promise<void>>();

  /**
   * Leaves the server's requests of `methods` unanswered until the returned release is called: to
   * see what the server shows while it waits for an answer (a task's status, say).
   */
  holdAnswers(methods: readonly string[]): () => void {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    for (const m of methods) this.holds.set(m, released);
    return () => {
      for (const m of methods) if (this.holds.get(m) === released) this.holds.delete(m);
      release();
    };
  }

  /** Answers a server→client request with the canned answer for a declared capability, else −32601. */
  protected override async answer(request: Record<string, unknown>): Promise<void> {
    await this.holds.get(String(request.method));
    const declared = (name: string) => name in this.clientCapabilities;
    let result: unknown;
    switch (request.method) {
      case 'ping':
        result = {};
        break;
      case 'roots/list':
        if (declared('roots')) result = { roots: this.canned.roots };
        break;
      case 'sampling/createMessage':
        if (declared('sampling')) result = this.canned.sampling;
        break;
      case 'elicitation/create':
        if (declared('elicitation')) result = this.canned.elicitation;
        break;
    }
    const reply =
      result !== undefined
        ? { jsonrpc: '2.0', id: request.id, result }
        : { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `mcpcheck does not offer ${String(request.method)} in this session` } };
    await this.send(reply);
  }
}
