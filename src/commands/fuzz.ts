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
import { levelIn, requirementIn } from '../spec/catalog.js';
import { eraOf, LATEST_STATEFUL_REVISION, type Revision } from '../spec/revisions.js';
import { describeEras, toTest } from '../runner/eras.js';
import { untestedContext } from '../grade/coverage.js';
import { formatTranscript } from '../transcript/format.js';
import { toolInfo } from '../version.js';
import { describeCase, type FuzzCase } from '../fuzz/case.js';
import { Lane } from '../fuzz/lane.js';
import { oraclesIn, type Oracle } from '../fuzz/oracles.js';
import { judgedIn } from '../fuzz/rules.js';
import { fuzz, replayFresh, type FuzzFailure } from '../fuzz/run.js';
import { fuzzSequences, replaySequence, SEQUENCE_INVARIANTS, type SequenceFailure } from '../fuzz/stateful.js';
import { describeStep, type Step } from '../fuzz/steps.js';
import type { SendTimeouts } from '../fuzz/send.js';
import { isLoopbackHost } from '../harness/listening.js';
import { makeTarget, parseToolPolicy, probeEras, serverTargetInfo } from './server.js';
import { parseSpecVersion } from './spec-version.js';
import type { Redactor } from '../redact.js';
import type { RunControl } from '../runner/observer.js';

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
  /** How reproduce lines name mcpcheck (cli/invocation.ts: `npx mcpcheck`, `node dist/src/cli.js`…); default `mcpcheck`. */
  invokedAs?: string;
  /** The one revision to fuzz (--spec-version); none: the newest era the server serves. */
  specVersion?: string;
  /** The environment the server starts with (--target-env); mcpcheck's own by default. */
  env?: NodeJS.ProcessEnv;
  /** Keeps secrets out of the saved transcripts (the cases are mcpcheck's own input, kept as sent, for --replay). */
  redactor?: Redactor;
  /** Watches the run (the progress line counts cases and sequences) and stops it (Ctrl-C): what ran is reported. */
  control?: RunControl;
}

function fuzzTarget(o: FuzzCommandOptions): Target {
  const target = makeTarget({ ...(o.stdio !== undefined ? { stdio: o.stdio } : {}), ...(o.url !== undefined ? { url: o.url } : {}), ...(o.start !== undefined ? { start: o.start } : {}), headers: o.headers ?? [], ...(o.env ? { env: o.env } : {}) });
  // Hostile input is meant for servers one owns: a remote one only when asked for.
  const host = target instanceof HttpTarget ? target.address.hostname : undefined;
  if (host !== undefined && !isLoopbackHost(host) && !o.allowRemote) throw new SetupError(`--url ${host} is not a loopback address: fuzzing a remote server needs --allow-remote`);
  return target;
}

/** The wait for the lane's own requests (initialize, tools/list), not for a case's answer. */
const LANE_REQUEST_MS = 10_000;

function timeouts(o: FuzzCommandOptions): SendTimeouts {
  const ms = o.caseTimeoutMs ?? 5000;
  return { responseMs: ms, pingMs: ms };
}

/**
 * The command that sends a saved failure again, with the run's own case timeout (a wait that
 * decided the finding decides the replay); the saved case names its revision itself.
 */
function replayCommand(o: FuzzCommandOptions, file: string): string {
  return `${o.invokedAs ?? 'mcpcheck'} fuzz ${o.targetFlags}${o.caseTimeoutMs !== undefined ? ` --case-timeout ${o.caseTimeoutMs}` : ''} --replay ${file}`;
}

/** An oracle or a sequence invariant: a named rule with its requirements. */
type Rule = Pick<Oracle, 'id' | 'title' | 'requirements'>;

/** The rule's level in the catalog of the revision the run spoke. */
function levelOf(oracle: Rule, revision: Revision) {
  return levelIn(oracle.requirements[0]!, revision);
}

function baseCheck(oracle: Rule, status: Status, message: string, revision: Revision): CheckResult {
  const row = requirementIn(oracle.requirements[0]!, revision)!;
  return { id: oracle.id, title: oracle.title, requirements: [...oracle.requirements], level: row.level, status, message, area: row.area, evidence: [], ...(eraOf(revision) === 'stateless' ? { revision } : {}) };
}

interface SavedCase {
  mcpcheck: 'fuzz-case';
  version: 1;
  /** The revision the run spoke (absent in cases saved before 2026-07-28 was fuzzed: 2025-11-25). */
  revision?: Revision;
  oracle: string;
  seed: number;
  path: string;
  input: FuzzCase;
}

interface SavedSequence {
  mcpcheck: 'fuzz-sequence';
  version: 1;
  revision?: Revision;
  invariant: string;
  seed: number;
  path: string;
  replayPath?: string;
  steps: Step[];
}

