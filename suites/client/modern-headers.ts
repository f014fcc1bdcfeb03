import { checkModernRequestHeaders, type ClientScenario, clientScenario, type ClientScenarioContext, DEFAULT_TOOLS, isObject, MODERN, MODERN_ERRORS, type RecordedFrame, show, waitUntil } from '../kit.js';
import { callOf, WAIT_MS } from './helpers.js';

/**
 * A tool whose parameters travel in headers too (HDR-PARAM-01/04): a plain string, a negative
 * integer one level down, a boolean false, values that need the Base64 sentinel (non-ASCII,
 * surrounding spaces, a plain value shaped like the sentinel) and one left out of the call.
 */
const HEADER_TOOL = {
  name: 'mcpcheck_headers',
  description: 'Takes parameters that the client also sends as Mcp-Param-* headers.',
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      opts: { type: 'object', properties: { level: { type: 'integer', 'x-mcp-header': 'Level' } } },
      dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
      greeting: { type: 'string', 'x-mcp-header': 'Greeting' },
      padded: { type: 'string', 'x-mcp-header': 'Padded' },
      literal: { type: 'string', 'x-mcp-header': 'Literal' },
      zone: { type: 'string', 'x-mcp-header': 'Zone' },
    },
  },
};
const HEADER_ARGS = { region: 'eu-west-1', opts: { level: -7 }, dry: false, greeting: 'Hello, 世界', padded: ' padded ', literal: '=?base64?literal?=' };

/** Tools whose x-mcp-header annotations break HDR-PARAM-02 each one way; the first listed, as a client on the official contract calls the first tool. */
const INVALID_TOOLS = [
  { why: 'on a number', schema: { amount: { type: 'number', 'x-mcp-header': 'Amount' } } },
  { why: 'under items', schema: { tags: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } } } },
  { why: 'repeated case-insensitively', schema: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } } },
  { why: 'not a header token', schema: { c: { type: 'string', 'x-mcp-header': 'Bad Name' } } },
].map((t, i) => ({ name: `mcpcheck_invalid_header_${i + 1}`, description: `Its x-mcp-header is ${t.why}: a client over HTTP leaves it out.`, inputSchema: { type: 'object', properties: t.schema } }));
const VALID_TOOL = { name: 'mcpcheck_valid_header', description: 'Its x-mcp-header is valid.', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } };

function callsOf(ctx: ClientScenarioContext, name: string): RecordedFrame[] {
  return ctx.session.requestsFor('tools/call').filter(callOf(name));
}

export const clientSendsParamHeaders = clientScenario({
  id: 'client.modern.headers.x-mcp-header',
  title: 'A tools/call over HTTP carries each argument its tool annotates with x-mcp-header as Mcp-Param-<Name>, converted and Base64-encoded as the spec says, and none for an absent argument',
  requirements: ['HDR-PARAM-01', 'HDR-PARAM-04'],
  revisions: MODERN,
  needs: { transport: 'http' },
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: HEADER_TOOL.name, arguments: HEADER_ARGS }],
  serve(session) {
    session.tools = [HEADER_TOOL, ...DEFAULT_TOOLS];
  },
  async run(ctx) {
    const { check } = ctx;
    const call = await ctx.session.waitForFrame(() => callsOf(ctx, HEADER_TOOL.name).length > 0, WAIT_MS).then(() => callsOf(ctx, HEADER_TOOL.name)[0]);
    if (!call) return check.skip(`the client never called ${HEADER_TOOL.name}`);
    const exchange = (await waitUntil(() => ctx.exchanges.some((e) => e.exchange === call.exchange), WAIT_MS)) ? ctx.exchanges.find((e) => e.exchange === call.exchange) : undefined;
    if (!exchange) return check.error(`could not judge: the HTTP exchange that carried the call of ${HEADER_TOOL.name} was not recorded`);
    const findings = checkModernRequestHeaders(exchange.headers, call.message, HEADER_TOOL);
    const args = isObject(call.message) && isObject(call.message.params) ? call.message.params.arguments : undefined;
    const sent = Object.fromEntries(Object.entries(exchange.headers).filter(([k]) => k.startsWith('mcp-param-')));
    for (const [key, rule, what] of [
      ['sent', 'HDR-PARAM-01', 'an Mcp-Param-* header carrying each annotated argument present'],
      ['encoded', 'HDR-PARAM-04', 'integers in decimal, booleans as true/false, values that are no plain ASCII header value (or look like the sentinel) as =?base64?…?=, and no header for an absent argument'],
    ] as const) {
      const wrong = findings.filter((f) => f.requirements.includes(rule));
      check.expect(wrong.length === 0, { key, requirements: [rule], expected: `${what}, for the arguments sent ${show(args)}`, actual: wrong.length ? wrong.map((f) => f.message).join('; ') : `headers ${show(sent)}`, frames: [call.index] });
    }
  },
});

