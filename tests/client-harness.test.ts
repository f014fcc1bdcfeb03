/**
 * `mcpcheck client` against real clients: the hand-rolled fixture (correct, and each break
 * failing its rule), the SDK example client over both transports, and clients that are no
 * clients at all (a setup error, not a grade).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { testClient, type ClientCommandOptions } from '../src/commands/client.js';
import type { RunReport } from '../src/model.js';
import { CLIENT_BREAKS as BREAKS } from './fixtures/client/breaks.js';
import { ALL_PASS, authVerdicts } from './client-auth-verdicts.js';
import { brokenRequirements, describeFailures, harnessErrors, mcpcheckAsync, requireBuild, ROOT } from './server-helpers.js';
import { CLIENT_ENDS_EARLY, verdictLines } from './verdict-snapshot.js';
import { SDK_EXAMPLE as EXAMPLE } from './real-clients.js';

beforeAll(requireBuild);

// The first client's start is waited for up to the pace's ceiling (a slow client may need more than
// 10 s): this run is started before every test and judged last, so that its minute passes meanwhile.
let neverConnects: ReturnType<typeof mcpcheckAsync>;
beforeAll(() => {
  neverConnects = mcpcheckAsync(['client', '--command', `node -e "setTimeout(() => {}, 90000)"`, '--only', 'client.lifecycle.handshake']);
});

const FIXTURE = join(ROOT, 'dist/tests/fixtures/client/client.js');
const GREEDY = join(ROOT, 'dist/tests/fixtures/client/greedy-sdk-client.js');
const CLI = join(ROOT, 'dist/src/cli.js');

function run(command: string, extra: Partial<ClientCommandOptions> = {}): Promise<RunReport> {
  return testClient({ command, targetFlags: `--command ${JSON.stringify(command)}`, concurrency: 3, ...extra });
}

/** The scenario that gives each break its chance to show (the live checks judge what it carries). */
const SHOWN_BY: Record<string, string> = {
  'null-id': 'client.lifecycle.handshake',
  'fractional-id': 'client.lifecycle.handshake',
  'reused-id': 'client.pagination.cursors',
  batch: 'client.lifecycle.handshake',
  'missing-jsonrpc': 'client.utilities.ping',
  'initialized-with-id': 'client.lifecycle.handshake',
  'meta-bad-key': 'client.lifecycle.handshake',
  'init-missing-clientinfo': 'client.lifecycle.handshake',
  'no-initialized': 'client.lifecycle.handshake',
  'request-before-init-response': 'client.lifecycle.waits-for-initialize-response',
  'unsupported-version': 'client.lifecycle.handshake',
  'not-newest-version': 'client.lifecycle.newest-version',
  'ignores-version-mismatch': 'client.lifecycle.unsupported-version',
  'bad-capability-shape': 'client.lifecycle.handshake',
  'no-cancel-on-timeout': 'client.utilities.cancel-on-timeout',
  'sigterm-without-closing-stdin': 'client.stdio.shutdown',
  'ping-nonempty': 'client.utilities.ping',
  'ping-unanswered': 'client.utilities.ping',
  'cancel-initialize': 'client.lifecycle.handshake',
  'cursor-altered': 'client.pagination.cursors',
  'cursor-url-encoded': 'client.pagination.cursors',
  'assumes-page-size': 'client.pagination.page-size',
  'declared-sampling-refused': 'client.sampling.create',
  'bad-sampling-result': 'client.sampling.create',
  'sampling-tools-accepted': 'client.sampling.tools-undeclared',
  'declared-elicitation-refused': 'client.elicitation.form',
  'elicitation-bad-content': 'client.elicitation.form',
  'elicitation-url-content': 'client.elicitation.url',
  'elicitation-modeless-refused': 'client.elicitation.modeless',
  'elicitation-url-undeclared-accepted': 'client.elicitation.url-undeclared',
  'roots-not-file': 'client.roots.list',
  'roots-undeclared-answered': 'client.roots.undeclared',
  'stdin-noise': 'client.lifecycle.handshake',
  'pretty-printed': 'client.lifecycle.handshake',
  'stderr-as-error': 'client.stdio.stderr-not-failure',
  'accept-json-only': 'client.lifecycle.handshake',
  'get-accept-json': 'client.lifecycle.handshake',
  'no-version-header': 'client.lifecycle.handshake',
  'wrong-version-header': 'client.lifecycle.handshake',
  'no-session-header': 'client.lifecycle.handshake',
  'no-reinit-on-404': 'client.http.session-expired',
  'no-delete': 'client.http.delete',
  'no-resume': 'client.http.resume',
  'ignores-retry': 'client.http.resume',
  'hangs-on-server-death': 'client.robust.server-dies',
  'fetches-unsafe-icons': 'client.icons.unsafe-schemes',
  'crashes-on-icon-sizes': 'client.properties.tool-lists',
  'call-arguments-array': 'client.tools.call',
  'task-required-called-plainly': 'client.tasks.required',
  'ignores-poll-interval': 'client.tasks.poll-interval',
  'task-input-keeps-polling': 'client.tasks.input-required',
  'task-cursor-decoded': 'client.tasks.list-cursors',
  'received-task-result-is-task': 'client.tasks.receiver-result',
  'received-task-unknown-internal': 'client.tasks.receiver-unknown-id',
  'received-task-cancel-ended': 'client.tasks.receiver-cancel',
  'received-task-cancel-reply-working': 'client.tasks.receiver-cancel',
  'received-task-uncancelled': 'client.tasks.receiver-cancel',
  'task-awaits-status-notification': 'client.tasks.status-unnotified',
  'decodes-icon-bombs': 'client.icons.hostile-data',
  'fetches-data-icons': 'client.icons.data-not-fetched',
  'icon-credentials': 'client.icons.no-credentials',
  'follows-icon-redirects': 'client.icons.redirects',
  'validates-as-draft-07': 'client.schemas.default-dialect',
  'ignores-declared-dialect': 'client.schemas.declared-draft-07',
  'crashes-on-unknown-dialect': 'client.schemas.unknown-dialect-tool',
  'accepts-unknown-dialect': 'client.schemas.unknown-dialect-elicitation',
};