/** The default number of generated sequences: each costs a fresh session, over stdio a process. */
export const DEFAULT_SEQUENCES = 10;

/** A finding's status: a MUST fails, anything weaker warns. */
function findingStatus(rule: Rule, revision: Revision): Status {
  return levelOf(rule, revision) === 'MUST' ? 'fail' : 'warn';
}

function failureCheck(f: FuzzFailure, file: string, o: FuzzCommandOptions, revision: Revision): CheckResult {
  const shown = describeCase(f.input);
  const message = `${f.message}. Minimal input (${f.shrinks} shrinks, seed ${f.seed}, path ${JSON.stringify(f.path)}): ${shown}${f.reproduced ? '' : ' — it did not fail again alone on a fresh session (it may depend on earlier cases)'}`;
  return { ...baseCheck(f.oracle, findingStatus(f.oracle, revision), message, revision), evidence: [{ excerpt: shown.slice(0, 500), location: `${file}.jsonl` }], reproduce: replayCommand(o, `${file}.case.json`) };
}

/** A failure's frames as a transcript, the target's secrets replaced. */
function transcriptText(transport: 'stdio' | 'http', frames: Parameters<typeof formatTranscript>[1], redactor: Redactor | undefined): string {
  return formatTranscript(transport, redactor ? redactor.deep(frames) : frames);
}

async function saveFailure(dir: string, f: FuzzFailure, transport: 'stdio' | 'http', revision: Revision, redactor?: Redactor): Promise<string> {
  const base = join(dir, `${f.oracle.id}-${f.seed}`);
  const saved: SavedCase = { mcpcheck: 'fuzz-case', version: 1, revision, oracle: f.oracle.id, seed: f.seed, path: f.path, input: f.input };
  await writeFile(`${base}.case.json`, JSON.stringify(saved, null, 1) + '\n', 'utf8');
  await writeFile(`${base}.jsonl`, transcriptText(transport, f.frames, redactor), 'utf8');
  return base;
}

function sequenceCheck(f: SequenceFailure, file: string, o: FuzzCommandOptions, revision: Revision): CheckResult {
  const steps = f.steps.map(describeStep).join(' → ');
  const message = `${f.message}. Smallest failing sequence (${f.steps.length} step(s), ${f.shrinks} shrinks, seed ${f.seed}, path ${JSON.stringify(f.path)}${f.replayPath !== undefined ? `, replayPath ${JSON.stringify(f.replayPath)}` : ''}): ${steps}`;
  const evidence = [{ excerpt: steps.slice(0, 500), location: `${file}.jsonl` }, ...(f.secondFrames ? [{ excerpt: 'the second session of the sequence', location: `${file}-second.jsonl` }] : [])];
  return { ...baseCheck(f.invariant, findingStatus(f.invariant, revision), message, revision), evidence, reproduce: replayCommand(o, `${file}.sequence.json`) };
}

async function saveSequence(dir: string, f: SequenceFailure, transport: 'stdio' | 'http', revision: Revision, redactor?: Redactor): Promise<string> {
  const base = join(dir, `${f.invariant.id}-${f.seed}`);
  const saved: SavedSequence = { mcpcheck: 'fuzz-sequence', version: 1, revision, invariant: f.invariant.id, seed: f.seed, path: f.path, ...(f.replayPath !== undefined ? { replayPath: f.replayPath } : {}), steps: f.steps };
  await writeFile(`${base}.sequence.json`, JSON.stringify(saved, null, 1) + '\n', 'utf8');
  await writeFile(`${base}.jsonl`, transcriptText(transport, f.frames, redactor), 'utf8');
  if (f.secondFrames) await writeFile(`${base}-second.jsonl`, transcriptText(transport, f.secondFrames, redactor), 'utf8');
  return base;
}

async function readSaved(file: string): Promise<SavedCase | SavedSequence> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new SetupError(`--replay ${file}: cannot read it as JSON (${(e as Error).message})`);
  }
  const saved = isObject(value) && value.mcpcheck === 'fuzz-sequence' && value.version === 1 && Array.isArray(value.steps) ? (value as unknown as SavedSequence) : undefined;
  if (!saved && (!isObject(value) || value.mcpcheck !== 'fuzz-case' || value.version !== 1 || !isObject(value.input))) throw new SetupError(`--replay ${file}: not a saved fuzz case or sequence (written by mcpcheck fuzz)`);
  const found = saved ?? (value as unknown as SavedCase);
  if (found.revision !== undefined) parseSpecVersion(found.revision);
  return found;
}

/** What cut a run short: Ctrl-C, or the time budget. */
function stopper(o: FuzzCommandOptions): string {
  return o.control?.signal?.aborted ? 'the interruption (Ctrl-C)' : `the time budget (${o.timeBudget} s)`;
}

