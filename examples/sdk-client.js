#!/usr/bin/env node
/**
 * An MCP client built on @modelcontextprotocol/sdk that follows the client contract of
 * `mcpcheck client` (and of the official conformance suite's client scenarios).
 *
 *   node examples/sdk-client.js URL            Streamable HTTP (http:// or https://, the last argument)
 *   node examples/sdk-client.js CMD ARGS…      stdio: starts CMD as its server (all arguments, as one
 *                                              string or as separate words, split on whitespace)
 *
 * What to do comes from MCPCHECK_STEPS (a JSON
 * array of steps); without it, from MCP_CONFORMANCE_SCENARIO (`tools_call` calls the first tool
 * with {a: 2, b: 3}); with neither, it connects, lists the tools and exits.
 * A protected server (HTTP 401) is authorized with OAuth as the conformance contract has it: the
 * SDK discovers and registers, this client GETs the authorization URL and takes the code off the
 * redirect back (see ContractAuthProvider). Handed the client credentials scenarios' context
 * (auth/client-credentials-basic, auth/client-credentials-jwt), it is a machine-to-machine client of
 * the client credentials extension instead (the SDK's ClientCredentialsProvider or
 * PrivateKeyJwtProvider: see machineProvider).
 * Exit status: 0 done, 1 the server was lost or the run failed, 2 bad arguments or steps.
 *
 * Copy it and change what you need: it needs nothing but the SDK (npm i @modelcontextprotocol/sdk).
 */
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  RequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** The whole run never takes longer than this, whatever the server does. */
const OVERALL_TIMEOUT_MS = Number(process.env.SDK_CLIENT_TIMEOUT_MS) || 30_000;

const say = (text) => process.stderr.write(`sdk-client: ${String(text).replace(/\s*\n\s*/g, ' ')}\n`);

function fail(code, text) {
  say(text);
  process.exit(code);
}

function readSteps() {
  const raw = process.env.MCPCHECK_STEPS;
  if (raw !== undefined && raw.trim() !== '') {
    let steps;
    try {
      steps = JSON.parse(raw);
    } catch (err) {
      fail(2, `MCPCHECK_STEPS is not JSON: ${err.message}`);
    }
    if (!Array.isArray(steps) || !steps.every((s) => s && typeof s.do === 'string')) fail(2, 'MCPCHECK_STEPS must be an array of {"do": …} objects');
    return steps;
  }
  // Official scenarios whose server has one tool to call, and the arguments to call it with.
  const callFirstTool = { tools_call: { a: 2, b: 3 }, 'tools-call': { a: 2, b: 3 }, 'sse-retry': {}, 'elicitation-sep1034-client-defaults': {} };
  const args = callFirstTool[process.env.MCP_CONFORMANCE_SCENARIO];
  return args ? [{ do: 'list-tools' }, { do: 'call-first-tool', arguments: args }] : [{ do: 'list-tools' }];
}

/**
 * The JSON Schema dialects this client reads forms in: 2020-12 (the default, when a schema has no
 * $schema) and draft-07. Keyed by the URI without scheme and trailing `#`.
 */
const DIALECTS = new Set([
  'json-schema.org/draft/2020-12/schema',
  'json-schema.org/2025-11-25/2020-12/schema', // 2020-12 as the 2025-11-25 spec misprinted its URI
  'json-schema.org/draft-07/schema',
]);

