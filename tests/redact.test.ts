import { describe, expect, it } from 'vitest';
import { headersRedacted, MIN_SECRET_CHARS, pathRedacted, Redactor, redactorFor, targetEnv } from '../src/redact.js';

describe('redactorFor', () => {
  const env = { API_TOKEN: 'tok-1234567890', PATH: '/usr/local/bin:/usr/bin', HOME: '/home/someone', SHORT: 'abc', QUOTED: 'a"b\\c-long-value', npm_package_name: 'mcpcheck' };

  it('replaces an environment value with $NAME, raw, inside a JSON string, and inside JSON text inside that', () => {
    const r = redactorFor(env);
    expect(r.text('Bearer tok-1234567890 here')).toBe('Bearer $API_TOKEN here');
    const once = JSON.stringify({ v: env.QUOTED });
    expect(r.text(once)).toBe('{"v":"$QUOTED"}');
    const twice = JSON.stringify({ text: once });
    expect(r.text(twice)).toBe(JSON.stringify({ text: '{"v":"$QUOTED"}' }));
  });

  it('learns a secret during the run (a token mcpcheck obtained): texts redacted from then on hide it too, the earlier secrets still', () => {
    const r = redactorFor(env);
    expect(r.text('got fetched-token-abcdef')).toBe('got fetched-token-abcdef');
    r.add([{ value: 'fetched-token-abcdef', shownAs: '[token of --client-id]' }]);
    expect(r.text('got fetched-token-abcdef with tok-1234567890')).toBe('got [token of --client-id] with $API_TOKEN');
    expect(r.deep({ header: 'Bearer fetched-token-abcdef' })).toEqual({ header: 'Bearer [token of --client-id]' });
  });

  it('leaves the variables that say where a program runs, short values, and a public-looking name that holds a credential is still hidden', () => {
    const r = redactorFor({ ...env, PATH_TOKEN: 'path-like-secret' });
    expect(r.text('/usr/local/bin:/usr/bin and /home/someone, abc')).toBe('/usr/local/bin:/usr/bin and /home/someone, abc');
    expect(r.text('mcpcheck server')).toBe('mcpcheck server');
    expect(r.text('path-like-secret')).toBe('$PATH_TOKEN');
    expect(MIN_SECRET_CHARS).toBe(8);
  });

  it('hides the start of a secret where mcpcheck cut the text after it', () => {
    const r = redactorFor(env);
    expect(r.text('{"token":"tok-12…(40 chars)')).toBe('{"token":"$API_TOKEN…(40 chars)');
    // Fewer than 4 characters of it are not worth the guess; a text that merely ends like it is not cut.
    expect(r.text('{"token":"tok…')).toBe('{"token":"tok…');
    expect(r.text('it said tok-12')).toBe('it said tok-12');
  });

  it('replaces --header values, and a credential after its scheme, with the header name', () => {
    const r = redactorFor({}, ['Authorization: Bearer abcdefgh12345', 'X-Api-Key: k3y-value-long']);
    expect(r.text('Bearer abcdefgh12345')).toBe('[--header Authorization]');
    expect(r.text('token abcdefgh12345 echoed')).toBe('token [--header Authorization] echoed');
    expect(r.text('k3y-value-long')).toBe('[--header X-Api-Key]');
  });

  it('prefers the environment name for a value a header also carries (a reproduce line then runs)', () => {
    const r = redactorFor({ MY_TOKEN: 'shared-secret-1' }, ['Authorization: Bearer shared-secret-1']);
    expect(r.text('Bearer shared-secret-1')).toBe('[--header Authorization]');
    expect(r.text('{"t":"shared-secret-1"}')).toBe('{"t":"$MY_TOKEN"}');
  });

  it("leaves a credential's scheme cut right after it (Bearer …): only a cut that reaches into the token hides", () => {
    const r = redactorFor({}, ['Authorization: Bearer shared-secret-1']);
    expect(r.text('expected WWW-Authenticate: Bearer … scope="a"')).toBe('expected WWW-Authenticate: Bearer … scope="a"');
    expect(r.text('sent Bearer shar…')).toBe('sent [--header Authorization]…');
  });
});