/** Breaks found by generated cases are found for sure with a seed known to generate what they choke on. */
const BREAK_SEED = 1;

/** Breaks mcpcheck cannot tell from what the spec allows; each says why. */
const UNJUDGED: Record<string, string> = {
  // A cancel for a request whose response has already been sent may have crossed it on the wire:
  // the spec allows that race (CANCEL-07), so live validation only notes it.
  'cancel-answered': 'the race between a response and a cancel is allowed',
};

/** Requirements a break also breaks by necessity, beside its own; each entry says why. */
const ALSO: Record<string, string[]> = {
  // The official schema encodes the same constraint, so the frame also fails its schema.
  'bad-capability-shape': ['BASE-SCHEMA-01', 'LIFE-INIT-01'],
  'init-missing-clientinfo': ['BASE-SCHEMA-01'],
  'bad-sampling-result': ['BASE-RES-03'],
  'elicitation-bad-content': ['BASE-RES-03'],
  // A client that goes on when answered with the newest revision, after asking for a date that is
  // no revision, supports the newest and did not ask for it.
  'unsupported-version': ['LIFE-VER-02'],
  // Breaking down on a draft-07 schema is a misread draft-07 (JSCH-VAL-01) for a client that reads
  // draft-07, and an unsupported dialect not handled gracefully (JSCH-VAL-02) for one that does not.
  'ignores-declared-dialect': ['JSCH-VAL-02'],
  // Serving roots/list undeclared is answering it with something other than −32601.
  'roots-undeclared-answered': ['ROOTS-ERR-01'],
  // tasks/result is judged live as the result of the request that made the task: a Task there is no ElicitResult.
  'received-task-result-is-task': ['BASE-RES-03', 'ELIC-RESP-01'],
  // Resuming after the drop is reconnecting to go on: the two rules describe the same GET.
  'no-resume': ['HTTP-SSE-02'],
};

describe('the correct client fixture', () => {
  for (const transport of ['http', 'stdio'] as const) {
    it(`passes everything that applies, over ${transport}`, async () => {
      const report = await run(`node ${FIXTURE}${transport === 'stdio' ? ' {stdio}' : ''}`);
      expect(harnessErrors(report)).toEqual([]);
      expect(brokenRequirements(report), describeFailures(report)).toEqual([]);
      expect(report.target.role).toBe('client');
      // Scenarios of the other transport are skipped, the rest judged.
      expect(report.checks.filter((c) => c.status === 'pass').length).toBeGreaterThan(25);
      expect(verdictLines(report)).toMatchSnapshot();
    });
  }
});

describe('a conforming variant', () => {
  it('elicitation-form-only refuses URL mode with −32602: client.elicitation.url-undeclared passes', async () => {
    const report = await run(`node ${FIXTURE} --break elicitation-form-only`, { only: ['client.elicitation'] });
    expect(harnessErrors(report)).toEqual([]);
    expect(brokenRequirements(report), describeFailures(report)).toEqual([]);
    expect(report.checks.find((c) => c.id === 'client.elicitation.url-undeclared')?.status).toBe('pass');
    expect(verdictLines(report)).toMatchSnapshot();
  });

  it('no-roots declares no roots and refuses roots/list with −32601: client.roots.undeclared passes', async () => {
    const report = await run(`node ${FIXTURE} --break no-roots`, { only: ['client.roots'] });
    expect(harnessErrors(report)).toEqual([]);
    expect(brokenRequirements(report), describeFailures(report)).toEqual([]);
    expect(report.checks.filter((c) => c.id.startsWith('client.roots.')).map((c) => `${c.status} ${c.id}`)).toEqual(['skip client.roots.list', 'pass client.roots.undeclared/declared', 'pass client.roots.undeclared/refused']);
    expect(verdictLines(report)).toMatchSnapshot();
  });
});

