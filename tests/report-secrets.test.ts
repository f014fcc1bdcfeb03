import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING, freePort, LOOPBACK, mcpcheckAsync, requireBuild } from './server-helpers.js';

/**
 * server-everything's `get-env` tool (read-only, so called under the default --call-tools) answers
 * with its whole environment, which it inherited from mcpcheck: what a CI job uploads as report
 * artifacts must not hold the secrets of that environment, nor a --header value, in any format.
 */
beforeAll(requireBuild);

const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A value with a quote and a backslash: it shows up escaped once in a frame and twice in get-env's JSON text inside one. */
const PLANTED = 'planted-"secret"\\value-7f3a9c';
const HEADER_VALUE = 'header-secret-c41d2e';

/** Every file under `root`, read as text. */
function allText(root: string): Array<{ file: string; text: string }> {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((name) => join(root, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

function formats(out: string): string[] {
  // The console and GitHub annotations go to stdout, read below with the files.
  return ['--json', join(out, 'r.json'), '--junit', join(out, 'r.xml'), '--html', join(out, 'r.html'), '--markdown', join(out, 'r.md'), '--badge', join(out, 'r.svg'), '--transcript', join(out, 'transcripts'), '--reporter', 'github', '--verbose', '--no-color'];
}

/** Neither the raw value nor any of its escaped forms, anywhere. */
function leaks(text: string, value: string): boolean {
  const once = JSON.stringify(value).slice(1, -1);
  const forms = [value, once, JSON.stringify(once).slice(1, -1), value.slice(0, 14)];
  return forms.some((f) => text.includes(f));
}

describe('no secret in any output', () => {
  it('stdio: an environment value shows as $NAME in every report format, the transcripts and the console', async () => {
    const out = join(dir, 'stdio');
    const run = await mcpcheckAsync(['server', '--stdio', `node ${EVERYTHING} stdio`, '--only', 'server.tools.call', ...formats(out)], { MCPCHECK_PLANTED_SECRET: PLANTED });
    expect(run.code, run.stderr).toBe(0);
    const files = [...allText(out), { file: 'console', text: run.stdout + run.stderr }];
    expect(files.map((f) => f.file.replace(out, '')).sort()).toEqual(expect.arrayContaining(['/r.json', '/r.xml', '/r.html', '/r.md', 'console']));
    for (const { file, text } of files) expect(leaks(text, PLANTED), file).toBe(false);
    // get-env's answer was kept (the transcript, the JSON report's wire log), with the name in the value's place.
    const shown = files.filter((f) => f.text.includes('$MCPCHECK_PLANTED_SECRET')).map((f) => f.file.replace(out, ''));
    expect(shown).toEqual(expect.arrayContaining(['/r.json', '/r.html']));
    expect(shown.some((f) => f.startsWith('/transcripts/'))).toBe(true);
  }, 90_000);

  it('HTTP: a --header value (here also in the serving command and so in its environment) never shows; --target-env starts the server without the rest', async () => {
    const out = join(dir, 'http');
    const port = await freePort();
    const start = `env MCPCHECK_HEADER_ECHO=${HEADER_VALUE} PORT=${port} node --import ${LOOPBACK} ${EVERYTHING} streamableHttp`;
    const run = await mcpcheckAsync(
      ['server', '--url', `http://127.0.0.1:${port}/mcp`, '--start', start, '--header', `X-Planted: ${HEADER_VALUE}`, '--target-env', 'PATH', '--only', 'server.tools.call', ...formats(out)],
      { MCPCHECK_PLANTED_SECRET: PLANTED },
    );
    expect(run.code, run.stderr).toBe(0);
    const files = [...allText(out), { file: 'console', text: run.stdout + run.stderr }];
    for (const { file, text } of files) {
      expect(leaks(text, HEADER_VALUE), file).toBe(false);
      expect(leaks(text, PLANTED), file).toBe(false);
    }
    const json = files.find((f) => f.file.endsWith('r.json'))!.text;
    // The serving command, in the report's target line, shows the header's name instead of its value.
    expect(json).toContain('MCPCHECK_HEADER_ECHO=[--header X-Planted]');
    // get-env's answer, in the transcript: the value the command line set shows as the header it is; the
    // server got PATH alone besides, so the planted variable is not in it at all.
    const transcripts = files.filter((f) => f.file.includes('/transcripts/')).map((f) => f.text).join('\n');
    expect(transcripts).toContain('\\"MCPCHECK_HEADER_ECHO\\": \\"[--header X-Planted]\\"');
    expect(transcripts).not.toContain('MCPCHECK_PLANTED_SECRET');
  }, 90_000);

  it('a target that dies printing a secret: the one line of the setup error shows its name', async () => {
    const run = await mcpcheckAsync(['server', '--stdio', `node -e "console.error('bad key ' + process.env.MCPCHECK_PLANTED_SECRET); process.exit(3)"`], { MCPCHECK_PLANTED_SECRET: PLANTED });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('bad key $MCPCHECK_PLANTED_SECRET');
    expect(leaks(run.stdout + run.stderr, PLANTED)).toBe(false);
  }, 30_000);
});
