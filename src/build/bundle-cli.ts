import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { packageRoot } from '../paths.js';

/**
 * Build step (`npm run build`, the last): dist/src/cli.js, as tsc wrote it, becomes one module with
 * what every command needs, and each lazily imported part (a command, the suites, a report format)
 * a chunk of its own beside it in dist/src/chunks/. Resolving and reading some hundred modules
 * one by one cost every run about 30 ms of its start. Packages stay in node_modules.
 */
const src = join(packageRoot(), 'dist/src');
const entry = join(src, 'cli.js');
if (!readFileSync(entry, 'utf8').includes('mcpcheck: bundled')) {
  rmSync(join(src, 'chunks'), { recursive: true, force: true });
  buildSync({
    entryPoints: [entry, join(src, 'commands/proxy-judging.js')],
    outdir: src,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    allowOverwrite: true,
    banner: { js: '// mcpcheck: bundled by src/build/bundle-cli.ts from the modules tsc wrote beside it' },
    logLevel: 'warning',
  });
  // tsc's map is of the module it replaced.
  rmSync(`${entry}.map`, { force: true });
}
