import { SetupError } from '../errors.js';

/**
 * mcpcheck's command line, declared as data: commands with their positionals and flags, parsed
 * into typed values, and the help text made from the same declarations. It loads nothing (an
 * argument parser package cost more start-up than the rest of `mcpcheck validate` did).
 *
 * Flags: `--name value` or `--name=value`; booleans `--name`, `--no-name`, `--name=true|false`;
 * a list flag repeats; `--` ends the flags. A value may start with "-" only when it is "-"
 * itself (stdout) or a number ("--seed -5"), so that a flag given no value is caught.
 */

export interface FlagSpec {
  /** What the flag takes; a flag with `choices` and no type takes a string. */
  type?: 'string' | 'number' | 'boolean';
  describe: string;
  /** Repeatable: the values in order. */
  array?: boolean;
  choices?: readonly string[];
  default?: string | number | boolean;
  /** The flag must be given. */
  demandOption?: boolean;
  /** What the value is, in the help (`--json <file>`); "value" when not said. */
  arg?: string;
}

export type Flags = Readonly<Record<string, FlagSpec>>;

type ValueOf<S extends FlagSpec> = S extends { choices: ReadonlyArray<infer C> } ? C : S extends { type: 'number' } ? number : S extends { type: 'boolean' } ? boolean : string;
type ArgOf<S extends FlagSpec> = S extends { array: true } ? Array<ValueOf<S>> : ValueOf<S>;

/** The parsed flags of a command: a value for each given (or defaulted, or demanded) flag. */
export type ParsedFlags<F extends Flags> = {
  -readonly [K in keyof F]: F[K] extends { demandOption: true } | { default: string | number | boolean } ? ArgOf<F[K]> : ArgOf<F[K]> | undefined;
};

export interface Positional {
  /** As the help shows it: `<files..>`, `<file>`. */
  name: string;
  /** What each one is, for a message that asks for it: "transcript file". */
  what: string;
  /** More than one may be given (at least one always). */
  variadic?: boolean;
}

export interface Command<F extends Flags = Flags> {
  name: string;
  describe: string;
  positional?: Positional;
  flags: F;
  /** Checks across flags (ranges, combinations); throws SetupError. */
  check?: (flags: ParsedFlags<F>) => void;
  /** Printed after the flags in the command's help. */
  epilogue?: string;
  run?: (flags: ParsedFlags<F>, positionals: string[]) => Promise<void>;
  /** Subcommands (`baseline write`); a command with them runs one of them. */
  commands?: readonly AnyCommand[];
  /** What to say when a command with subcommands is given none. */
  demand?: string;
}

/** A command of any flags, as a program lists them. */
export type AnyCommand = Command<never>;

/** A command, its flags' types inferred from their declaration. */
export function command<const F extends Flags>(spec: Command<F>): AnyCommand {
  return spec as unknown as AnyCommand;
}

export interface Program {
  name: string;
  commands: readonly AnyCommand[];
  /** What to say when no command is given. */
  demand: string;
  epilogue: string;
  version: string;
}

/** What the command line asks for: help, the version, or a command with its flags. */
export type Invocation =
  | { kind: 'help'; text: string }
  | { kind: 'version'; text: string }
  | { kind: 'run'; run: () => Promise<void> };

function fail(message: string, help: string): never {
  throw new SetupError(`${message} (see ${help} --help)`);
}

/** The token after a flag that needs a value, if it can be that value. */
function canBeValue(token: string | undefined): token is string {
  return token !== undefined && (!token.startsWith('-') || token === '-' || /^-\d/.test(token));
}

