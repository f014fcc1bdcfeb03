import { randomUUID } from 'node:crypto';
import type { RunReport } from '../model.js';

/**
 * The GitHub Action (action.yml): its inputs, as the composite step hands them over in
 * `INPUT_<NAME>` environment variables, become mcpcheck's argv, never shell text; the run's
 * JSON report becomes the step's outputs.
 */

export type Mode = 'server' | 'client' | 'validate';

/** What the step's job is: the steps fails on any non-zero exit, or only when mcpcheck could not grade (2, 4). */
export type FailOn = 'any' | 'setup';

/** Inputs by name as in action.yml; each a string, empty when not given. */
export const INPUTS = ['mode', 'stdio', 'url', 'start', 'headers', 'token-env', 'command', 'files', 'baseline', 'json', 'junit', 'html', 'markdown', 'only', 'skip', 'args', 'fail-on'] as const;
export type InputName = (typeof INPUTS)[number];
export type Inputs = Record<InputName, string>;

/** A misconfigured step: one line, exit 2 like any usage error of mcpcheck. */
export class ActionInputError extends Error {
  override name = 'ActionInputError';
}

/** The environment variable the composite step sets for an input (`fail-on` → `INPUT_FAIL_ON`). */
export function inputVariable(name: InputName): string {
  return `INPUT_${name.toUpperCase().replace(/-/g, '_')}`;
}

export function readInputs(env: NodeJS.ProcessEnv): Inputs {
  return Object.fromEntries(INPUTS.map((name) => [name, (env[inputVariable(name)] ?? '').trim()])) as Inputs;
}

/** One value per line; blank lines are dropped, each line trimmed. */
function lines(value: string): string[] {
  return value.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
}

/** Which target inputs each mode takes; any other given is a mistake worth one clear line. */
const TAKES: Record<Mode, readonly InputName[]> = {
  server: ['stdio', 'url', 'start', 'headers', 'token-env', 'only', 'skip'],
  client: ['command', 'only', 'skip'],
  validate: ['files'],
};
const TARGET_INPUTS: readonly InputName[] = ['stdio', 'url', 'start', 'headers', 'token-env', 'command', 'files', 'only', 'skip'];

function modeOf(value: string): Mode {
  const mode = value || 'server';
  if (mode !== 'server' && mode !== 'client' && mode !== 'validate') throw new ActionInputError(`input mode: "${mode}" is not server, client or validate`);
  return mode;
}

export function failOnOf(value: string): FailOn {
  const failOn = value || 'any';
  if (failOn !== 'any' && failOn !== 'setup') throw new ActionInputError(`input fail-on: "${failOn}" is not any or setup`);
  return failOn;
}

/** `--name=value`: a value that starts with `-` stays a value. */
const flag = (name: string, value: string) => `--${name}=${value}`;

/**
 * mcpcheck's arguments for the inputs. Every input is one argument (or one per line / comma
 * entry), never parsed by a shell; `args` gives extra arguments, one per line, as they are.
 */
export function mcpcheckArgv(inputs: Inputs, jsonPath: string): string[] {
  const mode = modeOf(inputs.mode);
  for (const name of TARGET_INPUTS) {
    if (inputs[name] !== '' && !TAKES[mode].includes(name)) throw new ActionInputError(`input ${name} does not apply to mode ${mode}`);
  }
  const argv: string[] = [mode];
  if (mode === 'server') {
    if ((inputs.stdio === '') === (inputs.url === '')) throw new ActionInputError('mode server takes exactly one of the inputs stdio and url');
    if (inputs.stdio !== '') argv.push(flag('stdio', inputs.stdio));
    if (inputs.url !== '') argv.push(flag('url', inputs.url));
    if (inputs.start !== '') argv.push(flag('start', inputs.start));
    for (const header of lines(inputs.headers)) argv.push(flag('header', header));
    if (inputs['token-env'] !== '') argv.push(flag('token-env', inputs['token-env']));
  }
  if (mode === 'client') {
    if (inputs.command === '') throw new ActionInputError('mode client needs the input command');
    argv.push(flag('command', inputs.command));
  }
  for (const name of ['only', 'skip'] as const) {
    for (const entry of lines(inputs[name]).flatMap((l) => l.split(','))) if (entry.trim() !== '') argv.push(flag(name, entry.trim()));
  }
  argv.push(flag('json', jsonPath));
  for (const name of ['junit', 'html', 'markdown', 'baseline'] as const) if (inputs[name] !== '') argv.push(flag(name, inputs[name]));
  argv.push(...lines(inputs.args));
  if (mode === 'validate') {
    const files = lines(inputs.files);
    if (files.length === 0) throw new ActionInputError('mode validate needs the input files (one path per line)');
    // A file named like a flag stays a file.
    argv.push(...files.map((f) => (f.startsWith('-') ? `./${f}` : f)));
  }
  return argv;
}

export type Outputs = Record<'grade' | 'must-passed' | 'must-total' | 'should-passed' | 'should-total' | 'exit-code' | 'json' | 'junit' | 'html' | 'markdown', string>;

/** The step's outputs; without a report (mcpcheck could not grade) the grade and counts are empty. */
export function outputsOf(report: RunReport | undefined, exitCode: number, inputs: Inputs, jsonPath: string): Outputs {
  const levels = report?.summary.levels;
  return {
    grade: report?.summary.headline ?? '',
    'must-passed': levels ? String(levels.MUST.passed) : '',
    'must-total': levels ? String(levels.MUST.total) : '',
    'should-passed': levels ? String(levels.SHOULD.passed) : '',
    'should-total': levels ? String(levels.SHOULD.total) : '',
    'exit-code': String(exitCode),
    json: report ? jsonPath : '',
    junit: inputs.junit,
    html: inputs.html,
    markdown: inputs.markdown,
  };
}

/** `$GITHUB_OUTPUT` lines in the multiline form (`name<<DELIMITER`), with a delimiter no value contains. */
export function outputFileText(outputs: Outputs): string {
  let delimiter: string;
  do delimiter = `mcpcheck_${randomUUID()}`;
  while (Object.values(outputs).some((v) => v.includes(delimiter)));
  return Object.entries(outputs).map(([name, value]) => `${name}<<${delimiter}\n${value}\n${delimiter}\n`).join('');
}

/** Whether the step fails for this exit code: `setup` leaves graded outcomes (1, 3) to the outputs. */
export function stepFails(exitCode: number, failOn: FailOn): boolean {
  return failOn === 'any' ? exitCode !== 0 : exitCode !== 0 && exitCode !== 1 && exitCode !== 3;
}
