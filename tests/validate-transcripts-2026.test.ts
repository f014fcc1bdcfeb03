/**
 * The 2026-07-28 transcript corpus (tests/fixtures/transcripts/valid-2026, broken-2026): modern
 * sessions and a dual-era one (a 2025-11-25 initialize session and a modern client interleaved on
 * one server) get no fail or warn finding; each broken transcript breaks exactly one rule, which is
 * reported at its 2026-07-28 level, and no other rule is (but the co-findings listed with a reason).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { levelIn, requirementIn } from '../src/spec/catalog.js';
import type { RequirementId } from '../src/spec/requirement-id.js';
import { parseTranscript } from '../src/transcript/format.js';
import { validateTranscript } from '../src/transcript/validate.js';
import type { Finding } from '../src/validate/finding.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/transcripts');
const VALID = join(FIXTURES, 'valid-2026');
const BROKEN = join(FIXTURES, 'broken-2026');

function list(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
}

function run(path: string) {
  const transcript = parseTranscript(readFileSync(path, 'utf8'), path);
  return { transcript, ...validateTranscript(transcript) };
}

function render(findings: Finding[]): string[] {
  return findings.map((f) => `${f.severity} ${f.requirements.join('+')} @${f.frame ?? '-'}${f.pointer}: ${f.message.slice(0, 200)}`);
}

/** Rules a broken transcript's one violation necessarily implies, with the reason. */
const CO_FINDINGS: Readonly<Record<string, { ids: string[]; why: string }>> = {
  'META-RSV-04--server-info-without-version': { ids: ['BASE-RES-03'], why: 'serverInfo without version makes the result fail its schema, the finding META-RSV-04 names' },
  'LOG-REQ-03--log-on-subscription': { ids: ['SUBS-SCOPE-01'], why: 'a log message on a subscription is a request-scoped notification off its request (one finding, both rules)' },
  'CANCEL-12--reason-not-a-string': { ids: ['BASE-SCHEMA-01'], why: 'the cancel fails the notification\'s schema, the finding CANCEL-12 names' },
  'ELIC-FORM-02--input-request-nested-object': { ids: ['MRTR-SRV-04'], why: 'a nested requestedSchema also makes the input request fail ElicitRequest' },
  'MRTR-SRV-05--elicitation-not-declared': { ids: ['META-REQ-04'], why: 'asking for an undeclared kind relies on a capability the request did not declare (one finding, both rules)' },
  'MRTR-SRV-01--server-sends-elicitation-request': { ids: ['BASE-DIR-01', 'STDIO-DIR-02'], why: 'asking for input with a request of its own is a server sending a JSON-RPC request at all, which stdio (the transcript\'s transport) restates' },
  'CACHE-TTL-01--fractional-ttl': { ids: [], why: 'the schema types ttlMs as integer: that error is CACHE-TTL-01\'s own, not a second schema finding' },
  'TASK-NEG-01--handle-for-a-request-without-the-extension': { ids: ['EXT-NEG-02', 'BASE-RES-07'], why: 'the tasks extension restates the core rule that an extension\'s resultType needs the request to advertise it (one finding, three rules)' },
  'TASK-NOTIF-04--log-on-task-stream': { ids: ['SUBS-SCOPE-01', 'LOG-REQ-03'], why: 'a log message on a task\'s listen stream is one on a subscription, off its request (one finding, both rules)' },
  'TASK-NEG-03--get-answered-without-the-extension': { ids: ['EXT-NEG-02'], why: 'the client that sends tasks/get without declaring the extension breaks the core rule; the server that answers it breaks the extension\'s' },
};

