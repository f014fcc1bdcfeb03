import { describe, expect, it } from 'vitest';
import { resourceMatch } from '../src/validate/resource-uri.js';
import { bearerChallenge, parseChallenges } from '../src/validate/www-authenticate.js';
import { wellKnownMetadataUrls } from '../src/validate/resource-uri.js';

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
