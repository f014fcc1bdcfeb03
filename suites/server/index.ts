import type { Scenario } from '../../src/runner/scenario.js';
import { baseProtocol } from './base-protocol.js';
import { http } from './http.js';
import { httpStreams } from './http-streams.js';
import { lifecycle } from './lifecycle.js';
import { prompts } from './prompts.js';
import { resources } from './resources.js';
import { stdio } from './stdio.js';
import { tools } from './tools.js';
import { utilities } from './utilities.js';

/** Every server scenario, one spec area per file. */
export const serverScenarios: Scenario[] = [...lifecycle, ...baseProtocol, ...utilities, ...tools, ...resources, ...prompts, ...stdio, ...http, ...httpStreams];
