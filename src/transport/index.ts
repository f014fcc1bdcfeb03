export type { Channel, ChannelClosed, IncomingFrame, SendResult } from './channel.js';
export { TargetProcess, TargetDidNotStart, TailBuffer, processAlive, type ExitInfo, type TargetProcessOptions } from './process.js';
export { StdioRelayChannel, type StdioRelayOptions } from './stdio-relay.js';
export { StdioChannel, LineFramer, type StdioChannelOptions, type LineFramerOptions } from './stdio.js';
export {
  HttpChannel,
  TargetUnreachable,
  redactHeaders,
  redactUrl,
  describeNetworkError,
  type HttpChannelOptions,
  type HttpSendResult,
  type BodyEnd,
  type SseEventInfo,
  type ProbeRequest,
  type ProbeResponse,
} from './http.js';
export { HttpEndpoint, openHttpEndpoint, DEFAULT_POLICY, type HttpEndpointOptions } from './http-endpoint.js';
