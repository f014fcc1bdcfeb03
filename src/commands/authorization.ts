import { SetupError } from '../errors.js';
import { grade, type Baseline } from '../grade/index.js';
import { AuthorizationServerDriver, DEFAULT_REDIRECT_URI, describeResponse } from '../harness/authorization-server.js';
import { isLoopbackHost } from '../harness/listening.js';
import { TrustFile } from '../harness/loopback-trust.js';
import { asSetupError, HttpTarget } from '../harness/target.js';
import type { AuthorizationServerSection, RunReport } from '../model.js';
import { runAsScenarios } from '../runner/as-run.js';
import type { AsScenario } from '../runner/as-scenario.js';
import type { RunControl } from '../runner/observer.js';
import { LATEST_REVISION, type Revision } from '../spec/revisions.js';
import { toolInfo } from '../version.js';
import { authorizationServerScenarios } from '../../suites/authorization-server/index.js';
import { planSelection, type Selection } from './selection.js';
import { parseSpecVersion } from './spec-version.js';

export interface AuthorizationCommandOptions {
  /** The issuer identifier (--url). */
  url: string;
  /** A command that serves --url; mcpcheck starts it first and stops it last. */
  start?: string;
  allowRemoteMetadata?: boolean;
  clientId?: string;
  /** The client's secret, read from the variable --client-secret-env names. */
  clientSecret?: string;
  redirectUri?: string;
  scope?: string;
  resource?: string;
  specVersion?: string;
  requestTimeoutMs?: number;
  scenarioTimeoutMs?: number;
  only?: string[];
  skip?: string[];
  baseline?: Baseline;
  control?: RunControl;
  /** The flags that name the target, for reproduce commands. */
  targetFlags: string;
  invokedAs?: string;
}

/** The issuer --url names, checked: an http(s) URL with no query or fragment (RFC 8414 §2), on loopback unless remote metadata is allowed. */
function parseIssuer(o: AuthorizationCommandOptions): URL {
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    throw new SetupError(`--url ${JSON.stringify(o.url.slice(0, 80))} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SetupError(`--url takes an http(s) issuer identifier (got ${url.protocol})`);
  if (url.search !== '' || url.hash !== '') throw new SetupError('--url takes an issuer identifier, which has no query or fragment (RFC 8414 §2)');
  if (url.username !== '' || url.password !== '') throw new SetupError('--url takes an issuer identifier without credentials');
  if (!isLoopbackHost(url.hostname) && !o.allowRemoteMetadata) {
    throw new SetupError(`--url ${url.host} is not on loopback: mcpcheck tests authorization servers on 127.0.0.1, localhost or [::1]; --allow-remote-metadata lets it GET a remote one's public metadata (and sends nothing else)`);
  }
  if (o.start !== undefined && !isLoopbackHost(url.hostname)) throw new SetupError('--start serves a local server: its --url must be on 127.0.0.1, localhost or [::1]');
  if (o.redirectUri !== undefined && !URL.canParse(o.redirectUri)) throw new SetupError('--redirect-uri is not a URL');
  if (o.clientSecret !== undefined && o.clientId === undefined) throw new SetupError('--client-secret-env goes with --client-id');
  return url;
}

/**
 * `mcpcheck authorization`: grades an OAuth authorization server as MCP clients need it, playing
 * the client and the user agent. An issuer that answers none of its well-known URLs (only 404s,
 * or nothing) is no authorization server to grade: a setup error, not a page of skips.
 */
export async function testAuthorizationServer(o: AuthorizationCommandOptions, scenarios: AsScenario[] = authorizationServerScenarios): Promise<RunReport> {
  const issuer = parseIssuer(o);
  const revision: Revision = parseSpecVersion(o.specVersion) ?? LATEST_REVISION;
  const selection = planSelection(scenarios, o.only ?? [], o.skip ?? []);
  // What serves the issuer, when mcpcheck starts it: waited for as a server's --start is, and
  // trusting mcpcheck's loopback certificate (the host of the client metadata documents it fetches).
  const trust = o.start !== undefined ? new TrustFile() : undefined;
  const served = new HttpTarget({ url: o.url, ...(o.start !== undefined ? { start: o.start } : {}), ...(trust ? { env: { ...process.env, ...trust.env() } } : {}) });
  try {
    await served.prepare(o.control?.signal);
    return await gradeAuthorizationServer(o, issuer, revision, selection);
  } catch (e) {
    throw asSetupError(e);
  } finally {
    await served.close();
    trust?.remove();
  }
}

async function gradeAuthorizationServer(o: AuthorizationCommandOptions, issuer: URL, revision: Revision, selection: Selection<AsScenario>): Promise<RunReport> {
  const started = Date.now();
  const as = new AuthorizationServerDriver({
    issuerText: o.url,
    issuer,
    requestTimeoutMs: o.requestTimeoutMs ?? 10_000,
    allowRemoteMetadata: o.allowRemoteMetadata === true,
    redirectUri: o.redirectUri ?? DEFAULT_REDIRECT_URI,
    ...(o.clientId !== undefined ? { clientId: o.clientId } : {}),
    ...(o.clientSecret !== undefined ? { clientSecret: o.clientSecret } : {}),
    ...(o.scope !== undefined ? { scope: o.scope } : {}),
    ...(o.resource !== undefined ? { resource: o.resource } : {}),
  });
  const metadata = await as.metadata();
  if (!metadata.found && metadata.attempts.every((a) => a.res.status === 0 || a.res.status === 404)) {
    throw new SetupError(`${issuer.href} is no authorization server mcpcheck can reach: ${metadata.attempts.map((a) => `${a.url} ${describeResponse(a.res)}`).join('; ')}`);
  }
  const notes = [
    `judged by the ${revision} catalog${o.specVersion === undefined ? ' (--spec-version 2025-11-25 for the older one)' : ''}`,
    ...(metadata.found ? [`metadata: ${metadata.found.url} (${metadata.found.kind === 'oidc' ? 'OpenID Connect Discovery' : 'RFC 8414'})`] : []),
  ];
  try {
    return await gradeWith(o, as, revision, selection, started, notes);
  } finally {
    await as.close();
  }
}