export const clientLeavesOutInvalidHeaderTools = clientScenario({
  id: 'client.modern.headers.invalid-x-mcp-header',
  title: 'Over HTTP a client leaves out the tools whose x-mcp-header annotations are invalid (never calls them) and keeps the valid tools usable',
  requirements: ['HDR-PARAM-03'],
  revisions: MODERN,
  needs: { transport: 'http' },
  // Calling by name would show what the application asked for, not what the client's list holds.
  steps: [{ do: 'call-listed-tools' }],
  serve(session) {
    session.tools = [...INVALID_TOOLS, VALID_TOOL, ...DEFAULT_TOOLS];
  },
  async run(ctx) {
    const { check } = ctx;
    // The listed tools are called in turn: once the last one is, every invalid one had its turn before it.
    const last = DEFAULT_TOOLS[DEFAULT_TOOLS.length - 1]!.name;
    const done = await ctx.session.waitForFrame(() => callsOf(ctx, last).length > 0, WAIT_MS);
    const valid = callsOf(ctx, VALID_TOOL.name)[0];
    const invalid = INVALID_TOOLS.flatMap((t) => callsOf(ctx, t.name));
    if (invalid.length === 0 && (!done || !valid)) return check.skip(`not exercised: the client did not call every tool its list showed (the valid ${VALID_TOOL.name} and ${last}) within ${WAIT_MS} ms`);
    check.expect(invalid.length === 0, {
      expected: `no call of a tool whose x-mcp-header annotations are invalid (${INVALID_TOOLS.map((t) => t.name).join(', ')}), the valid ${VALID_TOOL.name} called`,
      actual: invalid.length ? `it called ${[...new Set(invalid.map((f) => (isObject(f.message) && isObject(f.message.params) ? String(f.message.params.name) : '?')))].join(', ')}` : `only ${VALID_TOOL.name} was called`,
      frames: [...invalid, ...(valid ? [valid] : [])].map((f) => f.index),
    });
  },
});

/** A tool listed first without x-mcp-header; after mcpcheck's HeaderMismatch it is listed with one (a schema change the client learns by listing again). */
const CHANGING_TOOL = { name: 'mcpcheck_reheader', description: 'Its inputSchema gains an x-mcp-header after the first call.', inputSchema: { type: 'object', properties: { region: { type: 'string' } } } };
const REHEADERED = { ...CHANGING_TOOL, inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } };

export const clientRelistsAfterHeaderMismatch = clientScenario({
  id: 'client.modern.headers.mismatch-relist',
  title: 'After a HeaderMismatch (−32020) on a tools/call, the client lists tools again and retries with the Mcp-Param-* header the new inputSchema asks for',
  requirements: ['HDR-PARAM-07'],
  revisions: MODERN,
  needs: { transport: 'http' },
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: CHANGING_TOOL.name, arguments: { region: 'eu-west-1' } }],
  serve(session) {
    session.tools = [CHANGING_TOOL, ...DEFAULT_TOOLS];
    const call = session.handler('tools/call');
    const list = session.handler('tools/list');
    let refused = false;
    // The schema changes for the next listing: the refused call itself is judged by the schema the client had.
    session.handle('tools/list', (params, request) => {
      if (refused) session.tools = [REHEADERED, ...DEFAULT_TOOLS];
      return list(params, request);
    });
    session.handle('tools/call', (params, request) => {
      if (params.name !== CHANGING_TOOL.name || refused) return call(params, request);
      refused = true;
      return { error: { code: MODERN_ERRORS.headerMismatch, message: 'Mcp-Param-Region is missing: the inputSchema of mcpcheck_reheader now carries x-mcp-header Region' } };
    });
  },
  async run(ctx) {
    const { check } = ctx;
    const first = await ctx.session.waitForFrame(() => callsOf(ctx, CHANGING_TOOL.name).length > 0, WAIT_MS).then(() => callsOf(ctx, CHANGING_TOOL.name)[0]);
    if (!first) return check.skip(`the client never called ${CHANGING_TOOL.name}`);
    const retry = await ctx.session.waitForFrame(() => callsOf(ctx, CHANGING_TOOL.name).length > 1, WAIT_MS).then(() => callsOf(ctx, CHANGING_TOOL.name)[1]);
    const relist = ctx.session.requestsFor('tools/list', first.index).find((f) => !retry || f.index < retry.index);
    if (retry) await waitUntil(() => ctx.exchanges.some((e) => e.exchange === retry.exchange), WAIT_MS);
    const exchange = retry && ctx.exchanges.find((e) => e.exchange === retry.exchange);
    const header = exchange ? Object.entries(exchange.headers).find(([k]) => k === 'mcp-param-region')?.[1] : undefined;
    check.expect(relist !== undefined && header === 'eu-west-1', {
      expected: 'tools/list after the −32020, then a retry of the call carrying Mcp-Param-Region: eu-west-1',
      actual: !relist ? `no tools/list after the −32020${retry ? ' before the retry' : ''}` : !retry ? `tools/list, then no retry within ${WAIT_MS} ms` : `a retry with Mcp-Param-Region ${show(header)}`,
      frames: [first, relist, retry].filter((f): f is RecordedFrame => f !== undefined).map((f) => f.index),
    });
  },
});

export const clientModernHeaders: ClientScenario[] = [clientSendsParamHeaders, clientLeavesOutInvalidHeaderTools, clientRelistsAfterHeaderMismatch];
