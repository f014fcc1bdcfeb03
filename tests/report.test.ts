import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { grade, type Baseline } from '../src/grade/grade.js';
import type { CheckResult, RunReport, Status } from '../src/model.js';
import { escapeTerminal, renderConsole, renderJson, renderJunit, writeReports, xmlSafe } from '../src/report/index.js';
import { requirement } from '../src/spec/catalog.js';
import { all, child, parseXml, type XmlNode } from './xml.js';
import type { RequirementId } from '../src/spec/requirement-id.js';

const BASE = 'Base protocol — JSON-RPC messages';

function check(id: string, status: Status, requirements: RequirementId[], extra: Partial<CheckResult> = {}): CheckResult {
  const first = requirement(requirements[0]!);
  return { id, title: `title of ${id}`, requirements, level: first.level, status, message: `${status}: message of ${id}`, area: first.area, evidence: [], ...extra };
}

function report(checks: CheckResult[], baseline?: Baseline, serverName = 'everything'): RunReport {
  return grade({
    tool: { name: 'mcpcheck', version: '0.1.0' },
    target: { kind: 'stdio', description: 'node dist/server.js', protocolVersion: '2025-11-25', serverInfo: { name: serverName, version: '1.2.3' } },
    startedAt: '2025-01-01T00:00:00.000Z',
    durationMs: 2500,
    checks,
    notes: ['seed 42'],
    ...(baseline ? { baseline } : {}),
  });
}

/** A report exercising every status, a baseline hit, a stale entry and all optional fields. */
function fullReport(): RunReport {
  const r = report(
    [
      check('server.life.version', 'pass', ['LIFE-VER-04'], { durationMs: 12 }),
      check('server.jsch.dialect', 'skip', ['JSCH-DIAL-02'], { message: 'tools not declared' }),
      check('server.jsch.dialect-2', 'skip', ['JSCH-DIAL-02'], { message: 'tools not declared' }),
      check('server.base.err-data', 'warn', ['BASE-ERR-04'], { message: 'error without data' }),
      check('server.base.id-unique', 'pass', ['BASE-ID-01']),
      check('server.base.null-id', 'fail', ['BASE-ID-02', 'ROBUST-01'], {
        message: 'expected error -32600, got a result',
        evidence: [{ frame: 3, from: 'server', pointer: '/result', excerpt: '{"jsonrpc":"2.0","id":null,"result":{}}', location: 'session.jsonl:4' }],
        scenario: 'base-protocol',
        reproduce: 'mcpcheck server --stdio "node dist/server.js" --only server.base.null-id',
        durationMs: 40,
      }),
      check('server.base.timeout', 'error', ['BASE-ID-01'], { message: 'no reply within 5000 ms' }),
      check('server.base.known', 'fail', ['BASE-MSG-01'], { message: 'known bug' }),
    ],
    { expected: ['server.base.known', 'server.life.version'] },
  );
  r.sessions = [
    { label: 'session 1', frames: 12, protocol: '2025-11-25', clientInfo: { name: 'c', version: '1' }, serverInfo: { name: 's' }, violations: [{ check: 'server.base.null-id', status: 'fail', findings: 2 }], transcript: 'sessions/001-session.jsonl', wire: 'w1', stopped: 'judging fell behind' },
    { label: 'traffic without a session id', frames: 0, protocol: 'none', violations: [] },
  ];
  return r;
}

describe('escapeTerminal', () => {
  it('defuses ANSI escape sequences, C0/C1 controls and bidi overrides', () => {
    const hostile = 'a\x1b[2J\x1b]0;title\x07b\x9b31mc\rd\be\u202ef\u0000g';
    const out = escapeTerminal(hostile);
    expect(out).toBe('a\\x1b[2J\\x1b]0;title\\x07b\\x9b31mc\\rd\\be\\u202ef\\x00g');
    expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });
  it('escapes newlines unless allowed, and lone surrogates always', () => {
    expect(escapeTerminal('x\ny\tz')).toBe('x\\ny\\tz');
    expect(escapeTerminal('x\ny', { allowNewlines: true })).toBe('x\ny');
    expect(escapeTerminal('\ud800 😀 é')).toBe('\\ud800 😀 é');
  });
});

