import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';
import { CATALOG_SOURCES, deriveCatalog, requirementIdModule, type SharedRow } from './spec-catalogs.js';

/**
 * Writes the derived catalogs (`src/spec/requirements*.json`, from `../shared/spec/` where that is
 * present) and `src/spec/requirement-id.ts` (from the derived catalogs). Run by hand after a
 * catalog changes: `npm run build && node dist/src/build/generate-spec.js`, then build again.
 */
const root = packageRoot();
const catalogs = CATALOG_SOURCES.map((source) => {
  const shared = join(root, source.shared);
  if (existsSync(shared)) {
    const rows = (JSON.parse(readFileSync(shared, 'utf8')) as { requirements: SharedRow[] }).requirements;
    writeFileSync(join(root, source.file), deriveCatalog(rows, source));
  }
  const derived = JSON.parse(readFileSync(join(root, source.file), 'utf8')) as { requirements: Array<{ id: string }> };
  return { file: source.file, ids: derived.requirements.map((r) => r.id) };
});
writeFileSync(join(root, 'src/spec/requirement-id.ts'), requirementIdModule(catalogs));
