import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync, type Metafile } from 'esbuild';
import { packageRoot } from '../paths.js';

/**
 * Build step (`npm run build`, the last): the program tsc wrote (dist/src/cli.js and what it
 * imports) is bundled twice, and dist/src/cli.js becomes a launcher that loads one of the two.
 *
 * - dist/src/chunks/cli.cjs: everything as one CommonJS file. Node 20 loads it faster than the
 *   same code as ES modules: a run of `mcpcheck server` starts some 60 ms sooner than from ES
 *   chunks (and those saved about 30 ms against the hundred-odd modules tsc wrote). The lazily
 *   imported parts (a command, the suites, a report format) stay lazy: their code runs when they
 *   are first imported.
 * - dist/src/chunks/light.js: the same as ES modules split into chunks, for what needs little of
 *   it: `--version`, and `relay`, started once per client scenario. Compiling the whole
 *   CommonJS file would cost them about 60 ms.
 *
 * Both are built from the same modules, and a process loads one of them, so which one runs
 * changes only how fast it starts. The proxy's judging thread, started from its own file, is an
 * entry of the ES build. Packages stay in node_modules.
 */
const MARK = 'mcpcheck: bundled';
const src = join(packageRoot(), 'dist/src');
const entry = join(src, 'cli.js');
const banner = `// ${MARK} by src/build/bundle-cli.ts from the modules tsc wrote beside it`;

const LAUNCHER = `#!/usr/bin/env node
${banner}
// --version and relay load the ES chunks they need; every other command the CommonJS bundle.
import { createRequire } from 'node:module';

const argv = process.argv.slice(2);
if (argv[0] === 'relay' || (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V'))) await import('./chunks/light.js');
else createRequire(import.meta.url)('./chunks/cli.cjs');
`;

const common = { bundle: true, platform: 'node', target: 'node20', packages: 'external', logLevel: 'warning', metafile: true } as const;

/** A line that is a comment, or a line of a block comment's: where esbuild leaves a character as written. */
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*)/;
const NOT_ASCII = /[^\x00-\x7f]/;

/**
 * Makes an output file ASCII. esbuild escapes every other character in code, but keeps comments
 * as written, and one such character anywhere made Node read the whole 1.7 MB bundle as UTF-8 into
 * a string of two bytes a character, which also parses slower: some 8 ms of every start. Written
 * as \u{…} in the comment instead. One outside a comment line fails the build.
 */
function asciiOnly(file: string): void {
  const text = readFileSync(file, 'utf8');
  if (!NOT_ASCII.test(text)) return;
  const lines = text.split('\n').map((line, i) => {
    if (!NOT_ASCII.test(line)) return line;
    if (!COMMENT_LINE.test(line)) throw new Error(`bundle-cli: ${file}:${i + 1} has a character that is not ASCII outside a comment: ${line.trim().slice(0, 80)}`);
    return line.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
  });
  writeFileSync(file, lines.join('\n'));
}

/** The JavaScript files a build wrote (its metafile names them from the working directory). */
function outputs(metafile: Metafile): string[] {
  return Object.keys(metafile.outputs).filter((path) => path.endsWith('.js') || path.endsWith('.cjs')).map((path) => resolve(path));
}

if (!readFileSync(entry, 'utf8').includes(MARK)) {
  rmSync(join(src, 'chunks'), { recursive: true, force: true });
  const cjs = buildSync({
    ...common,
    entryPoints: [entry],
    outfile: join(src, 'chunks/cli.cjs'),
    format: 'cjs',
    // A module that locates itself (the package root, its require) does so from the chunks' directory, as in the ES build.
    // Strict, as the ES modules were: the directive has to come before the banner's statement.
    define: { 'import.meta.url': 'moduleUrl' },
    banner: { js: `${banner}\n'use strict';\nconst moduleUrl = require('node:url').pathToFileURL(__filename).href;` },
  });
  // A package imported with import() would load as its ES copy beside the CommonJS one the bundle requires.
  const dynamic = Object.values(cjs.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.kind === 'dynamic-import' && i.external && !i.path.startsWith('node:')).map((i) => i.path));
  if (dynamic.length > 0) throw new Error(`bundle-cli: import() of a package (${dynamic.join(', ')}): import it statically from a module that is itself imported lazily`);
  const esm = buildSync({
    ...common,
    entryPoints: { 'chunks/light': entry, 'commands/proxy-judging': join(src, 'commands/proxy-judging.js') },
    outdir: src,
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    format: 'esm',
    allowOverwrite: true,
    banner: { js: banner },
  });
  for (const file of [...outputs(cjs.metafile), ...outputs(esm.metafile)]) asciiOnly(file);
  writeFileSync(entry, LAUNCHER);
  // tsc's map is of the module it replaced.
  rmSync(`${entry}.map`, { force: true });
}
