/**
 * A request a live target (one still answering ping) never answers is its failure (BASE-ID-04);
 * one a target that answers nothing any more never answers stays "could not run" (mcpcheck's wait
 * may simply be too short for a slow or hung target).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientSession } from '../src/harness/client-session.js';
import { StdioChannel } from '../src/transport/stdio.js';
import { requireBuild, runStdio } from './server-helpers.js';

beforeAll(requireBuild);

/**
 * A minimal MCP server over stdio. `drops`: it never answers a request for mcpcheck/silent or a
 * message whose method is no string or whose params are no object, and answers everything else. `hangs`: from such a message on,
 * it answers nothing at all.
 */
const SERVER = `
const mode = process.argv[2];
let hung = false;
let buffer = '';
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    let m;
    try { m = JSON.parse(line); } catch { continue; }
    if (hung || !('id' in m)) continue;
    if (typeof m.method !== 'string' || m.method === 'mcpcheck/silent' || ('params' in m && (typeof m.params !== 'object' || m.params === null))) {
      if (mode === 'hangs') hung = true;
      continue;
    }
    if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: 'silent', version: '1.0.0' } } });
    else if (m.method === 'ping') send({ id: m.id, result: {} });
    else send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;

let dir: string;
let script: string;
const sessions: ClientSession[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpcheck-unanswered-'));
  script = join(dir, 'silent-server.cjs');
  writeFileSync(script, SERVER);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

async function open(mode: 'drops' | 'hangs'): Promise<ClientSession> {
  const channel = await StdioChannel.start({ command: process.execPath, argv: [process.execPath, script, mode], killGraceMs: 500 });
  const session = new ClientSession({ channel, transport: 'stdio', requestTimeoutMs: 400, startupMs: 10_000 });
  sessions.push(session);
  expect((await session.initialize()).kind).toBe('result');
  await session.notify('notifications/initialized');
  return session;
}

describe('a request whose wait runs out', () => {
  it('is unanswered when a ping sent after it is answered: the live validator fails BASE-ID-04 at the end', async () => {
    const session = await open('drops');
    const sent = session.mark;
    const reply = await session.request('mcpcheck/silent', {});
    expect(reply).toMatchObject({ kind: 'unanswered', waitedMs: 400 });
    expect(reply.kind === 'unanswered' && reply.pingMs).toBeLessThan(400);
    session.end();
    const found = session.findings.filter((f) => f.requirements.includes('BASE-ID-04'));
    expect(found.map((f) => f.severity)).toEqual(['fail']);
    expect(found[0]!.message).toMatch(/never answered 1 client request\(s\), though it answered a ping sent after each: mcpcheck\/silent \(frame (\d+)\)/);
    expect(Number(/\(frame (\d+)\)/.exec(found[0]!.message)![1])).toBe(sent);
    // Its evidence is the target's own frame: the answer to the ping.
    expect(session.frames.find((f) => f.index === found[0]!.frame)).toMatchObject({ from: 'server', message: { result: {} } });
  });

  it('stays a timeout (could not run) when the target answers no ping either: no BASE-ID-04 failure', async () => {
    const session = await open('hangs');
    const reply = await session.request('mcpcheck/silent', {});
    expect(reply).toEqual({ kind: 'timeout', waitedMs: 400, strays: [], pingedAfter: true });
    session.end();
    expect(session.findings.filter((f) => f.requirements.includes('BASE-ID-04')).map((f) => f.severity)).toEqual(['info']);
  });

  it('cancelled after mcpcheck gave up on it, is no BASE-ID-04 failure', async () => {
    const session = await open('drops');
    const reply = await session.request('mcpcheck/silent', {}, 300);
    expect(reply.kind).toBe('unanswered');
    await session.notify('notifications/cancelled', { requestId: 2, reason: 'given up' });
    session.end();
    expect(session.findings.filter((f) => f.requirements.includes('BASE-ID-04'))).toEqual([]);
  });
});

describe('server.base.invalid-request and invalid-params (ruling invalid-request-answered)', () => {
  const only = ['server.base.invalid-request', 'server.base.invalid-params'];

  it('fail BASE-ID-04 on a target that leaves them unanswered but answers ping', async () => {
    const report = await runStdio(`node ${script} drops`, { only, requestTimeoutMs: 1_000 });
    const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    expect(status).toMatchObject({
      'server.base.invalid-request/answered': 'fail',
      'server.base.invalid-request/code': 'skip',
      'server.base.invalid-params/answered': 'fail',
      'server.base.invalid-params/code': 'skip',
      'live.BASE-ID-04': 'fail',
    });
    expect(report.checks.find((c) => c.id === 'server.base.invalid-request/answered')?.message).toMatch(/ruling invalid-request-answered.*while a ping sent after it was answered in \d+ ms/);
  });

  it('could not run on a target that stops answering everything', async () => {
    const report = await runStdio(`node ${script} hangs`, { only, requestTimeoutMs: 1_000, concurrency: 1 });
    const mine = report.checks.filter((c) => c.id.startsWith('server.base.invalid-'));
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.filter((c) => c.status === 'fail' || c.status === 'pass')).toEqual([]);
    expect(report.requirements.find((r) => r.id === 'BASE-ID-04')?.status).not.toBe('fail');
  });
});