function convert(name: string, spec: FlagSpec, raw: string, help: string): string | number | boolean {
  if (spec.type === 'boolean') {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    fail(`--${name} is on or off: give it alone, as --no-${name}, or =true / =false (got ${JSON.stringify(raw)})`, help);
  }
  if (spec.choices && !spec.choices.includes(raw)) fail(`--${name} takes one of ${spec.choices.join(', ')} (got ${JSON.stringify(raw)})`, help);
  if (spec.type === 'number') {
    const n = raw.trim() === '' ? Number.NaN : Number(raw);
    if (Number.isNaN(n)) fail(`--${name} takes a number (got ${JSON.stringify(raw)})`, help);
    return n;
  }
  return raw;
}

/** The flags and positionals of one command's part of the command line. */
function parseFlags(cmd: AnyCommand, tokens: string[], help: string): { flags: Record<string, unknown>; positionals: string[] } {
  const specs: Record<string, FlagSpec> = cmd.flags;
  const flags: Record<string, unknown> = {};
  const positionals: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === '--') {
      positionals.push(...tokens.slice(i + 1));
      break;
    }
    if (!token.startsWith('--')) {
      if (token.startsWith('-') && token !== '-') fail(`unknown flag ${token}`, help);
      positionals.push(token);
      continue;
    }
    const eq = token.indexOf('=');
    let name = eq < 0 ? token.slice(2) : token.slice(2, eq);
    let inline: string | undefined = eq < 0 ? undefined : token.slice(eq + 1);
    let spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!spec && name.startsWith('no-') && inline === undefined) {
      const positive = name.slice(3);
      const negated = Object.hasOwn(specs, positive) ? specs[positive] : undefined;
      if (negated?.type === 'boolean') {
        name = positive;
        spec = negated;
        inline = 'false';
      }
    }
    if (!spec) fail(`unknown flag --${name}`, help);
    let raw: string;
    if (inline !== undefined) raw = inline;
    else if (spec.type === 'boolean') raw = 'true';
    else if (canBeValue(tokens[i + 1])) raw = tokens[++i]!;
    else fail(`--${name} needs a value${spec.choices ? ` (one of ${spec.choices.join(', ')})` : ''}`, help);
    const value = convert(name, spec, raw, help);
    if (spec.array) flags[name] = [...((flags[name] as unknown[] | undefined) ?? []), value];
    else if (name in flags && spec.type !== 'boolean') fail(`--${name} is given twice; it takes one value`, help);
    else flags[name] = value;
  }
  for (const [name, spec] of Object.entries(specs)) {
    if (name in flags) continue;
    if (spec.default !== undefined) flags[name] = spec.default;
    else if (spec.demandOption) fail(`--${name} is required`, help);
  }
  return { flags, positionals };
}

function checkPositionals(cmd: AnyCommand, positionals: string[], help: string): void {
  const p = cmd.positional;
  if (!p) {
    if (positionals.length > 0) fail(`unexpected argument ${JSON.stringify(positionals[0])}`, help);
    return;
  }
  if (positionals.length === 0) fail(`name ${p.variadic ? 'at least one' : 'the'} ${p.what}`, help);
  if (!p.variadic && positionals.length > 1) fail(`unexpected argument ${JSON.stringify(positionals[1])} (one ${p.what} only)`, help);
}

/** The words that name a command: `mcpcheck baseline write`. */
function commandLine(program: Program, path: ReadonlyArray<AnyCommand>): string {
  return [program.name, ...path.map((c) => c.name)].join(' ');
}

