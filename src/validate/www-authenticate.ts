/**
 * `WWW-Authenticate` as RFC 9110 §11.6.1 spells it: one or more challenges, each an auth scheme
 * followed by a token68 or by comma-separated auth-params whose values are tokens or quoted strings
 * (which may hold commas). The MCP authorization rules read the Bearer challenge's parameters
 * (RFC 6750 §3: `error`, `scope`; RFC 9728 §5.1: `resource_metadata`).
 */

export interface Challenge {
  /** The auth scheme, lower-cased (schemes are case-insensitive). */
  scheme: string;
  /** Its auth-params by lower-cased name (the first of a repeated one), quoted strings unquoted. */
  params: Record<string, string>;
  token68?: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;

/** Reads a header value; what cannot be read ends the list (the challenges read so far are kept). */
export function parseChallenges(value: string): Challenge[] {
  const challenges: Challenge[] = [];
  let rest = value;
  const skipSpace = () => (rest = rest.replace(/^[ \t]+/, ''));
  const skipCommas = () => (rest = rest.replace(/^[ \t,]+/, ''));
  skipCommas();
  while (rest.length > 0) {
    const scheme = TOKEN.exec(rest)?.[0];
    if (scheme === undefined) break;
    rest = rest.slice(scheme.length);
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    challenges.push(challenge);
    skipSpace();
    // A token68 stands alone: it is followed by the end or by a comma, never by "= value".
    const t68 = TOKEN68.exec(rest)?.[0];
    if (t68 !== undefined && !/^[ \t]*=/.test(rest.slice(t68.length)) && /^[ \t]*(,|$)/.test(rest.slice(t68.length))) {
      challenge.token68 = t68;
      rest = rest.slice(t68.length);
      skipCommas();
      continue;
    }
    // auth-params, until the next token that is not followed by "=" (the next challenge's scheme).
    for (;;) {
      skipCommas();
      const name = TOKEN.exec(rest)?.[0];
      if (name === undefined) break;
      const after = rest.slice(name.length).replace(/^[ \t]*/, '');
      if (!after.startsWith('=')) break;
      rest = after.slice(1).replace(/^[ \t]*/, '');
      let v: string | undefined;
      if (rest.startsWith('"')) {
        const m = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
        if (m === null) return challenges;
        v = m[1]!.replace(/\\(.)/g, '$1');
        rest = rest.slice(m[0].length);
      } else {
        v = TOKEN.exec(rest)?.[0];
        if (v === undefined) return challenges;
        rest = rest.slice(v.length);
      }
      const key = name.toLowerCase();
      if (!(key in challenge.params)) challenge.params[key] = v;
    }
    skipCommas();
  }
  return challenges;
}

/** The Bearer challenge of a header value, if it has one. */
export function bearerChallenge(value: string | undefined): Challenge | undefined {
  return value === undefined ? undefined : parseChallenges(value).find((c) => c.scheme === 'bearer');
}
