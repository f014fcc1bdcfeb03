/**
 * Whether a resource identifier (RFC 8707, RFC 9728 §3.3) names an MCP endpoint, by the ruling
 * resource-identifies-server: the same URL, an enclosing path of its origin, or the same URL but
 * for a trailing slash.
 */
export type ResourceMatch = 'same' | 'enclosing' | 'trailing-slash' | 'other';

/** The URL with what does not identify a resource dropped: the fragment; scheme, host and default port are normalised by URL already. */
function canonical(url: URL): URL {
  const c = new URL(url.href);
  c.hash = '';
  return c;
}

export function resourceMatch(resource: string, endpoint: URL): ResourceMatch {
  let url: URL;
  try {
    url = canonical(new URL(resource));
  } catch {
    return 'other';
  }
  if (resource.includes('#') || url.search !== '') return 'other';
  const target = canonical(endpoint);
  if (url.href === target.href) return 'same';
  if (url.origin !== target.origin) return 'other';
  const path = url.pathname;
  const own = target.pathname;
  if (path.replace(/\/$/, '') === own.replace(/\/$/, '')) return 'trailing-slash';
  const base = path.endsWith('/') ? path : `${path}/`;
  return own.startsWith(base) ? 'enclosing' : 'other';
}

/**
 * The well-known URIs of RFC 9728 §3.1 where an endpoint's Protected Resource Metadata is looked
 * for: the path-inserted one (`/.well-known/oauth-protected-resource/<endpoint path>`) first, then
 * the root one.
 */
export function wellKnownMetadataUrls(endpoint: URL): URL[] {
  const path = endpoint.pathname.replace(/\/$/, '');
  const root = new URL('/.well-known/oauth-protected-resource', endpoint);
  return path === '' ? [root] : [new URL(`/.well-known/oauth-protected-resource${path}`, endpoint), root];
}
