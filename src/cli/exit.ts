import { SetupError } from '../errors.js';
import { redactorFor, type Redactor } from '../redact.js';
import { escapeTerminal } from '../report/escape.js';

/**
 * mcpcheck's exit codes (README "Exit codes" and `mcpcheck --help` say the same):
 * 0 graded, nothing unexpected failed · 1 an unexpected MUST failure or a stale baseline entry ·
 * 2 usage or setup error · 3 incomplete (some check could not run) · 4 internal error ·
 * 130 interrupted (Ctrl-C; 128 + SIGINT, as shells report it).
 * 0, 1 and 3 come from grading (`exitCode()`); the CLI only adds 2, 4 and 130.
 */
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 4;
export const EXIT_INTERRUPTED = 130;

/** The lines below, as `mcpcheck --help` prints them; README's tables start each row with the same words (a test holds them to it). */
export const EXIT_CODES_HELP = [
  'Exit codes:',
  '  0  graded, no unexpected MUST failure',
  '  1  an unexpected MUST failure or a stale baseline entry',
  '  2  usage or setup error (bad flag or file; target does not start, is not MCP)',
  '  3  incomplete: some check could not run (e.g. mcpcheck\'s own timeout)',
  '  4  internal error, a bug in mcpcheck (MCPCHECK_DEBUG=1 prints the stack)',
  '  130  interrupted (Ctrl-C): partial report written (none after a 2nd Ctrl-C)',
].join('\n');

/** proxy's own: it stands in for the server, so the client sees the exit the server made. */
export const PROXY_EXIT_CODES_HELP = [
  'Exit codes: with --stdio, once its report is written the proxy exits as the server did (its exit',
  'code, or 128 + n when signal n ended the server or the proxy; the grade is in the reports, and',
  '`mcpcheck validate` of the transcript exits by it). With --url it runs until SIGINT or SIGTERM, then:',
  '  0  with --url: graded, no unexpected MUST failure',
  '  1  with --url: an unexpected MUST failure or a stale baseline entry',
  '  2  usage or setup error before anything was started (bad flag, a report, log or transcript path that cannot be written, a --listen address that is taken or not loopback)',
  '  3  with --url: incomplete (the server could not be reached for some exchange)',
  '  4  internal error, a bug in mcpcheck (MCPCHECK_DEBUG=1 prints the stack)',
].join('\n');

/** fuzz's own: anything it finds is a bug to look at, a SHOULD as much as a MUST. */
export const FUZZ_EXIT_CODES_HELP = [
  'Exit codes:',
  '  0  nothing found',
  '  1  something found: a SHOULD as well as a MUST (each is a bug to look at)',
  '  2  usage or setup error (bad flag or file; target does not start, is not MCP; a remote --url without --allow-remote)',
  '  3  incomplete: the time budget ended the run before all its cases were sent',
  '  4  internal error, a bug in mcpcheck (MCPCHECK_DEBUG=1 prints the stack)',
  '  130  interrupted (Ctrl-C): partial report written (none after a 2nd Ctrl-C)',
].join('\n');

/**
 * The line printed of an error's message. It may quote what a target or a file held (a
 * transcript line JSON.parse could not read is quoted by V8): its control characters are shown
 * escaped, as in the reports, so none reaches the terminal.
 */
function printedLine(text: string): string {
  return escapeTerminal(text.split('\n', 1)[0] ?? '');
}

/**
 * What the CLI prints and returns for an error nothing else handled: a SetupError is the user's
 * (one line, exit 2); anything else is a bug in mcpcheck (one line, exit 4, the stack on request).
 */
export function describeFatal(e: unknown, debug: boolean): { code: number; text: string } {
  if (e instanceof SetupError) return { code: EXIT_USAGE, text: `mcpcheck: ${printedLine(e.message)}\n` };
  const message = e instanceof Error ? e.message : String(e);
  const stack = debug && e instanceof Error && e.stack ? `${e.stack}\n` : '';
  return { code: EXIT_INTERNAL, text: `mcpcheck: internal error: ${printedLine(message)}\n${stack}` };
}

/** The run's redactor once its flags are read (`--header` values); before that, the environment's. */
let redactor: Redactor | undefined;

export function useRedactor(r: Redactor): void {
  redactor = r;
}

/** A target's stderr or a URL may hold a secret: the line is redacted like every report. */
export function fatal(e: unknown): never {
  const { code, text } = describeFatal(e, process.env.MCPCHECK_DEBUG === '1');
  redactor ??= redactorFor(process.env);
  process.stderr.write(redactor.text(text));
  process.exit(code);
}

/** The reader went away (`mcpcheck list | head -1`): what is left to print has nobody to read it. */
export function isClosedOutput(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

/** Output to a closed pipe ends quietly; the exit code stays the command's own. */
export function tolerateClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e) => {
      if (!isClosedOutput(e)) fatal(e);
    });
  }
}

/** Writes and waits until the text is handed to the OS, so that exiting afterwards loses nothing. */
export function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (e) => (e && !isClosedOutput(e) ? reject(e) : resolve()));
  });
}
