import { SetupError } from '../errors.js';
import { renderCoverageMarkdown, renderCoverageText } from '../report/coverage.js';
import type { Role } from '../spec/catalog.js';
import { buildCoverage, type CoverageFilter, type CoverageMatrix } from '../grade/coverage.js';
import { CATALOG_REVISIONS, type Revision } from '../spec/revisions.js';
import { readScenarioIndex } from '../grade/scenario-index.js';

export type CoverageFormat = 'text' | 'json' | 'markdown';

export interface CoverageOptions {
  format: CoverageFormat;
  role?: Role;
  area?: string;
  uncovered?: boolean;
  /** One catalog; both (2025-11-25, then 2026-07-28) when absent. */
  revision?: Revision;
}

/**
 * `mcpcheck coverage`: the requirement matrix of each catalog (or the one asked for), from the
 * catalogs and the scenario index; nothing runs. JSON is one matrix with --spec-version, else
 * `{ catalogs: [matrix, …] }`.
 */
export function coverage(o: CoverageOptions): string {
  const sources = readScenarioIndex();
  const matrices = (o.revision ? [o.revision] : CATALOG_REVISIONS).map((revision) =>
    buildCoverage(sources, {
      revision,
      ...(o.role ? { role: o.role } : {}),
      ...(o.area !== undefined ? { area: o.area } : {}),
      ...(o.uncovered ? { uncovered: true } : {}),
    } satisfies CoverageFilter),
  );
  if (matrices.every((m) => m.totals.all.total === 0)) throw new SetupError(`--area ${o.area} matches no catalog area or requirement id prefix${o.role ? ` among the rules binding a ${o.role}` : ''}`);
  if (o.format === 'json') return `${JSON.stringify(o.revision ? matrices[0] : { catalogs: matrices }, null, 2)}\n`;
  const render = o.format === 'markdown' ? renderCoverageMarkdown : renderCoverageText;
  return matrices.filter((m: CoverageMatrix) => m.totals.all.total > 0).map(render).join('\n');
}