describe('renderBadge', () => {
  it("draws the verdict the exit code gives and the MUST tally, in mcpcheck's own words only", async () => {
    const { renderBadge } = await import('../src/report/badge.js');
    const passed = renderBadge(report([check('a', 'pass', ['BASE-ID-01'])]));
    expect(passed).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="20"/);
    expect(passed).toContain('>passed · MUST 1/1</text>');
    expect(passed).toContain('fill="#1a7f37"');
    const failed = renderBadge(report([check('a', 'fail', ['BASE-ID-01'])], undefined, '<script>alert(1)</script>'));
    expect(failed).toContain('>failed · MUST 0/1</text>');
    expect(failed).toContain('fill="#cf222e"');
    expect(failed).not.toContain('<script');
    expect(renderBadge(report([check('a', 'error', ['BASE-ID-01'])]))).toContain('>incomplete · MUST 0/1</text>');
  });
});

describe('renderConsole reads', () => {
  const long = `expected ${'a fairly long sentence of words '.repeat(12)}end`;
  const frame = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'x'.repeat(40) } } } }] } });
  const failing = check('server.tools.list/shape', 'fail', ['TOOL-LIST-01'], { message: long, evidence: [{ frame: 4, from: 'server', excerpt: frame }], reproduce: `mcpcheck server --stdio "node ${'dir/'.repeat(30)}server.js" --only server.tools.list` });

  it('wraps prose to the width, never a reproduce line; cuts a frame at a JSON boundary unless verbose', () => {
    const text = renderConsole({ ...report([failing]), notes: [] }, { color: false, width: 80 });
    const block = text.split('\n').filter((l) => l.startsWith('        '));
    // A URL, like a reproduce line, is one word to copy: it is not broken.
    for (const l of block.filter((x) => !x.includes('reproduce: ') && !x.includes('frame #') && !x.trim().startsWith('https://'))) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(block.find((l) => l.includes('reproduce: '))).toBe(`        reproduce: ${failing.reproduce}`);
    const excerpt = block.find((l) => l.includes('frame #4'))!;
    // Cut after a whole member, not inside a word or a string.
    expect(excerpt).toMatch(/[,}\] ]…\(\d+ chars\)$/);
    expect(renderConsole(report([failing]), { color: false, verbose: true, width: 80 })).toContain(frame);
  });

  it('says a note once, however many parts of the run made it, wrapped', () => {
    const note = `the server also serves 2026-07-28: ${'word '.repeat(40)}`.trim();
    const text = renderConsole({ ...report([failing]), notes: [note, note, note, 'another'] }, { color: false, width: 70 });
    expect(text.match(/the server also serves/g)).toHaveLength(1);
    const notes = text.slice(text.indexOf('Notes:'));
    for (const l of notes.split('\n')) expect(l.length).toBeLessThanOrEqual(70);
  });
});

