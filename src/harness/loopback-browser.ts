import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot, privateTempDir } from '../paths.js';

/** The most URLs one client's browser log is read for (a client that opens a browser in a loop). */
const MAX_OPENED = 100;

/** What one client process gets of the browser: its environment, and what it has opened so far. */
export interface BrowserOfClient {
  env: Record<string, string>;
  /** The URLs the client handed its browser, in order, as it handed them. */
  opened(): string[];
}

const quoted = (path: string) => `'${path.replaceAll("'", `'\\''`)}'`;

/**
 * The browser every client under test is given (BROWSER, which xdg-open and the `open` package
 * honour): mcpcheck's browser program (browser-program.ts) behind an sh wrapper, as BROWSER names
 * one executable. A client that opens the authorization URL through it needs no person, and what it
 * opened is seen, one log file per client process. The directory is 0700 and removed with the run.
 */
export class LoopbackBrowser {
  private readonly dir = privateTempDir('mcpcheck-browser-', 'the browser a client is given');
  private readonly program = join(this.dir, 'browser');
  private clients = 0;

  constructor() {
    const script = join(packageRoot(), 'dist/src/harness/browser-program.js');
    writeFileSync(this.program, `#!/bin/sh\nexec ${quoted(process.execPath)} ${quoted(script)} "$@"\n`);
    chmodSync(this.program, 0o700);
  }

  /** A log of its own for the next client process. */
  forClient(): BrowserOfClient {
    const log = join(this.dir, `opened-${++this.clients}.jsonl`);
    return {
      env: { BROWSER: this.program, MCPCHECK_BROWSER_LOG: log },
      opened: () => readOpened(log),
    };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function readOpened(log: string): string[] {
  let text: string;
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return []; // nothing opened yet
  }
  const urls: string[] = [];
  for (const line of text.split('\n').slice(0, MAX_OPENED)) {
    try {
      const url: unknown = JSON.parse(line);
      if (typeof url === 'string') urls.push(url);
    } catch {
      // A line still being written, or cut short.
    }
  }
  return urls;
}
