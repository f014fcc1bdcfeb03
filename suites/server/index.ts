import type { Scenario } from '../kit.js';
import { authorization } from './authorization.js';
import { baseProtocol } from './base-protocol.js';
import { clientFeatures } from './client-features.js';
import { http } from './http.js';
import { httpStateless } from './http-stateless.js';
import { httpStreams } from './http-streams.js';
import { lifecycle } from './lifecycle.js';
import { modernCancellation } from './modern-cancellation.js';
import { modernDiscover } from './modern-discover.js';
import { modernHttp } from './modern-http.js';
import { modernLegacy } from './modern-legacy.js';
import { modernLogging } from './modern-logging.js';
import { modernMeta } from './modern-meta.js';
import { modernMrtr } from './modern-mrtr.js';
import { modernTasks } from './modern-tasks.js';
import { modernSubscriptions } from './modern-subscriptions.js';
import { notifications } from './notifications.js';
import { olderRevisions } from './older-revisions.js';
import { prompts } from './prompts.js';
import { properties } from './properties.js';
import { resources } from './resources.js';
import { stdio } from './stdio.js';
import { tasks } from './tasks.js';
import { tools } from './tools.js';
import { utilities } from './utilities.js';

/** Every server scenario, one spec area per file. */
export const serverScenarios: Scenario[] = [...lifecycle, olderRevisions, ...baseProtocol, ...utilities, ...tools, ...resources, ...notifications, ...clientFeatures, ...prompts, ...tasks, ...stdio, ...http, ...httpStreams, ...properties, ...modernDiscover, ...modernMeta, ...modernLegacy, ...modernHttp, ...modernSubscriptions, ...modernMrtr, ...modernTasks, ...modernLogging, ...modernCancellation, ...httpStateless, ...authorization];
