/**
 * The Streamable HTTP request headers of 2026-07-28 (src/validate/modern-headers.ts), with the
 * values of streamable-http.mdx#value-encoding's table and the page's example requests.
 */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../src/validate/finding.js';
import { checkModernRequestHeaders, checkXMcpHeaderSchema, decodeHeaderValue, encodeHeaderValue } from '../src/validate/modern-headers.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'ExampleClient', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function call(name: string, args: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: META, name, arguments: args } };
}

function tags(findings: Finding[]): string[] {
  return findings.map((f) => `${f.requirements.join('+')}:${f.severity}`);
}

/** The page's execute_sql tool, and one with every kind of annotated parameter. */
const EXECUTE_SQL = {
  inputSchema: {
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
    required: ['region', 'query'],
  },
};
const ALL_KINDS = {
  inputSchema: {
    type: 'object',
    properties: {
      greeting: { type: 'string', 'x-mcp-header': 'Greeting' },
      opts: { type: 'object', properties: { level: { type: 'integer', 'x-mcp-header': 'Level' } } },
      dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
    },
  },
};

describe('the Base64 sentinel (value-encoding table)', () => {
  const TABLE: Array<[string, string]> = [
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ];
  for (const [value, header] of TABLE) {
    it(`${JSON.stringify(value)} ↔ ${header}`, () => {
      expect(encodeHeaderValue(value)).toBe(header);
      expect(decodeHeaderValue(header)).toBe(value);
    });
  }

  it('decodes nothing from a sentinel that is not Base64 of UTF-8', () => {
    expect(decodeHeaderValue('=?base64?not base64!?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?/w==?=')).toBeUndefined();
  });
});

describe('checkModernRequestHeaders', () => {
  const standard = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'execute_sql' };

  it('the page\'s execute_sql request, in any header-name case, has no finding', () => {
    expect(checkModernRequestHeaders({ ...standard, 'Mcp-Param-Region': 'us-west1' }, call('execute_sql', { region: 'us-west1', query: 'SELECT * FROM users' }), EXECUTE_SQL)).toEqual([]);
    expect(checkModernRequestHeaders({ 'mcp-protocol-version': '2026-07-28', 'MCP-METHOD': 'tools/call', 'mcp-name': 'execute_sql', 'mcp-param-region': 'us-west1' }, call('execute_sql', { region: 'us-west1' }), EXECUTE_SQL)).toEqual([]);
  });

  it('HDR-VER-01 and HDR-STD-01: a request without its headers', () => {
    expect(tags(checkModernRequestHeaders({}, call('execute_sql')))).toEqual(['HDR-VER-01:fail', 'HDR-STD-01:fail', 'HDR-STD-01:fail']);
  });

  it('a notification POST without them only warns (ruling headers-on-notification-posts)', () => {
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } };
    expect(tags(checkModernRequestHeaders({}, cancel))).toEqual(['HDR-VER-01:warn', 'HDR-STD-01:warn']);
  });

  it('HDR-VER-02: a version header differing from the body', () => {
    expect(tags(checkModernRequestHeaders({ ...standard, 'MCP-Protocol-Version': '1999-01-01' }, call('execute_sql')))).toEqual(['HDR-VER-02:fail']);
  });

  it('HDR-STD-01 with HDR-CASE-01: a method header differing only in case', () => {
    expect(tags(checkModernRequestHeaders({ ...standard, 'Mcp-Method': 'Tools/Call' }, call('execute_sql')))).toEqual(['HDR-STD-01+HDR-CASE-01:fail']);
  });

  it('HDR-STD-02: a non-ASCII name sent plain, or with upper-case markers; the sentinel form has no finding', () => {
    expect(checkModernRequestHeaders({ ...standard, 'Mcp-Name': '=?base64?d8OpdHRlcg==?=' }, call('wétter'))).toEqual([]);
    expect(tags(checkModernRequestHeaders({ ...standard, 'Mcp-Name': 'wétter' }, call('wétter')))).toEqual(['HDR-STD-02:fail']);
    expect(tags(checkModernRequestHeaders({ ...standard, 'Mcp-Name': '=?BASE64?d8OpdHRlcg==?=' }, call('wétter')))).toEqual(['HDR-STD-02:fail']);
    expect(tags(checkModernRequestHeaders({ ...standard, 'Mcp-Name': 'other' }, call('execute_sql')))).toEqual(['HDR-STD-01:fail']);
  });

  it('HDR-PARAM-01 and HDR-PARAM-04 on annotated arguments', () => {
    const args = { greeting: 'Hello, 世界', opts: { level: -7 }, dry: false };
    const right = { ...standard, 'Mcp-Name': 'all', 'Mcp-Param-Greeting': '=?base64?SGVsbG8sIOS4lueVjA==?=', 'Mcp-Param-Level': '-7', 'Mcp-Param-Dry': 'false' };
    expect(checkModernRequestHeaders(right, call('all', args), ALL_KINDS)).toEqual([]);
    const { 'Mcp-Param-Level': _level, ...withoutLevel } = right;
    expect(tags(checkModernRequestHeaders(withoutLevel, call('all', args), ALL_KINDS))).toEqual(['HDR-PARAM-01:fail']);
    expect(tags(checkModernRequestHeaders({ ...right, 'Mcp-Param-Greeting': 'Hello, 世界' }, call('all', args), ALL_KINDS))).toEqual(['HDR-PARAM-04:fail']);
    expect(tags(checkModernRequestHeaders({ ...right, 'Mcp-Param-Dry': 'False' }, call('all', args), ALL_KINDS))).toEqual(['HDR-PARAM-01:fail']);
    // Null or absent: the header is omitted, and one sent anyway is a finding.
    expect(checkModernRequestHeaders({ ...standard, 'Mcp-Name': 'all' }, call('all', { greeting: null }), ALL_KINDS)).toEqual([]);
    expect(tags(checkModernRequestHeaders({ ...standard, 'Mcp-Name': 'all', 'Mcp-Param-Dry': 'true' }, call('all', {}), ALL_KINDS))).toEqual(['HDR-PARAM-04:fail']);
  });
});