describe('renderConsole', () => {
  it('prints header, areas with failures first, fail/error/warn order, headline last', () => {
    const text = renderConsole(fullReport(), { color: false });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('mcpcheck 0.1.0');
    expect(text).toContain('target    stdio: node dist/server.js');
    expect(text).toContain('protocol  2025-11-25');
    expect(text).toContain('server    everything 1.2.3');
    expect(lines.at(-1)).toBe(fullReport().summary.headline);

    const base = text.indexOf(`${BASE}:`);
    const life = text.indexOf('Lifecycle:');
    const jsch = text.indexOf('JSON Schema usage:');
    expect(base).toBeGreaterThan(0);
    expect(base).toBeLessThan(life);
    expect(base).toBeLessThan(jsch);

    const fail = text.indexOf('FAIL  server.base.null-id');
    const error = text.indexOf('ERROR server.base.timeout');
    const warn = text.indexOf('WARN  server.base.err-data');
    expect(fail).toBeGreaterThan(0);
    expect(fail).toBeLessThan(error);
    expect(error).toBeLessThan(warn);
  });

  it('shows what a failing check needs to be understood and reproduced', () => {
    const text = renderConsole(fullReport(), { color: false });
    // Each rule it cites: id, the level it was graded at, its sentence, its spec URL.
    for (const r of fullReport().requirements.filter((v) => v.id === 'BASE-ID-02' || v.id === 'ROBUST-01')) {
      expect(text).toContain(`${r.id} (${r.id === 'BASE-ID-02' ? 'MUST' : 'SHOULD'}): ${r.title.slice(0, 40)}`);
      expect(text).toContain(`          ${r.url}\n`);
    }
    expect(text).toContain('expected error -32600, got a result');
    expect(text).toContain('frame #3 server→client at /result (session.jsonl:4): {"jsonrpc":"2.0","id":null,"result":{}}');
    expect(text).toContain('reproduce: mcpcheck server --stdio "node dist/server.js" --only server.base.null-id');
  });

  it('summarises passes and skips unless verbose', () => {
    const quiet = renderConsole(fullReport(), { color: false });
    expect(quiet).not.toContain('PASS ');
    expect(quiet).not.toContain('SKIP ');
    expect(quiet).toContain('skipped: tools not declared (×2)');
    expect(quiet).toContain('Lifecycle: 1 passed');

    const verbose = renderConsole(fullReport(), { color: false, verbose: true });
    expect(verbose).toContain('PASS  server.life.version');
    expect(verbose).toContain('SKIP  server.jsch.dialect');
    expect(verbose.indexOf('WARN  server.base.err-data')).toBeLessThan(verbose.indexOf('PASS  server.base.id-unique'));
  });

  it('marks baselined failures and lists stale baseline entries', () => {
    const text = renderConsole(fullReport(), { color: false });
    expect(text).toContain('FAIL  server.base.known (expected, baselined)');
    expect(text).toMatch(/Stale baseline entries[^\n]*\n {2}- server\.life\.version/);
  });

  it('colours only when asked, with plain SGR codes', () => {
    expect(renderConsole(fullReport(), { color: false })).not.toContain('\x1b');
    const coloured = renderConsole(fullReport(), { color: true });
    expect(coloured).toContain('\x1b[31mFAIL ');
    // Every ESC we emit starts an SGR sequence; nothing else.
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).not.toContain('\x1b');
  });

  it('neutralises hostile text from the target in every field', () => {
    const evil = 'X\x1b[2J\x1b]8;;http://evil\x07link\x1b]8;;\x07\r\x9b1A\u202eY';
    const r = report(
      [
        check('server.base.evil', 'fail', ['BASE-ID-01'], {
          title: `title ${evil}`,
          message: `got ${evil}\nsecond line ${evil}`,
          evidence: [{ frame: 1, from: 'server', pointer: `/a${evil}`, excerpt: evil }],
        }),
        check('server.base.skip', 'skip', ['BASE-ERR-04'], { message: `reason ${evil}` }),
      ],
      { expected: [`stale ${evil}`] },
      `server ${evil}`,
    );
    r.notes.push(`note ${evil}`);
    r.sessions = [{ label: 'session 1', frames: 1, protocol: evil, clientInfo: { name: evil, version: evil }, serverInfo: { name: evil }, violations: [{ check: `check ${evil}`, status: 'fail', findings: 1 }], transcript: evil, stopped: evil }];
    // What a protected resource's metadata names, and what its authorization server says, is the target's text too.
    r.authorizationServers = [
      { issuer: `http://127.0.0.1:1/${evil}`, status: 'graded', detail: evil, report: report([check('as.metadata.issuer', 'fail', ['AUTH-ASMD-01'], { message: `got ${evil}` })]) },
      { issuer: `https://${evil}`, status: 'not contacted', detail: evil },
    ];
    for (const options of [{ color: false }, { color: true, verbose: true }, { color: true }]) {
      const text = renderConsole(r, options);
      const withoutOurCodes = text.replace(/\x1b\[[0-9;]*m/g, '');
      expect(withoutOurCodes).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(text).toContain('\\x1b[2J');
      // An embedded newline stays inside the check's indented block.
      expect(text).toMatch(/\n {8}second line X/);
    }
  });
});

