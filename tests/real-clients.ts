import { join } from 'node:path';
import { ROOT } from './server-helpers.js';

// The real clients the tests drive, where they are once installed and built.

/** mcpcheck's hand-written client fixture (one-rule breaks with --break). */
export const CLIENT_FIXTURE = join(ROOT, 'dist/tests/fixtures/client/client.js');
/** The example client on @modelcontextprotocol/sdk that follows the client contract (examples/sdk-client.js, bundled by the build: tests/fixtures/bundle.ts). */
export const SDK_EXAMPLE = join(ROOT, 'dist/examples/sdk-client.js');
/** @modelcontextprotocol/inspector-cli's build folder (run `node index.js` there). */
export const INSPECTOR_BUILD = join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build');
export const MCPORTER = join(ROOT, 'node_modules/mcporter/dist/cli.js');
export const MCP_REMOTE = join(ROOT, 'node_modules/mcp-remote/dist/proxy.js');
/** A client on @modelcontextprotocol/client 2.4.0 (SDK v2, 2026-07-28). */
export const SDK_V2_CLIENT = join(ROOT, 'dist/tests/fixtures/client-2026/sdk-v2-client.js');
