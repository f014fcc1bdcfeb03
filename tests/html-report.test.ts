/**
 * The HTML report, end to end in headless Chromium (Debian's `chromium`, driven by playwright-core):
 * a hostile server's strings must stay text (no script of theirs runs, no element of theirs
 * appears, nothing is fetched), and the filters and the search box must work. Screenshots go
 * to reports/html/ as artifacts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grade } from '../src/grade/grade.js';
import type { CheckResult, RunReport } from '../src/model.js';
import { renderHtml } from '../src/report/index.js';
import { prettyJson } from '../src/report/html/json.js';
import { PAYLOADS } from './fixtures/hostile/payloads.js';
import { ROOT } from './server-helpers.js';

const CHROMIUM = process.env.MCPCHECK_CHROMIUM ?? '/usr/bin/chromium';
const CLI = join(ROOT, 'dist/src/cli.js');
const HOSTILE = join(ROOT, 'dist/tests/fixtures/hostile/server.js');
const OUT = join(ROOT, 'reports/html');
const run = promisify(execFile);

// The callbacks passed to page.evaluate run in the browser, where these exist (the DOM's types
// are not loaded: they clash with Node's).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
declare const window: any;

/** Exit code and output of the built CLI (a non-zero exit is an answer here, not an exception). */
async function mcpcheck(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, ...r };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/** What the report's own markup is made of; any other element came from somewhere else. */
const OWN_TAGS = new Set(
  'html head meta title style body header article h1 h2 h3 p dl dt dd form fieldset legend label input select option main section table thead tbody tr th td span code div ul li b a details summary pre mark svg rect template script'.split(' '),
);

/** What a page did that it must not: its scripts' sentinel calls, dialogs, console output, errors, requests other than the file. */
interface Watch {
  page: Page;
  dialogs: string[];
  console: string[];
  errors: string[];
  requests: string[];
  pwned: () => Promise<string[]>;
}

