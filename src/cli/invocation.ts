import { realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';

/**
 * How a reproduce or replay line names mcpcheck, so that it runs as pasted into the shell the user
 * ran mcpcheck from: `npx mcpcheck` when npm ran it (npx, or an npm script, whose PATH a shell does
 * not have) or when the project in the working directory has it installed; `mcpcheck` when that
 * name on the shell's PATH is this very program; else `node` and the path of the script (relative
 * to the working directory when it lies under it, as in a clone).
 */
export function invocation(script: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const self = real(script);
  if (self === undefined) return `node ${shellWord(script)}`;
  const bin = (dir: string) => real(join(dir, 'mcpcheck')) === self;
  const projectBin = bin(join(cwd, 'node_modules', '.bin'));
  // npm names the command it ran (npx, or an npm script); one inherited from a parent npm ran something else.
  if (/^(?:npx\s+)?mcpcheck(?:\s|$)/.test(env.npm_lifecycle_script ?? '')) return 'npx mcpcheck';
  if (onPath(env, bin)) return 'mcpcheck';
  if (projectBin) return 'npx mcpcheck';
  return nodeScript(script, cwd);
}

/** Whether a folder of the shell's PATH (npm's own bin folders aside) holds this mcpcheck. */
function onPath(env: NodeJS.ProcessEnv, bin: (dir: string) => boolean): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && !dir.includes(join('node_modules', '.bin')) && bin(dir));
}

function nodeScript(script: string, cwd: string): string {
  const rel = relative(cwd, script);
  return `node ${shellWord(rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : script)}`;
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** A path as one shell word: as it is when it has nothing a shell reads, else in single quotes. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
