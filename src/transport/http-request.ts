import { HeaderList, httpExchange } from './http-client.js';
import { describeNetworkError, readBody } from './http-util.js';

/**
 * One bounded HTTP request outside any MCP channel (an authorization server's metadata, its token
 * endpoint): a deadline on the whole exchange, a cap on the body kept, redirects returned rather
 * than followed, and a failure told as a value, never thrown.
 */

export interface PlainRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** For the headers and the body together. */
  timeoutMs: number;
  /** Body bytes kept; beyond them the body is cut and `truncated` set. */
  maxBytes: number;
}

export interface PlainResponse {
  /** 0 when no response came (see `error`). */
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Each Set-Cookie field as it came. */
  setCookies: string[];
  body: string;
  truncated: boolean;
  /** Why no (whole) response came: a network error, or the deadline. */
  error?: string;
}

export async function plainRequest(url: URL, req: PlainRequest): Promise<PlainResponse> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new Error(`no answer within ${req.timeoutMs} ms`)), req.timeoutMs);
  try {
    const res = await httpExchange(url, { method: req.method, headers: new HeaderList({ 'User-Agent': 'mcpcheck', ...req.headers }), body: req.body, signal: ctl.signal, redirect: 'manual' });
    const read = await readBody(res, req.maxBytes);
    const out: PlainResponse = { status: res.status, headers: { ...res.headers }, setCookies: [...res.setCookies], body: read.bytes.toString('utf8'), truncated: read.truncated };
    if (read.error !== undefined) out.error = ctl.signal.aborted ? `the body did not end within ${req.timeoutMs} ms` : describeNetworkError(read.error);
    return out;
  } catch (err) {
    return { status: 0, headers: {}, setCookies: [], body: '', truncated: false, error: ctl.signal.aborted ? `no answer within ${req.timeoutMs} ms` : describeNetworkError(err) };
  } finally {
    clearTimeout(timer);
  }
}
