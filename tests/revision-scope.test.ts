/**
 * Rules are judged per negotiated revision (issue 6, item 8): the validators, the HTTP transport and
 * scenario checks never judge a session by a rule its revision does not have, and such a rule never
 * counts as applied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientSession } from '../src/harness/client-session.js';
import { clauseSince } from '../src/spec/catalog.js';
import { HttpTarget } from '../src/harness/target.js';
import { CheckRecorder } from '../src/runner/checks.js';
import { type Finding, violation } from '../src/validate/finding.js';
import { findingsIn } from '../src/validate/in-revision.js';
import type { StatefulRevision as Revision } from '../src/spec/revisions.js';
import { SessionValidator } from '../src/validate/session.js';
import { freePort, REFERENCE, requireBuild } from './server-helpers.js';

const tags = (findings: Finding[]) => findings.map((f) => `${f.requirements.join('+')}:${f.severity}`);

describe('findingsIn', () => {
  it('drops a finding whose rules the revision lacks and keeps the rules it has', () => {
    const priming = violation('HTTP-SSE-01', 'no priming event');
    expect(findingsIn([priming], '2025-06-18')).toEqual([]);
    expect(findingsIn([priming], '2025-11-25')).toEqual([priming]);
    // ROBUST-08 is 2025-11-25 only; BASE-ERR-01 holds in every revision and leads once it goes.
    const both = violation(['ROBUST-08', 'BASE-ERR-01'], 'error with "id": null', '', 'warn');
    expect(tags(findingsIn([both], '2025-06-18'))).toEqual(['BASE-ERR-01:warn']);
  });

  it('softens a MUST failure whose remaining leader is a SHOULD, never the other way', () => {
    // TASK-ST-01 (MUST) is 2025-11-25 only; TOOL-ERR-01 (SHOULD) holds in every revision.
    const f = violation(['TASK-ST-01', 'TOOL-ERR-01'], 'a task that did not start in working');
    expect(tags([f])).toEqual(['TASK-ST-01+TOOL-ERR-01:fail']);
    expect(findingsIn([f], '2025-06-18')).toMatchObject([{ requirements: ['TOOL-ERR-01'], level: 'SHOULD', severity: 'warn' }]);
  });
});

describe('clauses a rule gained later (revisions.json clauses)', () => {
  it('dates HTTP-ORIGIN-01\'s 403 Forbidden to 2025-11-25 and refuses a clause it does not know', () => {
    expect(clauseSince('HTTP-ORIGIN-01', '403')).toBe('2025-11-25');
    expect(() => clauseSince('HTTP-ORIGIN-01', 'no-such-clause')).toThrow(/no clause/);
  });
});

describe('SessionValidator on an older revision', () => {
  /** A session where the server uses a `_meta` key that breaks the key format of 2025-06-18 on. */
  function session(revision: Revision): { findings: Finding[]; applied: Set<string> } {
    const s = new SessionValidator({ transport: 'stdio' });
    const findings = [
      ...s.message('client', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, 0),
      ...s.message('server', { jsonrpc: '2.0', id: 1, result: { protocolVersion: revision, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } }, 1),
      ...s.message('client', { jsonrpc: '2.0', method: 'notifications/initialized' }, 2),
      ...s.message('client', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, 3),
      ...s.message('server', { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'echo me', inputSchema: { type: 'object' } }], _meta: { 'com.1example/trace': 'a' } } }, 4),
    ];
    return { findings, applied: s.appliedBy.server };
  }

  it('neither reports nor counts rules newer than the negotiated revision', () => {
    const old = session('2025-03-26');
    expect(tags(old.findings)).toEqual([]);
    for (const id of ['META-KEY-02', 'TOOL-NAME-01', 'JSCH-VAL-03']) expect(old.applied.has(id), id).toBe(false);
    expect(old.applied.has('TOOL-LIST-01')).toBe(true);

    const latest = session('2025-11-25');
    expect(tags(latest.findings).sort()).toEqual(['META-KEY-02:fail', 'TOOL-NAME-01:warn']);
    for (const id of ['META-KEY-02', 'TOOL-NAME-01', 'TOOL-LIST-01']) expect(latest.applied.has(id), id).toBe(true);
  });
});

describe('the reference server without priming events (--break http-no-priming-event), per negotiated revision', () => {
  let target: HttpTarget;

  beforeAll(async () => {
    requireBuild();
    const port = await freePort();
    target = new HttpTarget({ url: `http://127.0.0.1:${port}/mcp`, start: `node ${REFERENCE} --http --port ${port} --break http-no-priming-event` });
    await target.prepare();
  });
  afterAll(() => target?.close());

  /** Calls the streaming `log` tool on a session of `revision`, then records a scenario check of HTTP-SSE-01. */
  async function run(revision: Revision) {
    const findings: Finding[] = [];
    const session = new ClientSession({ channel: await target.open(), transport: 'http', requestTimeoutMs: 5000, onFinding: (f) => findings.push(f) });
    try {
      const init = await session.initialize({ protocolVersion: revision });
      expect(init.kind).toBe('result');
      expect(session.revision).toBe(revision);
      expect((await session.request('tools/call', { name: 'log', arguments: {} })).kind).toBe('result');
      const check = new CheckRecorder('server.http.priming-probe', 'priming', ['HTTP-SSE-01'], () => session, 'reproduce');
      check.expect(false, { expected: 'a priming event', actual: 'none' });
      return { live: findings.filter((f) => f.requirements.includes('HTTP-SSE-01')), check: check.results[0]! };
    } finally {
      await session.close();
    }
  }

  it('2025-11-25: the missing priming event is reported live and fails the scenario check', async () => {
    const { live, check } = await run('2025-11-25');
    expect(tags(live)).toEqual(['HTTP-SSE-01:warn']);
    expect(check).toMatchObject({ status: 'warn', requirements: ['HTTP-SSE-01'] });
  });

  it('2025-06-18: no priming is demanded, and the scenario check is a skip saying why', async () => {
    const { live, check } = await run('2025-06-18');
    expect(live).toEqual([]);
    expect(check).toMatchObject({ status: 'skip', requirements: ['HTTP-SSE-01'], message: 'HTTP-SSE-01 is not a rule of revision 2025-06-18 (new in 2025-11-25)' });
    expect(check.reproduce).toBeUndefined();
  });
});