describe('renderJson', () => {
  const schema = JSON.parse(readFileSync(new URL('../schemas/report.schema.json', import.meta.url), 'utf8')) as object;
  const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

  it('round-trips the report and validates against schemas/report.schema.json', () => {
    const r = fullReport();
    r.authorizationServers = [
      { issuer: 'http://127.0.0.1:9000', status: 'graded', detail: 'metadata: http://127.0.0.1:9000/.well-known/oauth-authorization-server (RFC 8414)', report: report([check('as.metadata.pkce', 'fail', ['AUTH-AS-01'], { message: 'no S256' })]) },
      { issuer: 'https://login.example.invalid', status: 'not contacted', detail: 'not on loopback' },
    ];
    const text = renderJson(r);
    expect(text.endsWith('\n')).toBe(true);
    const parsed: unknown = JSON.parse(text);
    expect(parsed).toEqual(r);
    expect(validate(parsed), JSON.stringify(validate.errors)).toBe(true);
  });

  it('validates minimal reports and rejects fields the model does not have', () => {
    const minimal = JSON.parse(renderJson(grade({ tool: { name: 'mcpcheck', version: '0' }, target: { kind: 'transcript', description: 'a.jsonl' }, startedAt: 'x', durationMs: 0, checks: [] })));
    expect(validate(minimal), JSON.stringify(validate.errors)).toBe(true);
    const extra = JSON.parse(renderJson(fullReport()));
    extra.checks[0].surprise = true;
    expect(validate(extra)).toBe(false);
    const badStatus = JSON.parse(renderJson(fullReport()));
    badStatus.requirements[0].status = 'ok';
    expect(validate(badStatus)).toBe(false);
  });

  it('keeps hostile text as valid JSON', () => {
    const r = report([check('a', 'fail', ['BASE-ID-01'], { message: 'nul\u0000 lone\ud800 esc\x1b' })]);
    const parsed = JSON.parse(renderJson(r)) as RunReport;
    expect(parsed.checks[0]!.message).toBe('nul\u0000 lone\ud800 esc\x1b');
  });
});

