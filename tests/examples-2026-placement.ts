/**
 * Where each definition of the 2026-07-28 schema belongs in a conversation, so that its example
 * messages (tests/fixtures/examples-2026/<Definition>/*.json) can be judged by the validator as the
 * traffic they would be: a request sent by the client, a params object inside its request, a result
 * answering a request of its method, an error response, an input request inside an
 * InputRequiredResult, an input response inside a retry, a fragment inside a message that carries it.
 */

export type Side = 'client' | 'server';
/**
 * A frame as it went: a message, or text that was no JSON at all (`raw`). A `probe` is a frame
 * broken on purpose to provoke the example (as mcpcheck's own probes are): its findings are not the example's.
 */
export interface MessageFrame {
  from: Side;
  message: Record<string, unknown>;
  raw?: undefined;
  probe?: true;
}
export type Frame = MessageFrame | { from: Side; raw: string; message?: undefined; probe?: true };
type Json = Record<string, unknown>;
type Place = (example: Json) => Frame[];

const ALL_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} };

/** A modern request's `_meta`: its revision, capabilities and identity (META-REQ-01/02). */
export function requestMeta(capabilities: Json = {}): Json {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'mcpcheck-examples', version: '1.0.0' },
  };
}

/** A result's `_meta` carrying serverInfo (META-RES-01). */
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'mcpcheck-examples', version: '1.0.0' } };

let nextId = 1000;
export function request(method: string, params: Json = {}, capabilities: Json = {}, id: string | number = nextId++): MessageFrame {
  const meta = { ...requestMeta(capabilities), ...((params._meta as Json | undefined) ?? {}) };
  return { from: 'client', message: { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } } };
}

function answer(to: MessageFrame, result: Json): Frame {
  return { from: 'server', message: { jsonrpc: '2.0', id: to.message.id, result } };
}

/** The minimal result of each method, for frames that only need one to close their request. */
const CACHE = { ttlMs: 0, cacheScope: 'private' };
const EMPTY_RESULTS: Record<string, Json> = {
  'tools/call': { resultType: 'complete', content: [] },
  'tools/list': { resultType: 'complete', tools: [], ...CACHE },
  'prompts/get': { resultType: 'complete', messages: [] },
};

const asRequest = (): Place => (ex) => [{ from: 'client', message: ex }];

function asParams(method: string): Place {
  return (ex) => {
    const sent = request(method, ex);
    return [sent, ...(EMPTY_RESULTS[method] ? [answer(sent, EMPTY_RESULTS[method])] : [])];
  };
}

/** A result answering a request of `method` (sent with `params`, every input capability declared). */
function asResult(method: string, params: Json = {}): Place {
  return (ex) => {
    const sent = request(method, params, ALL_CAPABILITIES);
    return [sent, answer(sent, ex)];
  };
}

/** A whole response answering a request of `method` with the response's id. */
function asResponse(method: string, params: Json = {}): Place {
  return (ex) => {
    if (!('jsonrpc' in ex)) ex = { jsonrpc: '2.0', id: 7, error: ex };
    if (ex.id === undefined) return [{ from: 'server', message: ex }];
    return [request(method, params, ALL_CAPABILITIES, ex.id as string | number), { from: 'server', message: ex }];
  };
}

/** An input request inside the InputRequiredResult answering a tools/call that declared every input kind. */
function asInputRequest(wrap: (ex: Json) => Json = (ex) => ex): Place {
  return (ex) => {
    const sent = request('tools/call', { name: 'get_weather', arguments: {} }, ALL_CAPABILITIES);
    return [sent, answer(sent, { resultType: 'input_required', inputRequests: { k: wrap(ex) }, _meta: SERVER_META })];
  };
}

