import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// yaml comes with vite and @modelcontextprotocol/conformance (dev dependencies); only this test reads YAML.
import { parse } from 'yaml';
import { INPUTS, inputVariable, mcpcheckArgv, readInputs } from '../src/action/action.js';
import { REFERENCE, requireBuild, ROOT } from './server-helpers.js';

interface Step {
  id?: string;
  shell: string;
  run: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface ActionFile {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionFile;
const TRANSCRIPT = join(ROOT, 'tests/fixtures/transcripts/valid/2025-11-25-tools.jsonl');
const ONE_SCENARIO = 'server.base.null-id-rejected';

beforeAll(requireBuild);

/** What the runner does with `${{ … }}` outside scripts: it substitutes the value, as data. Anything else this test cannot stand in for. */
function expand(text: string, inputs: Record<string, string>): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    if (expr === 'github.action_path') return ROOT;
    const input = /^inputs\.([a-z-]+)$/.exec(expr)?.[1];
    if (input === undefined || !(input in action.inputs)) throw new Error(`expression the test cannot evaluate: ${expr}`);
    return inputs[input] ?? action.inputs[input]!.default ?? '';
  });
}

/** Runs the composite action's steps as the runner does (bash --noprofile --norc -eo pipefail on each script), in `dir`. */
function runAction(inputs: Record<string, string>, dir: string) {
  const outputFile = join(dir, 'github-output');
  writeFileSync(outputFile, '');
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('INPUT_') && !k.startsWith('GITHUB_')));
  let code: number | null = 0;
  let stdout = '';
  for (const [i, step] of action.runs.steps.entries()) {
    const script = join(dir, `step-${i}.sh`);
    writeFileSync(script, step.run);
    const env = { ...base, GITHUB_ACTION_PATH: ROOT, GITHUB_OUTPUT: outputFile, RUNNER_TEMP: dir, ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, inputs)])) };
    const cwd = step['working-directory'] ? expand(step['working-directory'], inputs) : dir;
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, encoding: 'utf8', timeout: 120_000 });
    stdout += r.stdout;
    code = r.status;
    if (code !== 0) break;
  }
  const outputs: Record<string, string> = {};
  for (const m of readFileSync(outputFile, 'utf8').matchAll(/^([a-z-]+)<<(.+)\n([\s\S]*?)\n?\2\n/gm)) outputs[m[1]!] = m[3]!;
  return { code, stdout, outputs };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'mcpcheck-action-'));

