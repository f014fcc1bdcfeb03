import { beforeAll, describe, expect, it } from 'vitest';
import { BREAKS, VARIANTS } from './fixtures/reference/breaks.js';
import type { ServerCommandOptions } from '../src/commands/server.js';
import { breakScope, brokenRequirements, describeFailures, harnessErrors, isProtectedBreak, PROTECTED_RUN, REFERENCE, requireBuild, runHttp, runStdio, withProtectedToken } from './server-helpers.js';
import { verdictLines } from './verdict-snapshot.js';
import { findRequirement } from '../src/spec/catalog.js';

beforeAll(requireBuild);

/**
 * Requirements that a break also breaks by necessity, beside its own. Each entry says why; keep
 * the list minimal — an entry here is a place where one violation shows up under two rules.
 */
const ALSO: Record<string, string[]> = {
  // The official schema encodes the same constraint, so the result also fails its schema.
  'bad-blob': ['BASE-RES-03'],
  'bad-template': ['BASE-RES-03'],
  'task-get-no-ttl': ['BASE-RES-03'],
  'bad-resource-uri': ['BASE-RES-03', 'RES-LIST-01', 'RES-READ-01'],
  // A list that ends without tasks it must hold gave no nextCursor while they remained, and the
  // reverse: one defect, two rules (ruling task-list-ends-early).
  'task-list-omits-finished': ['TASK-LIST-01'],
  'task-list-no-next-cursor': ['TASK-LIST-03'],
  // The request a task sends is the example TASK-META-01 gives of its rule: one check cites both.
  'task-input-unrelated': ['TASK-META-01'],
  'init-missing-serverinfo': ['BASE-RES-03'],
  // The live validator judges every result by the negotiated revision's schema too: a later
  // revision's construct, graded at LIFE-OP-01's SHOULD there (ruling later-revision-construct).
  'old-revision-new-shapes': ['BASE-RES-03', 'TOOL-CALL-01'],
  'inputschema-not-object': ['BASE-RES-03', 'TOOL-LIST-01'],
  'tool-bad-annotation': ['BASE-RES-03', 'TOOL-LIST-01'],
  'tool-missing-inputschema': ['BASE-RES-03'],
  'prompt-bad-role': ['BASE-RES-03'],
  'log-bad-level': ['BASE-SCHEMA-01'],
  // A result with "id": null is also a result whose id is not the request's.
  'null-id-executed': ['BASE-RES-01'],
  // An unknown notification answered is both "never answered" and "unknown ones ignored".
  // The answer can carry no id (a notification has none): an id-less error while no request awaits
  // one is BASE-ERR-01's too, every run (a malformed request answered with its id no longer leaves
  // a slot open for it).
  'answers-notifications': ['ROBUST-04', 'BASE-ERR-01'],
  // A task made for a request type not declared is also a type accepted as a task without declaring it.
  'tasks-undeclared-creates': ['TASK-CAP-01'],
  // The call left unanswered gets no error either, so no code to judge.
  'nameless-call-unanswered': ['TOOL-ERR-01'],
  // The invalid request left unanswered gets no −32600 either (BASE-ERR-04, a SHOULD: a warning).
  'invalid-request-unanswered': ['BASE-ERR-04'],
  // Answers in text/plain are no answers mcpcheck can read: the batch's requests among them.
  'http-wrong-content-type': ['ROBUST-05'],
  // Every answer comes twice, so the 2025-03-26 batch's requests are not each answered once either.
  'responds-twice': ['ROBUST-05'],
  // The unknown-method probe checks the −32601 code under both rules.
  'method-not-found-code': ['BASE-ERR-04'],
  // A string code is not the −32601 the unknown-method probe (and the task probes of tools that do not take tasks, or need them) expects.
  'error-code-not-integer': ['BASE-ERR-04', 'ROBUST-04', 'TASK-TOOL-02', 'TASK-TOOL-04'],
  // The 200 body answering a notification is not a JSON-RPC message.
  'http-notification-200': ['BASE-MSG-01'],
  // A message sent on every open stream keeps its event id and, for a request to the client
  // (ask_llm, list_roots), its request id: both then show up twice (when such a tool runs meanwhile).
  'http-broadcast-notifications': ['BASE-ID-03', 'HTTP-RESUME-01'],
  // GET → 404 breaks "single endpoint for POST and GET" and "GET → SSE or 405" alike.
  'http-get-404': ['HTTP-GET-02'],
  // Errors without an id, or responses with the wrong id, match no request: the unknown method's
  // probe sees no error response (BASE-ERR-04) and the server no longer answering its own way
  // (ROBUST-04); the ping, no answer (PING-01).
  'error-without-id': ['BASE-ERR-04', 'ROBUST-04'],
  'wrong-response-id': ['PING-01'],
  // Ids that count up are neither random-looking (HTTP-SESS-02) nor unpredictable (SEC-SESS-02).
  'http-sequential-session-id': ['HTTP-SESS-02'],
};

