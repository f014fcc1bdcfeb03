import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, found, fuzz, fuzzAtAsync, mcpcheck, overHttp, type Run } from './fuzz-helpers.js';
import { mcpcheckAsync, requireBuild } from './server-helpers.js';

// The stateful part of mcpcheck fuzz, apart from the case oracles (tests/fuzz.test.ts) so the two files run side by side.
beforeAll(requireBuild);

describe('stateful runs find bugs only a sequence of operations shows, shrunk to the fewest steps', () => {
  const sequences = (bug: string) => fuzz(`${FIXTURE} --bug ${bug}`, ['--runs', '1', '--sequences', '30']);
  const smallest = (run: Run, id: string) => {
    const check = run.report.checks.find((c) => c.id === id)!;
    expect(check.reproduce).toMatch(/--replay .*\.sequence\.json$/);
    return /Smallest failing sequence \((\d+) step\(s\).*replayPath "[^"]*"\): (.*)$/.exec(check.message)!.slice(1);
  };

  it('a second subscribe to the same URI refused: subscribe, subscribe (RES-SUB-01, a MUST)', () => {
    const run = sequences('double-subscribe');
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.sequence.subscribe-result']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.subscribe-result');
    expect(steps).toBe('2');
    expect(shown).toMatch(/^subscribe (\S+) → subscribe \1$/);
  }, 60_000);

  it('updates after unsubscribing: subscribe, unsubscribe, a call (RES-SUB-02)', () => {
    const run = sequences('stale-updates');
    expect(found(run)).toEqual(['fuzz.sequence.updates-subscribed']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.updates-subscribed');
    expect(steps).toBe('3');
    expect(shown).toMatch(/^subscribe (\S+) → unsubscribe \1 → call/);
  }, 60_000);

  it('the log level ignored: setLevel, a call (LOG-SET-02)', () => {
    const run = sequences('level-ignored');
    expect(found(run)).toEqual(['fuzz.sequence.level-respected']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.level-respected');
    expect(steps).toBe('2');
    expect(shown).toMatch(/^logging\/setLevel (?!debug)\w+ → call/);
  }, 60_000);

  it("its own cursor refused once the session subscribed: subscribe, then walk the list (PAGE-01, a MUST)", () => {
    const run = sequences('cursor-after-subscribe');
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.sequence.cursor-accepted']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.cursor-accepted');
    expect(steps).toBe('2');
    expect(shown).toMatch(/^subscribe \S+ → resources\/list to its last page$/);
  }, 60_000);

  it('pages that repeat after a call: a call, then walk the list (PAGE-05)', () => {
    const run = sequences('pages-repeat-after-call');
    expect(found(run)).toEqual(['fuzz.sequence.pages-end']);
    const [steps, shown] = smallest(run, 'fuzz.sequence.pages-end');
    expect(steps).toBe('2');
    expect(shown).toMatch(/^call .* → resources\/list to its last page$/);
  }, 60_000);

  it('a tool call never answered while ping still is: one step, the smallest call that goes unanswered (BASE-ID-04)', () => {
    const run = fuzz(`${FIXTURE} --bug silent-count`, ['--runs', '1', '--sequences', '20', '--case-timeout', '500']);
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.sequence.one-response']);
    expect(run.report.checks.find((c) => c.id === 'fuzz.sequence.one-response')!.message).toMatch(/^tools\/call \(step: .*\) got no response within \d+ ms, while a ping sent after it was answered in \d+ ms/);
    const [steps, shown] = smallest(run, 'fuzz.sequence.one-response');
    expect(steps).toBe('1');
    expect(shown).toBe('call echo {"text":"","count":4}');
  }, 60_000);

  it('a crash on the call after a cancelled one, and --replay of the saved sequence reproduces it', () => {
    const run = sequences('crash-after-cancel');
    // The crash comes at the next call: a plain call (the server stops answering ping) or another cancelled one.
    const [id] = found(run);
    expect(found(run)).toHaveLength(1);
    expect(['fuzz.sequence.cancel-healthy', 'fuzz.sequence.survives']).toContain(id);
    const [steps, shown] = smallest(run, id!);
    expect(steps).toBe('2');
    expect(shown).toMatch(/^call and cancel wait .* → call/);
    const file = join(run.out, readdirSync(run.out).find((f) => f.endsWith('.sequence.json'))!);
    const again = mcpcheck(['fuzz', '--stdio', `${FIXTURE} --bug crash-after-cancel`, '--replay', file]);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stdout).toMatch(new RegExp(`(FAIL|WARN)\\s+${id!.replace(/\./g, '\\.')}`));
    expect(mcpcheck(['fuzz', '--stdio', `${FIXTURE} --stateful`, '--replay', file]).code).toBe(0);
  }, 60_000);

  it('the correct stateful fixture passes every invariant it exercised, and exercises them all', () => {
    const run = fuzz(`${FIXTURE} --stateful`, ['--runs', '1', '--sequences', '30']);
    expect(found(run)).toEqual([]);
    expect(run.code).toBe(0);
    const sequenceChecks = run.report.checks.filter((c) => c.id.startsWith('fuzz.sequence.'));
    // Two sessions of one server need HTTP: over stdio those two are skips that say so.
    const twoSessions = ['fuzz.sequence.second-session', 'fuzz.sequence.updates-own-session'];
    expect(sequenceChecks.filter((c) => c.status !== 'pass' && !twoSessions.includes(c.id)).map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    for (const id of twoSessions) expect(sequenceChecks.find((c) => c.id === id)).toMatchObject({ status: 'skip', message: expect.stringMatching(/two sessions of one server need --url/) });
    expect(sequenceChecks).toHaveLength(12);
  }, 60_000);
});

