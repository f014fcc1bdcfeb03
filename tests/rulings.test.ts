/**
 * The rulings (src/spec/rulings.ts) and the predicates moved into src/validate/ so that the live
 * validator, `mcpcheck validate` and the scenarios judge each rule the same way.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { isRequirementId } from '../src/spec/catalog.js';
import { NOT_APPLIED, ruling, RULINGS, RULINGS_DOC, rulingsMarkdown } from '../src/spec/rulings.js';
import { validateMessage } from '../src/validate/message.js';
import { primingProblem, type SseEvent } from '../src/validate/sse.js';
import { parseUriTemplate } from '../src/validate/uri-template.js';
import { isDateShaped, notAProtocolVersion, unsupportedVersionErrorRuling, versionConsistency } from '../src/validate/versions.js';
import { REFERENCE, requireBuild, runHttp, runStdio } from './server-helpers.js';

const ROOT = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('the rulings', () => {
  it('have unique names, known requirement ids, and account for every §15 item once', () => {
    const ids = RULINGS.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of RULINGS) {
      expect(r.id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(r.ruling.length).toBeGreaterThan(30);
      for (const id of r.requirements) expect(isRequirementId(id), `${r.id}: ${id}`).toBe(true);
    }
    const sections = [...RULINGS.flatMap((r) => (r.section !== undefined ? [r.section] : [])), ...NOT_APPLIED.map((n) => n.section)].sort((a, b) => a - b);
    expect(sections).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // A derived rule names the sentence it is derived from and whom it binds; a ruling with neither a
    // §15 number nor that was made after the catalog's list (its ruling text says why).
    for (const r of RULINGS) if (r.derivedFrom !== undefined) expect(r.derivedFrom, r.id).toContain('binds');
  });

  it('are cited by name, with the section and a file the package ships', () => {
    const { cite } = ruling('session-never-issued');
    expect(cite).toBe(`ruling session-never-issued (mcpcheck rulings, §15.8: ${RULINGS_DOC}#session-never-issued in the mcpcheck package)`);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain(RULINGS_DOC.split('/')[0]);
  });

  it(`${RULINGS_DOC} is the list as generated from src/spec/rulings.ts (regenerate it as the file says)`, () => {
    expect(readFileSync(join(ROOT, RULINGS_DOC), 'utf8')).toBe(rulingsMarkdown());
  });

  it('no message in src/ or suites/ cites the catalog file users do not have', () => {
    const offenders = [...sourceFiles('src'), ...sourceFiles('suites')]
      .filter((f) => f !== join('src', 'spec', 'rulings.ts'))
      .flatMap((f) => readFileSync(join(ROOT, f), 'utf8').split('\n').map((line, i) => ({ f, i, line })))
      .filter(({ line }) => /§15|requirements\.md §|requirements §/.test(line))
      .map(({ f, i, line }) => `${f}:${i + 1}: ${line.trim()}`);
    expect(offenders).toEqual([]);
  });

  it('every ruling is cited by some check or finding', () => {
    const code = [...sourceFiles('src'), ...sourceFiles('suites')]
      .filter((f) => f !== join('src', 'spec', 'rulings.ts'))
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n');
    const uncited = RULINGS.filter((r) => !code.includes(`ruling('${r.id}')`) && r.id !== 'schema-ts-over-json');
    expect(uncited.map((r) => r.id)).toEqual([]);
  });
});

/** The events eventsource-parser dispatches for an SSE body (what the transport and probes see). */
function events(body: string): SseEvent[] {
  const out: SseEvent[] = [];
  createParser({ onEvent: (e) => out.push({ ...(e.id !== undefined ? { id: e.id } : {}), data: e.data }) }).feed(body);
  return out;
}

describe('a derived rule says so in every message', () => {
  it('ROBUST-02: each check of server.lifecycle.before-initialize names the client-binding sentence and the ruling, passing or not', async () => {
    requireBuild();
    const only = ['server.lifecycle.before-initialize'];
    const [broken, correct] = await Promise.all([runStdio(`node ${REFERENCE} --break requests-before-init`, { only }), runStdio(`node ${REFERENCE}`, { only })]);
    const robust = [...broken.checks, ...correct.checks].filter((c) => c.requirements.includes('ROBUST-02'));
    expect(robust.map((c) => c.status).sort()).toEqual(['pass', 'pass', 'pass', 'pass', 'pass', 'warn']);
    for (const c of robust) {
      expect(c.message, c.id).toContain('a sentence that binds the client');
      expect(c.message, c.id).toContain(ruling('requests-before-initialize').cite);
    }
  });
});

describe('ROBUST-02 on a Streamable HTTP server without sessions', () => {
  // The SDK v2 server over HTTP is stateless: a fresh instance per POST, no MCP-Session-Id issued.
  // Its tools/list before initialize used to warn; with no session there is no "before initialize".
  it('is not exercised: every ROBUST-02 check of server.lifecycle.before-initialize is a skip naming the ruling', async () => {
    requireBuild();
    const report = await runHttp((port) => `node ${join(ROOT, 'dist/tests/fixtures/sdk-v2/server.js')} --http --port ${port}`, { only: ['server.lifecycle.before-initialize'] });
    const robust = report.checks.filter((c) => c.requirements.includes('ROBUST-02'));
    expect(robust.map((c) => `${c.id}:${c.status}`).sort()).toEqual(
      ['initialize-after', 'refused', 'second-initialize'].map((k) => `server.lifecycle.before-initialize/${k}:skip`),
    );
    for (const c of robust) {
      expect(c.message, c.id).toMatch(/^not exercised: the server issued no MCP-Session-Id at initialize/);
      expect(c.message, c.id).toContain(ruling('requests-before-initialize').cite);
    }
    expect(report.checks.find((c) => c.id === 'server.lifecycle.before-initialize/ping-before-initialized')?.status).toBe('pass');
  });
});