describe('checkXMcpHeaderSchema (HDR-PARAM-02)', () => {
  it('accepts the page\'s tool and nested properties reached through properties alone', () => {
    expect(checkXMcpHeaderSchema(EXECUTE_SQL.inputSchema)).toEqual([]);
    expect(checkXMcpHeaderSchema(ALL_KINDS.inputSchema)).toEqual([]);
  });

  it('fails each invalid annotation', () => {
    const one = (property: Record<string, unknown>) => tags(checkXMcpHeaderSchema({ type: 'object', properties: { p: property } }));
    expect(one({ type: 'number', 'x-mcp-header': 'N' })).toEqual(['HDR-PARAM-02:fail']);
    expect(one({ type: 'string', 'x-mcp-header': '' })).toEqual(['HDR-PARAM-02:fail']);
    expect(one({ type: 'string', 'x-mcp-header': 'Bad Name' })).toEqual(['HDR-PARAM-02:fail']);
    expect(one({ type: 'integer', 'x-mcp-header': 'Big', maximum: 2 ** 60 })).toEqual(['HDR-PARAM-02:warn']);
    expect(one({ type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } })).toEqual(['HDR-PARAM-02:fail']);
    expect(one({ anyOf: [{ type: 'string', 'x-mcp-header': 'Alt' }] })).toEqual(['HDR-PARAM-02:fail']);
    const twice = { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } } };
    expect(tags(checkXMcpHeaderSchema(twice))).toEqual(['HDR-PARAM-02:fail']);
    const viaRef = { type: 'object', properties: { a: { $ref: '#/$defs/r' } }, $defs: { r: { type: 'string', 'x-mcp-header': 'R' } } };
    expect(tags(checkXMcpHeaderSchema(viaRef))).toEqual(['HDR-PARAM-02:fail']);
  });
});
