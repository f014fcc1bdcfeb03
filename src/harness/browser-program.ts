/**
 * The browser mcpcheck gives the clients it tests (their BROWSER, through the wrapper
 * LoopbackBrowser writes): a user who approves at once, on loopback alone. It is run as a program
 * of its own and imports nothing of mcpcheck, so that it starts as fast as a browser would.
 *
 *   node browser-program.js URL
 *
 * It first appends the URL as it was handed over, one JSON string a line, to the file
 * MCPCHECK_BROWSER_LOG names: what a client opens is evidence (SEC-AUTHURL-01), whether or not
 * it could be loaded. Then, if the URL is http(s) on a loopback host, it GETs it and follows the
 * redirects (loopback ones only: nothing leaves 127.0.0.1), as a browser does on its way back to
 * the client's callback. A redirect to a loopback page that does not answer yet (a client that
 * opens the browser before its callback server listens, as mcp-remote does on a step-up) is loaded
 * again for a while, as a user reloads a page that failed. It gives up after DEADLINE_MS whatever
 * happens, so a client that starts it detached does not leave it behind.
 */
import { appendFileSync } from 'node:fs';

const DEADLINE_MS = 15_000;
const RETRY_MS = 10_000;
const PAUSE_MS = 100;
const MAX_REDIRECTS = 20;
/** The most of a URL written to the log: a client could hand over anything. */
const MAX_LOGGED_CHARS = 64 * 1024;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const loadable = (url: URL) => (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK.has(url.hostname);
const refused = (error: unknown) => ((error as { cause?: { code?: string } })?.cause?.code) === 'ECONNREFUSED';

const deadline = AbortSignal.timeout(DEADLINE_MS);
// mcpcheck's authorization server may be on https with the run's own loopback certificate.
process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
process.removeAllListeners('warning');

async function load(url: URL): Promise<Response> {
  for (const started = Date.now(); ; ) {
    try {
      return await fetch(url, { redirect: 'manual', signal: deadline });
    } catch (error) {
      if (!refused(error) || Date.now() - started > RETRY_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
  }
}

async function browse(given: string): Promise<void> {
  if (!URL.canParse(given)) return;
  let url = new URL(given);
  for (let hops = 0; hops <= MAX_REDIRECTS && loadable(url); hops++) {
    const response = await load(url);
    const location = response.headers.get('location');
    await response.body?.cancel();
    if (response.status < 300 || response.status >= 400 || location === null || !URL.canParse(location, url.href)) return;
    url = new URL(location, url);
  }
}

const given = process.argv[2] ?? '';
const log = process.env.MCPCHECK_BROWSER_LOG;
try {
  if (log) appendFileSync(log, JSON.stringify(given.slice(0, MAX_LOGGED_CHARS)) + '\n');
} catch {
  // The run that gave this browser has ended: nothing is listening for what it opens.
}
try {
  await browse(given);
} catch (error) {
  process.stderr.write(`mcpcheck browser: ${(error as Error).message}\n`);
}
process.exit(0);
