import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateFiles } from '../src/commands/validate.js';

function session(dir: string, name: string, asked: string, answered: string, server = 'srv'): string {
  const lines = [
    { mcpcheck: 'transcript', version: 1, transport: 'stdio' },
    { from: 'client', message: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'c', version: '1' } } } },
    { from: 'server', message: { jsonrpc: '2.0', id: 1, result: { protocolVersion: answered, capabilities: {}, serverInfo: { name: server, version: '1' } } } },
    { from: 'client', message: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  ];
  const file = join(dir, name);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

describe('validate over several sessions of one server', () => {
  it('LIFE-VER-03: a version echoed in one session must be echoed when asked for again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-files-'));
    const echoed = session(dir, 'a.jsonl', '2025-06-18', '2025-06-18');
    const refused = session(dir, 'b.jsonl', '2025-06-18', '2025-11-25');
    const report = await validateFiles({ files: [echoed, refused] });
    const check = report.checks.find((c) => c.id === 'validate.LIFE-VER-03')!;
    expect(check.status).toBe('fail');
    expect(check.message).toContain('a.jsonl');
    expect(check.evidence[0]?.location).toBe(`${refused}:3`);
  });

  it('is not judged on a single session, nor across different servers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-files-'));
    const one = await validateFiles({ files: [session(dir, 'b.jsonl', '2025-06-18', '2025-11-25')] });
    expect(one.checks.find((c) => c.id === 'validate.LIFE-VER-03')!.status).toBe('skip');
    const two = await validateFiles({ files: [session(dir, 'a.jsonl', '2025-06-18', '2025-06-18', 'other'), session(dir, 'c.jsonl', '2025-06-18', '2025-11-25')] });
    expect(two.checks.find((c) => c.id === 'validate.LIFE-VER-03')!.status).toBe('pass');
  });
});
