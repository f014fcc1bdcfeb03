import type { RunReport } from '../model.js';

/** A report format that is a document of its own: written to a file, or to stdout. */
export interface FileFormat {
  /** What `--<name> FILE` writes, for --help. */
  what: string;
  /** Loaded when used: most runs write one format or none, and start-up should not pay for all. */
  load: () => Promise<(report: RunReport) => string>;
}

/**
 * Every file format, by the name its flag (`--json FILE`) and `--reporter json` use.
 * Adding a format is one entry here; the CLI's flags, --reporter choices and writers follow.
 */
export const FILE_FORMATS = {
  json: { what: 'the JSON report', load: async () => (await import('./json.js')).renderJson },
  junit: { what: 'a JUnit XML report', load: async () => (await import('./junit.js')).renderJunit },
  markdown: { what: 'a Markdown summary', load: async () => (await import('./markdown.js')).renderMarkdown },
  html: { what: 'a single-file HTML report with the wire logs', load: async () => (await import('./html/index.js')).renderHtml },
  badge: { what: "an SVG badge of the verdict for a project's README", load: async () => (await import('./badge.js')).renderBadge },
} as const satisfies Record<string, FileFormat>;

export type FileFormatName = keyof typeof FILE_FORMATS;

export const FILE_FORMAT_NAMES = Object.keys(FILE_FORMATS) as FileFormatName[];