/** Breaks that only show when mcpcheck is allowed to do more than read. */
const OPTIONS: Record<string, Partial<ServerCommandOptions>> = {
  // The update for an unsubscribed resource follows write_note, which is not read-only.
  'updated-without-subscription': { callTools: 'all' },
  // The subscription and list-changed scenarios cause changes only through write_note.
  'updates-after-unsubscribe': { callTools: 'all' },
  'list-changed-silent': { callTools: 'all' },
  // Generated cases find it: a seed known to generate two negative addends within ten cases.
  'crashes-on-negative-addends': { seed: 2, properties: 10 },
  // One lane: whether the task call's session listed its tools first (what the live task rules
  // need to know the tool) would otherwise hang on which lane ran what, and the verdict lines with it.
  'task-result-silent': { concurrency: 1 },
};

/** The generated cases' seed of every break run: what they exercise (TOOL-OUT-03, say) is then the same each run. */
const BREAK_SEED = 1;

/** Scenarios whose traffic shows a break to the live checks, beside the ones citing its rule (breakScope). */
const SHOWN_BY: Record<string, string[]> = {
  // Only a tool call with a progress token is answered with an SSE stream, whose first event is the priming one.
  'http-no-priming-event': ['server.utilities.progress'],
  // and so is every event id of it.
  'http-duplicate-event-ids': ['server.utilities.progress'],
  // Rules only the live checks judge, on the traffic that carries each break:
  // the InitializeResult and ping answers every scenario gets,
  'invalid-utf8-output': ['server.utilities.ping'],
  'missing-jsonrpc': ['server.utilities.ping'],
  'icon-javascript': ['server.utilities.ping'],
  'icon-bad-sizes': ['server.utilities.ping'],
  // the metadata that names an authorization server (graded apart: its break fails there),
  'auth-as-without-s256': ['server.auth.resource-metadata-servers'],
  // the tools listed and called,
  'reserved-meta-key': ['server.tools.list'],
  'bad-meta-key': ['server.tools.call'],
  // the log tool's notifications (the tool called) and the resources read,
  'batch-sent': ['server.tools.call'],
  'notification-with-id': ['server.tools.call'],
  'log-bad-level': ['server.tools.call'],
  'bad-resource-uri': ['server.resources.read'],
  'log-without-capability': ['server.tools.call'],
  // the unknown method's error,
  'result-and-error': ['server.base.unknown-method'],
  'error-without-id': ['server.base.unknown-method'],
  'error-code-not-integer': ['server.base.unknown-method'],
  // the ping answers,
  'wrong-response-id': ['server.utilities.ping'],
  // and the tasks a task scenario creates, polls and reads.
  'task-starts-completed': ['server.tasks.create'],
  'task-bad-timestamp': ['server.tasks.create'],
  'task-get-no-ttl': ['server.tasks.create'],
  'task-meta-on-get': ['server.tasks.create'],
  'task-result-no-related-meta': ['server.tasks.result'],
  'task-result-silent': ['server.tasks.result'],
  'task-progress-after-end': ['server.tasks.result'],
};

describe('the reference server', () => {
  it('passes with zero failures over stdio', async () => {
    const report = await runStdio(`node ${REFERENCE}`);
    expect(describeFailures(report)).toBe('');
    expect(report.summary.checks.pass).toBeGreaterThan(40);
    expect(verdictLines(report)).toMatchSnapshot();
  });

  for (const transport of ['stdio', 'http'] as const) {
    it(`passes with zero failures when it may call every tool (${transport})`, async () => {
      // write_note is what makes subscriptions and list changes observable.
      const report =
        transport === 'http' ? await runHttp((port) => `node ${REFERENCE} --http --port ${port}`, { callTools: 'all' }) : await runStdio(`node ${REFERENCE}`, { callTools: 'all' });
      expect(describeFailures(report)).toBe('');
      expect(verdictLines(report)).toMatchSnapshot();
      const passed = report.checks.filter((c) => c.status === 'pass').map((c) => c.id);
      expect(passed.filter((id) => /^server\.(resources\.updates|notifications\.list-changed|lifecycle\.client-capabilities)\//.test(id)).sort()).toEqual([
        'server.lifecycle.client-capabilities/roots',
        'server.lifecycle.client-capabilities/sampling',
        'server.notifications.list-changed/resources',
        'server.resources.updates/subscribed',
        'server.resources.updates/unsubscribed',
      ]);
    });
  }

  it('passes with zero failures over Streamable HTTP', async () => {
    const report = await runHttp((port) => `node ${REFERENCE} --http --port ${port}`);
    expect(describeFailures(report)).toBe('');
    expect(report.summary.checks.pass).toBeGreaterThan(40);
    expect(verdictLines(report)).toMatchSnapshot();
    // Its resumed stream redelivers the dropped request's response: what the spec allows (MAY), passed as such.
    expect(report.checks.find((c) => c.id === 'server.http.resume/not-cancelled')).toMatchObject({ status: 'pass', level: 'MAY' });
  });
});