// Each break runs clients of its own, mostly waiting: two at once (maxConcurrency). A break of
// either transport runs over stdio, as the server breaks do: the correct client's runs over both
// show each scenario works on each; a break shows its check can fail.
describe.concurrent('each broken client fixture fails its rule', () => {
  for (const b of BREAKS) {
    const transport = b.transport === 'both' ? 'stdio' : b.transport;
    const unjudged = UNJUDGED[b.name];
    it.skipIf(unjudged !== undefined)(`${b.name} → ${b.requirement} (${transport})`, async ({ expect }) => {
      const scenario = SHOWN_BY[b.name];
      expect(scenario, `no scenario named for break ${b.name}`).toBeDefined();
      const report = await run(`node ${FIXTURE} --break ${b.name}${transport === 'stdio' ? ' {stdio}' : ''}`, { only: [scenario!], seed: BREAK_SEED });
      expect(harnessErrors(report)).toEqual([]);
      const broken = brokenRequirements(report);
      // When the rule did not fail, what its checks said instead is what there is to read.
      const about = report.checks.filter((c) => c.requirements.includes(b.requirement)).map((c) => `${c.status} ${c.id}: ${c.message.slice(0, 300)}`);
      expect(broken, [describeFailures(report), ...about].join('\n')).toContain(b.requirement);
      const allowed = new Set([b.requirement, ...(ALSO[b.name] ?? [])]);
      expect(broken.filter((id) => !allowed.has(id)), describeFailures(report)).toEqual([]);
      expect(verdictLines(report, CLIENT_ENDS_EARLY)).toMatchSnapshot();
    });
  }
});

describe('the property tier', () => {
  const PROPERTY = 'client.properties.tool-lists';
  const property = (report: RunReport) => report.checks.find((c) => c.id === PROPERTY);

  it('judges every generated case of a correct client, seed in the report', async () => {
    const report = await run(`node ${FIXTURE}`, { only: [PROPERTY], seed: 99, properties: 4 });
    expect(report.seed).toBe(99);
    expect(property(report)?.status, describeFailures(report)).toBe('pass');
    expect(property(report)?.message).toMatch(/4 generated case\(s\) judged/);
  });

  it('shrinks a crash to the smallest tool list that still crashes, the same one for the same seed', async () => {
    // A timeout roomy enough that shrinking is never cut short, even on a loaded machine. Over
    // stdio, because there the ping comes after the listing on one pipe: the crash is seen right
    // behind it. Over HTTP the ping may overtake the listing (another stream), and a loaded
    // machine can then let a crashing candidate look held, which sends shrinking elsewhere.
    const once = () => run(`node ${FIXTURE} --break crashes-on-icon-sizes {stdio}`, { only: [PROPERTY], seed: BREAK_SEED, scenarioTimeoutMs: 120_000 });
    const first = property(await once())!;
    const second = property(await once())!;
    expect(first.status).toBe('warn');
    const smallest = (message: string) => /smallest failing tool list \(after \d+ shrink step\(s\).*?\): (\[.*\]); seed/.exec(message)?.[1];
    const shrunk = smallest(first.message);
    expect(shrunk, first.message).toBeDefined();
    const tools = JSON.parse(shrunk!) as Array<Record<string, unknown>>;
    // One tool, one icon, and of that icon nothing but what the crash needs.
    expect(tools).toHaveLength(1);
    expect(tools[0]!.icons).toEqual([{ src: expect.any(String), sizes: [expect.any(String)] }]);
    // The same seed reaches the same smallest case, unless a run says that it passed a smaller
    // candidate by as not judged (a loaded machine can leave a real client's case unjudged).
    const passedBy = (message: string) => message.includes('passed by as not judged');
    if (!passedBy(first.message) && !passedBy(second.message)) expect(smallest(second.message), second.message).toBe(shrunk);
    expect(first.reproduce).toContain(`--seed ${BREAK_SEED}`);
  }, 240_000);

  it('is off with --properties 0', async () => {
    const report = await run(`node ${FIXTURE}`, { only: [PROPERTY], properties: 0 });
    expect(property(report)?.status).toBe('skip');
  });
});

