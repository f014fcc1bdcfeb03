import type { Scenario } from '../../src/runner/scenario.js';
import { baseProtocol } from './base-protocol.js';
import { lifecycle } from './lifecycle.js';

/** Every server scenario, one spec area per file. */
export const serverScenarios: Scenario[] = [...lifecycle, ...baseProtocol];
