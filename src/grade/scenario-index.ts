import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SetupError } from '../errors.js';
import { packageRoot } from '../paths.js';
import type { CoverageSources } from './coverage.js';

/**
 * What every scenario declares (id, requirement ids, transport), written by the build
 * (src/build/scenario-index.ts) from the built suites, so `mcpcheck coverage` reads data instead
 * of loading every suite and, through them, ajv and the schemas. Generated on every build, it
 * cannot fall behind the suites it ships with.
 */
export function scenarioIndexPath(): string {
  return join(packageRoot(), 'dist/src/generated/scenario-index.json');
}

export function readScenarioIndex(): CoverageSources {
  const path = scenarioIndexPath();
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CoverageSources;
  } catch (e) {
    throw new SetupError(`cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); \`npm run build\` writes it`);
  }
}