/** Why a requested schema cannot be read (its $schema names another dialect), undefined when it can. */
function unsupportedDialect(schema) {
  if (schema === undefined || !Object.hasOwn(schema, '$schema')) return undefined;
  const uri = String(schema.$schema);
  return DIALECTS.has(uri.replace(/^https?:\/\//, '').replace(/#$/, '')) ? undefined : `unsupported JSON Schema dialect ${JSON.stringify(uri)} (this client reads 2020-12 and draft-07)`;
}

/**
 * elicitation/create with its params as sent. The SDK's ElicitRequestSchema drops
 * requestedSchema.$schema, so a handler registered with it cannot tell a form's dialect; the SDK
 * still checks the request against ElicitRequestSchema before calling the handler.
 */
const ElicitRequestAsSent = RequestSchema.extend({ method: ElicitRequestSchema.shape.method });

/** Form answers for an elicitation: the schema's defaults, and something that fits for each other required field. */
function answerForm(requestedSchema) {
  const content = {};
  const required = new Set(requestedSchema?.required ?? []);
  for (const [field, spec] of Object.entries(requestedSchema?.properties ?? {})) {
    if (spec.default !== undefined) content[field] = spec.default;
    else if (required.has(field)) content[field] = exampleValue(spec);
  }
  return content;
}

function exampleValue(spec) {
  const options = spec.enum ?? (spec.oneOf ?? spec.anyOf ?? []).map((o) => o.const).filter((c) => c !== undefined);
  if (spec.type === 'boolean') return false;
  if (spec.type === 'number' || spec.type === 'integer') return Math.ceil(spec.minimum ?? 0);
  if (spec.type === 'array') {
    const items = spec.items?.enum ?? (spec.items?.anyOf ?? spec.items?.oneOf ?? []).map((o) => o.const);
    return items.slice(0, 1);
  }
  if (options.length > 0) return options[0];
  const byFormat = { email: 'someone@example.com', uri: 'https://example.com/', date: '2025-01-01', 'date-time': '2025-01-01T00:00:00Z' };
  return byFormat[spec.format] ?? 'x'.repeat(Math.max(1, spec.minLength ?? 7));
}

function isConnectionLoss(err) {
  const code = err?.cause?.code ?? err?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || err?.code === ErrorCode.ConnectionClosed;
}

/**
 * OAuth for a protected server (basic/authorization.mdx), kept in memory for the run. The SDK
 * finds the authorization server, registers this client and builds the authorization URL; this
 * client then plays the user agent, as the conformance contract asks: it GETs that URL and reads
 * the code off the redirect back instead of opening a browser.
 */
class ContractAuthProvider {
  /**
   * The fetch the transport uses: it reads the authorization server's metadata as the SDK gets it.
   * basic/authorization.mdx: metadata without code_challenge_methods_supported means the server
   * may not do PKCE, and the client must not go on (the SDK v1 goes on); nor without S256.
   */
  fetch = async (url, init) => {
    const res = await fetch(url, init);
    // A scope challenge: a refresh cannot add the scope (RFC 6749 §6), so the refresh token is set
    // aside and the SDK authorizes again (step-up) instead of refreshing.
    if (res.status === 403 && res.headers.get('www-authenticate')?.includes('insufficient_scope') && this.saved) this.saved = { ...this.saved, refresh_token: undefined };
    if (/\/\.well-known\/(oauth-authorization-server|openid-configuration)/.test(String(url)) && res.ok) {
      const metadata = await res.clone().json().catch(() => undefined);
      const methods = metadata?.code_challenge_methods_supported;
      this.pkceRefused = Array.isArray(methods) && methods.includes('S256') ? undefined : `its metadata lists code_challenge_methods_supported ${JSON.stringify(methods)} (no S256)`;
    }
    return res;
  };

  constructor() {
    this.redirectUrl = 'http://127.0.0.1/sdk-client/callback';
    this.clientMetadata = { client_name: 'mcpcheck-sdk-example-client', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
    // Where the authorization server supports Client ID Metadata Documents, the SDK uses this URL as
    // the client_id instead of registering. A real client names the document it hosts; the official
    // suite's auth/basic-cimd scenario expects this one.
    this.clientMetadataUrl = 'https://conformance-test.local/client-metadata.json';
    // Pre-registered credentials, as the conformance contract hands them over (auth/pre-registration).
    this.client = contractClient();
    this.issuedState = undefined;
    this.code = undefined;
  }
  state() {
    this.issuedState = crypto.randomUUID();
    return this.issuedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url) {
    if (this.pkceRefused) throw new Error(`not authorizing with ${url.origin}: ${this.pkceRefused}`);
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    const location = res.headers.get('location');
    if (!location) throw new Error(`the authorization endpoint did not redirect back (HTTP ${res.status})`);
    const back = new URL(location, url);
    if (back.searchParams.get('state') !== this.issuedState) throw new Error('the redirect back carried another state');
    const code = back.searchParams.get('code');
    if (!code) throw new Error(`the authorization was refused: ${back.searchParams.get('error') ?? 'no code'}`);
    this.code = code;
  }
}

/** What the conformance contract hands over in MCP_CONFORMANCE_CONTEXT (the scenario's name, credentials). */
function contractContext() {
  try {
    const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
    return typeof context === 'object' && context !== null ? context : {};
  } catch {
    return {};
  }
}

/** The client the conformance contract hands over in MCP_CONFORMANCE_CONTEXT ({client_id, client_secret}), if it hands one. */
function contractClient() {
  const context = contractContext();
  if (typeof context.client_id !== 'string') return undefined;
  return { client_id: context.client_id, ...(typeof context.client_secret === 'string' ? { client_secret: context.client_secret } : {}) };
}

/**
 * The client credentials extension (io.modelcontextprotocol/oauth-client-credentials): a client
 * without a user gets its token by the client_credentials grant, authenticating by its secret or by
 * a JWT assertion signed with its key. The contract names the scenario and hands over the credentials.
 */
function machineProvider() {
  const context = contractContext();
  const clientId = context.client_id;
  if (typeof clientId !== 'string') return undefined;
  if (context.name === 'auth/client-credentials-basic' && typeof context.client_secret === 'string') return new ClientCredentialsProvider({ clientId, clientSecret: context.client_secret });
  if (context.name === 'auth/client-credentials-jwt' && typeof context.private_key_pem === 'string') {
    return new PrivateKeyJwtProvider({ clientId, privateKey: context.private_key_pem, algorithm: typeof context.signing_algorithm === 'string' ? context.signing_algorithm : 'ES256' });
  }
  return undefined;
}

/** The server ended the session (HTTP 404 to a request that carried its id): a new one is due. */
function sessionEnded(err) {
  return err instanceof StreamableHTTPError && err.code === 404;
}

/** A connected client with this example's capabilities and handlers; `session.client` changes when a session is renewed. */
async function connect(makeTransport, session) {
  const transport = makeTransport();
  const client = new Client(
    { name: 'mcpcheck-sdk-example-client', version: '1.0.0' },
    { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } } },
  );
  client.onclose = () => {
    if (session.client === client) session.lost('the connection closed');
  };
  client.onerror = (err) => {
    if (isConnectionLoss(err)) session.lost(err.message);
  };
  // ping is answered by the SDK itself.
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: pathToFileURL(process.cwd()).href, name: 'working directory' }],
  }));
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    if (request.params.tools !== undefined || request.params.toolChoice !== undefined) {
      throw new McpError(ErrorCode.InvalidParams, 'This client did not declare sampling.tools.');
    }
    return { role: 'assistant', content: { type: 'text', text: 'A sampled answer from the SDK example client.' }, model: 'sdk-example-model', stopReason: 'endTurn' };
  });
  // The SDK answers a mode this client did not declare with -32602 before calling this; a form
  // in a dialect the client cannot read is refused here (the SDK does not look at $schema).
  client.setRequestHandler(ElicitRequestAsSent, (request) => {
    if (request.params.mode === 'url') return { action: 'accept' };
    const unsupported = unsupportedDialect(request.params.requestedSchema);
    if (unsupported) throw new McpError(ErrorCode.InvalidParams, `requestedSchema: ${unsupported}`);
    return { action: 'accept', content: answerForm(request.params.requestedSchema) };
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    const job = session.listTools().catch((err) => say(`listing tools again failed: ${err.message}`));
    session.relisting.add(job);
    job.finally(() => session.relisting.delete(job));
  });
  try {
    await client.connect(transport);
  } catch (err) {
    const auth = session.auth;
    // Twice at most: a token may stop working mid-handshake, or the server move to another authorization server.
    if (!(err instanceof UnauthorizedError) || !auth?.code || session.authorizations >= 2) throw err;
    // Authorized by now: the code goes to the token endpoint, then the connection starts again.
    session.authorizations += 1;
    const code = auth.code;
    auth.code = undefined;
    await transport.finishAuth(code);
    return connect(makeTransport, session);
  }
  session.client = client;
  session.transport = transport;
}

