/**
 * Fixture transcripts under tests/fixtures/transcripts:
 *   valid/   correct sessions — no fail or warn finding at all;
 *   broken/  `<REQUIREMENT-ID>--<what>.jsonl`, each an otherwise-correct session that breaks exactly one
 *            rule — that id is reported (fail for MUST rules, warn for SHOULD rules) and no other id is,
 *            except the co-findings listed (and justified) in CO_FINDINGS.
 * Tests marked `it.fails` pin validator bugs that were reported rather than fixed here (see KNOWN_BUGS).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findRequirement } from '../src/spec/catalog.js';
import { parseTranscript } from '../src/transcript/format.js';
import { validateTranscript } from '../src/transcript/validate.js';
import type { Finding } from '../src/validate/finding.js';
import { findingLines } from './verdict-snapshot.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = join(ROOT, 'tests/fixtures/transcripts');
const VALID = join(FIXTURES, 'valid');
const BROKEN = join(FIXTURES, 'broken');

function list(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
}

function run(path: string) {
  const transcript = parseTranscript(readFileSync(path, 'utf8'), path);
  return { transcript, ...validateTranscript(transcript) };
}

/** Findings that count against a target (info notes never do). */
function blocking(findings: Finding[]): Finding[] {
  return findings.filter((f) => f.severity !== 'info');
}

function render(findings: Finding[]): string[] {
  return findings.map((f) => `${f.severity} ${f.requirements.join('+')} @${f.frame ?? '-'}${f.pointer}: ${f.message.slice(0, 160)}`);
}

/**
 * Validator bugs found while writing these fixtures, pinned until fixed: for a valid transcript the
 * "no findings" test is `it.fails`; for a broken one only the "nothing else" test is. (All fixed.)
 */
const KNOWN_BUGS: Readonly<Record<string, string>> = {};

/** Broken transcripts whose violation the validator misses: the "reports X" test is `it.fails`. (None.) */
const KNOWN_MISSES: Readonly<Record<string, string>> = {};

/** Rows that join a MUST with a SHOULD clause, where the transcript breaks the SHOULD one. */
const SEVERITY: Readonly<Record<string, 'fail' | 'warn'>> = {
  // RES-ANN-01 is MUST for the annotation types, SHOULD for the ISO 8601 form of lastModified.
  'RES-ANN-01--last-modified-not-iso-8601': 'warn',
  // Ruling unsupported-version-error: an error for a string that is no version is a SHOULD.
  'LIFE-VER-04--error-for-non-version-string': 'warn',
};

/**
 * Requirement ids that the single violation of a broken transcript necessarily implies, with the reason.
 * Kept minimal: mostly "the official schema encodes the same constraint", which BASE-RES-03 /
 * BASE-SCHEMA-01 (plus the feature rule for that method's schema) report.
 */