// Each break runs a server and the scenarios citing its rule (breakScope), mostly waiting: two at once (maxConcurrency).
describe.concurrent('each broken variant fails exactly its rule', () => {
  for (const b of BREAKS) {
    const transport = b.transport === 'http' ? 'http' : 'stdio';
    it(`${b.name} → ${b.requirement} (${transport})`, async ({ expect }) => {
      // Broken servers leave requests unanswered; a short request timeout keeps those runs quick. The
      // breaks are of a 2025-11-25 server, so the run speaks it: era detection (two more server starts
      // a run) is tested on the correct server, here and in server-2026.test.ts.
      const options = { requestTimeoutMs: 2_000, seed: BREAK_SEED, specVersion: '2025-11-25', ...breakScope(b.requirement, '2025-11-25', SHOWN_BY[b.name]), ...OPTIONS[b.name] };
      // An authorization break is of a protected server: the run has its token.
      const auth = isProtectedBreak(b.name);
      const report =
        transport === 'http'
          ? await runHttp((port) => (auth ? withProtectedToken : (c: string) => c)(`node ${REFERENCE} --http --port ${port} --break ${b.name}`), auth ? { ...options, ...PROTECTED_RUN } : options)
          : await runStdio(`node ${REFERENCE} --break ${b.name}`, options);
      expect(harnessErrors(report)).toEqual([]);
      // A rule of the authorization server the server names is judged in that server's section, the server's own report clean.
      const ofAs = findRequirement(b.requirement)?.binds === 'AS';
      const judged = ofAs ? report.authorizationServers?.[0]?.report : report;
      if (ofAs) expect(brokenRequirements(report), describeFailures(report)).toEqual([]);
      expect(judged, JSON.stringify(report.authorizationServers)).toBeDefined();
      const broken = brokenRequirements(judged!);
      expect(broken, describeFailures(judged!)).toContain(b.requirement);
      const allowed = new Set([b.requirement, ...(ALSO[b.name] ?? [])]);
      expect(broken.filter((id) => !allowed.has(id)), describeFailures(judged!)).toEqual([]);
      // A MUST graded as a warning counts under SHOULD, never against the MUSTs.
      if (b.verdict) expect(judged!.requirements.find((r) => r.id === b.requirement), describeFailures(judged!)).toMatchObject({ status: b.verdict, level: 'SHOULD' });
      expect(verdictLines(judged!)).toMatchSnapshot();
    });
  }
});

describe('one defect, one finding', () => {
  it('a server whose newest revision is 2025-03-26 has its batch judged by server.base.batch-2025-03-26 alone', async () => {
    const report = await runStdio(`node ${REFERENCE} --break newest-2025-03-26`, { only: ['server.base.batch', 'server.base.batch-2025-03-26'] });
    expect(report.target.protocolVersion).toBe('2025-03-26');
    expect(report.checks.find((c) => c.id === 'server.base.batch/executed-or-refused')).toMatchObject({ status: 'skip', message: expect.stringMatching(/^judged by server\.base\.batch-2025-03-26/) });
    expect(report.checks.find((c) => c.id === 'server.base.batch-2025-03-26')?.status).toBe('pass');
  });
});

describe('sessions a server does not require', () => {
  it('an id it never issued, served as no id would be, is no ended session: unknown-id is a skip', async () => {
    const report = await runHttp((port) => `node ${REFERENCE} --http --port ${port} --break http-no-session-required`, { only: ['server.http.session-ended'] });
    expect(report.checks.find((c) => c.id === 'server.http.session-ended/unknown-id')).toMatchObject({ status: 'skip', message: expect.stringMatching(/does not require a session.*ruling session-never-issued/) });
    expect(report.checks.find((c) => c.id === 'server.http.session-ended/reuse')?.status).toBe('pass');
  });
});

describe('each conforming variant gets exactly its verdicts and no failure', () => {
  for (const v of VARIANTS) {
    it(`${v.name} → ${Object.entries(v.verdicts).map(([id, status]) => `${id} ${status}`).join(', ')} (${v.transport})`, async () => {
      const options = { only: [...v.only] };
      const report =
        v.transport === 'http'
          ? await runHttp((port) => `node ${REFERENCE} --http --port ${port} --break ${v.name}`, options)
          : await runStdio(`node ${REFERENCE} --break ${v.name}`, options);
      expect(harnessErrors(report)).toEqual([]);
      expect(brokenRequirements(report), describeFailures(report)).toEqual(Object.keys(v.verdicts).filter((id) => v.verdicts[id] === 'warn'));
      for (const [id, status] of Object.entries(v.verdicts)) {
        expect(report.requirements.find((r) => r.id === id)?.status, `${id}: ${describeFailures(report)}`).toBe(status);
      }
      expect(verdictLines(report)).toMatchSnapshot();
    });
  }
});
