import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/model.js';
import { EVERYTHING, findingsOf, ROOT, harnessErrors, requireBuild, runHttp } from './server-helpers.js';

beforeAll(requireBuild);

// mcp-proxy 6.7.19 (built on SDK v2) in front of server-everything over stdio: a 2025-era server
// behind a dual-era HTTP endpoint (issue 21, step 2 item 6). The proxy serves 2026-07-28 itself
// (--modern, on by default) and speaks the initialize era upstream, so mcpcheck detects both eras
// and grades each in its own section.

const PROXY = join(ROOT, 'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs');

/** A dual-era run through a proxy that starts its upstream per session: the legacy era is the long part. */
const RUN_MS = 120_000;

function findings(report: RunReport, era: 'stateful' | 'stateless'): string[] {
  const inEra = (revision: string | undefined) => (era === 'stateless' ? revision === '2026-07-28' : revision !== '2026-07-28');
  return findingsOf(report, (c) => inEra(c.revision));
}

describe('mcp-proxy in front of server-everything', () => {
  it('is graded in both eras in one run, findings as pinned', async () => {
    const report = await runHttp((port) => `node ${PROXY} --host 127.0.0.1 --port ${port} -- node ${EVERYTHING} stdio`, { requestTimeoutMs: 10_000 });
    expect(harnessErrors(report)).toEqual([]);
    expect(report.eras?.map((e) => `${e.revision} ${e.status}`)).toEqual(['2025-11-25 tested', '2026-07-28 tested']);
    // The modern leg is the proxy's own (SDK v2 in front of the same server): the carried scenarios
    // find there what they find in the other era, by the 2026-07-28 rows.
    expect(findings(report, 'stateless')).toEqual(
      [
        // No Origin validated, `null` included (HTTP-ORIGIN-01, MUST).
        'server.modern.http.origin/foreign:fail',
        'server.modern.http.origin/null-origin:fail',
        // Text that is not JSON, {"method":42} and "params": 5 get −32000, where −32700, −32600 and
        // −32602 are asked (BASE-ERR-04, SHOULD); −32000 is of the legacy implementation-defined range
        // a 2026-07-28 implementation does not use (BASE-ERR-05, SHOULD).
        'server.modern.base.parse-error:warn',
        'server.modern.base.invalid-request/code:warn',
        'server.modern.base.invalid-params/code:warn',
        'live.modern.BASE-ERR-05:warn',
        // server-everything's own, passed through: invalid cursors ignored (PAGE-06), an unknown tool
        // as an isError result (TOOL-ERR-01), zod dumps as error.message (BASE-ERR-03).
        'server.modern.utilities.invalid-cursor/prompts/list:warn',
        'server.modern.utilities.invalid-cursor/resources/list:warn',
        'server.modern.utilities.invalid-cursor/resources/templates/list:warn',
        'server.modern.utilities.invalid-cursor/tools/list:warn',
        'server.modern.tools.unknown-tool/unknown:warn',
        'live.modern.BASE-ERR-03:warn',
      ].sort(),
    );
    expect(report.checks.filter((c) => c.revision === '2026-07-28' && c.status === 'pass').length).toBeGreaterThan(30);
    expect(findings(report, 'stateful')).toEqual(
      [
        // The proxy's HTTP front validates no Origin, `null` included (HTTP-ORIGIN-01, MUST).
        'server.http.origin/initialize:fail',
        'server.http.origin/in-session:fail',
        'server.http.origin/get:fail',
        'server.http.origin/delete:fail',
        'server.http.origin/null-origin:fail',
        // {"method":42} and "params": 5 get −32700, which is for text that is not JSON (BASE-ERR-04, SHOULD).
        'server.base.invalid-request/code:warn',
        'server.base.invalid-params/code:warn',
        // What server-everything itself does, passed through (as in tests/server-real.test.ts):
        // invalid cursors ignored (PAGE-06), −32603 for an unknown log level (LOG-SET-03), an
        // unknown tool as an isError result (TOOL-ERR-01), multi-line zod dumps as error.message
        // (BASE-ERR-03), and a resource_link on a 2024-11-05 session, a later revision's construct
        // (LIFE-OP-01 at its SHOULD, ruling later-revision-construct, also under the result rules).
        'server.utilities.invalid-cursor/prompts/list:warn',
        'server.utilities.invalid-cursor/resources/list:warn',
        'server.utilities.invalid-cursor/resources/templates/list:warn',
        'server.utilities.invalid-cursor/tools/list:warn',
        'server.utilities.log-levels/invalid:warn',
        'server.tools.unknown-tool/unknown:warn',
        'live.BASE-ERR-03:warn',
        'server.lifecycle.older-revisions/2024-11-05:warn',
        'live.LIFE-OP-01:warn',
        'live.BASE-RES-03:warn',
        'live.TOOL-CALL-01:warn',
        // and a task call of a tool without task support answered −32602, not −32601 (TASK-TOOL-02, SHOULD).
        'server.tasks.forbidden-task:warn',
        // The proxy passes server-everything's tasks capability on but forwards no tasks/* request:
        // tasks/get, tasks/result and tasks/cancel of an unknown task id get −32601 "Method not found"
        // where −32602 is owed (TASK-ERR-01, MUST),
        'server.tasks.unknown-id/get:fail',
        'server.tasks.unknown-id/result:fail',
        'server.tasks.unknown-id/cancel:fail',
        // and tasks/list (the capability says tasks.list) −32601 where an invalid cursor gets −32602.
        'server.tasks.unknown-id/list-cursor:fail',
      ].sort(),
    );
    expect(report.summary.mustFailures).toBe(11);
  }, RUN_MS);
});
