import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assertionProblem, JWT_BEARER_ASSERTION } from '../src/validate/client-assertion.js';
import { resourceMatch } from '../src/validate/resource-uri.js';
import { bearerChallenge, parseChallenges } from '../src/validate/www-authenticate.js';
import { wellKnownMetadataUrls } from '../src/validate/resource-uri.js';
import { approvalOf, formsOf, pageText, submission } from '../src/validate/html-form.js';
import { cookieProblems, framingAllowed } from '../src/validate/consent-security.js';

describe('WWW-Authenticate challenges (RFC 9110 §11.6.1)', () => {
  it('reads a Bearer challenge with quoted and token parameters', () => {
    expect(parseChallenges('Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="a b", error=invalid_token')).toEqual([
      { scheme: 'bearer', params: { resource_metadata: 'http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp', scope: 'a b', error: 'invalid_token' } },
    ]);
  });

  it('reads several challenges, commas inside quoted strings and escapes included', () => {
    const challenges = parseChallenges('Basic realm="a, b", Bearer realm="x\\"y", scope="s1 s2" , DPoP algs="ES256"');
    expect(challenges.map((c) => c.scheme)).toEqual(['basic', 'bearer', 'dpop']);
    expect(challenges[0]!.params.realm).toBe('a, b');
    expect(challenges[1]!.params).toEqual({ realm: 'x"y', scope: 's1 s2' });
    expect(bearerChallenge('Basic realm="x", BEARER scope="z"')?.params.scope).toBe('z');
  });

  it('reads a token68 and a bare scheme; the first of a repeated parameter counts; what cannot be read ends the list', () => {
    expect(parseChallenges('Negotiate abc123==, Bearer')).toEqual([
      { scheme: 'negotiate', params: {}, token68: 'abc123==' },
      { scheme: 'bearer', params: {} },
    ]);
    expect(parseChallenges('Bearer scope="a", scope="b"')[0]!.params.scope).toBe('a');
    expect(parseChallenges('Bearer scope="unterminated')).toEqual([{ scheme: 'bearer', params: {} }]);
    expect(parseChallenges('')).toEqual([]);
    expect(bearerChallenge(undefined)).toBeUndefined();
  });
});

describe('whether a resource identifies the endpoint (ruling resource-identifies-server)', () => {
  const endpoint = new URL('http://127.0.0.1:3000/mcp');
  it.each([
    ['http://127.0.0.1:3000/mcp', 'same'],
    ['HTTP://127.0.0.1:3000/mcp', 'same'],
    ['http://127.0.0.1:3000', 'enclosing'],
    ['http://127.0.0.1:3000/', 'enclosing'],
    ['http://127.0.0.1:3000/mcp/', 'trailing-slash'],
    ['http://127.0.0.1:3000/other', 'other'],
    ['http://127.0.0.1:3000/mc', 'other'],
    ['http://127.0.0.1:3001/mcp', 'other'],
    ['https://127.0.0.1:3000/mcp', 'other'],
    ['http://127.0.0.1:3000/mcp#frag', 'other'],
    ['http://127.0.0.1:3000/mcp?x=1', 'other'],
    ['not a url', 'other'],
  ] as const)('%s → %s', (resource, match) => {
    expect(resourceMatch(resource, endpoint)).toBe(match);
  });
  it('a default port is the same resource', () => {
    expect(resourceMatch('https://mcp.example.com:443/mcp', new URL('https://mcp.example.com/mcp'))).toBe('same');
  });
});

describe('the well-known URIs of Protected Resource Metadata (RFC 9728 §3.1)', () => {
  it('path-inserted first, then the root; the root alone for an endpoint at /', () => {
    expect(wellKnownMetadataUrls(new URL('http://127.0.0.1:1/api/mcp')).map((u) => u.href)).toEqual([
      'http://127.0.0.1:1/.well-known/oauth-protected-resource/api/mcp',
      'http://127.0.0.1:1/.well-known/oauth-protected-resource',
    ]);
    expect(wellKnownMetadataUrls(new URL('http://127.0.0.1:1/')).map((u) => u.href)).toEqual(['http://127.0.0.1:1/.well-known/oauth-protected-resource']);
  });
});

