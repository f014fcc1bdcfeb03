import { describe, expect, it } from 'vitest';
import { command, parse, type Program } from '../src/cli/args.js';
import { SetupError } from '../src/errors.js';

/** The flags and positionals a command ran with, by the command's name. */
let ran: { name: string; flags: Record<string, unknown>; positionals: string[] } | undefined;

const record = (name: string) => async (flags: Record<string, unknown>, positionals: string[]) => {
  ran = { name, flags, positionals };
};

const program: Program = {
  name: 'tool',
  version: '1.2.3',
  demand: 'name a command: go or pack',
  epilogue: 'Exit codes: none',
  commands: [
    command({
      name: 'go',
      describe: 'goes somewhere',
      flags: {
        to: { type: 'string', arg: 'place', describe: 'where' },
        times: { type: 'number', describe: 'how often' },
        tag: { type: 'string', array: true, describe: 'tags' },
        loud: { type: 'boolean', describe: 'shout' },
        mode: { choices: ['walk', 'run'], default: 'walk', describe: 'how' },
      },
      check(flags) {
        if (flags.times !== undefined && flags.times < -1) throw new SetupError('--times is at least -1');
      },
      run: record('go'),
    }),
    command({
      name: 'pack',
      describe: 'packs things',
      flags: {},
      demand: 'name a pack action: one',
      commands: [command({ name: 'one', describe: 'packs one', positional: { name: '<item>', what: 'item to pack' }, flags: { box: { type: 'string', demandOption: true, describe: 'the box' } }, run: record('pack one') })],
    }),
    command({ name: 'read', describe: 'reads files', positional: { name: '<files..>', what: 'file', variadic: true }, flags: {}, run: record('read') }),
  ],
};

async function run(argv: string[]) {
  ran = undefined;
  const invocation = parse(program, argv);
  if (invocation.kind !== 'run') throw new Error(`not a run: ${invocation.kind}`);
  await invocation.run();
  return ran!;
}

function refused(argv: string[]): string {
  try {
    parse(program, argv);
  } catch (e) {
    expect(e).toBeInstanceOf(SetupError);
    expect((e as Error).message).not.toContain('\n');
    return (e as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

describe('the command-line parser', () => {
  it('takes --name value and --name=value, repeats list flags, and fills defaults', async () => {
    const r = await run(['go', '--to', 'town', '--times=3', '--tag', 'a', '--tag=b,c', '--loud']);
    expect(r).toEqual({ name: 'go', flags: { to: 'town', times: 3, tag: ['a', 'b,c'], loud: true, mode: 'walk' }, positionals: [] });
  });

  it('turns a boolean off with --no-name or =false', async () => {
    expect((await run(['go', '--no-loud'])).flags.loud).toBe(false);
    expect((await run(['go', '--loud=false'])).flags.loud).toBe(false);
    expect(refused(['go', '--loud=maybe'])).toMatch(/--loud is on or off/);
  });

  it('takes "-" and negative numbers as values, and nothing else that starts with "-"', async () => {
    expect((await run(['go', '--to', '-'])).flags.to).toBe('-');
    expect((await run(['go', '--times', '-0.5', '--no-loud'])).flags.times).toBe(-0.5);
    expect(refused(['go', '--to', '--loud'])).toBe('--to needs a value (see tool go --help)');
    expect(refused(['go', '--to'])).toBe('--to needs a value (see tool go --help)');
    expect(refused(['go', '--mode'])).toMatch(/--mode needs a value \(one of walk, run\)/);
  });

  it('refuses what it does not know, in one line that names the command', () => {
    expect(refused(['go', '--bogus'])).toBe('unknown flag --bogus (see tool go --help)');
    expect(refused(['go', '-x'])).toBe('unknown flag -x (see tool go --help)');
    expect(refused(['fly'])).toBe('unknown command "fly"; the commands are go, pack, read (see tool --help)');
    expect(refused(['pack', 'two'])).toBe('unknown command "two"; the commands are one (see tool pack --help)');
    expect(refused(['go', 'somewhere'])).toBe('unexpected argument "somewhere" (see tool go --help)');
    expect(refused([])).toBe('name a command: go or pack (see tool --help)');
    expect(refused(['pack'])).toBe('name a pack action: one (see tool pack --help)');
  });

  it('checks values: numbers, choices, one value for a single flag, required flags, the command\'s own check', () => {
    expect(refused(['go', '--times', 'many'])).toMatch(/--times takes a number \(got "many"\)/);
    expect(refused(['go', '--times', ''])).toMatch(/--times takes a number/);
    expect(refused(['go', '--mode', 'fly'])).toMatch(/--mode takes one of walk, run \(got "fly"\)/);
    expect(refused(['go', '--to', 'a', '--to', 'b'])).toMatch(/--to is given twice/);
    expect(refused(['pack', 'one', 'x'])).toBe('--box is required (see tool pack one --help)');
    expect(refused(['go', '--times', '-2'])).toBe('--times is at least -1');
  });

  it('counts positionals, and takes everything after -- as one', async () => {
    expect(await run(['pack', 'one', 'hat', '--box', 'b'])).toEqual({ name: 'pack one', flags: { box: 'b' }, positionals: ['hat'] });
    expect(refused(['pack', 'one', '--box', 'b'])).toMatch(/^name the item to pack/);
    expect(refused(['pack', 'one', 'a', 'b', '--box', 'b'])).toMatch(/unexpected argument "b" \(one item to pack only\)/);
    expect(refused(['read'])).toMatch(/^name at least one file/);
    expect((await run(['read', 'a', '--', '--b', '-c'])).positionals).toEqual(['a', '--b', '-c']);
    expect((await run(['read', '--', '--version', '-h'])).positionals).toEqual(['--version', '-h']);
  });

  it('answers --help and --version anywhere, from the same declarations', () => {
    expect(parse(program, ['--version'])).toEqual({ kind: 'version', text: '1.2.3\n' });
    expect(parse(program, ['go', '-V'])).toEqual({ kind: 'version', text: '1.2.3\n' });
    const top = parse(program, ['-h']);
    expect(top.kind).toBe('help');
    const text = (top as { text: string }).text;
    expect(text).toMatch(/^ {2}tool go +goes somewhere$/m);
    expect(text).toMatch(/^ {2}tool read <files\.\.> +reads files$/m);
    expect(text).toContain('Exit codes: none');
    const go = (parse(program, ['go', '--help']) as { text: string }).text;
    expect(go).toMatch(/^ {2}--to <place> +where$/m);
    expect(go).toMatch(/^ {2}--mode <walk\|run> +how \(default: walk\)$/m);
    expect(go).toMatch(/^ {2}--tag <value> +tags \(repeatable\)$/m);
    const pack = (parse(program, ['pack', '--help']) as { text: string }).text;
    expect(pack).toMatch(/^ {2}tool pack one <item> +packs one$/m);
    for (const line of [...text.split('\n'), ...go.split('\n'), ...pack.split('\n')]) expect(line.length).toBeLessThanOrEqual(100);
  });
});