/** An input response in the retry of a tools/call whose InputRequiredResult asked for `inputRequest`. */
function asInputResponses(inputRequests: Json, responses: (ex: Json) => Json): Place {
  return (ex) => {
    const params = { name: 'get_weather', arguments: {} };
    const first = request('tools/call', params, ALL_CAPABILITIES);
    const retry = request('tools/call', { ...params, inputResponses: responses(ex), requestState: 's1' }, ALL_CAPABILITIES);
    return [first, answer(first, { resultType: 'input_required', inputRequests, requestState: 's1' }), retry, answer(retry, EMPTY_RESULTS['tools/call']!)];
  };
}

const ELICIT = { method: 'elicitation/create', params: { mode: 'form', message: 'Your details?', requestedSchema: { type: 'object', properties: {} } } };
const SAMPLE = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 100 } };
const ROOTS = { method: 'roots/list' };

/** A content block as the content of a tool result. */
const inToolResult: Place = (ex) => asResult('tools/call', { name: 'get_weather', arguments: {} })({ resultType: 'complete', content: [ex] });
/** A property schema of an elicitation's requestedSchema. */
const inRequestedSchema: Place = (ex) =>
  asInputRequest()({ method: 'elicitation/create', params: { mode: 'form', message: 'Your details?', requestedSchema: { type: 'object', properties: { p: ex } } } });
/** Resource contents inside a resources/read result. */
const inReadResult: Place = (ex) => asResult('resources/read', { uri: String(ex.uri) })({ resultType: 'complete', contents: [ex], ...CACHE });
/** A sampling message of a sampling input request. */
const inSampling = (params: (ex: Json) => Json): Place => (ex) => asInputRequest()({ method: 'sampling/createMessage', params: params(ex) });

/**
 * What a sampling message of tool results follows in a conversation (SAMP-MSG-02): the question and
 * the assistant's tool uses it answers; nothing for any other message.
 */
function toolUsesAnswered(message: Json): Json[] {
  const blocks: Json[] = Array.isArray(message.content) ? message.content : [message.content];
  const ids = blocks.filter((b) => b?.type === 'tool_result').map((b) => b.toolUseId);
  if (ids.length === 0) return [];
  return [
    { role: 'user', content: { type: 'text', text: 'Weather in Paris and Lyon?' } },
    { role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 'get_weather', input: {} })) },
  ];
}

