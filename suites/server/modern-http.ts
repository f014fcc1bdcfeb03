import { encodeHeaderValue, type HeaderParameter, headerParameters, MODERN, MODERN_ERRORS, MODERN_HEADERS, type RequirementId, ruling, scenario, type Scenario, show, type ToolPlan } from '../kit.js';
import { callablePlans, quickArguments } from './helpers.js';
import { describeProbe, probe } from './http.js';
import { exchange, legacyInitialize, modernRequest, refusedWith, served } from './modern-exchange.js';

// Streamable HTTP in the stateless era (basic/transports/streamable-http.mdx): the standard
// request headers mirror the body and are validated against it, unknown methods are 404, and
// nothing of the old session machinery (GET stream, DELETE, session ids) is served.

const needs = { transport: 'http' } as const;
const HEADER_MISMATCH = [MODERN_ERRORS.headerMismatch];

export const headerValidation = scenario({
  id: 'server.modern.http.header-validation',
  title: 'A request whose required standard header is missing, differs from the body or differs in case of its value is rejected with 400 and −32020; header names match case-insensitively',
  requirements: ['HDR-VAL-01', 'HDR-CASE-01', 'HDR-VER-03'],
  isolation: 'shared',
  revisions: MODERN,
  needs,
  async run({ session, check }) {
    const list = () => modernRequest(session, 'tools/list');
    const probes: Array<{ key: string; requirements: readonly RequirementId[]; what: string; message: Record<string, unknown>; headers: Record<string, string | null> }> = [
      { key: 'method-differs', requirements: ['HDR-VAL-01'], what: 'tools/list with Mcp-Method: tools/call', message: list(), headers: { [MODERN_HEADERS.method]: 'tools/call' } },
      { key: 'method-missing', requirements: ['HDR-VAL-01'], what: 'tools/list without Mcp-Method', message: list(), headers: { [MODERN_HEADERS.method]: null } },
      // Names no tool or resource has: a server that skips the check answers "unknown", never runs anything.
      { key: 'name-differs', requirements: ['HDR-VAL-01'], what: 'tools/call of mcpcheck_nonexistent with Mcp-Name: mcpcheck_other', message: modernRequest(session, 'tools/call', { name: 'mcpcheck_nonexistent', arguments: {} }), headers: { [MODERN_HEADERS.name]: 'mcpcheck_other' } },
      { key: 'name-missing', requirements: ['HDR-VAL-01'], what: 'resources/read of mcpcheck://nope/x without Mcp-Name', message: modernRequest(session, 'resources/read', { uri: 'mcpcheck://nope/x' }), headers: { [MODERN_HEADERS.name]: null } },
      { key: 'method-case', requirements: ['HDR-CASE-01'], what: 'tools/list with Mcp-Method: Tools/List (values compare case-sensitively)', message: list(), headers: { [MODERN_HEADERS.method]: 'Tools/List' } },
    ];
    for (const p of probes) {
      const answer = await exchange(session, p.message, p.headers);
      check.expect(refusedWith(answer, HEADER_MISMATCH, 400), { key: p.key, requirements: [...p.requirements], expected: `${p.what}: HTTP 400 with error −32020`, actual: answer.shown });
    }
    const versionless = await exchange(session, list(), { [MODERN_HEADERS.protocolVersion]: null });
    const refused = refusedWith(versionless, HEADER_MISMATCH, 400);
    // HDR-VER-03's MUST binds only a server without clients older than 2025-06-18: a dual-era one MAY read the request as 2025-03-26.
    const legacy = refused ? undefined : await legacyInitialize(session);
    if (legacy?.dualEra) {
      check.skip(`not judged: the server is dual-era (initialize answered with protocolVersion ${show(legacy.version)}), and such a server MAY treat a request without MCP-Protocol-Version as 2025-03-26 (HDR-VER-03); it answered ${versionless.shown}`, { key: 'version-missing', requirements: ['HDR-VER-03'] });
    } else {
      check.expect(refused, { key: 'version-missing', requirements: ['HDR-VER-03'], expected: 'tools/list without MCP-Protocol-Version: HTTP 400 with error −32020', actual: versionless.shown });
    }
    const lower = await exchange(session, list(), { [MODERN_HEADERS.method]: null, 'mcp-method': 'tools/list' });
    check.expect(served(lower), {
      key: 'name-case',
      requirements: ['HDR-CASE-01'],
      expected: 'tools/list with the header spelled mcp-method: served (header names compare case-insensitively)',
      actual: lower.shown,
    });
  },
});

export const versionHeaderMismatch = scenario({
  id: 'server.modern.http.version-mismatch',
  title: 'A request whose MCP-Protocol-Version header differs from the body\'s protocolVersion is rejected with 400 and −32020 (−32022 accepted)',
  requirements: ['HDR-VER-02'],
  isolation: 'shared',
  revisions: MODERN,
  needs,
  async run({ session, check }) {
    const probes: Array<{ key: string; what: string; message: Record<string, unknown>; headers: Record<string, string | null> }> = [
      { key: 'header-unsupported', what: 'header 1999-01-01, body 2026-07-28', message: modernRequest(session, 'tools/list'), headers: { [MODERN_HEADERS.protocolVersion]: '1999-01-01' } },
      { key: 'body-unsupported', what: 'header 2026-07-28, body 1999-01-01', message: modernRequest(session, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }), headers: { [MODERN_HEADERS.protocolVersion]: session.speaks } },
    ];
    for (const p of probes) {
      const answer = await exchange(session, p.message, p.headers);
      check.expect(refusedWith(answer, [MODERN_ERRORS.headerMismatch, MODERN_ERRORS.unsupportedProtocolVersion], 400), {
        key: p.key,
        expected: `tools/list with ${p.what}: HTTP 400 with error −32020 (or −32022: ${ruling('version-mismatch-error').cite})`,
        actual: answer.shown,
      });
    }
  },
});

