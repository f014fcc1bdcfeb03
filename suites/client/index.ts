import type { ClientScenario } from '../kit.js';
import { clientFeatures } from './features.js';
import { clientHttp } from './http.js';
import { clientIcons } from './icons.js';
import { clientLifecycle } from './lifecycle.js';
import { clientProperties } from './properties.js';
import { clientRobust } from './robust.js';
import { clientSchemas } from './schemas.js';
import { clientStdio } from './stdio.js';
import { clientTools } from './tools.js';
import { clientUtilities } from './utilities.js';

/** Every client scenario, one spec area per file; the handshake first (it runs alone, and tells a client that never connects). */
export const clientScenarios: ClientScenario[] = [...clientLifecycle, ...clientUtilities, ...clientTools, ...clientFeatures, ...clientSchemas, ...clientIcons, ...clientHttp, ...clientStdio, ...clientRobust, ...clientProperties];