async function open(browser: Browser, file: string): Promise<Watch> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  const watch: Watch = { page, dialogs: [], console: [], errors: [], requests: [], pwned: () => page.evaluate((): string[] => window.__pwnedBy) };
  // Every hostile payload calls this sentinel; a call means a target's script ran.
  await page.addInitScript(() => {
    window.__pwnedBy = [];
    window.__pwned = (what: unknown) => window.__pwnedBy.push(String(what));
  });
  page.on('dialog', (d) => {
    watch.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('console', (m) => watch.console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => watch.errors.push(e.message));
  page.on('request', (r) => {
    if (r.url() !== url) watch.requests.push(r.url());
  });
  await context.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
  await page.goto(url);
  return watch;
}

/** Elements and attributes the report did not create: foreign tags, event handlers, script URLs, extra scripts. */
function foreignMarkup(page: Page): Promise<string[]> {
  return page.evaluate((own) => {
    const found: string[] = [];
    const scan = (root: any) => {
      for (const el of root.querySelectorAll('*') as any[]) {
        const tag = el.tagName.toLowerCase();
        if (!own.includes(tag)) found.push(`element <${tag}>`);
        for (const a of el.attributes as Array<{ name: string; value: string }>) {
          if (a.name.startsWith('on')) found.push(`<${tag} ${a.name}>`);
          if (/^\s*(javascript|data|vbscript):/i.test(a.value)) found.push(`<${tag} ${a.name}="${a.value.slice(0, 40)}">`);
        }
        // The report links out to the spec (https only) and within itself to an area (#area-…).
        if (tag === 'a' && !/^(https:\/\/|#area-[a-z0-9-]*$)/.test(el.getAttribute('href') ?? '')) found.push(`link to ${el.getAttribute('href')}`);
        if (tag === 'template') scan(el.content);
      }
    };
    scan(document);
    const scripts = document.querySelectorAll('script').length;
    if (scripts !== 1) found.push(`${scripts} script elements (the report has one)`);
    if (document.querySelectorAll('style').length !== 1) found.push('more than the report\'s one style element');
    if (document.querySelectorAll('meta').length !== 3) found.push('a meta element the report did not write');
    return found;
  }, [...OWN_TAGS]);
}

interface Row {
  status: string;
  level: string;
  area: string;
  text: string;
}

/** The checks the filters leave visible. */
const visibleChecks = (page: Page) =>
  page.evaluate((): Row[] => [...(document.querySelectorAll('tbody.check') as any[])].filter((c) => !c.hidden).map((c) => ({ status: c.dataset.status, level: c.dataset.level, area: c.dataset.area, text: c.textContent ?? '' })));

describe('renderHtml', () => {
  const hostile = PAYLOADS.join(' ');
  const check = (status: CheckResult['status'], i: number): CheckResult => ({
    id: `server.x${i}${hostile}`,
    title: hostile,
    requirements: ['BASE-ID-02'],
    level: 'MUST',
    status,
    message: `expected ${hostile}; got ${hostile}`,
    area: hostile,
    evidence: [{ frame: 1, from: 'server', pointer: `/${hostile}`, excerpt: hostile, location: hostile }],
    scenario: hostile,
    reproduce: `mcpcheck server --stdio ${JSON.stringify(hostile)}`,
    wire: ['w1'],
  });
  const graded = grade({
    tool: { name: 'mcpcheck', version: '0.1.0' },
    target: { kind: 'stdio', description: hostile, protocolVersion: hostile, serverInfo: { name: hostile, version: hostile } },
    startedAt: hostile,
    durationMs: 1,
    checks: [check('fail', 1), { ...check('pass', 2), wire: [hostile, 'w1'] }],
    notes: [hostile],
    baseline: { expected: [hostile] },
    wire: [{ id: hostile, label: hostile, frames: [] }, { id: 'w1', label: hostile, frames: [{ index: 1, from: 'server', at: 3, text: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { name: hostile } }) }, { index: 2, from: 'client', text: hostile }] }],
  });

  const report: RunReport = { ...graded, sessions: [{ label: hostile, frames: 1, protocol: hostile, clientInfo: { name: hostile, version: hostile }, serverInfo: { name: hostile }, violations: [{ check: hostile, status: 'fail', findings: 1 }], transcript: hostile, stopped: hostile }] };

  it('writes every string of the model as text: none of the markup a target sent survives', () => {
    const html = renderHtml(report);
    // Every payload has a character markup starts with: none may be there as it was sent.
    expect(PAYLOADS.filter((p) => html.includes(p))).toEqual([]);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html.match(/<\/script/g)).toHaveLength(1);
    expect(html.match(/<style/g)).toHaveLength(1);
    expect(html.match(/<template/g)).toHaveLength(2);
    expect(html.includes('\u202e'), 'a bidi override is shown as \\u202e').toBe(false);
    expect(html).toContain('&lt;script&gt;window.__pwned(&#39;script&#39;)&lt;/script&gt;');
  });

  it('--html naming a folder is one line and exit 2, before anything runs', async () => {
    const r = await mcpcheck(['validate', join(ROOT, 'tests/fixtures/transcripts/broken/BASE-ID-01--float-id.jsonl'), '--html', tmpdir()]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`mcpcheck: --html ${tmpdir()}: is a directory, not a file`);
  });

  it('pretty-prints JSON as JSON.stringify does, keeps keys as sent, and indents JSON cut short', () => {
    for (const value of [{}, [], { a: [1, { b: null }], c: 'x,{y}:"z"', d: [] }, [true, -1.5e3, '\\"']]) {
      const text = JSON.stringify(value);
      expect(prettyJson(text, false)).toBe(JSON.stringify(value, null, 2));
    }
    expect(prettyJson('{"a":1,"a":2}', false)).toBe('{\n  "a": 1,\n  "a": 2\n}');
    expect(prettyJson('{"a":{"b":"cut', true)).toBe('{\n  "a": {\n    "b": "cut');
    expect(prettyJson('not {json}', false)).toBe('not {json}');
  });
});

const haveChromium = existsSync(CHROMIUM);

