import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SetupError } from './errors.js';

let root: string | undefined;

/**
 * The package root, found by walking up from this module: the same code runs from `src/`
 * under vitest and from `dist/src/` when built, so a fixed relative path would be wrong in one.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'schemas'))) return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error('mcpcheck: cannot locate the package root (schemas/ not found)');
    dir = up;
  }
}

/**
 * A fresh directory only this user can enter (mkdtemp makes it 0700), for `what` mcpcheck needs;
 * a temporary directory it cannot write to is the machine's setup, not an internal error.
 */
export function privateTempDir(prefix: string, what: string): string {
  try {
    return mkdtempSync(join(tmpdir(), prefix));
  } catch (err) {
    throw new SetupError(`cannot make a directory for ${what} in ${tmpdir()}: ${(err as Error).message} (set TMPDIR to a writable directory)`);
  }
}
