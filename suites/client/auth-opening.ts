import { SHELL_PROBE_COMMAND, show, type ClientScenario } from '../kit.js';
import { protectedScenario } from './auth-helpers.js';

// How a client opens the authorization URL a server's metadata gave it (security best practices,
// "Authorization URL handling", 2026-07-28): never through a shell. mcpcheck's authorization
// endpoint has shell command substitutions in its path that each create a marker file, bare and
// inside single quotes, so a shell runs one whether the URL was pasted unquoted, in double quotes
// or in single quotes. Whether the client checks the URL's scheme (SEC-AUTHURL-01) is not seen from
// outside: a javascript: or file: URL refused looks the same as one that failed to open.

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

export const clientAuthorizationOpening: ClientScenario[] = [noShell];
