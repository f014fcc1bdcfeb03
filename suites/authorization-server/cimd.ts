import { asScenario, type AsScenarioContext, describeResponse, type Grant, noCodeBecause, type OAuthClient, show } from '../kit.js';
import { metadataOf } from './helpers.js';

// Client ID Metadata Documents (basic/authorization.mdx, "Client ID Metadata Documents", and
// draft-ietf-oauth-client-id-metadata-document), where the server's metadata says it takes them:
// mcpcheck publishes a client's document on its loopback https host and presents the document's
// URL as the client_id. A server mcpcheck starts (--start) is given its certificate to trust; one
// that fetches no loopback address (the draft's SSRF advice) gives a valid document no code either,
// and every check is then a skip saying so.

/** A client's document as the draft has it: client_id its own URL, the redirect URIs it may use. */
function document(url: string, redirectUri: string): Record<string, unknown> {
  return { client_id: url, client_name: 'mcpcheck', redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' };
}

/** The public client a document's URL makes. */
const documentClient = (url: string, redirectUri: string): OAuthClient => ({ clientId: url, method: 'none', redirectUri, origin: 'pre-registered' });

/** Whether the metadata says the server takes documents (else a skip recorded under each of `keys`). */
async function takesDocuments(ctx: AsScenarioContext, keys: readonly string[]): Promise<boolean> {
  const found = await metadataOf(ctx);
  if (!found) return false;
  if (found.document.client_id_metadata_document_supported === true) return true;
  const why = 'not judged: the metadata does not say client_id_metadata_document_supported: true';
  if (keys.length === 0) ctx.check.skip(why);
  else ctx.check.skipEach(why, keys.map((key) => ({ key })));
  return false;
}

/** An authorization request of a document's client; a string saying why none was sent. */
async function authorizeAs(ctx: AsScenarioContext, url: string, redirectUri: string): Promise<Grant | string> {
  return ctx.as.authorize(documentClient(url, redirectUri), { redirect_uri: redirectUri });
}

/** The control of each run (its driver), tried once for the scenarios that need it. */
const controls = new WeakMap<AsScenarioContext['as'], Promise<string | undefined>>();

/** Why a valid document's client got no code (the control of every document check), or undefined when it got one. */
function validDocumentRefused(ctx: AsScenarioContext): Promise<string | undefined> {
  let control = controls.get(ctx.as);
  if (control === undefined) controls.set(ctx.as, (control = tryValidDocument(ctx)));
  return control;
}

async function tryValidDocument(ctx: AsScenarioContext): Promise<string | undefined> {
  const redirectUri = ctx.as.options.redirectUri;
  const url = await ctx.as.documents.publish((u) => document(u, redirectUri));
  const grant = await authorizeAs(ctx, url, redirectUri);
  if (typeof grant === 'string') return grant;
  if (grant.code !== undefined) return undefined;
  const fetched = ctx.as.documents.fetches(url);
  return `a valid document's client (${url}, fetched ${fetched} time(s)) got no code either (${noCodeBecause(grant)})${fetched === 0 ? ': the server did not fetch it (a server mcpcheck starts with --start trusts its loopback certificate; one that fetches no loopback address cannot be judged here)' : ''}`;
}

export const supported = asScenario({
  id: 'as.cimd.supported',
  title: 'The server takes Client ID Metadata Documents: its metadata says so, and a valid document\'s client gets a code',
  requirements: ['AUTH-CIMD-01'],
  active: true,
  async run(ctx) {
    const found = await metadataOf(ctx);
    if (!found) return;
    const flag = found.document.client_id_metadata_document_supported;
    const expected = 'client_id_metadata_document_supported: true in the metadata, and a code for the client of a valid document';
    if (flag !== true) return void ctx.check.expect(false, { expected, actual: `the metadata (${found.url}) has client_id_metadata_document_supported ${flag === undefined ? 'absent' : show(flag)}` });
    const refused = await validDocumentRefused(ctx);
    if (refused !== undefined) return ctx.check.skip(`not judged: the metadata says it takes documents, but ${refused}`);
    ctx.check.expect(true, { expected, actual: 'both' });
  },
});

const FAULTS = [
  { key: 'client-id', what: 'whose client_id is another URL', make: (url: string, redirectUri: string) => ({ ...document(url, redirectUri), client_id: `${url}-other` }), redirect: (r: string) => r },
  { key: 'redirect-uris', what: 'without redirect_uris', make: (url: string, redirectUri: string) => { const { redirect_uris: _, ...rest } = document(url, redirectUri); return rest; }, redirect: (r: string) => r },
  { key: 'redirect-unlisted', what: 'whose redirect_uris do not hold the request\'s redirect_uri', make: (url: string, redirectUri: string) => document(url, redirectUri), redirect: (r: string) => new URL('/mcpcheck-unlisted/callback', r).href },
] as const;

export const validated = asScenario({
  id: 'as.cimd.validated',
  title: 'A Client ID Metadata Document whose client_id is not its URL, or that lists no redirect URIs or not the one asked for, gets its client no code',
  requirements: ['AUTH-CIMD-03'],
  active: true,
  async run(ctx) {
    const keys = FAULTS.map((f) => f.key);
    if (!(await takesDocuments(ctx, keys))) return;
    const refused = await validDocumentRefused(ctx);
    if (refused !== undefined) return ctx.check.skipEach(`not run: ${refused}`, keys.map((key) => ({ key })));
    const registered = ctx.as.options.redirectUri;
    for (const f of FAULTS) {
      const url = await ctx.as.documents.publish((u) => f.make(u, registered));
      const redirectUri = f.redirect(registered);
      const grant = await authorizeAs(ctx, url, redirectUri);
      if (typeof grant === 'string') {
        ctx.check.skip(`not run: ${grant}`, { key: f.key });
        continue;
      }
      if (grant.authorization.res.status === 0) {
        ctx.check.error(`could not judge: the authorization endpoint gave ${describeResponse(grant.authorization.res)} (see --request-timeout)`, { key: f.key });
        continue;
      }
      ctx.check.expect(grant.code === undefined, {
        key: f.key,
        expected: `an authorization request of client_id ${url} (a document ${f.what}, redirect_uri ${redirectUri}) refused: no code (a valid document's client got one)`,
        actual: `a code, the document fetched ${ctx.as.documents.fetches(url)} time(s): ${show(grant.authorization.res.headers.location ?? describeResponse(grant.authorization.res), 200)}`,
      });
    }
  },
});

/** How long the cached document's Cache-Control lets it be kept. */
const MAX_AGE_S = 300;

export const cached = asScenario({
  id: 'as.cimd.cached',
  title: 'A Client ID Metadata Document served with Cache-Control: max-age is fetched once for two authorizations within that time',
  requirements: ['AUTH-CIMD-04'],
  active: true,
  async run(ctx) {
    if (!(await takesDocuments(ctx, []))) return;
    const redirectUri = ctx.as.options.redirectUri;
    const url = await ctx.as.documents.publish((u) => document(u, redirectUri), { 'Cache-Control': `public, max-age=${MAX_AGE_S}` });
    for (let i = 0; i < 2; i++) {
      const grant = await authorizeAs(ctx, url, redirectUri);
      if (typeof grant === 'string') return ctx.check.skip(`not run: ${grant}`);
      if (grant.code === undefined) return ctx.check.skip(`not run: the document's client got no code (${noCodeBecause(grant)}), so what the server keeps of it cannot be told`);
    }
    const fetches = ctx.as.documents.fetches(url);
    if (fetches === 0) return ctx.check.skip('not exercised: the server gave the document\'s client codes without fetching it (as.cimd.validated judges whether it reads documents)');
    ctx.check.expect(fetches === 1, {
      expected: `the document, served with Cache-Control: public, max-age=${MAX_AGE_S}, fetched once for two authorization requests moments apart`,
      actual: `fetched ${fetches} times`,
    });
  },
});
