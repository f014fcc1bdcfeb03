/**
 * What a target that died said about why, in one line: the error statements of its stderr (Node's
 * "Error: Cannot find module …", Python's last "ModuleNotFoundError: …"), without the stack frames,
 * source echo, object dumps, version banners and blank lines that end a crash report. No project
 * imports: process.ts, which must load on its own, uses it.
 */

const LONGEST = 400;
/** At most this many statements: the first says what went wrong, the rest are usually its causes. */
const STATEMENTS = 3;

/** Lines that never say why: a stack frame, a caret under source, Node's banner, a traceback's header and frames. */
const NOISE = [
  /^\s+at\s/, // a JavaScript stack frame
  /^\s*\^+\s*$/, // the caret under the source line
  /^Node\.js v\d/,
  /^node:internal\//, // where Node threw, echoed before the source line
  /^\s*throw\s/,
  /^Traceback \(most recent call last\):/,
  /^\s+File "/, // a Python traceback frame (its source line follows, indented)
  /^\s*[{}[\]],?\s*$/, // a bracket alone: an error object's dump
  /^\s+[\w$]+: .*,?$/, // a property inside that dump (code: 'MODULE_NOT_FOUND',)
];

/** A line that states an error: Error: …, TypeError: …, ModuleNotFoundError: …, error: …, fatal: …, panic: …, and Node's [cause]: … of one */
const STATEMENT = /^\s*(?:\[cause\]:\s*)?(?:Uncaught\s+)?(?:[A-Z]\w*(?:Error|Exception)|Error|error|ERROR|fatal|FATAL|panic)\b(?:\s*\[[^\]]*\])?:\s*\S/;

/**
 * The gist of `stderr`: its error statements (up to three, in order), else its last meaningful
 * lines, joined with " | " and cut to a few hundred characters. Empty when nothing meaningful is there.
 */
export function stderrGist(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const meaningful = lines.filter((l) => !NOISE.some((n) => n.test(l)));
  const statements = [...new Set(meaningful.filter((l) => STATEMENT.test(l)).map((l) => l.trim()))];
  const picked = statements.length > 0 ? statements.slice(0, STATEMENTS) : meaningful.slice(-STATEMENTS).map((l) => l.trim());
  const line = picked.join(' | ');
  return line.length > LONGEST ? `${line.slice(0, LONGEST - 1)}…` : line;
}
