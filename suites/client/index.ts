import type { ClientScenario } from '../kit.js';
import { clientAuthorization } from './auth.js';
import { clientAuthorizationBinding } from './auth-binding.js';
import { clientAuthorizationDiscovery } from './auth-discovery.js';
import { clientAuthorizationIss } from './auth-iss.js';
import { clientAuthorizationClientCredentials } from './auth-client-credentials.js';
import { clientAuthorizationLegacy } from './auth-legacy.js';
import { clientAuthorizationOpening } from './auth-opening.js';
import { clientAuthorizationSsrf } from './auth-ssrf.js';
import { clientAuthorizationRefresh } from './auth-refresh.js';
import { clientAuthorizationRegistration } from './auth-registration.js';
import { clientAuthorizationStepUp } from './auth-step-up.js';
import { clientFeatures, clientModernPagination } from './features.js';
import { clientHttp } from './http.js';
import { clientIcons } from './icons.js';
import { clientLifecycle } from './lifecycle.js';
import { clientModern } from './modern.js';
import { clientModernEra } from './modern-era.js';
import { clientModernHeaders } from './modern-headers.js';
import { clientModernNegotiation } from './modern-negotiation.js';
import { clientMrtr } from './mrtr.js';
import { clientMrtrMethods } from './mrtr-methods.js';
import { clientModernTasks } from './modern-tasks.js';
import { clientProperties } from './properties.js';
import { clientRobust } from './robust.js';
import { clientSchemas } from './schemas.js';
import { clientStdio } from './stdio.js';
import { clientTasks } from './tasks.js';
import { clientTools } from './tools.js';
import { clientUtilities } from './utilities.js';

/**
 * The scenarios of the initialize era: each presupposes the handshake, so none applies to a client
 * that speaks 2026-07-28 (the run's first scenario tells which era the client speaks), but for
 * those carried over, which wait for a conversation of either era and keep to rules both share.
 */
const statefulEra: ClientScenario[] = [...clientLifecycle, ...clientUtilities, ...clientTools, ...clientFeatures, ...clientSchemas, ...clientIcons, ...clientHttp, ...clientStdio, ...clientRobust, ...clientProperties].map((s) =>
  s.carriedOver ? s : { ...s, revisions: { removed: '2026-07-28' } },
);

/** Tasks exist from 2025-11-25 on, in the initialize era (2026-07-28 made them an extension). */
const statefulTasks: ClientScenario[] = clientTasks.map((s) => ({ ...s, revisions: { introduced: '2025-11-25', removed: '2026-07-28' } }));

/** Every client scenario, one spec area per file; the handshake first (it runs alone, tells a client that never connects, and which era it speaks); authorization, of both eras, last. */
export const clientScenarios: ClientScenario[] = [...statefulEra, ...statefulTasks, ...clientModern, ...clientModernPagination, ...clientModernEra, ...clientModernHeaders, ...clientModernNegotiation, ...clientMrtr, ...clientMrtrMethods, ...clientModernTasks, ...clientAuthorization, ...clientAuthorizationDiscovery, ...clientAuthorizationStepUp, ...clientAuthorizationIss, ...clientAuthorizationOpening, ...clientAuthorizationSsrf, ...clientAuthorizationRefresh, ...clientAuthorizationRegistration, ...clientAuthorizationBinding, ...clientAuthorizationClientCredentials, ...clientAuthorizationLegacy];
