import { SetupError } from '../errors.js';
import { renderCoverageMarkdown, renderCoverageText } from '../report/coverage.js';
import type { Role } from '../spec/catalog.js';
import { buildCoverage, type CoverageFilter } from '../grade/coverage.js';
import { readScenarioIndex } from '../grade/scenario-index.js';

export type CoverageFormat = 'text' | 'json' | 'markdown';

export interface CoverageOptions {
  format: CoverageFormat;
  role?: Role;
  area?: string;
  uncovered?: boolean;
}

/** `mcpcheck coverage`: the requirement matrix, from the catalog and the scenario index; nothing runs. */
export function coverage(o: CoverageOptions): string {
  const filter: CoverageFilter = {
    ...(o.role ? { role: o.role } : {}),
    ...(o.area !== undefined ? { area: o.area } : {}),
    ...(o.uncovered ? { uncovered: true } : {}),
  };
  const matrix = buildCoverage(readScenarioIndex(), filter);
  if (matrix.totals.all.total === 0) throw new SetupError(`--area ${o.area} matches no catalog area or requirement id prefix${o.role ? ` among the rules binding a ${o.role}` : ''}`);
  if (o.format === 'json') return `${JSON.stringify(matrix, null, 2)}\n`;
  return o.format === 'markdown' ? renderCoverageMarkdown(matrix) : renderCoverageText(matrix);
}
