import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocation } from '../src/cli/invocation.js';

/** A clone with the CLI script, a project that installed it (node_modules/.bin/mcpcheck), and a PATH folder with a global link. */
function layout() {
  const root = mkdtempSync(join(tmpdir(), 'mcpcheck-invocation-'));
  const clone = join(root, 'clone');
  mkdirSync(join(clone, 'dist/src'), { recursive: true });
  const script = join(clone, 'dist/src/cli.js');
  writeFileSync(script, '');
  const project = join(root, 'project');
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  symlinkSync(script, join(project, 'node_modules/.bin/mcpcheck'));
  const global = join(root, 'bin');
  mkdirSync(global);
  symlinkSync(script, join(global, 'mcpcheck'));
  return { root, clone, script, project, global };
}

describe('invocation: how a reproduce line names mcpcheck', () => {
  it('from a clone: node and the script, relative to the working directory when under it', () => {
    const { root, clone, script } = layout();
    expect(invocation(script, { PATH: '/usr/bin' }, clone)).toBe('node dist/src/cli.js');
    expect(invocation(script, { PATH: '/usr/bin' }, root)).toBe('node clone/dist/src/cli.js');
    expect(invocation(script, { PATH: '/usr/bin' }, join(root, 'bin'))).toBe(`node ${script}`);
  });

  it('the installed bin on the PATH: mcpcheck', () => {
    const { script, global } = layout();
    expect(invocation(script, { PATH: `/usr/bin:${global}` }, '/')).toBe('mcpcheck');
  });

  it('run by npx or an npm script, or installed in the project of the working directory: npx mcpcheck', () => {
    const { script, project } = layout();
    const bin = join(project, 'node_modules/.bin');
    expect(invocation(script, { PATH: `${bin}:/usr/bin`, npm_lifecycle_script: 'mcpcheck server --stdio x' }, project)).toBe('npx mcpcheck');
    // npm's PATH entry is not the shell's: a script run as `mcpcheck` from an npm script is not on PATH once pasted.
    expect(invocation(script, { PATH: `${bin}:/usr/bin` }, project)).toBe('npx mcpcheck');
    expect(invocation(script, { PATH: '/usr/bin', npm_lifecycle_script: 'npx mcpcheck fuzz --stdio x' }, '/')).toBe('npx mcpcheck');
  });

  it('an npm command inherited from a parent that ran something else changes nothing', () => {
    const { clone, script } = layout();
    expect(invocation(script, { PATH: '/usr/bin', npm_lifecycle_script: 'vitest run', npm_command: 'run' }, clone)).toBe('node dist/src/cli.js');
  });

  it('a path a shell would split is quoted', () => {
    const root = mkdtempSync(join(tmpdir(), 'mcpcheck invocation '));
    const script = join(root, 'cli.js');
    writeFileSync(script, '');
    expect(invocation(script, {}, tmpdir())).toBe(`node '${script.slice(tmpdir().length + 1)}'`);
    expect(invocation(script, {}, join(root, 'nowhere'))).toBe(`node '${script}'`);
  });
});