async function gradeWith(o: AuthorizationCommandOptions, as: AuthorizationServerDriver, revision: Revision, selection: Selection<AsScenario>, started: number, notes: string[]): Promise<RunReport> {
  // A client is registered only for scenarios that need one: the metadata alone asks for none.
  if (selection.scenarios.some((s) => s.active)) {
    const client = await as.client();
    notes.push('clientId' in client ? `client: ${client.origin === 'registered' ? 'registered dynamically' : 'the one given (--client-id)'}, ${client.method === 'none' ? 'public' : `authenticating with ${client.method}`}, redirect URI ${client.redirectUri}` : `client: none (${client.why})`);
  }
  const run = await runAsScenarios({
    ...o.control,
    as,
    scenarios: selection.scenarios,
    revision,
    scenarioTimeoutMs: o.scenarioTimeoutMs ?? 30_000,
    reproduce: `${o.invokedAs ?? 'mcpcheck'} authorization ${o.targetFlags} --spec-version ${revision} --only {scenario}`,
  });
  return grade({
    role: 'AS',
    tool: toolInfo(),
    target: { kind: 'http', description: o.url },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    checks: run.checks.filter(selection.keep),
    notes: [...notes, ...run.notes],
    ...(o.baseline ? { baseline: o.baseline } : {}),
    ...(o.control?.signal?.aborted ? { interrupted: true } : {}),
  });
}

/** What a server run grades of each authorization server its protected resource names: the metadata alone (nothing registered, no code asked for). */
const NAMED_ISSUER_SCENARIOS = ['as.metadata'];

export interface NamedIssuerOptions {
  /** The MCP endpoint whose metadata names the issuer: an issuer on its origin is a host the user named. */
  endpoint: URL;
  /** --allow-remote-metadata: an issuer elsewhere may be sent GETs of its metadata documents. */
  allowRemoteMetadata: boolean;
  /** The command that served the endpoint (--start): a reproduce line starts it too, for an issuer on loopback it may serve. */
  start?: string;
  revision: Revision;
  requestTimeoutMs: number;
  scenarioTimeoutMs: number;
  baseline?: Baseline;
  control?: RunControl;
  invokedAs?: string;
}

/**
 * An authorization server a protected resource names, graded on its metadata as `mcpcheck
 * authorization --only as.metadata` grades it: an issuer on neither loopback nor the endpoint's
 * origin is not contacted unless remote metadata is allowed; one that serves no metadata is graded
 * (its metadata is missing), not a setup error, since the server run is what the user asked for.
 */
export async function gradeNamedIssuer(issuerText: string, o: NamedIssuerOptions): Promise<AuthorizationServerSection> {
  const issuer = new URL(issuerText);
  const named = isLoopbackHost(issuer.hostname) || issuer.origin === o.endpoint.origin;
  if (!named && !o.allowRemoteMetadata) {
    return { issuer: issuerText, status: 'not contacted', detail: `${issuer.host} is neither on loopback nor the server's own host, and mcpcheck contacts no other host unasked: --allow-remote-metadata lets it GET the issuer's public metadata documents (and send nothing else)` };
  }
  if (o.control?.signal?.aborted) return { issuer: issuerText, status: 'could not run', detail: 'interrupted (Ctrl-C) before it was graded' };
  const started = Date.now();
  const selection = planSelection(authorizationServerScenarios, NAMED_ISSUER_SCENARIOS, []);
  const options: AuthorizationCommandOptions = {
    url: issuerText,
    targetFlags: `--url ${JSON.stringify(issuerText)}${o.start !== undefined && isLoopbackHost(issuer.hostname) ? ` --start ${JSON.stringify(o.start)}` : ''}${named ? '' : ' --allow-remote-metadata'}`,
    scenarioTimeoutMs: o.scenarioTimeoutMs,
    ...(o.baseline ? { baseline: o.baseline } : {}),
    ...(o.control ? { control: o.control } : {}),
    ...(o.invokedAs !== undefined ? { invokedAs: o.invokedAs } : {}),
  };
  const as = new AuthorizationServerDriver({ issuerText, issuer, requestTimeoutMs: o.requestTimeoutMs, allowRemoteMetadata: true, redirectUri: DEFAULT_REDIRECT_URI });
  try {
    const metadata = await as.metadata();
    const where = metadata.found ? `metadata: ${metadata.found.url} (${metadata.found.kind === 'oidc' ? 'OpenID Connect Discovery' : 'RFC 8414'})` : `no metadata document: ${metadata.attempts.map((a) => `${a.url} ${describeResponse(a.res)}`).join('; ')}`;
    const report = await gradeWith(options, as, o.revision, selection, started, [`judged by the ${o.revision} catalog, as the authorization server the protected resource names`, where]);
    return { issuer: issuerText, status: 'graded', detail: where, report };
  } finally {
    await as.close();
  }
}