export const unknownMethod = scenario({
  id: 'server.modern.http.unknown-method',
  title: 'A request for a method the server does not implement gets 404 Not Found with a −32601 JSON-RPC error in the body',
  requirements: ['HTTP-METHOD-01'],
  isolation: 'shared',
  revisions: MODERN,
  needs,
  async run({ session, check }) {
    const answer = await exchange(session, modernRequest(session, 'mcpcheck/nope'));
    check.expect(refusedWith(answer, [-32601], 404), { expected: 'mcpcheck/nope with matching headers: HTTP 404 with error −32601', actual: answer.shown });
  },
});

export const noSessionMachinery = scenario({
  id: 'server.modern.http.no-sessions',
  title: 'A server supporting only this revision answers GET and DELETE on the MCP endpoint with 405 and mints no session id; a dual-era server is exempt',
  requirements: ['HTTP-LEGACY-01'],
  isolation: 'shared',
  revisions: MODERN,
  needs,
  async run({ session, check }) {
    if (session.channel.kind !== 'http') return;
    const { dualEra, version } = await legacyInitialize(session);
    if (dualEra) {
      const why = `a dual-era server is exempt (the rule binds a server "supporting only this revision"): initialize was answered with an InitializeResult (protocolVersion ${show(version)}), so it serves the initialize era's GET, DELETE and sessions too (VER-BC-01)`;
      for (const key of ['get', 'delete', 'session-id-ignored']) check.skip(why, { key });
      return;
    }
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await probe(session.channel, { method, omitProtocolVersion: true, omitSessionId: true, ...(method === 'GET' ? { headers: { Accept: 'text/event-stream' } } : {}), readMs: 200 });
      check.expect(res.status === 405, { key: method.toLowerCase(), expected: `${method} on the MCP endpoint: 405 Method Not Allowed`, actual: describeProbe(res) });
    }
    const answer = await exchange(session, modernRequest(session, 'tools/list'), { 'MCP-Session-Id': `mcpcheck-${session.speaks}`, 'Last-Event-ID': '1' });
    const minted = answer.headers?.['mcp-session-id'];
    check.expect(served(answer) && minted === undefined, {
      key: 'session-id-ignored',
      expected: 'tools/list carrying MCP-Session-Id and Last-Event-ID: handled normally, and no MCP-Session-Id in the response',
      actual: minted !== undefined ? `the response carries MCP-Session-Id ${minted}` : answer.shown,
    });
  },
});

/** A value of the same JSON type as `value` that differs from it, or undefined for other types. */
function otherValue(value: unknown): string | number | boolean | undefined {
  if (typeof value === 'string') return `${value}-mcpcheck`;
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  return undefined;
}

/** A tool mcpcheck may call whose arguments hold a value for a top-level x-mcp-header parameter. */
function headerTool(plans: readonly ToolPlan[]): { plan: ToolPlan; args: Record<string, unknown>; param: HeaderParameter; value: unknown } | undefined {
  for (const plan of plans) {
    const args = quickArguments(plan);
    const param = headerParameters(plan.tool.inputSchema).find((p) => p.path.length === 1 && otherValue(args[p.path[0]!]) !== undefined);
    if (param) return { plan, args, param, value: args[param.path[0]!] };
  }
  return undefined;
}

export const paramHeaders = scenario({
  id: 'server.modern.http.param-headers',
  title: 'A tools/call whose Mcp-Param-* header (x-mcp-header) is missing or differs from its argument is rejected with 400 and −32020',
  requirements: ['HDR-PARAM-05'],
  isolation: 'shared',
  revisions: MODERN,
  needs: { ...needs, capabilities: ['tools'] },
  async run({ session, check, discovery, options }) {
    const plans = callablePlans(discovery, options.callTools);
    const found = headerTool(plans);
    if (!found) {
      const why = `not exercised: no tool mcpcheck may call (--call-tools ${options.callTools.mode}) has an x-mcp-header parameter its arguments give a value`;
      for (const key of ['differs', 'missing']) check.skip(why, { key });
      return;
    }
    const { plan, args, param, value } = found;
    const header = `Mcp-Param-${param.header}`;
    const message = () => modernRequest(session, 'tools/call', { name: plan.name, arguments: args });
    const wrong = String(otherValue(value));
    const probes = [
      { key: 'differs', what: `with ${header}: ${encodeHeaderValue(wrong)}`, headers: { [header]: encodeHeaderValue(wrong) } },
      { key: 'missing', what: `without ${header}`, headers: {} },
    ];
    for (const p of probes) {
      const answer = await exchange(session, message(), p.headers);
      check.expect(refusedWith(answer, HEADER_MISMATCH, 400), {
        key: p.key,
        expected: `tools/call of ${plan.name} with arguments.${param.path[0]} ${show(value)}, ${p.what}: HTTP 400 with error −32020`,
        actual: answer.shown,
      });
    }
  },
});

export const modernHttp: Scenario[] = [headerValidation, versionHeaderMismatch, unknownMethod, noSessionMachinery, paramHeaders];
