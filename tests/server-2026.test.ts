import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model.js';
import { modernRequestHeaders } from '../src/transport/modern-request-headers.js';
import { encodeHeaderValue } from '../src/validate/modern-headers.js';
import { EVERYTHING, findingsOf, ROOT, harnessErrors, requireBuild, runHttp, runStdio } from './server-helpers.js';

beforeAll(requireBuild);

// mcpcheck server in the 2026-07-28 era: era detection, --spec-version, one report with a section
// per era for a dual-era server, and the bad input of issue 21 (one line, never a stack or a hang).

const SDK_V2_FIXTURE = `${ROOT}/dist/tests/fixtures/sdk-v2/server.js`;
const NEITHER_ERA = join(ROOT, 'tests/fixtures/era-probes/neither-era.mjs');
const CLAIMS_MODERN = join(ROOT, 'tests/fixtures/era-probes/claims-modern.mjs');
const REFERENCE_2026 = join(ROOT, 'dist/tests/fixtures/reference-2026/server.js');
const CLI = join(ROOT, 'dist/src/cli.js');

/** A dual-era run of the SDK v2 fixture (stdio and HTTP) runs its modern part in a few seconds; its legacy part is the long one. */
const DUAL_RUN_MS = 150_000;

function modernChecks(report: RunReport) {
  return report.checks.filter((c) => c.revision === '2026-07-28');
}

function findings(report: RunReport, revision: string): string[] {
  return findingsOf(report, (c) => c.revision === revision);
}

function mcpcheck(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '' }, timeout: 90_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One line on stderr, `mcpcheck: …`, and no stack frame. */
function expectOneLine(stderr: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^mcpcheck: /);
  expect(stderr).not.toMatch(/^\s+at /m);
}

/** What a dual-era report of the SDK v2 fixture holds, over either transport. */
function expectBothEras(report: RunReport): void {
  expect(harnessErrors(report)).toEqual([]);
  expect(report.eras?.map((e) => [e.revision, e.era, e.status])).toEqual([
    ['2025-11-25', 'stateful', 'tested'],
    ['2026-07-28', 'stateless', 'tested'],
  ]);
  expect(report.notes[0]).toMatch(/^era detection \(VER-BC-01, recorded, never a finding\): stateful era \(2025-11-25\): served: .*stateless era \(2026-07-28\): served: /);
  const modern = modernChecks(report);
  expect(modern.length).toBeGreaterThan(10);
  // A check id says its era, and no id is in both sections.
  for (const c of modern) expect(c.id).toMatch(/^(server|live)\.modern\./);
  expect(new Set(report.checks.map((c) => c.id)).size).toBe(report.checks.length);
  const stateless = report.eras!.find((e) => e.era === 'stateless')!;
  expect(stateless.summary!.checks.pass).toBe(modern.filter((c) => c.status === 'pass').length);
  // It is dual-era: the legacy initialize it answers is no finding (VER-BC-06 exempts it), nor,
  // over HTTP, its GET, DELETE and sessions (HTTP-LEGACY-01 binds servers of this revision only).
  expect(report.checks.find((c) => c.id === 'server.modern.legacy.initialize/refused')?.status).toBe('skip');
  if (report.target.kind === 'http') expect(report.checks.find((c) => c.id === 'server.modern.http.no-sessions/get')?.status).toBe('skip');
}

/** Carried scenarios' findings on the SDK v2 fixture over either transport (read against the 2026 catalog). */
const SDK_V2_CARRIED_COMMON = [
  // Invalid cursors are ignored and page 1 comes back, instead of −32602 (PAGE-06, SHOULD).
  'server.modern.utilities.invalid-cursor/prompts/list:warn',
  'server.modern.utilities.invalid-cursor/resources/list:warn',
  'server.modern.utilities.invalid-cursor/resources/templates/list:warn',
  'server.modern.utilities.invalid-cursor/tools/list:warn',
  // tools/call with "params": 5 gets a multi-line zod dump as error.message, not one short sentence (BASE-ERR-03, SHOULD).
  'live.modern.BASE-ERR-03:warn',
];

/** Carried scenarios' findings on the SDK v2 fixture's stdio transport. */
const SDK_V2_CARRIED_STDIO = [
  'server.modern.base.parse-error:warn',
  'server.modern.base.invalid-request/answered:fail',
  'server.modern.base.invalid-params/answered:fail',
  'live.modern.BASE-ID-04:fail',
  'server.modern.base.batch/executed-or-refused:warn',
  'server.modern.base.hostile-input/huge-string:warn',
];

/**
 * What the SDK v2 fixture gets wrong in 2026-07-28 over stdio, read against the spec text. Its
 * stdio server keeps one era per process, taken from the requests before (basic/index.mdx
 * #statelessness: a server takes a request's context "from that request alone"):
 */