/** Every definition with examples, and where its examples go. A definition missing here fails the test. */
export const PLACEMENT: Readonly<Record<string, Place>> = {
  // Requests of the client, whole.
  CallToolRequest: asRequest(),
  CompleteRequest: asRequest(),
  DiscoverRequest: asRequest(),
  GetPromptRequest: asRequest(),
  ListPromptsRequest: asRequest(),
  ListResourceTemplatesRequest: asRequest(),
  ListResourcesRequest: asRequest(),
  ListToolsRequest: asRequest(),
  ReadResourceRequest: asRequest(),
  SubscriptionsListenRequest: asRequest(),
  // Params of a request.
  CallToolRequestParams: asParams('tools/call'),
  CompleteRequestParams: asParams('completion/complete'),
  GetPromptRequestParams: asParams('prompts/get'),
  PaginatedRequestParams: asParams('tools/list'),
  // Notifications, with the request or subscription they belong to before them.
  CancelledNotification: (ex) => [request('tools/call', { name: 'slow' }, {}, (ex.params as Json).requestId as string), { from: 'client', message: ex }],
  CancelledNotificationParams: (ex) => [request('tools/call', { name: 'slow' }, {}, ex.requestId as string), { from: 'client', message: { jsonrpc: '2.0', method: 'notifications/cancelled', params: ex } }],
  LoggingMessageNotification: (ex) => [request('tools/call', { name: 'noisy', _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } }), { from: 'server', message: ex }],
  LoggingMessageNotificationParams: (ex) => [request('tools/call', { name: 'noisy', _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } }), { from: 'server', message: { jsonrpc: '2.0', method: 'notifications/message', params: ex } }],
  ProgressNotification: (ex) => [request('tools/call', { name: 'slow', _meta: { progressToken: (ex.params as Json).progressToken } }), { from: 'server', message: ex }],
  ProgressNotificationParams: (ex) => [request('tools/call', { name: 'slow', _meta: { progressToken: ex.progressToken } }), { from: 'server', message: { jsonrpc: '2.0', method: 'notifications/progress', params: ex } }],
  SubscriptionsAcknowledgedNotification: (ex) => [listen(ex), { from: 'server', message: ex }],
  PromptListChangedNotification: (ex) => subscribed(ex, { promptsListChanged: true }),
  ResourceListChangedNotification: (ex) => subscribed(ex, { resourcesListChanged: true }),
  ToolListChangedNotification: (ex) => subscribed(ex, { toolsListChanged: true }),
  ResourceUpdatedNotification: (ex) => subscribed(ex, { resourceSubscriptions: [(ex.params as Json).uri] }),
  ResourceUpdatedNotificationParams: (ex) =>
    subscribed({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { ...ex, _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } } }, { resourceSubscriptions: [ex.uri] }),
  // Results, answering a request of their method.
  CallToolResult: asResult('tools/call', { name: 'get_weather', arguments: {} }),
  CompleteResult: asResult('completion/complete', { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 'py' } }),
  DiscoverResult: asResult('server/discover'),
  GetPromptResult: asResult('prompts/get', { name: 'code_review' }),
  ListPromptsResult: asResult('prompts/list'),
  ListResourceTemplatesResult: asResult('resources/templates/list'),
  ListResourcesResult: asResult('resources/list'),
  ListToolsResult: asResult('tools/list'),
  ReadResourceResult: asResult('resources/read', { uri: 'file:///project/src/main.rs' }),
  SubscriptionsListenResult: (ex) => {
    const id = (ex._meta as Json)['io.modelcontextprotocol/subscriptionId'] as string;
    return [listenRequest(id, {}), answer(listenRequest(id, {}), ex)];
  },
  InputRequiredResult: asResult('tools/call', { name: 'get_weather', arguments: {} }),
  // Whole responses.
  CallToolResultResponse: asResponse('tools/call', { name: 'get_weather', arguments: {} }),
  CompleteResultResponse: asResponse('completion/complete', { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 'py' } }),
  DiscoverResultResponse: asResponse('server/discover'),
  GetPromptResultResponse: asResponse('prompts/get', { name: 'code_review' }),
  ListPromptsResultResponse: asResponse('prompts/list'),
  ListResourceTemplatesResultResponse: asResponse('resources/templates/list'),
  ListResourcesResultResponse: asResponse('resources/list'),
  ListToolsResultResponse: asResponse('tools/list'),
  ReadResourceResultResponse: asResponse('resources/read', { uri: 'file:///project/src/main.rs' }),
  SubscriptionsListenResultResponse: (ex) => [listenRequest(ex.id as string, {}), { from: 'server', message: ex }],
  // Errors, answering a request they fit.
  HeaderMismatchError: asResponse('tools/call', { name: 'bar' }),
  InternalError: asResponse('tools/call', { name: 'get_weather' }),
  InvalidParamsError: asResponse('tools/call', { name: 'invalid_tool_name' }),
  MethodNotFoundError: asResponse('prompts/list'),
  MissingRequiredClientCapabilityError: asResponse('tools/call', { name: 'get_weather' }),
  ParseError: (ex) => [{ from: 'client', raw: '{"jsonrpc": "2.0", "method": "tools/list", "params": {', probe: true }, { from: 'server', message: { jsonrpc: '2.0', error: ex } }],
  UnsupportedProtocolVersionError: asResponse('tools/list'),
  // Input requests and their maps, inside an InputRequiredResult.
  CreateMessageRequest: asInputRequest(),
  ElicitRequest: asInputRequest(),
  ListRootsRequest: asInputRequest(),
  InputRequests: (ex) => {
    const sent = request('tools/call', { name: 'get_weather', arguments: {} }, ALL_CAPABILITIES);
    return [sent, answer(sent, { resultType: 'input_required', inputRequests: ex })];
  },
  CreateMessageRequestParams: asInputRequest((ex) => ({ method: 'sampling/createMessage', params: ex })),
  ElicitRequestFormParams: asInputRequest((ex) => ({ method: 'elicitation/create', params: ex })),
  ElicitRequestURLParams: asInputRequest((ex) => ({ method: 'elicitation/create', params: ex })),
  // Input responses, inside the retry.
  CreateMessageResult: asInputResponses({ k: SAMPLE }, (ex) => ({ k: ex })),
  ElicitResult: asInputResponses({ k: ELICIT }, (ex) => ({ k: ex })),
  ListRootsResult: asInputResponses({ k: ROOTS }, (ex) => ({ k: ex })),
  InputResponses: (ex) => asInputResponses(Object.fromEntries(Object.entries(ex).map(([k, v]) => [k, 'action' in (v as Json) ? ELICIT : SAMPLE])), (r) => r)(ex),
  Root: asInputResponses({ k: ROOTS }, (ex) => ({ k: { roots: [ex] } })),
  // Fragments, inside a message that carries them.
  AudioContent: inToolResult,
  ImageContent: inToolResult,
  TextContent: inToolResult,
  EmbeddedResource: inToolResult,
  ResourceLink: inToolResult,
  BlobResourceContents: inReadResult,
  TextResourceContents: inReadResult,
  BooleanSchema: inRequestedSchema,
  NumberSchema: inRequestedSchema,
  StringSchema: inRequestedSchema,
  TitledMultiSelectEnumSchema: inRequestedSchema,
  TitledSingleSelectEnumSchema: inRequestedSchema,
  UntitledMultiSelectEnumSchema: inRequestedSchema,
  UntitledSingleSelectEnumSchema: inRequestedSchema,
  ClientCapabilities: (ex) => [request('tools/list', {}, ex)],
  ServerCapabilities: (ex) => asResult('server/discover')({ resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: ex, ...CACHE }),
  Resource: (ex) => asResult('resources/list')({ resultType: 'complete', resources: [ex], ...CACHE }),
  Tool: (ex) => asResult('tools/list')({ resultType: 'complete', tools: [ex], ...CACHE }),
  ModelPreferences: inSampling((ex) => ({ messages: SAMPLE.params.messages, maxTokens: 100, modelPreferences: ex })),
  SamplingMessage: inSampling((ex) => ({ messages: [...toolUsesAnswered(ex), ex], maxTokens: 100 })),
  ToolUseContent: asInputResponses({ k: SAMPLE }, (ex) => ({ k: { role: 'assistant', content: ex, model: 'm', stopReason: 'toolUse' } })),
  ToolResultContent: inSampling((ex) => ({
    messages: [
      { role: 'user', content: { type: 'text', text: 'Weather in Paris?' } },
      { role: 'assistant', content: { type: 'tool_use', id: ex.toolUseId, name: 'get_weather', input: { city: 'Paris' } } },
      { role: 'user', content: ex },
    ],
    tools: [{ name: 'get_weather', inputSchema: { type: 'object' } }],
    maxTokens: 100,
  })),
};

function listenRequest(id: string | number, notifications: Json): MessageFrame {
  return request('subscriptions/listen', { notifications }, {}, id);
}

/** The listen request an acknowledgement answers: it asked for exactly what was acknowledged. */
function listen(ack: Json): MessageFrame {
  const params = ack.params as Json;
  return listenRequest((params._meta as Json)['io.modelcontextprotocol/subscriptionId'] as string, params.notifications as Json);
}

/** A notification on the subscription its `subscriptionId` names, which asked for it and was acknowledged. */
function subscribed(notification: Json, filter: Json): Frame[] {
  const id = (((notification.params as Json | undefined)?._meta as Json | undefined)?.['io.modelcontextprotocol/subscriptionId'] ?? 'listen-1') as string;
  const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: filter, _meta: { 'io.modelcontextprotocol/subscriptionId': id } } };
  return [listenRequest(id, filter), { from: 'server', message: ack }, { from: 'server', message: notification }];
}
