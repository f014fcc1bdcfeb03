import { SHELL_PROBE_COMMAND, show, type ClientScenario } from '../kit.js';
import { OPENS_BROWSER, opensInBrowser, protectedScenario } from './auth-helpers.js';

// How a client opens the authorization URL a server's metadata gave it (security best practices,
// "Authorization URL handling", 2026-07-28). Never through a shell: mcpcheck's authorization
// endpoint has shell command substitutions in its path that each create a marker file, bare and
// inside single quotes, so a shell runs one whether the URL was pasted unquoted, in double quotes
// or in single quotes. And only with https: (http: on loopback): the metadata names an
// authorization endpoint of a dangerous scheme, and the browser mcpcheck gives the client (its
// BROWSER) shows whether the client handed it over. A client that loads the URL itself, as the
// official contract has it, shows nothing of that: refused or failed to load look the same.

export const noShell = protectedScenario(
  {
    id: 'client.auth.no-shell',
    title: 'The client opens the authorization URL without a shell: command substitutions in its path run nowhere',
    requirements: ['SEC-AUTHURL-02'],
    variant: { shellProbe: true },
    revisions: { introduced: '2026-07-28' },
  },
  (ctx, flow) => {
    const shell = flow.host.shell;
    if (!shell) return ctx.check.skip('not exercised: the temporary directory\'s path cannot go into a URL path unencoded, so no marker file could be named there');
    const made = flow.host.shellMarkersMade();
    const expected = `the authorization URL, whose path holds ${show(shell.segment, 200)}, opened without a shell: no marker file made`;
    if (made.length > 0) return void ctx.check.expect(false, { expected, actual: `a shell ran the substitution(s): ${made.map((m) => show(m)).join(' and ')} made` });
    const opened = flow.of('authorize');
    if (opened.length === 0) return ctx.check.skip('not exercised: the client did not open the authorization URL');
    // Percent-encoded, the substitutions are text a shell leaves alone: the URL defused them, and a shell would show nothing.
    const live = opened.filter((a) => a.path.includes(SHELL_PROBE_COMMAND));
    if (live.length === 0) return ctx.check.skip(`not exercised: the authorization URL reached mcpcheck with its shell characters encoded (${show(opened[0]!.path, 200)}), which no shell runs; whether the client uses one cannot be told`);
    ctx.check.expect(true, { expected, actual: `${live.length} authorization request(s) on that path, no marker file` });
  },
);

const NOT_IN_BROWSER = 'not exercised: the client loads the authorization URL itself instead of opening it in its browser (BROWSER), so whether it would open a URL of another scheme cannot be seen';

/** An authorization endpoint of `scheme`, which the client must not hand its browser (SEC-AUTHURL-01). */
function schemeRefused(scheme: string, url: string): ClientScenario {
  return protectedScenario(
    {
      id: `client.auth.authorization-url-${scheme}`,
      title: `The client refuses an authorization endpoint of the ${scheme}: scheme: its browser is handed no such URL`,
      requirements: ['SEC-AUTHURL-01'],
      variant: { authorizationEndpoint: url },
      revisions: { introduced: '2026-07-28' },
      skipIf: (learnt) => (learnt.get(OPENS_BROWSER) === 'no' ? NOT_IN_BROWSER.replace('not exercised', 'not started') : undefined),
    },
    async (ctx, flow, control) => {
      const expected = `no ${scheme}: URL handed to the browser: the authorization server metadata named ${show(url)} as the authorization endpoint, and a client opens one only with https: (http: on loopback)`;
      const handed = flow.opened().filter((u) => u.trim().toLowerCase().startsWith(`${scheme}:`));
      if (handed.length > 0) return void ctx.check.expect(false, { expected, actual: `the client handed its browser ${show(handed[0]!, 200)}` });
      if (flow.of('authorization-server-metadata').length === 0) return ctx.check.skip('not exercised: the client did not read the authorization server metadata that names the endpoint');
      // A refusal looks like a client that opens no browser at all: a control client shows it opens one.
      const plain = await control();
      if (!plain || plain.of('authorize').length === 0) return ctx.check.skip('not exercised: a control client, served the plain metadata, did not reach the authorization endpoint, so a refusal cannot be told from a client that opens nothing');
      if (!opensInBrowser(plain)) return ctx.check.skip(NOT_IN_BROWSER);
      // A pass shows its expected text alone: the evidence goes there.
      const evidence = `the client read the metadata and handed its browser nothing of that scheme; a control client, served the plain metadata, opened ${show(plain.opened()[0]!, 200)} there`;
      ctx.check.expect(true, { expected: `${expected} (${evidence})`, actual: evidence });
    },
  );
}

/** Schemes a browser would run or read locally; the catalog names these three. */
const DANGEROUS_ENDPOINTS: ReadonlyArray<readonly [string, string]> = [
  ['javascript', 'javascript:alert(document.domain)'],
  ['data', 'data:text/html,<script>alert(document.domain)</script>'],
  ['file', 'file:///etc/passwd'],
];

export const clientAuthorizationOpening: ClientScenario[] = [noShell, ...DANGEROUS_ENDPOINTS.map(([scheme, url]) => schemeRefused(scheme, url))];