/** Reads the command line; throws SetupError (one line) for anything it cannot take. */
export function parse(program: Program, argv: string[]): Invocation {
  // Flags end at "--": what follows is positionals, a file may be called --version.
  const end = argv.indexOf('--');
  const flagged = (...names: string[]) => argv.slice(0, end < 0 ? argv.length : end).some((a) => names.includes(a));
  if (flagged('--version', '-V')) return { kind: 'version', text: `${program.version}\n` };
  const path: Array<AnyCommand> = [];
  let commands = program.commands;
  let i = 0;
  // The command words come first: `mcpcheck baseline write …`.
  while (i < argv.length && !argv[i]!.startsWith('-')) {
    const word = argv[i]!;
    const next = commands.find((c) => c.name === word);
    if (!next) fail(`unknown command ${JSON.stringify(word)}; the commands are ${commands.map((c) => c.name).join(', ')}`, commandLine(program, path));
    path.push(next);
    i++;
    if (!next.commands) break;
    commands = next.commands;
  }
  const cmd = path.at(-1);
  const rest = argv.slice(i);
  const wantsHelp = flagged('--help', '-h');
  const help = commandLine(program, path);
  if (!cmd || cmd.commands) {
    if (wantsHelp) return { kind: 'help', text: commandsHelp(program, path) };
    fail(cmd?.demand ?? program.demand, help);
  }
  if (wantsHelp) return { kind: 'help', text: commandHelp(program, path) };
  const { flags, positionals } = parseFlags(cmd, rest, help);
  checkPositionals(cmd, positionals, help);
  cmd.check?.(flags as never);
  const run = cmd.run!;
  return { kind: 'run', run: () => run(flags as never, positionals) };
}

// ---- Help ---------------------------------------------------------------------------------------

const WIDTH = 100;

/** Text as lines of at most `width` characters, broken between words. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}

/** Rows of a two-column table, the second column wrapped with a hanging indent. */
function table(rows: Array<[string, string]>): string {
  const left = Math.min(Math.max(...rows.map(([l]) => l.length)) + 2, 34);
  return rows
    .map(([l, r]) => {
      const lines = wrap(r, WIDTH - left - 2);
      const head = `  ${l}`.padEnd(left + 2);
      const first = head.length > left + 2 ? `${head}\n${' '.repeat(left + 2)}` : head;
      return first + lines.join(`\n${' '.repeat(left + 2)}`);
    })
    .join('\n');
}

function usage(path: ReadonlyArray<AnyCommand>, cmd: AnyCommand): string {
  return [...path.map((c) => c.name), ...(cmd.positional ? [cmd.positional.name] : [])].join(' ');
}

function flagRows(flags: Flags): Array<[string, string]> {
  return Object.entries(flags).map(([name, spec]) => {
    const value = spec.type === 'boolean' ? '' : spec.choices ? ` <${spec.choices.join('|')}>` : ` <${spec.arg ?? (spec.type === 'number' ? 'n' : 'value')}>`;
    const extra = [spec.array ? '(repeatable)' : '', spec.demandOption ? '(required)' : '', spec.default !== undefined ? `(default: ${String(spec.default)})` : ''].filter(Boolean);
    return [`--${name}${value}`, [spec.describe, ...extra].join(' ')];
  });
}

const GLOBAL_ROWS: Array<[string, string]> = [
  ['-h, --help', 'show help'],
  ['-V, --version', 'show the version number'],
];

function commandsHelp(program: Program, path: ReadonlyArray<AnyCommand>): string {
  const commands = path.at(-1)?.commands ?? program.commands;
  const prefix = commandLine(program, path);
  const rows = commands.map((c): [string, string] => [`${prefix} ${c.name}${c.positional ? ` ${c.positional.name}` : ''}`, c.describe]);
  const about = path.at(-1) ? `${wrap(path.at(-1)!.describe, WIDTH).join('\n')}\n\n` : '';
  return `${prefix} <command>\n\n${about}Commands:\n${table(rows)}\n\nOptions:\n${table(GLOBAL_ROWS)}\n\n${program.epilogue}\n`;
}

function commandHelp(program: Program, path: ReadonlyArray<AnyCommand>): string {
  const cmd = path.at(-1)!;
  const epilogue = cmd.epilogue ? `\n\n${cmd.epilogue}` : '';
  return `${program.name} ${usage(path, cmd)}\n\n${wrap(cmd.describe, WIDTH).join('\n')}\n\nOptions:\n${table([...flagRows(cmd.flags), ...GLOBAL_ROWS])}${epilogue}\n`;
}
