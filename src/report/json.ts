import type { RunReport } from '../model.js';

/**
 * The report as pretty JSON, exactly the result model (`schemas/report.schema.json` describes it).
 * JSON.stringify escapes control characters and lone surrogates, so target text cannot break it.
 */
export function renderJson(report: RunReport): string {
  return JSON.stringify(report, null, 2) + '\n';
}
