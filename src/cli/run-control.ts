import { setMaxListeners } from 'node:events';
import { ProgressLine, type ProgressStream, wantProgress } from '../report/progress.js';
import type { RunControl } from '../runner/observer.js';
import type { Redactor } from '../redact.js';
import { killAllNow } from '../transport/process.js';
import { EXIT_INTERRUPTED } from './exit.js';
import { useColor } from './report-output.js';

export interface WatchFlags {
  quiet?: boolean | undefined;
  verbose?: boolean | undefined;
  color?: boolean | undefined;
}

export interface WatchedRun {
  /** What the runner gets: the progress line (when shown) and the Ctrl-C signal. */
  control: RunControl;
  /** Takes the progress line off the screen: called before anything else is printed. */
  settle(): void;
}

/** The terminal, with the failing checks --verbose prints as they happen redacted like the report. */
function redacting(stream: NodeJS.WriteStream, redactor: Redactor): ProgressStream {
  return {
    write: (text: string) => stream.write(redactor.text(text)),
    get columns() {
      return stream.columns;
    },
  };
}

/**
 * The interactive side of a server or client run. Progress goes to stderr when it is a terminal
 * (see `wantProgress`). The first Ctrl-C stops the run: no scenario starts any more, the running
 * ones are cut short, the targets are stopped, and the partial report is written before the exit
 * with 130. A second Ctrl-C quits at once with 130, killing every target process group first.
 */
export function watchRun(flags: WatchFlags, redactor: Redactor, unit = 'scenarios'): WatchedRun {
  const controller = new AbortController();
  // Every running scenario listens for the stop, and --concurrency may run more than ten at once.
  setMaxListeners(0, controller.signal);
  const env = process.env;
  const progress = wantProgress(process.stderr, flags.quiet ?? false, env)
    ? new ProgressLine(redacting(process.stderr, redactor), { verbose: flags.verbose ?? false, color: useColor(flags.color, process.stderr, env), unit })
    : undefined;
  process.on('SIGINT', () => {
    progress?.clear();
    if (!controller.signal.aborted) {
      process.stderr.write('mcpcheck: interrupted: stopping the targets and writing the partial report (Ctrl-C again quits at once)\n');
      controller.abort();
      return;
    }
    process.stderr.write('mcpcheck: interrupted again: quitting without a report\n');
    killAllNow();
    process.exit(EXIT_INTERRUPTED);
  });
  return { control: { ...(progress ? { observer: progress } : {}), signal: controller.signal }, settle: () => progress?.clear() };
}