describe('renderJunit', () => {
  it('is checked by a reader that does reject malformed XML', () => {
    expect(() => parseXml('<a><b></a></b>')).toThrow();
    expect(() => parseXml('<a><![CDATA[x]]>y]]></a>')).toThrow();
    expect(() => parseXml('<a>\u0000</a>')).toThrow();
    expect(() => parseXml('<a x="1 & 2"/>')).toThrow();
    expect(parseXml('<a x="&lt;&#x41;"><![CDATA[<]]>&amp;</a>')).toMatchObject({ name: 'a', attrs: { x: '<A' }, text: '<&' });
  });

  it('has a testsuite per area and a testcase per check, mapped by status', () => {
    const root = parseXml(renderJunit(fullReport()));
    expect(root.name).toBe('testsuites');
    const suites = all(root, 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual([BASE, 'Lifecycle', 'JSON Schema usage', 'notes']);
    // The report's notes, one property each, in a testsuite of their own without testcases.
    const notes = suites.at(-1)!;
    expect(all(notes, 'property').map((p) => [p.attrs.name, p.attrs.value])).toEqual(fullReport().notes.map((n) => ['note', n]));
    expect(all(notes, 'testcase')).toHaveLength(0);
    const cases = Object.fromEntries(all(root, 'testcase').map((c): [string, XmlNode] => [c.attrs.name ?? '', c]));
    expect(Object.keys(cases)).toHaveLength(8);

    const failed = cases['server.base.null-id']!;
    expect(failed.attrs.classname).toBe('mcpcheck.base-protocol-json-rpc-messages');
    expect(child(failed, 'failure')!.attrs.message).toBe('expected error -32600, got a result');
    expect(child(failed, 'failure')!.text).toContain('frame #3 from server at /result (session.jsonl:4): {"jsonrpc":"2.0","id":null,"result":{}}');
    expect(child(failed, 'failure')!.text).toContain('reproduce: mcpcheck server');
    // What the check cites is in system-out: junit-4.xsd allows no properties in a testcase.
    expect(all(failed, 'property')).toHaveLength(0);
    const cited = child(failed, 'system-out')!.text.split('\n');
    expect(cited).toContain(`requirement: BASE-ID-02 (MUST) ${requirement('BASE-ID-02').url}`);
    expect(cited).toContain(`requirement: ROBUST-01 (SHOULD) ${requirement('ROBUST-01').url}`);
    expect(cited).toContain('level: MUST');
    expect(cited).toContain('scenario: base-protocol');
    expect(failed.attrs.time).toBe('0.040');

    expect(child(cases['server.base.timeout']!, 'error')!.attrs.message).toBe('no reply within 5000 ms');
    expect(child(cases['server.jsch.dialect']!, 'skipped')!.text).toBe('tools not declared');
    expect(child(cases['server.jsch.dialect']!, 'system-out')!.text).toContain('tools not declared');

    const known = cases['server.base.known']!;
    expect(child(known, 'failure')).toBeUndefined();
    expect(child(known, 'skipped')).toBeDefined();
    expect(child(known, 'system-out')!.text).toMatch(/expected failure \(baselined\)/);

    const warned = cases['server.base.err-data']!;
    expect(warned.children.map((c) => c.name)).toEqual(['system-out']);
    expect(child(warned, 'system-out')!.text).toContain('error without data');

    // Baselined failures are skips, not failures; the XSD has no `skipped` on <testsuites>, only on suites.
    expect(root.attrs).toMatchObject({ tests: '8', failures: '1', errors: '1', time: '2.500' });
    expect(root.attrs.skipped).toBeUndefined();
    expect(suites.slice(0, -1).reduce((n, s) => n + Number(s.attrs.skipped), 0)).toBe(3);
  });

  it('builds each report afresh', () => {
    const r = fullReport();
    expect(renderJunit(r)).toBe(renderJunit(r));
  });

  it('escapes markup and replaces characters XML 1.0 cannot carry', () => {
    const nasty = `<tag a="1"> & \u0000 \u0008 \ud800 \udc00x \uffff \x1b[31m ]]> ]]> 😀 </testcase>`;
    const r = report([
      check(`server.base.${nasty}`, 'fail', ['BASE-ID-01'], { title: nasty, message: nasty, evidence: [{ frame: 0, from: 'server', excerpt: nasty }] }),
      check('server.base.w', 'warn', ['BASE-ERR-04'], { message: nasty }),
      check('server.base.e', 'error', ['BASE-ID-02'], { message: nasty }),
      check('server.base.s', 'skip', ['BASE-MSG-01'], { message: nasty, area: nasty }),
    ]);
    const xml = renderJunit(r);
    const root = parseXml(xml); // throws on any well-formedness problem
    expect(xml).not.toMatch(/[\u0000-\u0008\u001b\uffff]|\p{Cs}/u); // with `u`, \p{Cs} matches only lone surrogates
    const failure = child(all(root, 'testcase')[0]!, 'failure')!;
    expect(failure.text).toContain('<tag a="1"> & \\u0000 \\u0008 \\ud800 \\udc00x \\uffff \\u001b[31m ]]> ]]> 😀 </testcase>');
    expect(xml).not.toContain(']]>'); // not allowed in XML character data: `>` is always escaped
    expect(failure.attrs.message).toContain('<tag a="1"> &');
    expect(all(root, 'testcase')).toHaveLength(4);
    expect(all(root, 'testsuite').map((s) => s.attrs.name)).toContain(xmlSafe(nasty));
  });

  it('xmlSafe keeps valid text, including astral characters, untouched', () => {
    expect(xmlSafe('plain é 😀 \t\n')).toBe('plain é 😀 \t\n');
    expect(xmlSafe('a\u0000b\ud800c')).toBe('a\\u0000b\\ud800c');
  });
});

describe('writeReports', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes JSON and JUnit files, creating parent folders', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpcheck-report-'));
    const r = fullReport();
    const json = join(dir, 'a', 'b', 'report.json');
    const junit = join(dir, 'c', 'junit.xml');
    await writeReports(r, { json, junit });
    expect(JSON.parse(await readFile(json, 'utf8'))).toEqual(r);
    expect(await readFile(junit, 'utf8')).toBe(renderJunit(r));
  });
});