// Side by side: these runs mostly wait on their servers (the one-transport one on lost answers).
describe.concurrent('stateful runs over HTTP open a second session on the same server and keep the two apart', () => {
  const sequences = (url: string, extra: string[] = []) => fuzzAtAsync(['--url', url], ['--runs', '1', '--sequences', '30', ...extra]);

  it('the correct fixture: no finding, and every invariant exercised, the two session ones and the log level too', async () => {
    const run = await overHttp(['--stateful'], (url) => sequences(url));
    expect(found(run)).toEqual([]);
    expect(run.code).toBe(0);
    const sequenceChecks = run.report.checks.filter((c) => c.id.startsWith('fuzz.sequence.'));
    expect(sequenceChecks.filter((c) => c.status !== 'pass').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(sequenceChecks).toHaveLength(12);
  }, 60_000);

  it('the log level ignored, over HTTP: a message on the stream of a later request counts as after the setLevel (LOG-SET-02)', async () => {
    const run = await overHttp(['--bug', 'level-ignored'], (url) => sequences(url));
    expect(found(run)).toEqual(['fuzz.sequence.level-respected']);
  }, 60_000);

  it('a server that serves one session at a time is not judged for two: no finding, both session invariants skipped with the reason', async () => {
    const run = await overHttp(['--stateful', '--single-session'], (url) => sequences(url));
    expect(found(run)).toEqual([]);
    expect(run.code).toBe(0);
    for (const id of ['fuzz.sequence.second-session', 'fuzz.sequence.updates-own-session']) {
      expect(run.report.checks.find((c) => c.id === id)).toMatchObject({ status: 'skip', message: expect.stringMatching(/did not open a second session .*one session at a time/) });
    }
    expect(run.report.checks.find((c) => c.id === 'fuzz.sequence.subscribe-result')?.status).toBe('pass');
  }, 60_000);

  it("updates for another session's subscription: subscribe, then a call on two sessions at once (RES-SUB-02); --replay reproduces it", async () => {
    await overHttp(['--bug', 'shared-subscriptions'], async (url) => {
      const run = await sequences(url);
      expect(run.code).toBe(1);
      expect(found(run)).toEqual(['fuzz.sequence.updates-own-session']);
      const check = run.report.checks.find((c) => c.id === 'fuzz.sequence.updates-own-session')!;
      expect(check.message).toMatch(/on the second session .*which subscribed to nothing; the first session is subscribed to/);
      expect(check.message).toMatch(/Smallest failing sequence \(2 step\(s\).*\): subscribe (\S+) → on two sessions at once: .*call/);
      expect(check.evidence.map((e) => e.location)).toEqual(expect.arrayContaining([expect.stringMatching(/-second\.jsonl$/)]));
      const file = /--replay (\S+)$/.exec(check.reproduce!)![1]!;
      const again = await mcpcheckAsync(['fuzz', '--url', url, '--replay', file]);
      expect(again.code, again.stdout + again.stderr).toBe(1);
      expect(again.stdout).toMatch(/WARN\s+fuzz\.sequence\.updates-own-session/);
    });
  }, 60_000);

  it("answers sent on another session's stream: a request on one of two sessions goes unanswered (BASE-ID-04)", async () => {
    const run = await overHttp(['--bug', 'one-transport'], (url) => sequences(url, ['--case-timeout', '2000']));
    expect(run.code).toBe(1);
    expect(found(run)).toEqual(['fuzz.sequence.second-session']);
    expect(run.report.checks.find((c) => c.id === 'fuzz.sequence.second-session')!.message).toMatch(/got no response|responses with id/);
  }, 90_000);
});
