import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTranscriptFile, startReads } from '../src/transcript/read-file.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reading a transcript file', () => {
  it('reads a regular file whole, multi-byte text included', async () => {
    const file = join(dir, 'a.jsonl');
    const text = '{"from":"client","message":{"jsonrpc":"2.0","method":"ping","id":"é😀"}}\n'.repeat(5_000);
    writeFileSync(file, text);
    expect(await readTranscriptFile(file)).toBe(text);
  });

  it('reads an empty file as empty text', async () => {
    const file = join(dir, 'empty.jsonl');
    writeFileSync(file, '');
    expect(await readTranscriptFile(file)).toBe('');
  });

  it('reads a pipe, which has no size, to its end', () => {
    // Through the CLI: bash's process substitution is a pipe whose writer is another process.
    const r = spawnSync('bash', ['-c', `node dist/src/cli.js validate <(printf '%s\\n' '{"from":"client","message":{"jsonrpc":"2.0","method":"ping","id":1}}' '{"from":"server","message":{"jsonrpc":"2.0","id":1,"result":{}}}')`], { encoding: 'utf8', timeout: 20_000 });
    // Graded (0 or 1), not a setup error: the pipe was read.
    expect([0, 1], r.stderr).toContain(r.status);
    expect(r.stdout).toMatch(/Ping: 1 passed/);
  });

  it('names what is wrong with a missing file and a directory', async () => {
    await expect(readTranscriptFile(join(dir, 'nope.jsonl'))).rejects.toThrow(/nope\.jsonl: cannot read the transcript \(no such file\)/);
    await expect(readTranscriptFile(dir)).rejects.toThrow(/cannot read the transcript \(is a directory\)/);
  });

  it('leaves no read unhandled when an earlier one fails', async () => {
    const reads = startReads([join(dir, 'missing-1'), join(dir, 'missing-2')]);
    await expect(reads[0]).rejects.toThrow(/missing-1/);
    // The second failed too; awaiting only the first must not leave an unhandled rejection behind.
    await new Promise((r) => setTimeout(r, 20));
    await expect(reads[1]).rejects.toThrow(/missing-2/);
  });
});

describe('a transcript larger than mcpcheck reads', () => {
  it('is refused in one line, from a regular file and from a pipe that never ends', async () => {
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, 'x'.repeat(5_000));
    await expect(readTranscriptFile(file, 4_096)).rejects.toThrow(/big\.jsonl: cannot read the transcript \(more than 4,096 bytes, the most mcpcheck reads\)/);
    // /dev/zero has no size and no end: the read stops at the bound instead of filling memory.
    await expect(readTranscriptFile('/dev/zero', 3 << 20)).rejects.toThrow(/\/dev\/zero: cannot read the transcript \(more than 3,145,728 bytes/);
  });
});
