import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { clientScenarios } from '../../suites/client/index.js';
import { serverScenarios } from '../../suites/server/index.js';
import { authorizationServerScenarios } from '../../suites/authorization-server/index.js';
import { type CoverageSources, scenarioRef } from '../grade/coverage.js';
import { scenarioIndexPath } from '../grade/scenario-index.js';

/** Build step (`npm run build`): the scenario index `mcpcheck coverage` reads (src/grade/scenario-index.ts). */
const index: CoverageSources = { server: serverScenarios.map(scenarioRef), client: clientScenarios.map(scenarioRef), authorization: authorizationServerScenarios.map(scenarioRef) };
const out = scenarioIndexPath();
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(index, null, 1)}\n`);
