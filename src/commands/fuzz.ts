/**
 * `mcpcheck fuzz`: a fuzz run against one server (or the replay of one saved failure), graded
 * into the one result model; each failure is saved as a case to replay and a transcript.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SetupError } from '../errors.js';
import { grade } from '../grade/index.js';
import { Pace } from '../harness/pace.js';
import { HttpTarget, type Target } from '../harness/target.js';
import { isObject } from '../json.js';
import type { CheckResult, RunReport, Status } from '../model.js';
import { requirement } from '../spec/catalog.js';
import { untestedContext } from '../grade/coverage.js';
import { formatTranscript } from '../transcript/format.js';
import { toolInfo } from '../version.js';
import { describeCase, type FuzzCase } from '../fuzz/case.js';
import { Lane } from '../fuzz/lane.js';
import { ORACLES, type Oracle } from '../fuzz/oracles.js';
import { fuzz, replayFresh, type FuzzFailure } from '../fuzz/run.js';
import { fuzzSequences, replaySequence, SEQUENCE_INVARIANTS, type SequenceFailure } from '../fuzz/stateful.js';
import { describeStep, type Step } from '../fuzz/steps.js';
import type { SendTimeouts } from '../fuzz/send.js';
import { isLoopbackHost, makeTarget, parseToolPolicy, serverTargetInfo } from './server.js';

export interface FuzzCommandOptions {
  stdio?: string;
  url?: string;
  /** With `url`: the command that serves it, started again after a crash or hang. */
  start?: string;
  /** With `url`: "Name: value" headers sent on every request. */
  headers?: string[];
  allowRemote?: boolean;
  runs: number;
  seed: number;
  /** Seconds; the run stops starting cases after it and reports itself incomplete. */
  timeBudget?: number;
  callTools?: string;
  caseTimeoutMs?: number;
  maxString?: number;
  /** Generated sequences of the stateful part (0: none). */
  sequences?: number;
  outDir: string;
  replay?: string;
  /** The flags that name the target, for replay commands. */
  targetFlags: string;
}

function fuzzTarget(o: FuzzCommandOptions): Target {
  const target = makeTarget({ ...(o.stdio !== undefined ? { stdio: o.stdio } : {}), ...(o.url !== undefined ? { url: o.url } : {}), ...(o.start !== undefined ? { start: o.start } : {}), headers: o.headers ?? [] });
  // Hostile input is meant for servers one owns: a remote one only when asked for.
  const host = o.url !== undefined ? new URL(o.url).hostname : undefined;
  if (host !== undefined && !isLoopbackHost(host) && !o.allowRemote) throw new SetupError(`--url ${host} is not a loopback address: fuzzing a remote server needs --allow-remote`);
  return target;
}

/** The wait for the lane's own requests (initialize, tools/list), not for a case's answer. */
const LANE_REQUEST_MS = 10_000;

function timeouts(o: FuzzCommandOptions): SendTimeouts {
  const ms = o.caseTimeoutMs ?? 5000;
  return { responseMs: ms, pingMs: ms };
}

/** The command that sends a saved failure again, with the run's own case timeout: a wait that decided the finding decides the replay. */
function replayCommand(o: FuzzCommandOptions, file: string): string {
  return `mcpcheck fuzz ${o.targetFlags}${o.caseTimeoutMs !== undefined ? ` --case-timeout ${o.caseTimeoutMs}` : ''} --replay ${file}`;
}

/** An oracle or a sequence invariant: a named rule with its requirements. */
type Rule = Pick<Oracle, 'id' | 'title' | 'requirements'>;

function levelOf(oracle: Rule) {
  return requirement(oracle.requirements[0]!).level;
}

function baseCheck(oracle: Rule, status: Status, message: string): CheckResult {
  return { id: oracle.id, title: oracle.title, requirements: [...oracle.requirements], level: levelOf(oracle), status, message, area: requirement(oracle.requirements[0]!).area, evidence: [] };
}

