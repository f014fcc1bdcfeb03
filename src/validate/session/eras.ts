import { Caching } from './caching.js';
import { Cancellation } from './cancellation.js';
import { Deprecations } from './deprecations.js';
import { Discovered } from './discovered.js';
import { Capabilities } from './capabilities.js';
import type { ConcernKind } from './concern.js';
import type { Era } from '../../spec/revisions.js';
import { Elicitation } from './elicitation.js';
import { ExtensionTasks } from './extension-tasks.js';
import { Lifecycle } from './lifecycle.js';
import { Listen } from './listen.js';
import { Logging } from './logging.js';
import { Mrtr } from './mrtr.js';
import { Progress } from './progress.js';
import { RequestCancellation } from './request-cancellation.js';
import { RequestLogging } from './request-logging.js';
import { StreamScope } from './stream-scope.js';
import { Sampling } from './sampling.js';
import { Subscriptions } from './subscriptions.js';
import { TaskRequests } from './task-requests.js';
import { TaskStatus } from './task-status.js';
import { TaskStreams } from './task-streams.js';
import { Tasks } from './tasks.js';
import { Tools } from './tools.js';


/**
 * The concerns that judge a session of each era ('stateful': initialize and a session, 2024-11-05 …
 * 2025-11-25; 'stateless': every request on its own, 2026-07-28), besides the JSON-RPC ids every era has. Their
 * order is the order of a frame's findings: the lifecycle before the capabilities it settles,
 * LIFE-OP-02 before the feature rules that hang on a declared capability.
 */
export const ERA_CONCERNS: Readonly<Record<Era, readonly ConcernKind[]>> = {
  stateless: [Discovered, Listen, Mrtr, Progress, RequestCancellation, RequestLogging, StreamScope, Caching, Deprecations, Tools, ExtensionTasks, TaskStreams],
  stateful: [Lifecycle, Subscriptions, Capabilities, Sampling, Elicitation, Progress, Cancellation, Logging, Tools, TaskRequests, Tasks, TaskStatus],
};
