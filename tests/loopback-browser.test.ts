/**
 * The browser mcpcheck gives the clients it tests (LoopbackBrowser, browser-program.ts): it records
 * every URL it is handed, loads http(s) ones on loopback as a user who approves at once, following
 * loopback redirects, and loads nothing else.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopbackBrowser } from '../src/harness/loopback-browser.js';
import { requireBuild } from './server-helpers.js';

beforeAll(requireBuild);

/** Runs the browser the way xdg-open does: the one executable BROWSER names, the URL its argument. */
function open(env: Record<string, string>, url: string): Promise<void> {
  return new Promise((resolve, reject) => execFile(env.BROWSER!, [url], { env: { ...process.env, ...env }, timeout: 20_000 }, (error) => (error ? reject(error) : resolve())));
}

describe('mcpcheck\'s browser for clients', () => {
  const browser = new LoopbackBrowser();
  const paths: string[] = [];
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      paths.push(req.url ?? '');
      if (req.url === '/authorize') res.writeHead(302, { location: '/callback?code=c' }).end();
      else if (req.url === '/away') res.writeHead(302, { location: 'http://192.0.2.1/elsewhere' }).end();
      else res.writeHead(200).end('done');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
    browser.remove();
  });

  it('records the URL and follows the loopback redirects to the callback, as a user who approves at once', async () => {
    const client = browser.forClient();
    await open(client.env, `${origin}/authorize`);
    expect(client.opened()).toEqual([`${origin}/authorize`]);
    expect(paths).toContain('/callback?code=c');
  });

  it('records a URL of a dangerous scheme as handed over, and loads nothing; each client has a log of its own', async () => {
    const first = browser.forClient();
    const second = browser.forClient();
    const before = paths.length;
    await open(first.env, 'javascript:alert(1)');
    await open(first.env, 'file:///etc/passwd');
    expect(first.opened()).toEqual(['javascript:alert(1)', 'file:///etc/passwd']);
    expect(second.opened()).toEqual([]);
    expect(paths.length).toBe(before);
  });

  // Followed, the redirect would leave the browser waiting for 192.0.2.1 (TEST-NET, which never answers) until its deadline.
  it('does not follow a redirect off loopback', async () => {
    const client = browser.forClient();
    const started = performance.now();
    await open(client.env, `${origin}/away`);
    expect(client.opened()).toEqual([`${origin}/away`]);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('removes its directory, the program with it', () => {
    const gone = new LoopbackBrowser();
    const { env } = gone.forClient();
    expect(existsSync(env.BROWSER!)).toBe(true);
    gone.remove();
    expect(existsSync(env.BROWSER!)).toBe(false);
  });
});