describe('Redactor.deep', () => {
  it('copies what holds a secret (keys too) and returns the rest as it was', () => {
    const r = new Redactor([{ value: 'secret-value-9', shownAs: '$S' }]);
    const clean = { a: [1, 'x'], b: { c: true } };
    const input = { clean, dirty: ['ok', { 'secret-value-9': 'secret-value-9 there' }] };
    const out = r.deep(input);
    expect(out).toEqual({ clean, dirty: ['ok', { $S: '$S there' }] });
    expect(out.clean).toBe(clean);
    expect(input.dirty[1]).toEqual({ 'secret-value-9': 'secret-value-9 there' });
  });

  it('redacts a value nested deeper than it walks, through its JSON text; one too deep for even that is not shown', () => {
    const r = new Redactor([{ value: 'secret-value-9', shownAs: '$S' }]);
    let deep: unknown = { env: 'secret-value-9' };
    for (let i = 0; i < 300; i++) deep = [deep];
    expect(JSON.stringify(r.deep({ frame: deep }))).not.toContain('secret-value-9');
    expect(JSON.stringify(r.deep({ frame: deep }))).toContain('$S');
    // Past what JSON.stringify itself can nest: nothing of it is shown rather than the secret.
    let deeper: unknown = 'secret-value-9';
    for (let i = 0; i < 20_000; i++) deeper = [deeper];
    const shown = JSON.stringify(r.deep({ frame: deeper }));
    expect(shown).toContain('[not shown: nested too deep to search for secrets]');
    expect(shown).not.toContain('secret-value-9');
  });

  it('is the identity without secrets', () => {
    const r = redactorFor({ SHORT: 'abc' });
    const v = { s: 'abc' };
    expect(r.empty).toBe(true);
    expect(r.deep(v)).toBe(v);
  });

  it('replaces a value that holds another as a whole', () => {
    const r = new Redactor([{ value: 'inner-secret', shownAs: '$INNER' }, { value: 'outer-inner-secret-x', shownAs: '$OUTER' }]);
    expect(r.text('outer-inner-secret-x / inner-secret')).toBe('$OUTER / $INNER');
  });
});

describe('targetEnv', () => {
  it('keeps only the variables named (and set)', () => {
    expect(targetEnv({ A: '1', B: '2', PATH: '/bin' }, ['A', 'PATH', 'MISSING'])).toEqual({ A: '1', PATH: '/bin' });
    const all = { A: '1' };
    expect(targetEnv(all, undefined)).toBe(all);
  });
});

describe('headersRedacted', () => {
  it('replaces the values of credential headers, keeps an Authorization scheme, and leaves the rest (the MCP session id included)', () => {
    expect(
      headersRedacted({
        authorization: 'Bearer abc.def',
        'proxy-authorization': 'Basic dXNlcjpwYXNz',
        cookie: 'sid=1',
        'set-cookie': 'sid=2; HttpOnly',
        'x-api-key': 'k-123',
        'x-auth-token': 't',
        'mcp-session-id': 'session-1',
        'mcp-protocol-version': '2025-11-25',
        accept: 'application/json, text/event-stream',
      }),
    ).toEqual({
      authorization: 'Bearer [redacted]',
      'proxy-authorization': 'Basic [redacted]',
      cookie: '[redacted]',
      'set-cookie': '[redacted]',
      'x-api-key': '[redacted]',
      'x-auth-token': '[redacted]',
      'mcp-session-id': 'session-1',
      'mcp-protocol-version': '2025-11-25',
      accept: 'application/json, text/event-stream',
    });
    // A value that is no scheme and credential keeps nothing.
    expect(headersRedacted({ authorization: 'abc' })).toEqual({ authorization: '[redacted]' });
  });
});

describe('pathRedacted', () => {
  it('hides the values of a query, keeping the names and the path', () => {
    expect(pathRedacted('/mcp')).toBe('/mcp');
    expect(pathRedacted('/mcp?api_key=s3cret&x=1&flag')).toBe('/mcp?api_key=[redacted]&x=[redacted]&flag=[redacted]');
  });
});