describe.skipIf(!haveChromium)(`the HTML report in headless Chromium (${haveChromium ? CHROMIUM : `skipped: no browser at ${CHROMIUM}; .ci/run installs Debian's chromium, MCPCHECK_CHROMIUM names another`})`, () => {
  let browser: Browser;
  const hostileHtml = join(OUT, 'hostile.html');
  let hostile: Watch;
  let hostileJson: { checks: Array<{ status: string }> };

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    const jsonFile = join(mkdtempSync(join(tmpdir(), 'mcpcheck-html-')), 'hostile.json');
    const [r, launched] = await Promise.all([
      mcpcheck(['server', '--stdio', `${process.execPath} ${HOSTILE}`, '--html', hostileHtml, '--json', jsonFile]),
      chromium.launch({
        executablePath: CHROMIUM,
        // launch() gives every run a fresh, temporary user data dir.
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      }),
    ]);
    browser = launched;
    expect(r.code, r.stderr).toBe(1);
    hostileJson = JSON.parse(readFileSync(jsonFile, 'utf8'));
    hostile = await open(browser, hostileHtml);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('shows the hostile strings as text: no script of theirs runs, no element of theirs appears, nothing is fetched', async () => {
    const { page } = hostile;
    await page.screenshot({ path: join(OUT, 'hostile-top.png') });
    expect(await foreignMarkup(page)).toEqual([]);
    expect(await hostile.pwned()).toEqual([]);
    // Open every wire log: the cloned templates must be as inert as the rest.
    await page.evaluate(() => {
      for (const d of document.querySelectorAll('details') as any[]) d.open = true;
    });
    await page.waitForFunction(() => [...(document.querySelectorAll('details.wire') as any[])].every((d) => d.querySelector('.log')), undefined, { timeout: 10_000 });
    await page.locator('details.wire').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT, 'hostile-wire.png') });

    expect(await hostile.pwned()).toEqual([]);
    expect(hostile.dialogs).toEqual([]);
    expect(hostile.errors).toEqual([]);
    expect(hostile.console).toEqual([]);
    expect(hostile.requests).toEqual([]);
    expect(await foreignMarkup(page)).toEqual([]);

    // The strings are there, as text a reader sees (bidi controls made visible, as on a terminal).
    const text = await page.evaluate((): string => document.body.textContent ?? '');
    for (const p of PAYLOADS) expect(text).toContain(p.replace('\u202e', '\\u202e'));
    expect(await page.title()).toContain('hostile');
  });

  it('filters by status, level and area, and searches', async () => {
    // A fresh page: with every wire log open, each filter change would lay out megabytes of frames.
    const fresh = await open(browser, hostileHtml);
    const { page } = fresh;
    const all = await visibleChecks(page);
    expect(all).toHaveLength(hostileJson.checks.length);
    expect(new Set(all.map((c) => c.status))).toEqual(new Set(['pass', 'fail', 'warn', 'skip']));
    await expect.poll(() => page.textContent('#shown')).toBe(`${all.length} of ${all.length} checks shown`);

    await page.locator('input[name=status][value=pass]').uncheck();
    await page.locator('input[name=status][value=skip]').uncheck();
    const failing = await visibleChecks(page);
    expect(failing.length).toBe(all.filter((c) => c.status !== 'pass' && c.status !== 'skip').length);
    expect(failing.every((c) => c.status === 'fail' || c.status === 'warn')).toBe(true);
    await page.screenshot({ path: join(OUT, 'hostile-failures.png') });
    await page.locator('input[name=status][value=pass]').check();
    await page.locator('input[name=status][value=skip]').check();

    await page.locator('input[name=level][value=MUST]').uncheck();
    expect((await visibleChecks(page)).some((c) => c.level === 'MUST')).toBe(false);
    await page.locator('input[name=level][value=MUST]').check();

    const area = all[0]!.area;
    await page.selectOption('#area', area);
    const inArea = await visibleChecks(page);
    expect(inArea.length).toBe(all.filter((c) => c.area === area).length);
    expect(await page.locator('section.area:not([hidden])').count()).toBe(1);
    await page.selectOption('#area', '');

    // A search for text only a hostile error message holds.
    await page.fill('#search', 'Method not found');
    const found = await visibleChecks(page);
    expect(found.length).toBeGreaterThan(0);
    expect(found.length).toBeLessThan(all.length);
    expect(found.every((c) => c.text.toLowerCase().includes('method not found'))).toBe(true);
    await page.fill('#search', 'no check says this 1f9c2');
    expect(await visibleChecks(page)).toEqual([]);
    await expect.poll(() => page.textContent('#shown')).toBe(`0 of ${all.length} checks shown`);
    await page.fill('#search', '');
    expect(await visibleChecks(page)).toHaveLength(all.length);
    expect(await fresh.pwned()).toEqual([]);
    expect(fresh.errors).toEqual([]);
    await page.context().close();
  });

  it('shows the verdict in the first viewport, the failures before any pass, and no PASS row until its area is opened', async () => {
    const fresh = await open(browser, hostileHtml);
    const { page } = fresh;
    const box = (await page.locator('#verdict').boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(900);
    expect(await page.textContent('#verdict .word')).toBe('FAILED');
    expect(await page.textContent('#verdict .meaning')).toMatch(/^exit 1: /);
    // Shown as the browser sees it: a row inside a closed area is not (Chromium's checkVisibility).
    const shownRows = (status: string) => page.evaluate((st: string) => [...(document.querySelectorAll(`tbody.check[data-status=${st}]`) as any[])].filter((el) => el.checkVisibility()).length, status);
    expect(await page.locator('tbody.check[data-status=pass]').count()).toBeGreaterThan(0);
    expect(await shownRows('pass')).toBe(0);
    // Every failure is a card above the areas, with its rule linked to the spec.
    const cards = page.locator('#defects article.defect');
    expect(await cards.count()).toBe(hostileJson.checks.filter((c) => ['fail', 'warn', 'error'].includes(c.status) && !(c as { defectOf?: string }).defectOf).length);
    expect(await cards.first().locator('.st').textContent()).toBe('FAIL');
    expect(await cards.first().locator('ul.rules a[href^="https://modelcontextprotocol.io/"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(OUT, 'hostile-first-viewport.png') });
    // Opening an area shows its passes.
    const area = page.locator('section.area', { has: page.locator('tbody.check[data-status=pass]') }).first();
    await area.locator('summary').first().click();
    expect(await shownRows('pass')).toBeGreaterThan(0);
    expect(fresh.requests).toEqual([]);
    expect(fresh.errors).toEqual([]);
    await page.context().close();
  });

  it('a wire log holds the frames with direction, time and highlighted JSON; the file stays small', async () => {
    const { page } = hostile;
    const log = page.locator('details.wire').first();
    const headers = await log.locator('.fh').allTextContents();
    expect(headers.length).toBeGreaterThan(1);
    expect(headers.some((h) => /client→server · \d+ ms/.test(h))).toBe(true);
    expect(headers.some((h) => /server→client · \d+ ms/.test(h))).toBe(true);
    expect(await log.locator('pre .k').count()).toBeGreaterThan(0);
    expect(await log.locator('pre .s').count()).toBeGreaterThan(0);
    expect(statSync(hostileHtml).size).toBeLessThan(1024 * 1024);
  });

  it('validate and client runs write HTML that shows their findings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-html-'));
    const transcript = join(ROOT, 'tests/fixtures/transcripts/broken/BASE-ID-01--float-id.jsonl');
    const client = `${process.execPath} ${join(ROOT, 'dist/tests/fixtures/client/client.js')} --break fractional-id {url}`;
    const [v, c] = await Promise.all([
      mcpcheck(['validate', transcript, '--html', join(dir, 'validate.html')]),
      mcpcheck(['client', '--command', client, '--only', 'client.lifecycle.handshake', '--html', join(dir, 'client.html')]),
    ]);
    expect(v.code, v.stderr).toBe(1);
    expect(c.code, c.stderr).toBe(1);
    for (const [name, finding] of [['validate', 'validate.BASE-ID-01'], ['client', 'BASE-ID-01']] as const) {
      const w = await open(browser, join(dir, `${name}.html`));
      // The areas are closed until opened: the failures are told above them.
      await w.page.evaluate(() => {
        for (const d of document.querySelectorAll('details.area') as any[]) d.open = true;
      });
      const failed = (await visibleChecks(w.page)).filter((x) => x.status === 'fail');
      expect(failed.some((x) => x.text.includes(finding)), `${name}: ${failed.map((x) => x.text.slice(0, 80)).join(' | ')}`).toBe(true);
      const wire = w.page.locator('tbody.check[data-status=fail] details.wire').first();
      await wire.locator('summary').click();
      // The page's script fills the log in when it opens.
      await wire.locator('.f').first().waitFor({ timeout: 10_000 });
      expect(await wire.locator('.f').count()).toBeGreaterThan(0);
      expect(await wire.locator('.f.cited').count()).toBeGreaterThan(0);
      await w.page.screenshot({ path: join(OUT, `${name}.png`), fullPage: false });
      expect(w.errors).toEqual([]);
      expect(w.requests).toEqual([]);
      await w.page.context().close();
    }
  });
});