describe('a client\'s JWT assertion at the token endpoint (RFC 7523 §2.2, §3)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = 1_800_000_000;
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  /** A JWT over `claims`, its header `alg`, signed with `key` (ES256, raw r||s as JWS has it). */
  function jwt(claims: Record<string, unknown>, alg = 'ES256', key = privateKey): string {
    const signed = `${b64({ alg, typ: 'JWT' })}.${b64(claims)}`;
    return `${signed}.${sign('sha256', Buffer.from(signed), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  }
  const good = { iss: 'c1', sub: 'c1', aud: 'http://127.0.0.1:9/', exp: now + 60, jti: 'x' };
  const expect_ = { publicKey, algorithms: ['ES256'], clientId: 'c1', audiences: ['http://127.0.0.1:9', 'http://127.0.0.1:9/token'], nowSeconds: now };
  const problem = (assertion: string | undefined, type: string | undefined = JWT_BEARER_ASSERTION) => assertionProblem(assertion, type, expect_);

  it('takes one signed by the key given, for the client, to the authorization server, unexpired', () => {
    expect(problem(jwt(good))).toBeUndefined();
    expect(problem(jwt({ ...good, aud: ['elsewhere', 'http://127.0.0.1:9/token'] }))).toBeUndefined();
  });

  it('names what is wrong with any other', () => {
    expect(problem(jwt(good), 'urn:other')).toMatch(/^client_assertion_type "urn:other"/);
    expect(problem(undefined)).toBe('no client_assertion');
    expect(problem('a.b')).toMatch(/2 dot-separated parts/);
    expect(problem(`${b64({ alg: 'none' })}.${b64(good)}.`)).toMatch(/alg "none", which the metadata does not list/);
    expect(problem(jwt(good, 'ES256', other.privateKey))).toMatch(/does not verify/);
    expect(problem(jwt({ ...good, iss: 'c2' }))).toMatch(/^iss "c2"/);
    expect(problem(jwt({ ...good, sub: undefined }))).toMatch(/^sub undefined/);
    expect(problem(jwt({ ...good, aud: 'https://as.invalid' }))).toMatch(/names neither the issuer nor the token endpoint/);
    expect(problem(jwt({ ...good, exp: undefined }))).toBe('no exp claim');
    expect(problem(jwt({ ...good, exp: now - 120 }))).toMatch(/120 s in the past/);
  });
});

describe('an MCP proxy\'s consent page as a browser reads it (html-form.ts, consent-security.ts)', () => {
  const page = `<html><body><p>Client &quot;A&amp;B&quot; wants <code>http://127.0.0.1/cb</code></p>
<form method=POST action='/consent'>
  <input type="hidden" name="client_id" value="c-1">
  <input type=hidden name=csrf value="t&amp;k">
  <input type="checkbox" name="remember">
  <input type="checkbox" name="scopes" value="read" checked>
  <input type="text" name="note" disabled value="x">
  <button type="submit" name="decision" value="deny">Deny</button>
  <button type="submit" name="decision" value="approve"><b>Allow</b> access</button>
</form>
<form action="/logout"><button>Sign out</button></form></body></html>`;

  it('reads a form\'s fields as a submission sends them, and picks the button that approves', () => {
    const forms = formsOf(page);
    expect(forms).toHaveLength(2);
    expect(forms[0]!.method).toBe('post');
    expect(forms[0]!.action).toBe('/consent');
    const approval = approvalOf(forms)!;
    expect(approval.button?.value).toBe('approve');
    expect(submission(approval.form, approval.button).toString()).toBe('client_id=c-1&csrf=t%26k&scopes=read&decision=approve');
    expect(pageText(page)).toContain('Client "A&B" wants http://127.0.0.1/cb');
  });

  it('finds no approval where every button refuses', () => {
    expect(approvalOf(formsOf('<form method="post"><button name="d" value="deny">Cancel</button></form>'))).toBeUndefined();
  });

  it('framing is forbidden by X-Frame-Options DENY or SAMEORIGIN, or frame-ancestors \'none\' or \'self\' alone', () => {
    expect(framingAllowed({ 'x-frame-options': 'DENY' })).toBeUndefined();
    expect(framingAllowed({ 'content-security-policy': "default-src 'self'; frame-ancestors 'none'" })).toBeUndefined();
    expect(framingAllowed({ 'content-security-policy': 'frame-ancestors *' })).toBe('frame-ancestors *');
    expect(framingAllowed({ 'x-frame-options': 'ALLOW-FROM https://x' })).toBe('X-Frame-Options: ALLOW-FROM https://x');
    expect(framingAllowed({})).toMatch(/^neither/);
  });

  it('a consent cookie needs __Host-, Secure, HttpOnly and SameSite=Lax (or Strict); one being deleted is not judged', () => {
    expect(cookieProblems('__Host-c=v; Path=/; Secure; HttpOnly; SameSite=Lax')).toEqual([]);
    expect(cookieProblems('__Host-c=v; Path=/; Secure; HttpOnly; SameSite=Strict')).toEqual([]);
    expect(cookieProblems('c=v; Path=/; SameSite=None')).toEqual(['no __Host- prefix', 'no Secure', 'no HttpOnly', 'SameSite=None']);
    expect(cookieProblems('c=; Max-Age=0')).toEqual([]);
  });
});
