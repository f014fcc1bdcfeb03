import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { eachLineOfBytes, parseTranscript } from '../src/transcript/format.js';
import { startReads, TranscriptFile } from '../src/transcript/read-file.js';
import { validateStreamedTranscript, validateTranscript } from '../src/transcript/validate.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CORPUS = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/transcripts');

/** Every line of a file as TranscriptFile reads it: text and byte offset. */
async function streamedLines(file: TranscriptFile): Promise<[string, number][]> {
  const lines: [string, number][] = [];
  for await (const { bytes, length, offset } of file.chunks()) eachLineOfBytes(bytes, 0, length, offset, (text, at) => lines.push([text, at]));
  return lines;
}

/** The same from the file's text, split apart: each line without its LF or CR LF, and its byte offset. */
function linesOfText(text: string): [string, number][] {
  const parts = text.split('\n');
  // A text that ends with its LF has no line after it.
  if (parts.at(-1) === '') parts.pop();
  let at = 0;
  return parts.map((part) => {
    const line: [string, number] = [part.endsWith('\r') ? part.slice(0, -1) : part, at];
    at += Buffer.byteLength(part) + 1;
    return line;
  });
}

async function withFile<T>(path: string, use: (file: TranscriptFile) => Promise<T>, limit?: number): Promise<T> {
  const file = await TranscriptFile.open(path, limit);
  try {
    return await use(file);
  } finally {
    await file.close();
  }
}

describe('reading a transcript file', () => {
  it('reads a regular file as runs of whole lines, multi-byte text, CR LF and blank lines included, and reads any line again', async () => {
    const path = join(dir, 'a.jsonl');
    const line = (i: number) => `{"from":"client","message":{"jsonrpc":"2.0","method":"ping","id":"${i % 7 === 0 ? 'é😀' : 'x'}${i}"}}`;
    // About 2 MB: several chunks, lines across their ends, ASCII windows and others.
    const text = Array.from({ length: 25_000 }, (_, i) => line(i) + (i % 5 === 0 ? '\r\n' : i % 11 === 0 ? '\n\n' : '\n')).join('') + line(-1);
    writeFileSync(path, text);
    const expected = linesOfText(text);
    await withFile(path, async (file) => {
      expect(await streamedLines(file)).toEqual(expected);
      for (const [content, at] of [expected[0]!, expected[3]!, expected[7 * 997]!, expected.at(-1)!]) expect(file.lineAt(at)).toBe(content);
    });
  });

  it('reads a line longer than a chunk whole', async () => {
    const path = join(dir, 'long.jsonl');
    const long = `{"from":"server","raw":"${'y'.repeat(1_500_000)}"}`;
    const text = ['{"from":"client","raw":"a"}', long, '{"from":"client","raw":"b"}', long].join('\n');
    writeFileSync(path, text);
    await withFile(path, async (file) => {
      const lines = await streamedLines(file);
      expect(lines.map(([l]) => l.length)).toEqual([27, long.length, 27, long.length]);
      expect(file.lineAt(lines[3]![1])).toBe(long);
    });
  });

  it('reads an empty file as no lines', async () => {
    const path = join(dir, 'empty.jsonl');
    writeFileSync(path, '');
    await withFile(path, async (file) => expect(await streamedLines(file)).toEqual([]));
  });

  it('reads no line again from a file changed since it was read', async () => {
    const path = join(dir, 'changed.jsonl');
    writeFileSync(path, '{"from":"client","raw":"a"}\n');
    await withFile(path, async (file) => {
      await streamedLines(file);
      expect(file.lineAt(0)).toBe('{"from":"client","raw":"a"}');
      writeFileSync(path, '{"from":"client","raw":"bb"}\n');
      expect(file.lineAt(0)).toBeUndefined();
    });
  });

  it('reads a pipe, which has no size, to its end, and its lines again from what it kept', () => {
    // Through the CLI: bash's process substitution is a pipe whose writer is another process. The
    // second answer breaks BASE-RES-01 (its id answers no request), and a ping before initialize
    // LIFE-INIT-01: their evidence is their lines, read again.
    const frames = [
      '{"from":"client","message":{"jsonrpc":"2.0","method":"ping","id":1}}',
      '{"from":"server","message":{"jsonrpc":"2.0","id":1,"result":{}}}',
      '{"from":"server","message":{"jsonrpc":"2.0","id":99,"result":{}}}',
    ];
    const report = join(dir, 'pipe.json');
    const r = spawnSync('bash', ['-c', `node dist/src/cli.js validate --json ${report} <(printf '%s\\n' ${frames.map((f) => `'${f}'`).join(' ')})`], { encoding: 'utf8', timeout: 20_000 });
    // Graded (0 or 1), not a setup error: the pipe was read.
    expect([0, 1], r.stderr).toContain(r.status);
    expect(r.stdout).toMatch(/Ping: 1 passed/);
    const checks = (JSON.parse(readFileSync(report, 'utf8')) as { checks: { id: string; evidence: { location?: string; excerpt?: string }[] }[] }).checks;
    const evidence = (id: string) => checks.find((c) => c.id === id)?.evidence.map((e) => [e.location?.replace(/^.*:/, ''), e.excerpt]);
    expect(evidence('validate.BASE-RES-01')).toEqual([['3', frames[2]!.slice(27, -1)]]);
    expect(evidence('validate.LIFE-INIT-01')).toEqual([['1', frames[0]!.slice(27, -1)]]);
  });

  it('names what is wrong with a missing file and a directory', async () => {
    await expect(TranscriptFile.open(join(dir, 'nope.jsonl'))).rejects.toThrow(/nope\.jsonl: cannot read the transcript \(no such file\)/);
    await expect(TranscriptFile.open(dir)).rejects.toThrow(/cannot read the transcript \(is a directory\)/);
  });

  it('leaves no open unhandled when an earlier one fails', async () => {
    const reads = startReads([join(dir, 'missing-1'), join(dir, 'missing-2')]);
    await expect(reads[0]).rejects.toThrow(/missing-1/);
    // The second failed too; awaiting only the first must not leave an unhandled rejection behind.
    await new Promise((r) => setTimeout(r, 20));
    await expect(reads[1]).rejects.toThrow(/missing-2/);
  });
});

