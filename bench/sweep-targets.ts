import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How one server is started for one transport: a program and its arguments, and what it needs in its environment. */
export interface Launch {
  argv: string[];
  env?: Record<string, string>;
}

/** A server of the sweep: its stdio launch, and its HTTP launch on a given port with the endpoint path, where it has one. */
export interface SweepTarget {
  name: string;
  stdio?: Launch;
  http?: { launch: (port: number) => Launch; path: string };
  /** Set when the server cannot be started here (e.g. a fixture another branch has not landed): why. */
  missing?: string;
}

/** Where the sweep finds things: the package root, the sweep's own packages and a scratch folder for the servers' files. */
export interface SweepPaths {
  root: string;
  sweepModules: string;
  scratch: string;
}

/**
 * The servers of issue 20's sweep. Each listens on 127.0.0.1 only: by its own flag where it has one,
 * else through tests/fixtures/loopback-only.mjs for Node servers that bind every interface.
 * None needs a network or a key: kubernetes-mcp-server gets a kubeconfig whose cluster is a closed
 * loopback port, server-memory and server-filesystem a scratch folder.
 */
export function sweepTargets({ root, sweepModules, scratch }: SweepPaths): SweepTarget[] {
  const node = process.execPath;
  const loopback = ['--import', join(root, 'tests/fixtures/loopback-only.mjs')];
  const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const reference = (name: string): string => join(root, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');
  const fixture = (name: string): string => join(root, 'dist/tests/fixtures', name, 'server.js');
  const nodeFixture = (name: string, path: string): SweepTarget =>
    existsSync(path)
      ? { name, stdio: { argv: [node, path] }, http: { launch: (port) => ({ argv: [node, path, '--http', '--port', String(port)] }), path: '/mcp' } }
      : { name, missing: `${path} is not built (the fixture is not on this branch)` };
  const binary = (pkg: string, file: string): string => join(sweepModules, pkg, file);
  const kubeconfig = join(scratch, 'kubeconfig.yaml');
  writeFileSync(kubeconfig, KUBECONFIG);
  const kubernetes = binary('kubernetes-mcp-server-linux-amd64', 'bin/kubernetes-mcp-server-linux-amd64');
  const kubeArgs = ['--kubeconfig', kubeconfig, '--cluster-provider', 'kubeconfig'];
  const mcpTime = binary('mcp-time-linux-x64', 'bin/mcp-time');
  const cortex = binary('@temporal-cortex/cortex-mcp-linux-x64', 'bin/cortex-mcp');
  const azure = binary('@azure/mcp-template-linux-x64', 'dist/mcptmp');
  const azureEnv = { AZURE_MCP_COLLECT_TELEMETRY: 'false' };
  const proxy = binary('mcp-proxy', 'dist/bin/mcp-proxy.mjs');
  return [
    {
      name: 'server-everything',
      stdio: { argv: [node, everything, 'stdio'] },
      http: { launch: (port) => ({ argv: [node, ...loopback, everything, 'streamableHttp'], env: { PORT: String(port) } }), path: '/mcp' },
    },
    { name: 'server-memory', stdio: { argv: [node, reference('server-memory')], env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') } } },
    { name: 'server-filesystem', stdio: { argv: [node, reference('server-filesystem'), scratch] } },
    { name: 'server-sequential-thinking', stdio: { argv: [node, reference('server-sequential-thinking')] } },
    nodeFixture('sdk v1 fixture', fixture('sdk')),
    nodeFixture('sdk v2 fixture', fixture('sdk-v2')),
    nodeFixture('fastmcp fixture', fixture('fastmcp')),
    nodeFixture('tmcp fixture', fixture('tmcp')),
    nodeFixture('mcp-framework', join(root, 'sweep/servers/mcp-framework.mjs')),
    {
      name: 'mcp-proxy → everything',
      http: {
        launch: (port) => ({ argv: [node, proxy, '--host', '127.0.0.1', '--port', String(port), '--server', 'stream', '--', node, everything, 'stdio'] }),
        path: '/mcp',
      },
    },
    {
      name: 'mcp-time',
      stdio: { argv: [mcpTime] },
      http: { launch: (port) => ({ argv: [mcpTime, '--transport', 'stream', '--address', `http://127.0.0.1:${port}/mcp`] }), path: '/mcp' },
    },
    {
      name: 'kubernetes-mcp-server',
      stdio: { argv: [kubernetes, ...kubeArgs] },
      http: { launch: (port) => ({ argv: [kubernetes, ...kubeArgs, '--port', String(port), '--bind-address', '127.0.0.1'] }), path: '/mcp' },
    },
    {
      name: 'cortex-mcp',
      stdio: { argv: [cortex] },
      http: { launch: (port) => ({ argv: [cortex], env: { HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1' } }), path: '/mcp' },
    },
    {
      name: 'azure mcp-template',
      stdio: { argv: [azure, 'server', 'start'], env: azureEnv },
      http: {
        launch: (port) => ({
          argv: [azure, 'server', 'start', '--transport', 'http', '--dangerously-disable-http-incoming-auth'],
          env: { ...azureEnv, ASPNETCORE_URLS: `http://127.0.0.1:${port}` },
        }),
        path: '/',
      },
    },
  ];
}

/** A cluster that is not there: a closed loopback port, so the server starts and its calls fail fast, offline. */
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: none
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: none
  context:
    cluster: none
    user: none
current-context: none
users:
- name: none
  user:
    token: none
`;