interface SavedCase {
  mcpcheck: 'fuzz-case';
  version: 1;
  oracle: string;
  seed: number;
  path: string;
  input: FuzzCase;
}

interface SavedSequence {
  mcpcheck: 'fuzz-sequence';
  version: 1;
  invariant: string;
  seed: number;
  path: string;
  replayPath?: string;
  steps: Step[];
}

/** The default number of generated sequences: each costs a fresh session, over stdio a process. */
export const DEFAULT_SEQUENCES = 10;

function failureCheck(f: FuzzFailure, file: string, o: FuzzCommandOptions): CheckResult {
  const status: Status = levelOf(f.oracle) === 'MUST' ? 'fail' : 'warn';
  const shown = describeCase(f.input);
  const message = `${f.message}. Minimal input (${f.shrinks} shrinks, seed ${f.seed}, path ${JSON.stringify(f.path)}): ${shown}${f.reproduced ? '' : ' — it did not fail again alone on a fresh session (it may depend on earlier cases)'}`;
  return { ...baseCheck(f.oracle, status, message), evidence: [{ excerpt: shown.slice(0, 500), location: `${file}.jsonl` }], reproduce: replayCommand(o, `${file}.case.json`) };
}

async function saveFailure(dir: string, f: FuzzFailure, transport: 'stdio' | 'http'): Promise<string> {
  const base = join(dir, `${f.oracle.id}-${f.seed}`);
  const saved: SavedCase = { mcpcheck: 'fuzz-case', version: 1, oracle: f.oracle.id, seed: f.seed, path: f.path, input: f.input };
  await writeFile(`${base}.case.json`, JSON.stringify(saved, null, 1) + '\n', 'utf8');
  await writeFile(`${base}.jsonl`, formatTranscript(transport, f.frames), 'utf8');
  return base;
}

function sequenceCheck(f: SequenceFailure, file: string, o: FuzzCommandOptions): CheckResult {
  const status: Status = levelOf(f.invariant) === 'MUST' ? 'fail' : 'warn';
  const steps = f.steps.map(describeStep).join(' → ');
  const message = `${f.message}. Smallest failing sequence (${f.steps.length} step(s), ${f.shrinks} shrinks, seed ${f.seed}, path ${JSON.stringify(f.path)}${f.replayPath !== undefined ? `, replayPath ${JSON.stringify(f.replayPath)}` : ''}): ${steps}`;
  const evidence = [{ excerpt: steps.slice(0, 500), location: `${file}.jsonl` }, ...(f.secondFrames ? [{ excerpt: 'the second session of the sequence', location: `${file}-second.jsonl` }] : [])];
  return { ...baseCheck(f.invariant, status, message), evidence, reproduce: replayCommand(o, `${file}.sequence.json`) };
}

async function saveSequence(dir: string, f: SequenceFailure, transport: 'stdio' | 'http'): Promise<string> {
  const base = join(dir, `${f.invariant.id}-${f.seed}`);
  const saved: SavedSequence = { mcpcheck: 'fuzz-sequence', version: 1, invariant: f.invariant.id, seed: f.seed, path: f.path, ...(f.replayPath !== undefined ? { replayPath: f.replayPath } : {}), steps: f.steps };
  await writeFile(`${base}.sequence.json`, JSON.stringify(saved, null, 1) + '\n', 'utf8');
  await writeFile(`${base}.jsonl`, formatTranscript(transport, f.frames), 'utf8');
  if (f.secondFrames) await writeFile(`${base}-second.jsonl`, formatTranscript(transport, f.secondFrames), 'utf8');
  return base;
}