describe('a transcript larger than mcpcheck reads', () => {
  it('is refused in one line, from a regular file and from a pipe that never ends', async () => {
    const path = join(dir, 'big.jsonl');
    writeFileSync(path, 'x'.repeat(5_000));
    await expect(TranscriptFile.open(path, 4_096)).rejects.toThrow(/big\.jsonl: cannot read the transcript \(more than 4,096 bytes, the most mcpcheck reads\)/);
    // /dev/zero has no size, no end and no line end: the read stops at the bound instead of filling memory.
    await expect(withFile('/dev/zero', streamedLines, 3 << 20)).rejects.toThrow(/\/dev\/zero: cannot read the transcript \(more than 3,145,728 bytes/);
  });
});

describe('a transcript judged as its file is read', () => {
  const corpus = readdirSync(CORPUS).flatMap((group) => readdirSync(join(CORPUS, group)).map((name) => join(CORPUS, group, name)));

  it('gets the findings, and reads again the frames, that judging its whole text does: every transcript of the corpus', async () => {
    expect(corpus.length).toBeGreaterThan(100);
    for (const path of corpus) {
      const whole = parseTranscript(readFileSync(path, 'utf8'), path);
      const expected = validateTranscript(whole);
      await withFile(path, async (file) => {
        const { transcript, validation } = await validateStreamedTranscript(file, path);
        expect(validation.findings, path).toEqual(expected.findings);
        expect(transcript.problems, path).toEqual(whole.problems);
        expect(Array.from({ length: transcript.frameCount }, (_, i) => transcript.frame(i)), path).toEqual(whole.frames);
      });
    }
  });
});