describe('HTTP-SSE-01: one priming predicate', () => {
  const message = 'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
  it('accepts an event with an id and an empty data field', () => {
    expect(primingProblem(events(`id: 7\ndata: \n\n${message}`)[0])).toBeUndefined();
    expect(primingProblem(events(`id:7\ndata\n\n${message}`)[0])).toBeUndefined();
    expect(primingProblem(events(`: comment\nretry: 1000\nid: 7\ndata:\n\n${message}`)[0])).toBeUndefined();
  });

  it('rejects an id-only block: it has no data field and the SSE standard never dispatches it', () => {
    const first = events(`id: 7\n\n${message}`)[0];
    expect(first?.data).toContain('jsonrpc');
    expect(primingProblem(first)).toMatch(/no id and data/);
  });

  it('rejects a stream that opens with the message, an empty id or no event at all', () => {
    expect(primingProblem(events(`id: 1\n${message}`)[0])).toMatch(/^the first event has data/);
    expect(primingProblem(events(`id:\ndata:\n\n${message}`)[0])).toBe('the first event has an empty id');
    expect(primingProblem(events(': only a comment\n\n')[0])).toBe('the stream carried no event');
  });
});

describe('protocol versions (LIFE-VER-03/04)', () => {
  it('knows what cannot be a version a server supports', () => {
    expect(notAProtocolVersion('1999-01-01')).toMatch(/no MCP revision/);
    expect(notAProtocolVersion('2025-01-01')).toMatch(/no MCP revision/);
    expect(notAProtocolVersion('latest')).toMatch(/not a protocol version/);
    expect(notAProtocolVersion('DRAFT-2025-v3')).toMatch(/not a protocol version/);
    for (const v of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', '2099-01-01']) expect(notAProtocolVersion(v), v).toBeUndefined();
  });

  it('grades an error for an unsupported version MUST when it is date-shaped, SHOULD otherwise, citing the ruling', () => {
    expect(isDateShaped('2024-01-01')).toBe(true);
    for (const v of ['2024-01-01', '2099-01-01']) expect(unsupportedVersionErrorRuling(v).level, v).toBe('MUST');
    const garbage = unsupportedVersionErrorRuling('mcpcheck-unsupported');
    expect(garbage.level).toBe('SHOULD');
    expect(garbage.why).toContain(ruling('unsupported-version-error').cite);
  });

  it('LIFE-VER-03 across sessions: a version echoed once must be echoed whenever it is asked for', () => {
    const out = versionConsistency([
      { label: 'a.jsonl', server: 's 1', requested: '2025-06-18', negotiated: '2025-06-18' },
      { label: 'b.jsonl', server: 's 1', requested: '2025-06-18', negotiated: '2025-11-25' },
      { label: 'c.jsonl', server: 's 2', requested: '2025-06-18', negotiated: '2025-11-25' },
    ]);
    expect(out.map((o) => o.index)).toEqual([1]);
    expect(out[0]?.finding.message).toContain('a.jsonl');
  });
});

describe('validator logic moved out of the suites is applied live', () => {
  const ctx = (method: string) => ({ from: 'server' as const, revision: '2025-11-25' as const, request: { method } });
  const result = (r: unknown) => ({ jsonrpc: '2.0', id: 1, result: r });
  const ids = (findings: ReturnType<typeof validateMessage>) => [...new Set(findings.filter((f) => f.severity !== 'info').flatMap((f) => f.requirements))].sort();

  it('RFC 6570: the parser, and RES-TPL-01 on every resources/templates/list result', () => {
    expect(parseUriTemplate('file:///{+path}{?q,lang}')).toEqual({ ok: true, variables: ['path', 'q', 'lang'] });
    expect(parseUriTemplate('notes/{id').ok).toBe(false);
    const findings = validateMessage(result({ resourceTemplates: [{ name: 'n', uriTemplate: 'mcpcheck://notes/{id}{' }] }), ctx('resources/templates/list'));
    expect(findings.some((f) => f.requirements[0] === 'RES-TPL-01' && f.pointer === '/result/resourceTemplates/0/uriTemplate')).toBe(true);
    expect(ids(validateMessage(result({ resourceTemplates: [{ name: 'n', uriTemplate: 'mcpcheck://notes/{id}' }] }), ctx('resources/templates/list')))).toEqual([]);
  });

  it('content blocks of an unknown type: TOOL-CONT-01 on tool results, PROMPT-GET-01 on prompt messages', () => {
    expect(ids(validateMessage(result({ content: [{ type: 'video', url: 'x' }] }), ctx('tools/call')))).toContain('TOOL-CONT-01');
    const prompt = validateMessage(result({ messages: [{ role: 'user', content: { type: 'text' } }] }), ctx('prompts/get'));
    expect(prompt.find((f) => f.requirements[0] === 'PROMPT-GET-01' && f.pointer === '/result/messages/0/content')?.message).toMatch(/no string "text"/);
  });
});