async function readSaved(file: string): Promise<SavedCase | SavedSequence> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new SetupError(`--replay ${file}: cannot read it as JSON (${(e as Error).message})`);
  }
  if (isObject(value) && value.mcpcheck === 'fuzz-sequence' && value.version === 1 && Array.isArray(value.steps)) return value as unknown as SavedSequence;
  if (!isObject(value) || value.mcpcheck !== 'fuzz-case' || value.version !== 1 || !isObject(value.input)) throw new SetupError(`--replay ${file}: not a saved fuzz case or sequence (written by mcpcheck fuzz)`);
  return value as unknown as SavedCase;
}

function report(target: Target, started: number, checks: CheckResult[], notes: string[], seed: number, info: { protocolVersion?: string; serverInfo?: Record<string, unknown> }): RunReport {
  return grade({
    role: 'server',
    tool: toolInfo(),
    target: serverTargetInfo(target, info),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    seed,
    checks,
    notes,
    untested: untestedContext('fuzz', { role: 'server' }),
  });
}

/** Sends one saved case on a fresh session and judges it by every oracle that applies. */
async function replay(o: FuzzCommandOptions, target: Target, started: number): Promise<RunReport> {
  const saved = await readSaved(o.replay!);
  const lane = new Lane(target, LANE_REQUEST_MS, new Pace());
  if (saved.mcpcheck === 'fuzz-sequence') return replaySaved(o, target, started, saved, lane);
  const { frames, failing } = await replayFresh(lane, saved.input, timeouts(o));
  const shown = describeCase(saved.input);
  const checks = ORACLES.filter((oracle) => oracle.applies(saved.input)).map((oracle) =>
    failing.has(oracle.id) ? { ...baseCheck(oracle, levelOf(oracle) === 'MUST' ? 'fail' : 'warn', `the saved case fails again: ${shown}`), reproduce: replayCommand(o, o.replay!) } : baseCheck(oracle, 'pass', `held on the replayed case: ${shown}`),
  );
  return report(target, started, checks, [`replayed ${o.replay} (found with seed ${saved.seed}, path ${JSON.stringify(saved.path)}); ${frames.length} frames`], saved.seed, {});
}

/** Sends a saved sequence again on a fresh session and judges it by every invariant. */
async function replaySaved(o: FuzzCommandOptions, target: Target, started: number, saved: SavedSequence, lane: Lane): Promise<RunReport> {
  const { broken, exercised, frames } = await replaySequence(lane, saved.steps, { replyMs: timeouts(o).responseMs, callTools: parseToolPolicy(o.callTools) });
  await lane.discard();
  const shown = saved.steps.map(describeStep).join(' → ');
  const checks = SEQUENCE_INVARIANTS.map((inv) => {
    if (broken?.invariant.id === inv.id) return { ...baseCheck(inv, levelOf(inv) === 'MUST' ? 'fail' : 'warn', `the saved sequence fails again: ${broken.message}; ${shown}`), reproduce: replayCommand(o, o.replay!) };
    const n = exercised.get(inv.id) ?? 0;
    return baseCheck(inv, n > 0 ? 'pass' : 'skip', n > 0 ? `held on the replayed sequence (${n} step(s)): ${shown}` : `not exercised by the replayed sequence: ${shown}`);
  });
  return report(target, started, checks, [`replayed ${o.replay} (found with seed ${saved.seed}, path ${JSON.stringify(saved.path)}); ${frames.length} frames`], saved.seed, {});
}