function report(target: Target, started: number, checks: CheckResult[], notes: string[], seed: number, info: { protocolVersion?: string; serverInfo?: Record<string, unknown> }, interrupted = false): RunReport {
  return grade({
    ...(interrupted ? { interrupted: true } : {}),
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

/** Sends one saved case on a fresh session, in the revision it was found in, and judges it by every oracle that applies. */
async function replay(o: FuzzCommandOptions, target: Target, started: number): Promise<RunReport> {
  const saved = await readSaved(o.replay!);
  const revision = saved.revision ?? LATEST_STATEFUL_REVISION;
  const lane = new Lane(target, LANE_REQUEST_MS, new Pace(), revision);
  if (saved.mcpcheck === 'fuzz-sequence') return replaySaved(o, target, started, saved, lane, revision);
  const { frames, failing } = await replayFresh(lane, saved.input, timeouts(o));
  const shown = describeCase(saved.input);
  const checks = oraclesIn(revision).filter((oracle) => oracle.applies(saved.input)).map((oracle) =>
    failing.has(oracle.id) ? { ...baseCheck(oracle, findingStatus(oracle, revision), `the saved case fails again: ${shown}`, revision), reproduce: replayCommand(o, o.replay!) } : baseCheck(oracle, 'pass', `held on the replayed case: ${shown}`, revision),
  );
  return report(target, started, checks, [`replayed ${o.replay} in ${revision} (found with seed ${saved.seed}, path ${JSON.stringify(saved.path)}); ${frames.length} frames`], saved.seed, { protocolVersion: revision });
}

/** Sends a saved sequence again on a fresh session and judges it by every invariant of its revision. */
async function replaySaved(o: FuzzCommandOptions, target: Target, started: number, saved: SavedSequence, lane: Lane, revision: Revision): Promise<RunReport> {
  const { broken, exercised, frames } = await replaySequence(lane, saved.steps, { replyMs: timeouts(o).responseMs, callTools: parseToolPolicy(o.callTools) });
  await lane.discard();
  const shown = saved.steps.map(describeStep).join(' → ');
  const checks = invariantsIn(revision).map((inv) => {
    if (broken?.invariant.id === inv.id) return { ...baseCheck(inv, findingStatus(inv, revision), `the saved sequence fails again: ${broken.message}; ${shown}`, revision), reproduce: replayCommand(o, o.replay!) };
    const n = exercised.get(inv.id) ?? 0;
    return baseCheck(inv, n > 0 ? 'pass' : 'skip', n > 0 ? `held on the replayed sequence (${n} step(s)): ${shown}` : `not exercised by the replayed sequence: ${shown}`, revision);
  });
  return report(target, started, checks, [`replayed ${o.replay} in ${revision} (found with seed ${saved.seed}, path ${JSON.stringify(saved.path)}); ${frames.length} frames`], saved.seed, { protocolVersion: revision });
}

/** The sequence invariants a run in `revision` judges by. */
function invariantsIn(revision: Revision) {
  return SEQUENCE_INVARIANTS.filter((inv) => judgedIn(inv, revision));
}

/**
 * The revision to fuzz: the one --spec-version names, else the newest era the server serves (its
 * eras found as \`mcpcheck server\` finds them). A dual-era server is fuzzed in its modern era
 * only, and the report's notes say the other was not fuzzed.
 */
async function chooseRevision(o: FuzzCommandOptions, notes: string[]): Promise<Revision> {
  const asked = parseSpecVersion(o.specVersion);
  if (asked !== undefined) return asked;
  const probes = await probeEras(o, LANE_REQUEST_MS, notes);
  notes.push(describeEras(probes));
  const served = probes.filter(toTest).sort((a, b) => (a.revision < b.revision ? 1 : -1));
  const chosen = served[0]!.revision;
  for (const other of served.slice(1)) notes.push(`the server also serves ${other.revision} (the ${other.era} era): not fuzzed in this run; fuzz it with --spec-version ${other.revision}`);
  return chosen;
}

export async function fuzzServer(o: FuzzCommandOptions): Promise<RunReport> {
  const started = Date.now();
  const target = fuzzTarget(o);
  try {
    if (o.replay !== undefined) {
      if (target instanceof HttpTarget) await target.prepare();
      return await replay(o, target, started);
    }
    const eraNotes: string[] = [];
    const revision = await chooseRevision(o, eraNotes);
    if (target instanceof HttpTarget) await target.prepare();
    // One measure of the target's starts for the cases and the sequences after them.
    const pace = new Pace();
    // One budget for the cases and the sequences after them.
    const deadline = o.timeBudget !== undefined ? performance.now() + o.timeBudget * 1000 : Infinity;
    const sequences = o.sequences ?? DEFAULT_SEQUENCES;
    const signal = o.control?.signal;
    const observer = o.control?.observer;
    observer?.planned(o.runs + sequences);
    const outcome = await fuzz({
      ...(signal ? { signal } : {}),
      ...(observer ? { observer } : {}),
      target,
      runs: o.runs,
      seed: o.seed,
      deadline,
      callTools: parseToolPolicy(o.callTools),
      timeouts: timeouts(o),
      requestTimeoutMs: LANE_REQUEST_MS,
      pace,
      speaks: revision,
      ...(o.maxString !== undefined ? { mutation: { maxStringLength: o.maxString } } : {}),
    });
    const checks: CheckResult[] = [];
    if (outcome.failures.length) await mkdir(o.outDir, { recursive: true });
    for (const oracle of oraclesIn(revision)) {
      const failures = outcome.failures.filter((f) => f.oracle === oracle);
      for (const f of failures) checks.push(failureCheck(f, await saveFailure(o.outDir, f, target.kind, revision, o.redactor), o, revision));
      if (failures.length) continue;
      const n = outcome.exercised.get(oracle.id) ?? 0;
      const why = oracle.transports && !oracle.transports.includes(target.kind) ? `it needs ${oracle.transports.join(' or ')}` : (outcome.unexercised.get(oracle.id) ?? 'no generated case applied to it');
      checks.push(n > 0 ? baseCheck(oracle, 'pass', `held on ${n} case(s)`, revision) : baseCheck(oracle, 'skip', `not exercised: ${why}`, revision));
    }
    // Only cases never sent make the run incomplete: sequences the budget left out are counted, and their invariants say so.
    if (sequences > 0 && !outcome.cutShort) {
      const lane = new Lane(target, LANE_REQUEST_MS, pace, revision);
      const stateful = await fuzzSequences(lane, { sequences, seed: o.seed, deadline, ...(signal ? { signal } : {}), ...(observer ? { observer } : {}), callTools: parseToolPolicy(o.callTools), replyMs: timeouts(o).responseMs }).finally(() => lane.discard());
      if (stateful.failure) await mkdir(o.outDir, { recursive: true });
      for (const inv of invariantsIn(revision)) {
        if (stateful.failure?.invariant.id === inv.id) {
          checks.push(sequenceCheck(stateful.failure, await saveSequence(o.outDir, stateful.failure, target.kind, revision, o.redactor), o, revision));
          continue;
        }
        const n = stateful.exercised.get(inv.id) ?? 0;
        const why = stateful.cutShort && !stateful.failure ? `${stopper(o)} ended the sequences after ${stateful.generated} of ${sequences}, or the server may not offer what it needs` : 'the server may not offer what it needs, or a failure ended the sequences early';
        checks.push(n > 0 ? baseCheck(inv, 'pass', `held on ${n} step(s) of ${stateful.judged} sequence(s)`, revision) : baseCheck(inv, 'skip', `not exercised: ${stateful.unexercisable.get(inv.id) ?? `no step of the ${stateful.judged} sequence(s) run gave it anything to judge (${why})`}`, revision));
      }
      outcome.notes.push(...stateful.notes);
      if (stateful.cutShort) outcome.notes.push(stateful.failure ? `${stopper(o)} ended the shrinking of the failing sequence after ${stateful.failure.shrinks} shrink(s)` : `${stopper(o)} ended the sequences: ${stateful.generated} of ${sequences} sequences ran`);
    }
    if (outcome.cutShort || outcome.unfinished !== undefined) {
      const what = outcome.generated < o.runs ? `the run after ${outcome.generated} of ${o.runs} cases: what was not sent was not judged` : `the shrinking of a failure after all ${o.runs} cases ran: its input may not be the smallest`;
      const message = outcome.cutShort ? `${stopper(o)} ended ${what}` : `the run ended after ${outcome.generated} of ${o.runs} cases: ${outcome.unfinished}`;
      checks.push({ ...baseCheck(oraclesIn(revision)[0]!, 'error', message, revision), id: 'fuzz.run', title: 'The fuzz run sends all its cases' });
    }
    const rate = outcome.durationMs > 0 ? Math.round((outcome.cases * 1000) / outcome.durationMs) : 0;
    const notes = [...eraNotes, `fuzzed in revision ${revision} (the ${eraOf(revision)} era)`, `${outcome.cases} cases sent (${outcome.generated} generated, the rest shrinking) in ${(outcome.durationMs / 1000).toFixed(1)} s, ${rate} cases/s; ${outcome.restarts} restart(s) of the target`, ...outcome.notes];
    return report(target, started, checks, notes, outcome.seed, outcome, signal?.aborted === true);
  } finally {
    await target.close();
  }
}
