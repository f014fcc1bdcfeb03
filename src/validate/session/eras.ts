import { Cancellation } from './cancellation.js';
import { Capabilities } from './capabilities.js';
import type { ConcernKind } from './concern.js';
import { Elicitation } from './elicitation.js';
import { Lifecycle } from './lifecycle.js';
import { Logging } from './logging.js';
import { Progress } from './progress.js';
import { Sampling } from './sampling.js';
import { Subscriptions } from './subscriptions.js';
import { Tasks } from './tasks.js';
import { Tools } from './tools.js';

/**
 * The protocol eras a session can be in: 'initialize', the handshake-and-session era (2024-11-05 …
 * 2025-11-25). The stateless era (2026-07-28) adds its own entry, with the concerns it keeps and
 * its own lifecycle.
 */
export type SessionEra = 'initialize';

/**
 * The concerns that judge a session of each era, besides the JSON-RPC ids every era has. Their
 * order is the order of a frame's findings: the lifecycle before the capabilities it settles,
 * LIFE-OP-02 before the feature rules that hang on a declared capability.
 */
export const ERA_CONCERNS: Readonly<Record<SessionEra, readonly ConcernKind[]>> = {
  initialize: [Lifecycle, Subscriptions, Capabilities, Sampling, Elicitation, Progress, Cancellation, Logging, Tools, Tasks],
};
