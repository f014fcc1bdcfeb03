import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The layering rule of ../shared/design.md: a module imports its own layer or lower ones, never a
// higher one, not even a type. bench/ and tests/ sit outside the layering and may import anything.

const ROOT = join(import.meta.dirname, '..');

/** The layers, lowest first. */
const LAYERS = ['leaf', 'catalog', 'model', 'validate', 'pure', 'wire', 'harness', 'drive', 'grade', 'report', 'suites', 'commands', 'entry'] as const;
type Layer = (typeof LAYERS)[number];

/** Where every file or folder of src/ and suites/ sits, and why there. A path takes the row of its longest prefix. */
const TABLE: readonly (readonly [path: string, layer: Layer, why: string])[] = [
  ['src/errors.ts', 'leaf', 'the setup error class: knows nothing of MCP'],
  ['src/json.ts', 'leaf', 'JSON value helpers: knows nothing of MCP'],
  ['src/paths.ts', 'leaf', 'where the package and temporary files are'],
  ['src/redact.ts', 'leaf', 'secrets kept out of what mcpcheck writes: knows nothing of MCP'],
  ['src/version.ts', 'leaf', "mcpcheck's own version, read from package.json"],
  ['src/spec', 'catalog', 'the requirement catalogs, revisions, levels and rulings: what every judgement cites'],
  ['src/model.ts', 'model', 'the result model (checks, verdicts, reports) as types; needs only the catalog, spoken by everything above'],
  ['src/validate', 'validate', 'pure validators: a message and its context in, findings out'],
  ['src/schema', 'pure', 'values from JSON Schema, checked against the dialect validators; nothing in validate makes values'],
  ['src/checks.ts', 'pure', "findings → check results of the model: a validator's caller does this, for a live run and a transcript alike"],
  ['src/wire.ts', 'pure', "bounded wire logs of the model, from a session's or a transcript's frames"],
  ['src/transport', 'wire', 'bytes ↔ messages on stdio and HTTP, both sides'],
  ['src/transcript', 'wire', 'messages ↔ JSONL transcript lines on disk, judged by the validators'],
  ['src/harness', 'harness', 'sessions, targets and pacing over a channel'],
  ['src/runner', 'drive', 'runs scenarios over sessions: selection, isolation, timeouts, discovery'],
  ['src/fuzz', 'drive', 'runs generated cases over sessions, as the runner runs scenarios'],
  ['src/property', 'drive', 'runs a fast-check property against a live target'],
  ['src/grade', 'grade', 'check results → requirement verdicts → grade, baseline'],
  ['src/report', 'report', 'views of a graded run; none computes a verdict'],
  ['suites', 'suites', 'the scenarios, which reach src/ through suites/kit.ts only'],
  ['src/commands', 'commands', 'one command each: choose suites, run, grade, report'],
  ['src/cli', 'entry', 'the command line: flags → commands → exit codes'],
  ['src/cli.ts', 'entry', 'the executable'],
  ['src/action', 'entry', 'the GitHub Action'],
  ['src/proxy', 'drive', 'carries a real client\'s traffic to a real server unchanged and judges it as it passes'],
  ['src/index.ts', 'entry', 'the programmatic API: re-exports from every layer'],
  ['src/build', 'entry', 'build steps that load what they bundle or index (suites included)'],
];


const rank = (layer: Layer): number => LAYERS.indexOf(layer);

/** The layer of a path relative to ROOT (posix separators), or undefined outside the table. */
function layerOf(path: string): Layer | undefined {
  let best: (typeof TABLE)[number] | undefined;
  for (const row of TABLE) {
    const [prefix] = row;
    if ((path === prefix || path.startsWith(`${prefix}/`)) && (!best || prefix.length > best[0].length)) best = row;
  }
  return best?.[1];
}

/** Every module specifier a source names: imports and export-froms (type-only too), dynamic import(), import types. */
function specifiers(fileName: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      // A computed specifier cannot be checked, so it is named as itself and matches no layer.
      found.push(arg && ts.isStringLiteralLike(arg) ? arg.text : `<computed: ${node.getText()}>`);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push(node.moduleReference.expression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true));
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const posix = (path: string): string => path.split(sep).join('/');

