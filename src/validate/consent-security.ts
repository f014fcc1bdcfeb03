/**
 * What an MCP proxy's consent page and consent cookies must carry (security best practices,
 * "Confused deputy problem", SEC-PROXY-01/02): framing forbidden, and cookies that only the
 * proxy's own host can set and read, over https, never to scripts, never on cross-site requests.
 */

/** A response's headers, names lower-cased (as PlainResponse keeps them). */
type Headers = Readonly<Record<string, string | undefined>>;

/** The sources of every `frame-ancestors` directive of the response's Content-Security-Policy, lower-cased. */
function frameAncestors(headers: Headers): string[][] {
  const policies = (headers['content-security-policy'] ?? '').split(',');
  const out: string[][] = [];
  for (const policy of policies) {
    for (const directive of policy.split(';')) {
      const [name, ...sources] = directive.trim().toLowerCase().split(/\s+/);
      if (name === 'frame-ancestors') out.push(sources);
    }
  }
  return out;
}

/**
 * Undefined when the headers forbid other sites to frame the page: `X-Frame-Options: DENY` (or
 * SAMEORIGIN), or a `frame-ancestors` of `'none'` (or `'self'`) alone; otherwise what they say
 * instead, for the message.
 */
export function framingAllowed(headers: Headers): string | undefined {
  const xfo = (headers['x-frame-options'] ?? '').trim().toLowerCase();
  if (xfo === 'deny' || xfo === 'sameorigin') return undefined;
  const ancestors = frameAncestors(headers);
  if (ancestors.some((sources) => sources.length > 0 && sources.every((s) => s === "'none'" || s === "'self'"))) return undefined;
  const said = [xfo !== '' ? `X-Frame-Options: ${headers['x-frame-options']!.trim()}` : undefined, ancestors.length > 0 ? `frame-ancestors ${ancestors.map((s) => s.join(' ')).join(' / ')}` : undefined].filter((s) => s !== undefined);
  return said.length > 0 ? said.join(', ') : 'neither X-Frame-Options nor a Content-Security-Policy frame-ancestors';
}

/** A Set-Cookie header's cookie name and value (the value may hold `=`); a pair without `=` is none (RFC 6265 §5.2: ignored). */
function cookiePair(header: string): { name: string; value: string } {
  const [name = '', ...value] = header.split(';')[0]!.split('=');
  return value.length === 0 ? { name: '', value: '' } : { name: name.trim(), value: value.join('=').trim() };
}

/** A Set-Cookie header's cookie name. */
export function cookieName(header: string): string {
  return cookiePair(header).name;
}

/** The cookie a Set-Cookie header sets, or undefined when it has no name or deletes it (no value, or Max-Age=0). */
export function cookieSet(header: string): { name: string; value: string } | undefined {
  const pair = cookiePair(header);
  return pair.name === '' || pair.value === '' || cookieAttributes(header).get('max-age') === '0' ? undefined : pair;
}

/** A Set-Cookie header's attributes, names lower-cased, values as given ('' for a flag). */
function cookieAttributes(header: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of header.split(';').slice(1)) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name !== '') out.set(name, eq < 0 ? '' : part.slice(eq + 1).trim());
  }
  return out;
}

/** Whether a cookie is sent on cross-site requests too (SameSite=None). */
export function crossSiteCookie(header: string): boolean {
  return cookieAttributes(header).get('samesite')?.toLowerCase() === 'none';
}

/**
 * What a consent cookie lacks (SEC-PROXY-02): the `__Host-` prefix, Secure, HttpOnly, and
 * SameSite=Lax (Strict, stricter, is taken too). Empty when it has them all. A cookie being
 * deleted (Max-Age=0 or no value) is not judged.
 */
export function cookieProblems(header: string): string[] {
  if (!cookieSet(header)) return [];
  const attrs = cookieAttributes(header);
  const problems: string[] = [];
  if (!cookieName(header).startsWith('__Host-')) problems.push('no __Host- prefix');
  if (!attrs.has('secure')) problems.push('no Secure');
  if (!attrs.has('httponly')) problems.push('no HttpOnly');
  const sameSite = attrs.get('samesite')?.toLowerCase();
  if (sameSite !== 'lax' && sameSite !== 'strict') problems.push(sameSite === undefined ? 'no SameSite' : `SameSite=${attrs.get('samesite')}`);
  return problems;
}
