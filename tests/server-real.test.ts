import { beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model.js';
import { EVERYTHING, findingsOf, LOOPBACK, ROOT, harnessErrors, requireBuild, runHttp, runStdio } from './server-helpers.js';

beforeAll(requireBuild);

const SDK_FIXTURE = `${ROOT}/dist/tests/fixtures/sdk/server.js`;
const SDK_V2_FIXTURE = `${ROOT}/dist/tests/fixtures/sdk-v2/server.js`;

/**
 * A stdio run of a server on the SDK's stdio reader: it reads the 10 MB probe slowly and never
 * answers again, and the ping after it is waited for as long again as the read took (the run's
 * pace), so on a busy machine the run outlasts vitest's default minute.
 */
const STDIO_RUN_MS = 150_000;

/**
 * What the real servers get wrong, each read against the spec text. They are real servers: a
 * change here is either a new release of theirs or a change in mcpcheck, and must be read again.
 */
const SDK_STDIO = [
  // The SDK serves tools/list before initialize (ROBUST-02, derived SHOULD).
  'server.lifecycle.before-initialize/refused:warn',
  // Its stdio transport drops unparsable messages without the JSON-RPC error they call for (BASE-ERR-04).
  'server.base.parse-error:warn',
  // {"id":N,"method":42} and tools/call with "params": 5 have readable ids: calls JSON-RPC 2.0 §5 answers
  // (ruling invalid-request-answered), left unanswered while the ping sent after each is answered (BASE-ID-04, MUST).
  // (Their /code checks are skips: a call never answered has no error code to judge.)
  'server.base.invalid-request/answered:fail',
  'server.base.invalid-params/answered:fail',
  'live.BASE-ID-04:fail',
  // Its ReadBuffer gives up at 10 MB and the transport never reads another message (ROBUST-05).
  'server.base.hostile-input/huge-string:warn',
  // Its stdio transport drops a JSON-RPC batch without a word (the array fails JSONRPCMessageSchema):
  // on 2025-11-25 neither executed nor refused, and on a 2025-03-26 session, where 2025-03-26
  // says implementations "MUST support receiving JSON-RPC batches", not processed (ROBUST-05 as revised).
  'server.base.batch/executed-or-refused:warn',
  'server.base.batch-2025-03-26:warn',
];
const SDK_COMMON = [
  // Invalid cursors are ignored and page 1 comes back, instead of −32602 (PAGE-06, SHOULD).
  'server.utilities.invalid-cursor/prompts/list:warn',
  'server.utilities.invalid-cursor/resources/list:warn',
  'server.utilities.invalid-cursor/resources/templates/list:warn',
  'server.utilities.invalid-cursor/tools/list:warn',
  // logging/setLevel "verbose" gets −32603 (a zod error) instead of −32602 (LOG-SET-03).
  'server.utilities.log-levels/invalid:warn',
  // An unknown tool comes back as an isError result; the spec wants a JSON-RPC error (TOOL-ERR-01, SHOULD).
  'server.tools.unknown-tool/unknown:warn',
  // Invalid params come back with a multi-line zod dump as error.message, not one short sentence (BASE-ERR-03).
  'live.BASE-ERR-03:warn',
];
const SDK_HTTP = [
  // {"method":42} and "params": 5 get −32700 (parse error) although the JSON parsed (BASE-ERR-04); an
  // error without id is an answer all the same (BASE-ID-04 holds).
  'server.base.invalid-request/code:warn',
  'server.base.invalid-params/code:warn',
  // (Its HTTP transport executes a JSON-RPC batch, one SSE event per answer: no finding since ROBUST-05
  // was revised — executing a batch is allowed on 2025-11-25 and required on 2025-03-26.)
];
// Without an event store the SDK (v1 and v2) opens SSE streams with the response itself, no priming event (HTTP-SSE-01, SHOULD).
const SDK_NO_PRIMING = [
  'live.HTTP-SSE-01:warn',
  'server.http.request-answers/ping-priming:warn',
  'server.http.request-answers/prompts/list-priming:warn',
  'server.http.request-answers/resources/list-priming:warn',
  'server.http.request-answers/tools/list-priming:warn',
];

// The SDK v1 (1.32) server declares no tasks capability, yet answers a tools/call that carries
// `task` with −32603 "Server does not support task creation" instead of running it as the plain
// call it is (tasks.mdx: such receivers "MUST process requests of that type normally, ignoring any
// task-augmentation metadata"; TASK-SUP-01).
const SDK_V1_TASK_FIELD = ['server.tasks.undeclared:fail'];

const EVERYTHING_COMMON = [
  // After negotiating 2024-11-05, get-resource-links still returns resource_link content blocks,
  // which 2024-11-05's CallToolResult does not have (text, image or embedded resource only; links
  // came in 2025-06-18): the server does not keep to the negotiated version (LIFE-OP-01, which
  // 2024-11-05 states as a SHOULD: "Both parties SHOULD: Respect the negotiated protocol version").
  // The result fails that revision's schema (BASE-RES-03, TOOL-CALL-01) only through a construct a
  // later revision added, so the live finding cites LIFE-OP-01 first and is graded at its 2024-11-05
  // level, SHOULD (ruling later-revision-construct): no longer two MUST failures beside a SHOULD
  // warning for the same result.
  'server.lifecycle.older-revisions/2024-11-05:warn',
  'live.LIFE-OP-01:warn',
  'live.BASE-RES-03:warn',
  'live.TOOL-CALL-01:warn',
  // A task-augmented call of echo, whose taskSupport is absent, gets −32602 "Invalid task creation
  // result" instead of −32601 (TASK-TOOL-02, SHOULD).
  'server.tasks.forbidden-task:warn',
];

/** Each defect that several checks saw, as "reporting check ← the others" (grade/defects.ts). */
function defects(report: RunReport): string[] {
  for (const c of report.checks) if (c.defectOf !== undefined) expect(report.checks.find((p) => p.id === c.defectOf)?.also, c.id).toContain(c.id);
  return report.checks.filter((c) => c.also !== undefined).map((c) => `${c.id} ← ${c.also!.join(', ')}`);
}

// One resource_link on a 2024-11-05 session: the scenario's verdict and the one finding cited under three live rules are one defect.
const RESOURCE_LINK_DEFECT = 'server.lifecycle.older-revisions/2024-11-05 ← live.BASE-RES-03, live.TOOL-CALL-01, live.LIFE-OP-01';
// Invalid cursors ignored by every list method: one scenario, one rule (PAGE-06).
const INVALID_CURSOR_DEFECT = 'server.utilities.invalid-cursor/tools/list ← server.utilities.invalid-cursor/resources/list, server.utilities.invalid-cursor/resources/templates/list, server.utilities.invalid-cursor/prompts/list';

describe('@modelcontextprotocol/server-everything', () => {
  it('over stdio: graded with no harness error, findings as pinned', async () => {
    const report = await runStdio(`node ${EVERYTHING} stdio`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual(
      [
        ...SDK_STDIO,
        ...SDK_COMMON,
        ...EVERYTHING_COMMON,
        // trigger-long-running-operation ignores the cancel and keeps sending progress (CANCEL-05).
        'server.utilities.cancel/no-response:warn',
      ].sort(),
    );
    // EVERYTHING_COMMON's resource_link on a 2024-11-05 session is a SHOULD there; the three MUST
    // failures are SDK_STDIO's BASE-ID-04 ones (the unanswered invalid requests).
    expect(report.summary.mustFailures).toBe(3);
    expect(defects(report)).toEqual(expect.arrayContaining([RESOURCE_LINK_DEFECT, INVALID_CURSOR_DEFECT]));
  }, STDIO_RUN_MS);

  // Its task tool (simulate-research-query) is not read-only, so only --call-tools all reaches it.
  // Each finding was read against basic/utilities/tasks.mdx (2025-11-25).
  it('its tasks, with --call-tools all (stdio): findings as pinned', async () => {
    const report = await runStdio(`node ${EVERYTHING} stdio`, { only: ['server.tasks'], callTools: 'all', requestTimeoutMs: 4_000 });
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual(
      [
        // A plain call of simulate-research-query (taskSupport "required") gets an isError result
        // whose text is "MCP error -32601: …", not the JSON-RPC error −32601 (TASK-TOOL-04, MUST).
        'server.tasks.required-plain:fail',
        // A task call of echo (no taskSupport) gets −32602 "Invalid task creation result", not −32601
        // (TASK-TOOL-02, SHOULD), its message 215 characters of zod issues (BASE-ERR-03, SHOULD).
        'server.tasks.forbidden-task:warn',
        'live.BASE-ERR-03:warn',
        // tasks/get with related-task _meta naming another task is never answered, though ping is
        // (BASE-ID-04, MUST): which id it went by cannot be seen, so TASK-META-03 is not judged.
        'live.BASE-ID-04:fail',
      ].sort(),
    );
    expect(report.checks.find((c) => c.id === 'server.tasks.id-authoritative')?.status).toBe('skip');
    // Its ambiguous research query asks through tasks/result, input_required meanwhile, the request tied to the task.
    expect(report.checks.filter((c) => c.id.startsWith('server.tasks.input-required/')).map((c) => `${c.status} ${c.id}`)).toEqual(['pass server.tasks.input-required/related-task', 'pass server.tasks.input-required/status']);
  }, STDIO_RUN_MS);

  it('over Streamable HTTP: graded with no harness error, findings as pinned', async () => {
    const report = await runHttp((port) => `PORT=${port} node --import ${LOOPBACK} ${EVERYTHING} streamableHttp`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual(
      [
        ...SDK_HTTP,
        ...SDK_COMMON,
        ...EVERYTHING_COMMON,
        'server.utilities.cancel/no-response:warn',
        // cors({origin: "*"}) and no Origin validation at all, on any method, `null` included (HTTP-ORIGIN-01, MUST).
        'server.http.origin/initialize:fail',
        'server.http.origin/in-session:fail',
        'server.http.origin/get:fail',
        'server.http.origin/delete:fail',
        'server.http.origin/null-origin:fail',
        // Its InMemoryEventStore replays every event stored after Last-Event-ID, whatever stream it
        // belonged to: resuming one POST stream replays another's progress and response (HTTP-RESUME-04, MUST).
        'server.http.resume/no-foreign-events:fail',
        // An ended (DELETEd) session id gets 400, not 404 (HTTP-SESS-06, MUST); a never-issued one too,
        // which only ruling session-never-issued asks of it (SHOULD).
        'server.http.session-ended/reuse:fail',
        'server.http.session-ended/unknown-id:warn',
      ].sort(),
    );
    expect(report.summary.mustFailures).toBe(7);
    // One missing Origin check is one defect, told by the first probe; the resource_link another.
    expect(defects(report)).toEqual(
      expect.arrayContaining([
        RESOURCE_LINK_DEFECT,
        INVALID_CURSOR_DEFECT,
        'server.http.origin/initialize ← server.http.origin/in-session, server.http.origin/get, server.http.origin/null-origin, server.http.origin/delete',
        'server.http.session-ended/reuse ← server.http.session-ended/unknown-id',
      ]),
    );
    // replayEventsAfter returns an event id where the SDK expects a stream id, so the resumed
    // connection is not mapped to the dropped stream and its response is lost (or, when the request
    // ended before the resume, comes within the cross-stream replay). A response lost that way shows
    // no cancellation: HTTP-SSE-07 is a skip citing HTTP-RESUME-04, not the warning it was.
    const notCancelled = report.checks.find((c) => c.id === 'server.http.resume/not-cancelled');
    if (notCancelled?.status === 'skip') expect(notCancelled.message).toMatch(/another stream \(HTTP-RESUME-04\)/);
    else expect(notCancelled).toMatchObject({ status: 'pass', level: 'MAY' });
  });
});

describe('a server built on @modelcontextprotocol/sdk (tests/fixtures/sdk)', () => {
  it('over stdio: findings as pinned', async () => {
    const report = await runStdio(`node ${SDK_FIXTURE}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual([...SDK_STDIO, ...SDK_COMMON, ...SDK_V1_TASK_FIELD].sort());
  }, STDIO_RUN_MS);

  it('over Streamable HTTP, with DNS-rebinding protection on: findings as pinned', async () => {
    const report = await runHttp((port) => `node ${SDK_FIXTURE} --http --port ${port}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual(
      [
        ...SDK_HTTP,
        ...SDK_COMMON,
        ...SDK_NO_PRIMING,
        ...SDK_V1_TASK_FIELD,
      ].sort(),
    );
    expect(report.summary.mustFailures).toBe(1);
  });

  // Its HTTP transport refuses the 10 MB POST before reading it; a ping that went out later on a
  // kept-alive connection the server had dropped was once taken for the server no longer answering
  // (deep-nesting, "connection reset"): such a POST is now resent on a fresh connection (http-client.ts).
  it('over Streamable HTTP: answers ping after every hostile input', async () => {
    const report = await runHttp((port) => `node ${SDK_FIXTURE} --http --port ${port}`, { only: ['server.base.hostile-input'] });
    const probes = report.checks.filter((c) => c.id.startsWith('server.base.hostile-input/'));
    expect(probes.map((c) => c.id)).toContain('server.base.hostile-input/deep-nesting');
    for (const c of probes) expect(c.status, `${c.id}: ${c.message}`).toBe('pass');
  });
});

/** SDK v2 keeps v1's findings but one: an unknown tool now gets a JSON-RPC error (TOOL-ERR-01 holds). */
const SDK_V2_COMMON = SDK_COMMON.filter((f) => f !== 'server.tools.unknown-tool/unknown:warn');

describe('a server built on @modelcontextprotocol/server 2.4.0, SDK v2 (tests/fixtures/sdk-v2)', () => {
  // Its initialize era alone: the run of both eras, with its 2026-07-28 findings (META-REQ-03,
  // BASE-STATE-01 over stdio), is pinned in tests/server-2026.test.ts.
  it('over stdio (serveStdio): findings as pinned', async () => {
    const report = await runStdio(`node ${SDK_V2_FIXTURE}`, { specVersion: '2025-11-25' });
    expect(harnessErrors(report)).toEqual([]);
    // Its stdio transport is v1's: silent on unparsable and invalid frames, deaf after a 10 MB line.
    expect(findingsOf(report)).toEqual([...SDK_STDIO, ...SDK_V2_COMMON].sort());
    // SDK_STDIO's three BASE-ID-04 failures: the invalid requests it leaves unanswered while answering ping.
    expect(report.summary.mustFailures).toBe(3);
  });

  // Stateless: no session ids, GET and DELETE answered 405, so closing a session sends nothing and
  // aborts at once; the run used to die there with an uncaught AbortError (exit 4, no report).
  it('over Streamable HTTP (createMcpHandler, stateless, DNS-rebinding protection on): findings as pinned', async () => {
    const report = await runHttp((port) => `node ${SDK_V2_FIXTURE} --http --port ${port}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual(
      [
        // Every request is served by a fresh instance and no MCP-Session-Id is issued (the transports
        // page: a server "MAY assign a session ID"), so no POST is "before initialize": its tools/list
        // without initialize, once a ROBUST-02 warn, is not exercised (ruling requests-before-initialize).
        ...SDK_V2_COMMON,
        ...SDK_NO_PRIMING,
        // It serves 2026-07-28 too (the run tests both eras), where the carried scenarios find what
        // they find in the other era: invalid cursors ignored (PAGE-06), zod dumps as error messages
        // (BASE-ERR-03); and its 413 answer to the 10 MB probe carries −32000, a code of the legacy
        // range 2026-07-28 implementations SHOULD NOT use (BASE-ERR-05); completion/complete, which
        // it does not declare, refused with −32601 in a 200, not a 404 (DISC-CAP-02, SHOULD).
        // Read in tests/server-2026.test.ts.
        'server.modern.lifecycle.capabilities-honoured/completions-method-not-found:warn',
        'server.modern.utilities.invalid-cursor/prompts/list:warn',
        'server.modern.utilities.invalid-cursor/resources/list:warn',
        'server.modern.utilities.invalid-cursor/resources/templates/list:warn',
        'server.modern.utilities.invalid-cursor/tools/list:warn',
        'live.modern.BASE-ERR-03:warn',
        'live.modern.BASE-ERR-05:warn',
      ].sort(),
    );
    expect(report.summary.mustFailures).toBe(0);
  });
});

/**
 * What fastmcp adds on the SDK, over either transport: −32601 for a missing resource or prompt and
 * −32600 for missing arguments instead of −32002 / −32602 (RES-ERR-01, PROMPT-ERR-01), −32603 for an
 * unknown prompt's completion and an invalid log level (COMP-ERR-01, LOG-SET-03), invalid cursors
 * ignored (PAGE-06), zod dumps as error messages (BASE-ERR-03); and the SDK v1's −32603 for a
 * tools/call carrying `task` (SDK_V1_TASK_FIELD).
 */
const FASTMCP_COMMON = [
  'server.resources.missing/custom-scheme:warn',
  'server.resources.missing/file:warn',
  'server.prompts.errors/unknown:warn',
  'server.prompts.errors/missing-arguments:warn',
  'server.utilities.completion-errors:warn',
  'server.utilities.log-levels/invalid:warn',
  'server.utilities.invalid-cursor/prompts/list:warn',
  'server.utilities.invalid-cursor/resources/list:warn',
  'server.utilities.invalid-cursor/resources/templates/list:warn',
  'server.utilities.invalid-cursor/tools/list:warn',
  'live.BASE-ERR-03:warn',
  ...SDK_V1_TASK_FIELD,
];

/** tmcp in 2026-07-28: completion/complete, undeclared, answered with a result that has no `completion`. */
const TMCP_2026_COMPLETION = [
  'live.modern.BASE-RES-03:fail',
  'live.modern.COMP-RES-01:fail',
  'server.modern.lifecycle.capabilities-honoured/completions-not-supported:warn',
];

describe('small apps on other MCP libraries', () => {
  it('tmcp (tests/fixtures/tmcp), over stdio: findings as pinned', async () => {
    const report = await runStdio(`node ${ROOT}/dist/tests/fixtures/tmcp/server.js`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual(
      [
        // Answers tools/list before initialize (ROBUST-02, SHOULD) and drops unparsable frames silently (BASE-ERR-04).
        'server.lifecycle.before-initialize/refused:warn',
        'server.base.parse-error:warn',
        // The invalid ones have readable ids: calls left unanswered while it answers the ping sent
        // after each (BASE-ID-04, MUST; ruling invalid-request-answered); with no answer, no code to judge.
        'server.base.invalid-request/answered:fail',
        'server.base.invalid-params/answered:fail',
        'live.BASE-ID-04:fail',
        // It drops a JSON-RPC batch silently too: neither executed nor refused on its newest revision,
        // and not processed on a 2025-03-26 session, which it accepts (ROBUST-05 as revised).
        'server.base.batch/executed-or-refused:warn',
        'server.base.batch-2025-03-26:warn',
        // Refuses the garbage version string with −32602 rather than naming its own version (ruling unsupported-version-error: SHOULD).
        'server.lifecycle.version-negotiation/unsupported-mcpcheck-unsupported:warn',
        'live.LIFE-VER-04:warn',
        // Ignores invalid cursors (PAGE-06) and answers unknown or nameless tool calls with isError results (TOOL-ERR-01).
        'server.utilities.invalid-cursor/prompts/list:warn',
        'server.utilities.invalid-cursor/resources/list:warn',
        'server.utilities.invalid-cursor/resources/templates/list:warn',
        'server.utilities.invalid-cursor/tools/list:warn',
        'server.tools.unknown-tool/unknown:warn',
        'server.tools.unknown-tool/no-name:warn',
        // completion/complete, not declared, is answered with "result": null: no JSON object (BASE-RES-02, MUST).
        'live.BASE-RES-02:fail',
        // It serves 2026-07-28 too (the run tests both eras): there a tools/list without params or
        // without _meta is served with a result, where basic/index.mdx#meta requires −32602
        // (META-REQ-03, MUST).
        'server.modern.meta.missing/no-params:fail',
        'server.modern.meta.missing/no-meta:fail',
        // When its stdin closes it exits with a subscription open, sending neither the listen result
        // (subscriptions.mdx#graceful-closure, SHOULD) nor notifications/cancelled naming the listen id
        // (cancellation.mdx: MUST when the server tears the stream down); the catalog's test for both
        // rows ends subscriptions by closing stdin, which stdio.mdx#shutdown makes the client's own
        // shutdown: graded as a warning there (ruling subscription-end, §19.1).
        'server.modern.subscriptions.end-at-shutdown/result:warn',
        'server.modern.subscriptions.end-at-shutdown/ended:warn',
        // The initialize era's scenarios carried into 2026-07-28 find in that era what they find in
        // the other, by the same rows of the 2026 catalog: unparsable frames dropped without −32700
        // (BASE-ERR-04, SHOULD); the invalid requests with readable ids left unanswered (BASE-ID-04,
        // MUST; ruling invalid-request-answered); a batch dropped silently (ROBUST-05 as revised:
        // executing or refusing both hold); invalid cursors ignored (PAGE-06); unknown or nameless
        // tool calls answered with isError results (TOOL-ERR-01).
        'server.modern.base.parse-error:warn',
        'server.modern.base.invalid-request/answered:fail',
        'server.modern.base.invalid-params/answered:fail',
        'live.modern.BASE-ID-04:fail',
        'server.modern.base.batch/executed-or-refused:warn',
        'server.modern.utilities.invalid-cursor/prompts/list:warn',
        'server.modern.utilities.invalid-cursor/resources/list:warn',
        'server.modern.utilities.invalid-cursor/resources/templates/list:warn',
        'server.modern.utilities.invalid-cursor/tools/list:warn',
        'server.modern.tools.unknown-tool/unknown:warn',
        'server.modern.tools.unknown-tool/no-name:warn',
        // completion/complete, which it does not declare in server/discover, is answered with a
        // result that has no `completion` (the 2026 schema requires it: BASE-RES-03 and
        // COMP-RES-01, MUST), where completion.mdx#error-handling asks for −32601 (COMP-ERR-01, SHOULD).
        ...TMCP_2026_COMPLETION,
      ].sort(),
    );
    expect(report.summary.mustFailures).toBe(11);
  });

  it('fastmcp (tests/fixtures/fastmcp), over stdio: findings as pinned', async () => {
    const report = await runStdio(`node ${ROOT}/dist/tests/fixtures/fastmcp/server.js`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual(
      [
        ...SDK_STDIO,
        ...FASTMCP_COMMON,
        // It asks a client that declared roots for them once it has the client's capabilities,
        // polled every 100 ms from initialize on, without waiting for notifications/initialized.
        'server.lifecycle.no-requests-before-initialized/quiet:warn',
        'live.LIFE-INIT-05:warn',
      ].sort(),
    );
    // SDK_STDIO's three BASE-ID-04 failures (the invalid requests it leaves unanswered while
    // answering ping), and SDK_V1_TASK_FIELD's.
    expect(report.summary.mustFailures).toBe(4);
  }, STDIO_RUN_MS);

  it('tmcp (tests/fixtures/tmcp), over Streamable HTTP (@tmcp/transport-http): findings as pinned', async () => {
    const report = await runHttp((port) => `node ${ROOT}/dist/tests/fixtures/tmcp/server.js --http --port ${port}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual(
      [
        // As over stdio: tools/list served before initialize (ROBUST-02), the garbage version refused with
        // −32602 (ruling unsupported-version-error), invalid cursors ignored (PAGE-06), unknown or nameless
        // tool calls answered with isError results (TOOL-ERR-01), completion/complete answered with
        // "result": null (BASE-RES-02, MUST).
        'server.lifecycle.before-initialize/refused:warn',
        'server.lifecycle.version-negotiation/unsupported-mcpcheck-unsupported:warn',
        'live.LIFE-VER-04:warn',
        'server.utilities.invalid-cursor/prompts/list:warn',
        'server.utilities.invalid-cursor/resources/list:warn',
        'server.utilities.invalid-cursor/resources/templates/list:warn',
        'server.utilities.invalid-cursor/tools/list:warn',
        'server.tools.unknown-tool/unknown:warn',
        'server.tools.unknown-tool/no-name:warn',
        'live.BASE-RES-02:fail',
        // tools/call with "params": 5 gets an SSE stream that closes with no response: a call (readable id)
        // left unanswered while the ping after it is answered (BASE-ID-04, MUST; ruling
        // invalid-request-answered), with no error code to judge.
        'server.base.invalid-params/answered:fail',
        'live.BASE-ID-04:fail',
        // On a 2025-03-26 session (which it accepts) a JSON-RPC batch is refused, where that revision
        // says implementations "MUST support receiving JSON-RPC batches" (ROBUST-05 as revised).
        'server.base.batch-2025-03-26:warn',
        // Its session manager takes any MCP-Session-Id as a live session: a DELETEd one is served with
        // 200, not 404 (HTTP-SESS-06, MUST). A never-issued one is served too, but so is a request with
        // no id at all: it needs no session, so an unknown id is no ended one (a skip).
        'server.http.session-ended/reuse:fail',
        // On an initialize-based session it never reads MCP-Protocol-Version: 1999-01-01 and "garbage"
        // are served with 200, not refused with 400 (HTTP-VER-04, MUST).
        'server.http.bad-version-header/unsupported:fail',
        'server.http.bad-version-header/invalid:fail',
        // It serves 2026-07-28 too (the run tests both eras): there a tools/list whose _meta lacks
        // clientCapabilities is served with 200 and a result, where basic/index.mdx#meta requires
        // −32602 with status 400 (META-REQ-03, MUST).
        'server.modern.meta.missing/no-client-capabilities:fail',
        // Carried into 2026-07-28: invalid cursors ignored (PAGE-06) and an unknown tool answered with
        // an isError result (TOOL-ERR-01), as in the other era. (A nameless tools/call carries no
        // Mcp-Name: its −32020 is an error, which TOOL-ERR-01 asks for.)
        'server.modern.utilities.invalid-cursor/prompts/list:warn',
        'server.modern.utilities.invalid-cursor/resources/list:warn',
        'server.modern.utilities.invalid-cursor/resources/templates/list:warn',
        'server.modern.utilities.invalid-cursor/tools/list:warn',
        'server.modern.tools.unknown-tool/unknown:warn',
        // As over stdio: the undeclared completion/complete answered with no `completion`.
        ...TMCP_2026_COMPLETION,
      ].sort(),
    );
    expect(report.summary.mustFailures).toBe(9);
  });

  it('fastmcp (tests/fixtures/fastmcp), over Streamable HTTP (httpStream): findings as pinned', async () => {
    const report = await runHttp((port) => `node ${ROOT}/dist/tests/fixtures/fastmcp/server.js --http --port ${port}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findingsOf(report)).toEqual(
      [
        // The SDK's HTTP transport underneath: {"method":42} and "params": 5 get −32700 though the JSON parsed (BASE-ERR-04).
        'server.base.invalid-request/code:warn',
        'server.base.invalid-params/code:warn',
        ...FASTMCP_COMMON,
        // mcp-proxy's startHTTPServer, which fastmcp serves through, has CORS headers but no Origin
        // validation: a foreign or null Origin is served on every method, not refused with 403 (HTTP-ORIGIN-01, MUST).
        'server.http.origin/initialize:fail',
        'server.http.origin/in-session:fail',
        'server.http.origin/get:fail',
        'server.http.origin/delete:fail',
        'server.http.origin/null-origin:fail',
      ].sort(),
    );
    // The five Origin failures and SDK_V1_TASK_FIELD's.
    expect(report.summary.mustFailures).toBe(6);
  });
});
