import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
