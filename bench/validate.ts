import { parseTranscript } from '../src/transcript/format.js';
import { validateTranscript } from '../src/transcript/validate.js';
import { generateTranscript } from './transcript.js';

const FRAMES = 100_000;

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const out = fn();
  return [out, performance.now() - t0];
}

/** Validator throughput on one core: frames/s and MB/s, beside JSON.parse alone on the same lines. */
export function benchValidate(): void {
  const lines = generateTranscript(FRAMES);
  const text = lines.join('\n');
  const mb = Buffer.byteLength(text) / 1e6;
  // Warm up the compiled schemas and JIT on a slice, as a long-running validator would be.
  validateTranscript(parseTranscript(lines.slice(0, 2_000).join('\n'), 'warmup'));
  const [, parseMs] = time(() => {
    for (const line of lines) JSON.parse(line);
  });
  const [result, validateMs] = time(() => validateTranscript(parseTranscript(text, 'bench')));
  const failures = result.findings.filter((f) => f.severity !== 'info').length;
  const fps = (FRAMES / validateMs) * 1000;
  console.log(`validate: ${FRAMES.toLocaleString('en')} frames, ${mb.toFixed(1)} MB`);
  console.log(`  JSON.parse alone     ${parseMs.toFixed(0).padStart(6)} ms  ${((FRAMES / parseMs) * 1000).toFixed(0).padStart(9)} frames/s  ${((mb / parseMs) * 1000).toFixed(1)} MB/s`);
  console.log(`  parse + validate     ${validateMs.toFixed(0).padStart(6)} ms  ${fps.toFixed(0).padStart(9)} frames/s  ${((mb / validateMs) * 1000).toFixed(1)} MB/s`);
  console.log(`  ratio to JSON.parse  ${(validateMs / parseMs).toFixed(2)}×   (target ≤ 4×, ≥ 100,000 frames/s)   findings: ${failures} fail/warn`);
}