const CO_FINDINGS: Readonly<Record<string, { ids: string[]; why: string }>> = {
  'ELIC-FORM-01--form-without-requested-schema': { ids: ['BASE-SCHEMA-01', 'ELIC-REQ-01'], why: 'a form request without requestedSchema fails the schema; the finding names the method\'s rule and the form rule' },
  'ELIC-URL-01--url-not-absolute': { ids: ['BASE-SCHEMA-01'], why: 'the schema gives url format "uri", so the request also fails it' },
  'BASE-RES-03--tools-list-without-tools': {
    ids: ['TOOL-LIST-01'],
    why: 'a tools/list result without `tools` is not a ListToolsResult, which is exactly TOOL-LIST-01',
  },
  'TASK-TTL-02--tasks-get-without-ttl': { ids: ['BASE-RES-03'], why: 'the schema requires ttl in a Task, so the tasks/get result also fails it' },
  'LIFE-CAP-01--listchanged-string': {
    ids: ['BASE-RES-03', 'LIFE-INIT-02'],
    why: 'capabilities are part of InitializeResult; a non-boolean listChanged makes the initialize result schema-invalid',
  },
  'LIFE-INIT-01--tools-list-first': {
    ids: ['LIFE-INIT-04'],
    why: 'a tools/list sent first is also a non-ping request before the initialize response (SHOULD NOT)',
  },
  'LIFE-INIT-02--result-without-server-info': {
    ids: ['BASE-RES-03'],
    why: 'serverInfo is required by the InitializeResult schema; a schema-invalid result is BASE-RES-03',
  },
  'LIFE-OP-01--tasks-list-in-2025-06-18': {
    ids: ['LIFE-OP-02'],
    why: '2025-06-18 has no tasks capability, so no server of that revision can have declared tasks.list',
  },
  'META-RSV-03--object-progress-token': {
    ids: ['BASE-SCHEMA-01'],
    why: 'the CallToolRequest schema types _meta.progressToken as ProgressToken (string | integer)',
  },
  'TOOL-SCHEMA-01--root-type-array': {
    ids: ['BASE-RES-03', 'TOOL-LIST-01'],
    why: 'the Tool schema fixes inputSchema.type to the constant "object"',
  },
  'TOOL-LIST-01--tool-without-input-schema': {
    ids: ['BASE-RES-03'],
    why: 'inputSchema is required by the Tool schema; a schema-invalid tools/list result is BASE-RES-03',
  },
  'ICON-FMT-01--icon-without-src': {
    ids: ['BASE-RES-03', 'TOOL-LIST-01'],
    why: 'the icon sits on a tool, and Icon.src is required by the schema of the tools/list result',
  },
  'TOOL-CONT-01--image-data-not-base64': {
    ids: ['BASE-RES-03', 'TOOL-CALL-01'],
    why: 'ImageContent.data has `format: "byte"` in the schema, so the CallToolResult is schema-invalid',
  },
  'LOG-LVL-01--level-verbose': {
    ids: ['BASE-SCHEMA-01'],
    why: 'LoggingLevel is an enum in the LoggingMessageNotification schema',
  },
  'RES-READ-01--blob-not-base64': {
    ids: ['BASE-RES-03'],
    why: 'BlobResourceContents.blob has `format: "byte"`, so the ReadResourceResult is schema-invalid',
  },
  'RES-URI-02--not-a-uri': {
    ids: ['BASE-RES-03', 'RES-LIST-01'],
    why: 'Resource.uri has `format: "uri"` in the schema of the resources/list result',
  },
  'PROMPT-GET-01--role-system': {
    ids: ['BASE-RES-03'],
    why: 'Role is the enum user|assistant in the GetPromptResult schema',
  },
  'SAMP-RES-01--result-without-model': {
    ids: ['BASE-RES-03'],
    why: 'model is required by the CreateMessageResult schema',
  },
  'ELIC-FORM-02--nested-object-property': {
    ids: ['BASE-SCHEMA-01'],
    why: 'PrimitiveSchemaDefinition in the ElicitRequest schema admits no object-typed property',
  },
  'ELIC-FORM-02--array-of-objects': {
    ids: ['BASE-SCHEMA-01'],
    why: 'PrimitiveSchemaDefinition admits arrays only as multi-select enums of strings',
  },
};

/** Per valid file: the revision the session must end up validated with (checks negotiation is followed). */
function expectedRevision(file: string): string {
  if (file.startsWith('negotiated-down-')) return '2025-06-18';
  const m = /^(\d{4}-\d{2}-\d{2})-/.exec(file);
  return m ? m[1]! : '2025-11-25';
}

describe('valid transcripts', () => {
  const files = list(VALID);

  it('cover every revision, a negotiation down and an HTTP session', () => {
    for (const rev of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      expect(files.some((f) => f.startsWith(`${rev}-full-session`)), rev).toBe(true);
    }
    expect(files.some((f) => f.startsWith('negotiated-down-'))).toBe(true);
    expect(files.some((f) => readFileSync(join(VALID, f), 'utf8').startsWith('{"mcpcheck":"transcript","version":1,"transport":"http"}'))).toBe(true);
  });

  for (const file of files) {
    const bug = KNOWN_BUGS[file];
    (bug ? it.fails : it)(`${file}: no fail or warn finding${bug ? ` (known bug: ${bug})` : ''}`, () => {
      const { transcript, findings, appliedBy } = run(join(VALID, file));
      expect(transcript.problems).toEqual([]);
      expect(render(blocking(findings))).toEqual([]);
      expect(findingLines(findings, appliedBy)).toMatchSnapshot();
    });

    it(`${file}: is judged against the negotiated revision`, () => {
      const { session } = run(join(VALID, file));
      expect(session?.revision).toBe(expectedRevision(file));
      expect(session?.negotiatedVersion).toBe(expectedRevision(file));
    });
  }

  it('the negotiation-down session asked for 2025-11-25 and got 2025-06-18', () => {
    const { session } = run(join(VALID, 'negotiated-down-2025-11-25-to-2025-06-18.jsonl'));
    expect(session?.requestedVersion).toBe('2025-11-25');
    expect(session?.negotiatedVersion).toBe('2025-06-18');
  });

  it('full sessions exercise the rules they are meant to, on the side whose frames exercised them', () => {
    const { appliedBy } = run(join(VALID, '2025-11-25-full-session.jsonl'));
    const bySide = {
      client: ['LIFE-INIT-01', 'LIFE-INIT-03', 'BASE-ID-03', 'CANCEL-01', 'ROOTS-LIST-01', 'ELIC-URL-03', 'PING-01'],
      server: ['BASE-ID-03', 'BASE-RES-03', 'TOOL-OUT-01', 'TOOL-OUT-03', 'TOOL-NAME-03', 'PROG-02', 'PROG-04', 'LOG-SET-02', 'LIFE-OP-02', 'SAMP-TOOLS-01', 'ELIC-CAP-02', 'ELIC-FORM-02', 'ICON-FMT-03', 'META-KEY-02', 'RES-READ-01', 'COMP-RES-01'],
    } as const;
    for (const side of ['client', 'server'] as const) for (const id of bySide[side]) expect(appliedBy[side].has(id), `${side} ${id}`).toBe(true);
  });

  it("a rule exercised only by the client's frames is not exercised for the server", () => {
    const transcript = parseTranscript(
      [
        { from: 'client', message: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } },
        { from: 'server', message: { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } } },
        { from: 'client', message: { jsonrpc: '2.0', method: 'notifications/initialized' } },
        { from: 'client', message: { jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: { progressToken: 7, 'dev.mcpcheck/x': 1 } } } },
        { from: 'server', message: { jsonrpc: '2.0', id: 2, result: {} } },
      ]
        .map((f) => JSON.stringify(f))
        .join('\n'),
      'client-meta.jsonl',
    );
    const { appliedBy } = validateTranscript(transcript);
    for (const id of ['META-KEY-01', 'META-KEY-02', 'META-KEY-04', 'META-RSV-01']) {
      expect(appliedBy.client.has(id), `client ${id}`).toBe(true);
      expect(appliedBy.server.has(id), `server ${id}`).toBe(false);
    }
    // The server's {} answered the client's ping: that exercised the server's side of PING-01.
    expect(appliedBy.server.has('PING-01')).toBe(true);
  });
});