interface Edge {
  file: string;
  /** The imported file relative to ROOT, or the specifier itself when it is not a relative path. */
  target: string;
}

/** Every .ts under src/ and suites/. */
const FILES = ['src', 'suites'].flatMap((top) => sources(join(ROOT, top)));

/** A package's name starts with a letter or @ (node: builtins too); anything else is a path, or computed. */
const PACKAGE = /^(node:|[@a-z])/i;

/** The imports of every source but those of packages, imported files relative to ROOT. */
const ALL: Edge[] = FILES.flatMap((path) => {
  const file = posix(relative(ROOT, path));
  return specifiers(path, readFileSync(path, 'utf8'))
    .filter((s) => !PACKAGE.test(s))
    .map((s) => ({ file, target: s.startsWith('.') ? posix(relative(ROOT, resolve(dirname(path), s))).replace(/\.js$/, '.ts') : s }));
});
const named = (e: Edge): string => `${e.file} → ${e.target}`;

function violations(): string[] {
  const out = new Set<string>();
  for (const e of ALL) {
    const from = layerOf(e.file);
    const to = layerOf(e.target);
    if (from === undefined) continue; // reported by the test of the table itself
    if (to === undefined || rank(to) > rank(from)) out.add(named(e));
  }
  return [...out].sort();
}

describe('the layering rule', () => {
  it('finds every kind of import a source can name', () => {
    const text = [
      "import a from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js';",
      "export { d } from './d.js';",
      "export type * from './e.js';",
      "import './f.js';",
      "const g = await import('./g.js');",
      "let h: import('./h.js').H;",
      "const i = await import(name);",
      '// import x from "./comment.js";',
    ].join('\n');
    expect(specifiers('x.ts', text)).toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js', './g.js', './h.js', '<computed: import(name)>']);
  });

  it('ranks every source file, and every row of the table names one', () => {
    const files = FILES.map((p) => posix(relative(ROOT, p)));
    expect(files.filter((f) => layerOf(f) === undefined)).toEqual([]);
    expect(TABLE.filter(([prefix]) => !files.some((f) => f === prefix || f.startsWith(`${prefix}/`))).map(([prefix]) => prefix)).toEqual([]);
  });

  it('no module imports a higher layer (file → import)', () => {
    expect(violations()).toEqual([]);
  });

  it('a suite file imports from src/ only through suites/kit.ts', () => {
    const reaching = ALL.filter((e) => e.file.startsWith('suites/') && e.file !== 'suites/kit.ts' && e.target.startsWith('src/'));
    expect([...new Set(reaching.map(named))].sort()).toEqual([]);
  });

  it('suites/kit.ts exports only names a suite file imports', () => {
    const kit = ts.createSourceFile('kit.ts', readFileSync(join(ROOT, 'suites/kit.ts'), 'utf8'), ts.ScriptTarget.Latest, true);
    const exported = kit.statements.flatMap((s) => {
      if (ts.isExportDeclaration(s) && s.exportClause && ts.isNamedExports(s.exportClause)) return s.exportClause.elements.map((e) => e.name.text);
      // A declaration the kit exports itself: a const, function, type, interface or class.
      if (!ts.canHaveModifiers(s) || !ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return [];
      if (ts.isVariableStatement(s)) return s.declarationList.declarations.map((d) => d.name.getText());
      const { name } = s as ts.DeclarationStatement;
      return name && ts.isIdentifier(name) ? [name.text] : [];
    });
    const imported = new Set(
      FILES.filter((path) => posix(relative(ROOT, path)).startsWith('suites/')).flatMap((path) =>
        ts
          .createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
          .statements.filter((s): s is ts.ImportDeclaration => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && /(^|\/)kit\.js$/.test(s.moduleSpecifier.text))
          .flatMap((s) => (s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings) ? s.importClause.namedBindings.elements.map((e) => (e.propertyName ?? e.name).text) : [])),
      ),
    );
    expect(exported.length).toBeGreaterThan(0);
    expect(exported.filter((name) => !imported.has(name))).toEqual([]);
  });
});
