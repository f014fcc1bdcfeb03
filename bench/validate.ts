import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTranscript } from '../src/transcript/format.js';
import { validateTranscript } from '../src/transcript/validate.js';
import { packageRoot } from '../src/paths.js';
import { generateModernTranscript, generateTranscript } from './transcript.js';
import { median, pairedRatio } from './time.js';

const FRAMES = 100_000;
const RUNS = 5;
const root = packageRoot();

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const out = fn();
  return [out, performance.now() - t0];
}

interface Usage {
  wallMs: number;
  cpuMs: number;
}

const CPU_LINE = /^mcpcheck-bench-cpu-ms (\d+(?:\.\d+)?)$/m;

/** Wall and CPU time of one child process; throws unless it exits with one of `codes`. */
function run(args: string[], codes: number[]): Usage {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', join(root, 'dist/bench/cpu-usage.js'), ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 120_000,
  });
  const wallMs = performance.now() - t0;
  const stderr = String(r.stderr);
  const cpu = CPU_LINE.exec(stderr);
  if (r.status === null || !codes.includes(r.status) || !cpu) throw new Error(`${args.join(' ')} exited ${r.status ?? r.signal}: ${stderr.slice(0, 300)}`);
  return { wallMs, cpuMs: Number(cpu[1]) };
}

function line(label: string, ms: number, mb: number, ratio?: number): string {
  const fps = ((FRAMES / ms) * 1000).toFixed(0).padStart(9);
  return `  ${label.padEnd(42)} ${ms.toFixed(0).padStart(6)} ms ${fps} frames/s ${((mb / ms) * 1000).toFixed(1).padStart(6)} MB/s${ratio === undefined ? '' : `  ${ratio.toFixed(2)}× JSON.parse`}`;
}

/**
 * Validator throughput, two ways: the CLI end to end (`mcpcheck validate FILE`, a process of its
 * own, beside a process that only JSON.parses every line of the same file), and the validator
 * alone in memory (warm, no file, no report), which is what a long-running embedder sees.
 */
export function benchValidate(): void {
  benchValidateOf('2025-11-25', generateTranscript(FRAMES));
}

/** The same, on a 2026-07-28 transcript whose messages do not repeat (the issue's budget: within 2× of JSON.parse). */
export function benchValidate2026(): void {
  benchValidateOf('2026-07-28', generateModernTranscript(FRAMES));
}

function benchValidateOf(revision: string, lines: string[]): void {
  const text = lines.join('\n') + '\n';
  const mb = Buffer.byteLength(text) / 1e6;
  const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-bench-'));
  try {
    const file = join(dir, 'bench.jsonl');
    const report = join(dir, 'report.json');
    writeFileSync(file, text);
    // The same session cut to its first 20 frames: what each process costs before the frames do.
    const small = join(dir, 'small.jsonl');
    writeFileSync(small, lines.slice(0, 21).join('\n') + '\n');
    console.log(`validate (${revision}): ${FRAMES.toLocaleString('en')} generated frames, ${mb.toFixed(1)} MB; median of ${RUNS} runs of each process (wall time, and CPU time of all its threads)`);
    const cli: Usage[] = [];
    const parse: Usage[] = [];
    const cliStart: Usage[] = [];
    const parseStart: Usage[] = [];
    // Interleaved, so a neighbour's load falls on both sides alike.
    for (let i = 0; i < RUNS; i++) {
      parse.push(run([join(root, 'dist/bench/parse-lines.js'), file], [0]));
      cli.push(run([join(root, 'dist/src/cli.js'), 'validate', file, '--json', report], [0, 1]));
      parseStart.push(run([join(root, 'dist/bench/parse-lines.js'), small], [0]));
      cliStart.push(run([join(root, 'dist/src/cli.js'), 'validate', small, '--json', join(dir, 'small.json')], [0, 1]));
    }
    const summary = (JSON.parse(readFileSync(report, 'utf8')) as { summary: { headline: string } }).summary.headline;
    for (const measure of ['wallMs', 'cpuMs'] as const) {
      const parseMs = median(parse.map((u) => u[measure]));
      const cliMs = median(cli.map((u) => u[measure]));
      const label = measure === 'wallMs' ? 'wall' : 'CPU';
      const paired = pairedRatio(cli.map((u) => u[measure]), parse.map((u) => u[measure]));
      console.log(line(`${label}: node, read + JSON.parse each line`, parseMs, mb));
      console.log(line(`${label}: mcpcheck validate FILE (CLI)`, cliMs, mb, paired) + `   (median of the ${RUNS} runs' ratios; of the medians ${(cliMs / parseMs).toFixed(2)}×)   target ≤ 2×`);
    }
    // Start-up apart: what the frames themselves cost each process, beyond a 20-frame run.
    const cpu = (us: Usage[]) => median(us.map((u) => u.cpuMs));
    const parseFrames = cpu(parse) - cpu(parseStart);
    const cliFrames = cpu(cli) - cpu(cliStart);
    console.log(`  CPU start-up (20 frames): node + JSON.parse ${cpu(parseStart).toFixed(0)} ms, mcpcheck validate ${cpu(cliStart).toFixed(0)} ms`);
    console.log(line('CPU per frame beyond start-up: JSON.parse', parseFrames, mb));
    console.log(line('CPU per frame beyond start-up: CLI', cliFrames, mb, cliFrames / parseFrames) + `   ${((cliFrames / FRAMES) * 1000).toFixed(1)} µs a frame`);
    console.log(`    ${summary}`);

    // In memory: warm up the compiled schemas and the JIT on a slice, as a long-running validator would be.
    validateTranscript(parseTranscript(lines.slice(0, 2_000).join('\n'), 'warmup'));
    const [, inMemoryParseMs] = time(() => {
      for (const l of lines) JSON.parse(l);
    });
    const [result, inMemoryMs] = time(() => validateTranscript(parseTranscript(text, 'bench')));
    const failures = result.findings.filter((f) => f.severity !== 'info').length;
    console.log(line('in memory: JSON.parse each line', inMemoryParseMs, mb));
    console.log(line('in memory: parse + validate (warm)', inMemoryMs, mb, inMemoryMs / inMemoryParseMs) + `   findings: ${failures} fail/warn`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