describe('the SDK example client', () => {
  for (const transport of ['http', 'stdio'] as const) {
    it(`is graded with no harness error over ${transport}`, async () => {
      const report = await run(`node ${EXAMPLE}${transport === 'stdio' ? ' {stdio}' : ''}`);
      expect(harnessErrors(report)).toEqual([]);
      expect(brokenRequirements(report), describeFailures(report)).toEqual([]);
      expect(report.target.clientInfo?.name).toBeDefined();
      // Over HTTP the suite's authorization scenarios are part of it: the SDK's OAuth passes each.
      if (transport === 'http') expect(authVerdicts(report), describeFailures(report)).toMatchObject(ALL_PASS);
      // The whole client suite, one client process a scenario: ~23 s alone over HTTP, past 60 s when
      // the full test run loads both cores.
    }, 150_000);
  }
});

describe('a client that ignores the steps and calls every tool it is shown (greedy-sdk-client)', () => {
  const CANCEL = 'client.utilities.cancel-on-timeout';
  const PROPERTY = 'client.properties.tool-lists';
  const status = (report: RunReport, id: string) => report.checks.find((c) => c.id === id);

  it('is judged on LIFE-TIME-01 by its own timeout, never by the step\'s 1000 ms it did not follow', async () => {
    // Its own timeout is the SDK's 60 s, beyond mcpcheck's bound: a skip that says why. With a
    // 3 s timeout of its own it cancels within the bound: a pass. (Over stdio the cancel, which
    // the SDK sends without waiting, is written before the client ends its session.)
    const [sdkDefault, ownTimeout] = await Promise.all([run(`node ${GREEDY} {url}`, { only: [CANCEL] }), run(`node ${GREEDY} --call-timeout 3000 {stdio}`, { only: [CANCEL] })]);
    const skipped = status(sdkDefault, CANCEL)!;
    expect(skipped.status, skipped.message).toBe('skip');
    expect(skipped.message).toMatch(/not with the step's arguments .*no notifications\/cancelled for the call within \d+ ms/);
    expect(status(ownTimeout, CANCEL)?.status, status(ownTimeout, CANCEL)?.message).toBe('pass');
    expect(status(ownTimeout, CANCEL)?.message).toMatch(/the client's own timeout/);
  }, 60_000);

  it('is judged on losing the server mid-request only with the held call pending, not one mcpcheck answered', async () => {
    // It calls add_numbers and echo (answered) before hang_then_die (held). Over HTTP the SDK
    // client, which has no handler for the dropped stream, waits on: a true warning, on that call.
    const report = await run(`node ${GREEDY} {url}`, { only: ['client.robust.server-dies'] });
    const dies = status(report, 'client.robust.server-dies')!;
    expect(dies.status, dies.message).toBe('warn');
    expect(dies.evidence[0]?.excerpt).toMatch(/"name":"hang_then_die"/);
  }, 60_000);

  it('is served every tool it was shown: the property never reads its exit after an "unknown tool" as not tolerating the list', async () => {
    // Seeds whose first lists hold tools the client calls at once; before mcpcheck served what it
    // listed, each was a ROBUST-07 warning: the call answered -32602, the client exited 1 on it.
    // Over stdio, where the ping follows the listing's answer on one pipe, that exit was always seen.
    const reports = await Promise.all([3, 4, 6].map((seed) => run(`node ${GREEDY} {stdio}`, { only: [PROPERTY], seed })));
    for (const report of reports) {
      const property = status(report, PROPERTY)!;
      // A true warning is allowed on one ground only: a listed outputSchema declaring a property
      // named like a member of Object.prototype, whose valid result the SDK client refuses before
      // exiting 1 (its Ajv leaves "__proto__" out of `properties`, and judges an absent "constructor"
      // by the one Object.prototype lends, which is no object).
      if (property.status === 'warn') expect(property.message).toMatch(/smallest failing tool list.*"outputSchema":.*"(__proto__|constructor|toString|valueOf|hasOwnProperty)":\{/s);
      else expect(['pass', 'skip'], property.message).toContain(property.status);
      expect(property.message).not.toMatch(/unknown tool|could not make a result/);
    }
  }, 120_000);
});

describe('something that is no MCP client is not graded', () => {
  const cli = (command: string) => spawnSync(process.execPath, [CLI, 'client', '--command', command, '--only', 'client.lifecycle.handshake'], { encoding: 'utf8', timeout: 90_000 });
  it('a command that does not exist: one line, exit 2', () => {
    const r = cli('mcpcheck-no-such-client-command');
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/could not be started|exited/);
  });
  it('a command that exits at once: one line with its stderr, exit 2', () => {
    const r = cli(`node -e "console.error('no such option'); process.exit(3)"`);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/exited with code 3.*no such option/);
  });
  it('a command that never connects: one line after the start-up wait, exit 2', async () => {
    const r = await neverConnects;
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/sent mcpcheck no message within 60000 ms of starting \(the most mcpcheck waits for a first start\)/);
  }, 90_000);
});