describe('action.yml', () => {
  it('is a composite action whose scripts hold no expression: inputs reach them only through env', () => {
    expect(action.runs.using).toBe('composite');
    for (const step of action.runs.steps) {
      expect(step.run).not.toContain('${{');
      expect(step.shell).toBe('bash');
    }
    const run = action.runs.steps.find((s) => s.id === 'mcpcheck')!;
    expect(Object.keys(action.inputs)).toEqual([...INPUTS]);
    expect(run.env).toEqual(Object.fromEntries(INPUTS.map((name) => [inputVariable(name), `\${{ inputs.${name} }}`])));
    for (const [name, o] of Object.entries(action.outputs)) expect(o.value).toBe(`\${{ steps.mcpcheck.outputs.${name} }}`);
  });

  it('grades the reference server: the outputs are the report\'s headline and counts', () => {
    const dir = tmp();
    const r = runAction({ stdio: `node ${REFERENCE}`, only: ONE_SCENARIO, json: join(dir, 'r.json'), junit: join(dir, 'j.xml') }, dir);
    expect(r.code, r.stdout.slice(-2000)).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    expect(r.outputs).toEqual({
      grade: report.summary.headline,
      'must-passed': String(report.summary.levels.MUST.passed),
      'must-total': String(report.summary.levels.MUST.total),
      'should-passed': String(report.summary.levels.SHOULD.passed),
      'should-total': String(report.summary.levels.SHOULD.total),
      'exit-code': '0',
      json: join(dir, 'r.json'),
      junit: join(dir, 'j.xml'),
      html: '',
      markdown: '',
    });
    expect(r.outputs['must-passed']).toBe(r.outputs['must-total']);
    expect(Number(r.outputs['must-total'])).toBeGreaterThan(10);
    expect(readFileSync(join(dir, 'j.xml'), 'utf8')).toContain('<testsuites');
  });

  it('fails the step on a MUST failure, or leaves it to the outputs with fail-on: setup', () => {
    const inputs = { stdio: `node ${REFERENCE} --break init-missing-serverinfo`, only: ONE_SCENARIO };
    const failed = runAction(inputs, tmp());
    expect(failed.code).toBe(1);
    expect(failed.outputs['exit-code']).toBe('1');
    expect(Number(failed.outputs['must-passed'])).toBeLessThan(Number(failed.outputs['must-total']));
    // Without a json input the report goes under RUNNER_TEMP, and its path is an output.
    expect(existsSync(failed.outputs.json!)).toBe(true);
    const tolerated = runAction({ ...inputs, 'fail-on': 'setup' }, tmp());
    expect(tolerated.code).toBe(0);
    expect(tolerated.outputs['exit-code']).toBe('1');
    expect(tolerated.stdout).toMatch(/^::warning::mcpcheck exited 1 \(requirements: MUST /m);
  });

  it('validates transcripts in mode validate', () => {
    const r = runAction({ mode: 'validate', files: `${TRANSCRIPT}\n` }, tmp());
    expect(r.code, r.stdout.slice(-2000)).toBe(0);
    expect(r.outputs.grade).toMatch(/^requirements: MUST \d+\/\d+/);
  });

  it('passes hostile input values as data: nothing in them is executed', () => {
    const dir = tmp();
    const json = join(dir, `$(touch ${dir}/pwned-json); rm -rf ${dir} #.json`);
    const junit = join(dir, `\`touch ${dir}/pwned-junit\`.xml`);
    const r = runAction({ stdio: `node ${REFERENCE}`, only: `${ONE_SCENARIO}`, json, junit, args: '--timeout=30000\n--request-timeout=10000' }, dir);
    expect(r.code, r.stdout.slice(-2000)).toBe(0);
    expect(existsSync(json)).toBe(true);
    expect(existsSync(junit)).toBe(true);
    expect(r.outputs.json).toBe(json);
    // An extra argument that is shell syntax is one argument mcpcheck refuses; a mode that is, an input error.
    const refused = runAction({ stdio: `node ${REFERENCE}`, args: `$(touch ${dir}/pwned-args)\n; touch ${dir}/pwned-semicolon` }, dir);
    expect(refused.code).toBe(2);
    expect(refused.outputs['exit-code']).toBe('2');
    expect(refused.outputs.grade).toBe('');
    const badMode = runAction({ mode: `server; touch ${dir}/pwned-mode`, stdio: 'x' }, dir);
    expect(badMode.code).toBe(2);
    expect(badMode.stdout).toContain('::error::mcpcheck action: input mode: "server; touch');
    expect(readdirSync(dir).filter((f) => f.startsWith('pwned'))).toEqual([]);
  });
});

describe('the action\'s argv', () => {
  const inputs = (given: Record<string, string>) => readInputs(Object.fromEntries(Object.entries(given).map(([k, v]) => [inputVariable(k as (typeof INPUTS)[number]), v])));

  it('gives every value as one --name=value argument, lists one per line or comma entry', () => {
    expect(mcpcheckArgv(inputs({ url: 'http://127.0.0.1:1/mcp', start: 'node s.js --port 1', headers: 'A: 1\nB: -2\n', only: 'a,b\nc', skip: '-x', baseline: '-b.json', args: '--verbose\n\n--timeout=5' }), '/t/r.json')).toEqual([
      'server', '--url=http://127.0.0.1:1/mcp', '--start=node s.js --port 1', '--header=A: 1', '--header=B: -2', '--only=a', '--only=b', '--only=c', '--skip=-x', '--json=/t/r.json', '--baseline=-b.json', '--verbose', '--timeout=5',
    ]);
    expect(mcpcheckArgv(inputs({ url: 'https://mcp.example.com/mcp', 'token-env': 'MCP_TOKEN' }), 'r.json')).toEqual(['server', '--url=https://mcp.example.com/mcp', '--token-env=MCP_TOKEN', '--json=r.json']);
    expect(mcpcheckArgv(inputs({ mode: 'validate', files: 'a.jsonl\n-b.jsonl' }), 'r.json')).toEqual(['validate', '--json=r.json', 'a.jsonl', './-b.jsonl']);
    expect(mcpcheckArgv(inputs({ mode: 'client', command: 'node c.js {url}' }), 'r.json')).toEqual(['client', '--command=node c.js {url}', '--json=r.json']);
  });

  it.each([
    [{ stdio: 'a', url: 'b' }, 'mode server takes exactly one of the inputs stdio and url'],
    [{}, 'mode server takes exactly one of the inputs stdio and url'],
    [{ mode: 'client' }, 'mode client needs the input command'],
    [{ mode: 'validate', stdio: 'x' }, 'input stdio does not apply to mode validate'],
    [{ mode: 'validate', only: 'x', files: 'a' }, 'input only does not apply to mode validate'],
    [{ mode: 'validate' }, 'mode validate needs the input files (one path per line)'],
    [{ mode: 'fuzz' }, 'input mode: "fuzz" is not server, client or validate'],
  ])('refuses %j: %s', (given, message) => {
    expect(() => mcpcheckArgv(inputs(given), 'r.json')).toThrow(message);
  });
});