const SDK_V2_STDIO_2026 = [
  // tools/list without params, without _meta, or with a _meta lacking protocolVersion or
  // clientCapabilities is served with a result (after the first, as a legacy request without
  // initialize), where basic/index.mdx#meta requires −32602 (META-REQ-03, MUST) ...
  'server.modern.meta.missing/no-params:fail',
  'server.modern.meta.missing/no-meta:fail',
  'server.modern.meta.missing/no-protocol-version:fail',
  'server.modern.meta.missing/no-client-capabilities:fail',
  // ... and after them a complete modern server/discover gets −32601 on that process (BASE-STATE-01, MUST).
  'server.modern.meta.missing/context-per-request:fail',
  // First on a process, protocolVersion 1999-01-01 gets −32022 as VER-NEG-01 requires; after a
  // valid tools/list it is served as 2026-07-28 (BASE-STATE-01, MUST).
  'server.modern.version.unsupported/after-valid-request:fail',
  // When its stdin closes it exits with a subscription open, sending neither the listen result
  // (subscriptions.mdx#graceful-closure, SHOULD) nor notifications/cancelled naming the listen id
  // (cancellation.mdx: the server MUST send it when it tears the stream down); the catalog's test
  // for both rows ends subscriptions by closing stdin, which stdio.mdx#shutdown makes the client's own
  // shutdown: graded as a warning there (ruling subscription-end, §19.1).
  'server.modern.subscriptions.end-at-shutdown/result:warn',
  'server.modern.subscriptions.end-at-shutdown/ended:warn',
  // The initialize era's scenarios carried into 2026-07-28 find what they find on the SDK's stdio
  // transport in the other era (tests/server-real.test.ts, SDK_STDIO), by the same rows of the 2026
  // catalog: unparsable frames dropped without −32700 (BASE-ERR-04, SHOULD); {"id":N,"method":42}
  // and tools/call with "params": 5 left unanswered though their ids are readable (BASE-ID-04, MUST;
  // ruling invalid-request-answered); a batch dropped silently (ROBUST-05 as revised); the reader
  // giving up at 10 MB, after which nothing is answered (ROBUST-05); invalid cursors ignored (PAGE-06).
  ...SDK_V2_CARRIED_STDIO,
  ...SDK_V2_CARRIED_COMMON,
].sort();

describe('a dual-era server (the SDK v2 fixture) is tested in both eras in one run', () => {
  it(
    'over stdio: a section per era, no harness error; its 2026 findings as pinned',
    async () => {
      const report = await runStdio(`node ${SDK_V2_FIXTURE}`);
      expectBothEras(report);
      expect(findings(report, '2026-07-28')).toEqual(SDK_V2_STDIO_2026);
    },
    DUAL_RUN_MS,
  );

  it(
    'over Streamable HTTP: a section per era, no harness error; its 2026 findings as pinned (headers validated, 404, −32022, subscriptions)',
    async () => {
      const report = await runHttp((port) => `node ${SDK_V2_FIXTURE} --http --port ${port}`);
      expectBothEras(report);
      expect(findings(report, '2026-07-28')).toEqual(
        [
          ...SDK_V2_CARRIED_COMMON,
          // Its 10 MB limit answers the hostile 10 MB probe with 413 and a −32000 error body: a code of
          // the legacy implementation-defined range that 2026-07-28 implementations SHOULD NOT use (BASE-ERR-05).
          'live.modern.BASE-ERR-05:warn',
          // completion/complete, which it does not declare in server/discover, is refused with −32601
          // in a 200 response: DISC-CAP-02 (SHOULD) asks for status 404 on HTTP, as its unknown
          // methods get (server.modern.http.unknown-method passes).
          'server.modern.lifecycle.capabilities-honoured/completions-method-not-found:warn',
        ].sort(),
      );
      for (const id of ['server.modern.http.header-validation/method-differs', 'server.modern.http.unknown-method', 'server.modern.subscriptions.acknowledged/integer-id/subscription-id', 'server.modern.version.unsupported/discover']) {
        expect(report.checks.find((c) => c.id === id)?.status, id).toBe('pass');
      }
    },
    DUAL_RUN_MS,
  );
});

