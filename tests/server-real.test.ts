import { beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model.js';
import { EVERYTHING, LOOPBACK, ROOT, harnessErrors, requireBuild, runHttp, runStdio } from './server-helpers.js';

beforeAll(requireBuild);

const SDK_FIXTURE = `${ROOT}/dist/tests/fixtures/sdk/server.js`;

function findings(report: RunReport): string[] {
  return [...new Set(report.checks.filter((c) => c.status === 'fail' || c.status === 'warn' || c.status === 'error').map((c) => `${c.id}:${c.status}`))].sort();
}

/**
 * What the real servers get wrong, each read against the spec text. They are real servers: a
 * change here is either a new release of theirs or a change in mcpcheck, and must be read again.
 */
const SDK_STDIO = [
  // The SDK serves tools/list before initialize (ROBUST-02, derived SHOULD).
  'server.lifecycle.before-initialize/refused:warn',
  // Its stdio transport drops unparsable and invalid messages without the JSON-RPC error they call for (BASE-ERR-04).
  'server.base.parse-error:warn',
  'server.base.invalid-request:warn',
  'server.base.invalid-params:warn',
  // Its ReadBuffer gives up at 10 MB and the transport never reads another message (ROBUST-05).
  'server.base.hostile-input/huge-string:warn',
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
  // {"method":42} and "params": 5 get −32700 (parse error) although the JSON parsed (BASE-ERR-04).
  'server.base.invalid-request:warn',
  'server.base.invalid-params:warn',
  // The HTTP transport still runs the requests of a JSON-RPC batch (ROBUST-05: refuse or drop).
  'server.base.batch-rejected/not-executed:warn',
];

describe('@modelcontextprotocol/server-everything', () => {
  it('over stdio: graded with no harness error, findings as pinned', async () => {
    const report = await runStdio(`node ${EVERYTHING} stdio`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findings(report)).toEqual(
      [
        ...SDK_STDIO,
        ...SDK_COMMON,
        // trigger-long-running-operation ignores the cancel and keeps sending progress (CANCEL-05).
        'server.utilities.cancel/no-response:warn',
      ].sort(),
    );
    expect(report.summary.mustFailures).toBe(0);
  });

  it('over Streamable HTTP: graded with no harness error, findings as pinned', async () => {
    const report = await runHttp((port) => `PORT=${port} node --import ${LOOPBACK} ${EVERYTHING} streamableHttp`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findings(report)).toEqual(
      [
        ...SDK_HTTP,
        ...SDK_COMMON,
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
        // replayEventsAfter returns an event id where the SDK expects a stream id, so the resumed
        // connection is never mapped to the dropped stream and its response never comes (HTTP-SSE-07).
        'server.http.resume/not-cancelled:warn',
        // An ended (DELETEd) session id gets 400, not 404 (HTTP-SESS-06, MUST); a never-issued one too (§15.8).
        'server.http.session-ended/reuse:fail',
        'server.http.session-ended/unknown-id:fail',
      ].sort(),
    );
    expect(report.summary.mustFailures).toBe(8);
  });
});

describe('a server built on @modelcontextprotocol/sdk (tests/fixtures/sdk)', () => {
  it('over stdio: findings as pinned', async () => {
    const report = await runStdio(`node ${SDK_FIXTURE}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findings(report)).toEqual([...SDK_STDIO, ...SDK_COMMON].sort());
  });

  it('over Streamable HTTP, with DNS-rebinding protection on: findings as pinned', async () => {
    const report = await runHttp((port) => `node ${SDK_FIXTURE} --http --port ${port}`);
    expect(harnessErrors(report)).toEqual([]);
    expect(findings(report)).toEqual(
      [
        ...SDK_HTTP,
        ...SDK_COMMON,
        // Without an event store the SDK opens SSE streams with the response itself, no priming event (HTTP-SSE-01, SHOULD).
        'live.HTTP-SSE-01:warn',
        'server.http.request-answers/ping-priming:warn',
        'server.http.request-answers/prompts/list-priming:warn',
        'server.http.request-answers/resources/list-priming:warn',
        'server.http.request-answers/tools/list-priming:warn',
      ].sort(),
    );
    expect(report.summary.mustFailures).toBe(0);
  });
});