export async function fuzzServer(o: FuzzCommandOptions): Promise<RunReport> {
  const started = Date.now();
  const target = fuzzTarget(o);
  try {
    if (target instanceof HttpTarget) await target.prepare();
    if (o.replay !== undefined) return await replay(o, target, started);
    // One measure of the target's starts for the cases and the sequences after them.
    const pace = new Pace();
    // One budget for the cases and the sequences after them.
    const deadline = o.timeBudget !== undefined ? performance.now() + o.timeBudget * 1000 : Infinity;
    const outcome = await fuzz({
      target,
      runs: o.runs,
      seed: o.seed,
      deadline,
      callTools: parseToolPolicy(o.callTools),
      timeouts: timeouts(o),
      requestTimeoutMs: LANE_REQUEST_MS,
      pace,
      ...(o.maxString !== undefined ? { mutation: { maxStringLength: o.maxString } } : {}),
    });
    const checks: CheckResult[] = [];
    if (outcome.failures.length) await mkdir(o.outDir, { recursive: true });
    for (const oracle of ORACLES) {
      const failures = outcome.failures.filter((f) => f.oracle === oracle);
      for (const f of failures) checks.push(failureCheck(f, await saveFailure(o.outDir, f, target.kind), o));
      if (failures.length) continue;
      const n = outcome.exercised.get(oracle.id) ?? 0;
      checks.push(n > 0 ? baseCheck(oracle, 'pass', `held on ${n} case(s)`) : baseCheck(oracle, 'skip', `not exercised: ${outcome.unexercised.get(oracle.id) ?? 'no generated case applied to it'}`));
    }
    const sequences = o.sequences ?? DEFAULT_SEQUENCES;
    // Only cases never sent make the run incomplete: sequences the budget left out are counted, and their invariants say so.
    if (sequences > 0 && !outcome.cutShort) {
      const lane = new Lane(target, LANE_REQUEST_MS, pace);
      const stateful = await fuzzSequences(lane, { sequences, seed: o.seed, deadline, callTools: parseToolPolicy(o.callTools), replyMs: timeouts(o).responseMs }).finally(() => lane.discard());
      if (stateful.failure) await mkdir(o.outDir, { recursive: true });
      for (const inv of SEQUENCE_INVARIANTS) {
        if (stateful.failure?.invariant.id === inv.id) {
          checks.push(sequenceCheck(stateful.failure, await saveSequence(o.outDir, stateful.failure, target.kind), o));
          continue;
        }
        const n = stateful.exercised.get(inv.id) ?? 0;
        const why = stateful.cutShort && !stateful.failure ? `the time budget (${o.timeBudget} s) ended the sequences after ${stateful.generated} of ${sequences}, or the server may not offer what it needs` : 'the server may not offer what it needs, or a failure ended the sequences early';
        checks.push(n > 0 ? baseCheck(inv, 'pass', `held on ${n} step(s) of ${stateful.judged} sequence(s)`) : baseCheck(inv, 'skip', `not exercised: ${stateful.unexercisable.get(inv.id) ?? `no step of the ${stateful.judged} sequence(s) run gave it anything to judge (${why})`}`));
      }
      outcome.notes.push(...stateful.notes);
      if (stateful.cutShort) outcome.notes.push(stateful.failure ? `the time budget (${o.timeBudget} s) ended the shrinking of the failing sequence after ${stateful.failure.shrinks} shrink(s)` : `the time budget (${o.timeBudget} s) ended the sequences: ${stateful.generated} of ${sequences} sequences ran`);
    }
    if (outcome.cutShort) {
      const what = outcome.generated < o.runs ? `the run after ${outcome.generated} of ${o.runs} cases: what was not sent was not judged` : `the shrinking of a failure after all ${o.runs} cases ran: its input may not be the smallest`;
      checks.push({ ...baseCheck(ORACLES[0]!, 'error', `the time budget (${o.timeBudget} s) ended ${what}`), id: 'fuzz.run', title: 'The fuzz run sends all its cases' });
    }
    const rate = outcome.durationMs > 0 ? Math.round((outcome.cases * 1000) / outcome.durationMs) : 0;
    const notes = [`${outcome.cases} cases sent (${outcome.generated} generated, the rest shrinking) in ${(outcome.durationMs / 1000).toFixed(1)} s, ${rate} cases/s; ${outcome.restarts} restart(s) of the target`, ...outcome.notes];
    return report(target, started, checks, notes, outcome.seed, outcome);
  } finally {
    await target.close();
  }
}