describe('--spec-version tests one era', () => {
  it('2026-07-28: the 2026 suite alone, no initialize-era check', async () => {
    const report = await runStdio(`node ${SDK_V2_FIXTURE}`, { specVersion: '2026-07-28' });
    expect(harnessErrors(report)).toEqual([]);
    expect(report.checks.length).toBeGreaterThan(10);
    expect(modernChecks(report)).toHaveLength(report.checks.length);
    expect(report.eras?.map((e) => [e.revision, e.status])).toEqual([['2026-07-28', 'tested']]);
    expect(report.target.protocolVersion).toBe('2026-07-28');
  });

  it('2025-11-25 against a legacy-only server: exactly the verdicts of a run that detects its eras, and no 2026 check', async () => {
    const only = ['server.base', 'server.lifecycle'];
    // Each run starts servers of its own: the two run at once.
    const [chosen, detected] = await Promise.all([runStdio(`node ${EVERYTHING} stdio`, { specVersion: '2025-11-25', only }), runStdio(`node ${EVERYTHING} stdio`, { only })]);
    const verdicts = (r: RunReport) => r.checks.map((c) => `${c.id}:${c.status}`).sort();
    expect(verdicts(chosen)).toEqual(verdicts(detected));
    expect(modernChecks(detected)).toEqual([]);
    // server-everything serves only initialize: 2026-07-28 is reported as not served, no failure invented.
    expect(detected.eras?.map((e) => [e.revision, e.status])).toEqual([
      ['2025-11-25', 'tested'],
      ['2026-07-28', 'not served'],
    ]);
    expect(detected.eras![1]!.detail).toMatch(/server\/discover got error -32601/);
    expect(chosen.notes.join('\n')).not.toMatch(/era detection/);
  }, DUAL_RUN_MS);
});

describe('bad input: one clear line or a finding, never a stack trace or a hang', () => {
  it('--spec-version with an unknown revision: one line, exit 2; --help documents the flag', () => {
    const r = mcpcheck(['server', '--stdio', `node ${SDK_V2_FIXTURE}`, '--spec-version', '2024-01-01']);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr);
    expect(r.stderr).toContain('--spec-version takes one of 2025-11-25, 2026-07-28');
    expect(mcpcheck(['server', '--help']).stdout).toContain('--spec-version');
  });

  it('--spec-version 2026-07-28 against a server that serves only initialize: one line naming what server/discover got, exit 2', () => {
    const r = mcpcheck(['server', '--stdio', `node ${EVERYTHING} stdio`, '--spec-version', '2026-07-28']);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr);
    expect(r.stderr).toMatch(/does not serve 2026-07-28: server\/discover got error -32601/);
  });

  it('a server that answers neither era: one line naming both probes, exit 2', () => {
    const r = mcpcheck(['server', '--stdio', `node ${NEITHER_ERA}`, '--request-timeout', '2000']);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr);
    expect(r.stderr).toMatch(/answers neither era: initialize got error -32600.*; server\/discover got error -32600/);
  });

  it('a server that serves 2026-07-28 requests but not server/discover: one line naming DISC-IMPL-01 (not "answers neither era"), exit 2, with or without --spec-version', () => {
    const command = `node ${REFERENCE_2026} --break no-discover`;
    for (const extra of [[], ['--spec-version', '2026-07-28']]) {
      const r = mcpcheck(['server', '--stdio', command, '--request-timeout', '2000', ...extra]);
      expect(r.code).toBe(2);
      expectOneLine(r.stderr);
      expect(r.stderr).toMatch(/does not implement server\/discover, which every 2026-07-28 server must \(DISC-IMPL-01\), yet serves 2026-07-28 requests/);
    }
  });

  it('a server that claims 2026-07-28 in server/discover but refuses modern requests: a DISC-RES-03 finding, no hang', async () => {
    const report = await runStdio(`node ${CLAIMS_MODERN}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(report.eras?.map((e) => [e.revision, e.status])).toEqual([
      ['2025-11-25', 'not served'],
      ['2026-07-28', 'tested'],
    ]);
    expect(report.checks.find((c) => c.id === 'server.modern.version.listed-served/accepted')?.status).toBe('warn');
    expect(report.requirements.find((r) => r.id === 'DISC-RES-03')?.status).toBe('warn');
  });
});

describe('the request headers mcpcheck sends in the 2026-07-28 era mirror the body (HDR-STD-01, HDR-STD-02)', () => {
  it('Mcp-Method on every request, Mcp-Name for tools/call, prompts/get and resources/read, none on a notification', () => {
    expect(modernRequestHeaders({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })).toEqual({ 'Mcp-Method': 'tools/list' });
    expect(modernRequestHeaders({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo' } })).toEqual({ 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' });
    expect(modernRequestHeaders({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///a b' } })).toEqual({ 'Mcp-Method': 'resources/read', 'Mcp-Name': 'file:///a b' });
    expect(modernRequestHeaders({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })).toEqual({});
  });

  it('a value that is not a safe plain header value travels as the Base64 sentinel', () => {
    expect(encodeHeaderValue('get_weather')).toBe('get_weather');
    expect(encodeHeaderValue('wétter')).toBe(`=?base64?${Buffer.from('wétter').toString('base64')}?=`);
    expect(encodeHeaderValue(' padded ')).toBe(`=?base64?${Buffer.from(' padded ').toString('base64')}?=`);
    expect(encodeHeaderValue('a\nb')).toMatch(/^=\?base64\?/);
    // A plain value shaped like the sentinel is encoded too, so it cannot be misread.
    expect(encodeHeaderValue('=?base64?abc?=')).toBe(`=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`);
  });
});