describe('valid 2026-07-28 and dual-era transcripts', () => {
  const files = list(VALID);

  it('cover stdio, HTTP, a dual-era transcript and recordings of real servers', () => {
    // real-*: modern requests recorded over stdio against the fixtures built on @modelcontextprotocol/server 2.4.0 and tmcp 1.20.0.
    expect(files).toEqual(['2026-07-28-http-session.jsonl', '2026-07-28-stdio-session.jsonl', 'dual-era-2025-11-25-and-2026-07-28.jsonl', 'real-sdk-v2-2.4.0-stdio.jsonl', 'real-tmcp-1.20.0-stdio.jsonl', 'tasks-extension-flow.jsonl']);
  });

  for (const file of files) {
    it(`${file}: no fail or warn finding, judged in its eras`, () => {
      const { transcript, findings, eras, session } = run(join(VALID, file));
      expect(transcript.problems).toEqual([]);
      expect(render(findings.filter((f) => f.severity !== 'info'))).toEqual([]);
      if (file.startsWith('dual-era')) {
        expect(eras).toEqual(['stateful', 'stateless']);
        expect(session?.negotiatedVersion).toBe('2025-11-25');
      } else expect(eras).toEqual(['stateless']);
    });
  }

  it('the tasks extension\'s flow (its specification\'s example, a cancelled and a failed task) exercises the extension\'s rules on the side whose frames did', () => {
    const { appliedBy } = run(join(VALID, 'tasks-extension-flow.jsonl'));
    for (const id of ['TASK-UPD-02', 'TASK-UPD-03', 'TASK-CANCEL-04']) expect(appliedBy.client.has(id), `client ${id}`).toBe(true);
    for (const id of ['TASK-SCHEMA-01', 'TASK-TIME-01', 'TASK-ST-02', 'TASK-ID-01', 'TASK-KEY-01', 'TASK-GET-01', 'TASK-GET-02', 'TASK-RT-01', 'TASK-RT-02', 'TASK-ERR-03', 'TASK-NEG-01']) expect(appliedBy.server.has(id), `server ${id}`).toBe(true);
    // Every tasks request declared the extension: how a server answers one that did not is not shown.
    expect(appliedBy.server.has('TASK-NEG-03')).toBe(false);
  });

  it('the modern session exercises its rules on the side whose frames did', () => {
    const { appliedBy } = run(join(VALID, '2026-07-28-stdio-session.jsonl'));
    for (const id of ['META-REQ-01', 'MRTR-CLI-02', 'MRTR-CLI-03', 'MRTR-CLI-05', 'BASE-ID-05', 'CANCEL-10']) expect(appliedBy.client.has(id), `client ${id}`).toBe(true);
    for (const id of ['BASE-RES-04', 'MRTR-SRV-03', 'MRTR-SRV-05', 'SUBS-ID-01', 'SUBS-ACK-01', 'SUBS-ACK-02', 'SUBS-FILT-01', 'LOG-REQ-01', 'LOG-REQ-02', 'CACHE-RES-01', 'CACHE-SCOPE-02', 'PROG-04']) {
      expect(appliedBy.server.has(id), `server ${id}`).toBe(true);
    }
  });
});

describe('broken 2026-07-28 transcripts', () => {
  const files = list(BROKEN);

  it('each is named after a rule of the 2026-07-28 catalog', () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
    for (const file of files) expect(requirementIn(file.split('--')[0] as RequirementId, '2026-07-28'), file).toBeDefined();
  });

  for (const file of files) {
    const name = file.replace(/\.jsonl$/, '');
    const target = name.split('--')[0] as RequirementId;
    const severity = levelIn(target, '2026-07-28') === 'MUST' ? 'fail' : 'warn';
    it(`${file}: reports ${target} as ${severity}, and nothing else`, () => {
      const { transcript, findings } = run(join(BROKEN, file));
      expect(transcript.problems).toEqual([]);
      expect(findings.some((f) => f.requirements.includes(target) && f.severity === severity), render(findings).join('\n')).toBe(true);
      const allowed = new Set<string>([target, ...(CO_FINDINGS[name]?.ids ?? [])]);
      const others = findings.filter((f) => f.severity !== 'info' && f.requirements.some((id) => !allowed.has(id)));
      expect(render(others)).toEqual([]);
    });
  }
});

describe('hostile depth', () => {
  it('a retry whose arguments nest 10,000 deep is compared with its original without overflowing the stack', () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } };
    // Written as text: JSON.stringify itself cannot go 10,000 deep, JSON.parse can.
    const deep = '['.repeat(10_000) + '1' + ']'.repeat(10_000);
    const line = (from: string, message: unknown) => JSON.stringify({ from, message }).replace('"@deep@"', deep);
    const text = [
      JSON.stringify({ mcpcheck: 'transcript', version: 1, transport: 'stdio' }),
      line('client', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: { x: '@deep@' }, _meta: meta } }),
      line('server', { jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', inputRequests: { a: { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } } } }, requestState: 's' } }),
      line('client', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 't', arguments: { x: '@deep@' }, inputResponses: { a: { action: 'cancel' } }, requestState: 's', _meta: meta } }),
    ].join('\n');
    const { findings } = validateTranscript(parseTranscript(text, 'deep'));
    expect(render(findings.filter((f) => f.severity !== 'info' && f.requirements.some((id) => id.startsWith('MRTR'))))).toEqual([]);
  });
});