async function main() {
  const words = process.argv.slice(2);
  const last = words[words.length - 1];
  if (!last) fail(2, 'usage: sdk-client.js SERVER-URL-OR-COMMAND');
  const steps = readSteps();
  const overHttp = /^https?:\/\//i.test(last);
  const machine = overHttp ? machineProvider() : undefined;
  const auth = overHttp && !machine ? new ContractAuthProvider() : undefined;
  const makeTransport = () => {
    if (machine) return new StreamableHTTPClientTransport(new URL(last), { authProvider: machine });
    if (overHttp) return new StreamableHTTPClientTransport(new URL(last), { authProvider: auth, fetch: auth.fetch });
    const [command, ...args] = words.join(' ').trim().split(/\s+/);
    return new StdioClientTransport({ command, args });
  };

  let closing = false;
  const listAll = async (list, field) => {
    const items = [];
    let cursor;
    do {
      const page = await list(cursor === undefined ? {} : { cursor });
      items.push(...page[field]);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return items;
  };
  const session = {
    auth,
    authorizations: 0,
    client: undefined,
    transport: undefined,
    tools: [],
    relisting: new Set(),
    lost: (why) => {
      if (!closing) fail(1, `lost the server: ${why}`);
    },
    listTools: async () => {
      session.tools = await listAll((p) => session.client.listTools(p), 'tools');
    },
  };
  await connect(makeTransport, session);

  const perform = {
    'list-tools': () => session.listTools(),
    'call-tool': (s) => session.client.callTool({ name: s.name, arguments: s.arguments ?? {} }, undefined, s.timeoutMs ? { timeout: s.timeoutMs } : undefined),
    'call-first-tool': (s) => (session.tools[0] ? session.client.callTool({ name: session.tools[0].name, arguments: s.arguments }) : undefined),
    'list-resources': () => listAll((p) => session.client.listResources(p), 'resources'),
    'read-resource': (s) => session.client.readResource({ uri: s.uri }),
    'list-prompts': () => listAll((p) => session.client.listPrompts(p), 'prompts'),
    'get-prompt': (s) => session.client.getPrompt({ name: s.name, arguments: s.arguments }),
    'list-tasks': () => listAll((p) => session.client.experimental.tasks.listTasks(p.cursor), 'tasks'),
    ping: () => session.client.ping(),
    wait: (s) => new Promise((resolve) => setTimeout(resolve, s.ms)),
  };
  for (const [i, step] of steps.entries()) {
    const run = perform[step.do];
    try {
      if (!run) throw new Error(`unknown step ${JSON.stringify(step.do)}`);
      if (auth) auth.code = undefined;
      try {
        await run(step);
      } catch (err) {
        if (err instanceof UnauthorizedError && auth?.code) {
          // A scope challenge sent the provider to authorize again (step-up): the new code, then the step again.
          await session.transport.finishAuth(auth.code);
          await run(step);
          continue;
        }
        if (!sessionEnded(err)) throw err;
        // The spec's answer to a 404: a new session with a fresh initialize, then the step again.
        say('the server ended the session (404); starting a new one');
        const old = session.client;
        session.client = undefined;
        await old.close().catch(() => undefined);
        await connect(makeTransport, session);
        await run(step);
      }
    } catch (err) {
      if (isConnectionLoss(err)) session.lost(err.message);
      // A timed-out call has already been cancelled by the SDK (notifications/cancelled).
      say(`step ${i + 1} (${step.do}) failed: ${err.message}`);
    }
  }
  await Promise.allSettled([...session.relisting]);

  closing = true;
  if (overHttp) await session.transport.terminateSession().catch((err) => say(`ending the session failed: ${err.message}`));
  await session.client.close();
}

setTimeout(() => fail(1, `gave up after ${OVERALL_TIMEOUT_MS} ms`), OVERALL_TIMEOUT_MS).unref();
main().then(
  () => process.exit(0),
  (err) => fail(1, isConnectionLoss(err) ? `lost the server: ${err.message}` : err.message),
);