describe('broken transcripts', () => {
  const files = list(BROKEN);

  it('there are at least 45, each named after a catalogued requirement', () => {
    expect(files.length).toBeGreaterThanOrEqual(45);
    for (const file of files) {
      expect(file, file).toMatch(/^[A-Z]+(?:-[A-Z0-9]+)*-\d{2}--[a-z0-9-]+\.jsonl$/);
      expect(findRequirement(file.split('--')[0]!), file).toBeDefined();
    }
  });

  it('the co-finding map names only existing files and requirements', () => {
    for (const [name, { ids, why }] of Object.entries(CO_FINDINGS)) {
      expect(files, name).toContain(`${name}.jsonl`);
      expect(why.length).toBeGreaterThan(20);
      for (const id of ids) expect(findRequirement(id), id).toBeDefined();
    }
  });

  for (const file of files) {
    const name = file.replace(/\.jsonl$/, '');
    const target = name.split('--')[0]!;
    const level = findRequirement(target)?.level ?? 'MUST';
    const severity = SEVERITY[name] ?? (level === 'MUST' ? 'fail' : 'warn');

    const miss = KNOWN_MISSES[file];
    (miss ? it.fails : it)(`${file}: reports ${target} as ${severity}${miss ? ` (known miss: ${miss})` : ''}`, () => {
      const { transcript, findings } = run(join(BROKEN, file));
      expect(transcript.problems).toEqual([]);
      const hits = findings.filter((f) => f.requirements.some((id) => id === target) && f.severity === severity);
      expect(hits.length, render(findings).join('\n')).toBeGreaterThan(0);
    });

    const bug = KNOWN_BUGS[file];
    (bug ? it.fails : it)(`${file}: reports nothing else${bug ? ` (known bug: ${bug})` : ''}`, () => {
      const { findings, appliedBy } = run(join(BROKEN, file));
      const allowed = new Set([target, ...(CO_FINDINGS[name]?.ids ?? [])]);
      const extra = blocking(findings).filter((f) => f.requirements.some((id) => !allowed.has(id)));
      expect(render(extra)).toEqual([]);
      expect(findingLines(findings, appliedBy)).toMatchSnapshot();
    });
  }
});

describe('mcpcheck validate (built CLI)', () => {
  const cli = join(ROOT, 'dist/src/cli.js');
  const exec = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  // dist/ is a build artefact (npx tsc -p tsconfig.json): skip when it is absent or does not start at all
  // (e.g. a half-finished build of unrelated modules); a CLI that starts is judged by its exit codes.
  const built = existsSync(cli) && exec('--version').status === 0;
  const validate = (...files: string[]) => exec('validate', ...files);

  it.skipIf(!built).each(['2024-11-05-full-session.jsonl', '2025-06-18-full-session.jsonl', '2025-11-25-full-session.jsonl', '2025-11-25-http.jsonl'])('exits 0 on valid/%s', (file) => {
    const r = validate(join(VALID, file));
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it.skipIf(!built)('exits 1 on a MUST violation and 0 on a SHOULD-only one', () => {
    expect(validate(join(BROKEN, 'PING-01--non-empty-result.jsonl')).status).toBe(1);
    expect(validate(join(BROKEN, 'TOOL-NAME-01--name-with-space.jsonl')).status).toBe(0);
  });

  it.skipIf(!built)('exits 2 on an unreadable input', () => {
    expect(validate(join(FIXTURES, 'no-such-transcript.jsonl')).status).toBe(2);
  });
});
