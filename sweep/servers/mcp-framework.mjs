// A small server built the way mcp-framework 0.2.22 users build one (classes for a tool, a prompt
// and a resource), for `npm run sweep`: stdio by default, Streamable HTTP with `--http --port N`
// (127.0.0.1 only). Plain JavaScript beside sweep/node_modules, so that it resolves mcp-framework
// from there and `npm run build` does not need the sweep's packages installed.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MCPPrompt, MCPResource, MCPServer, MCPTool } from 'mcp-framework';

// The framework reads schemas of its own zod (3.x, with `instanceof`, ESM build); sweep/node_modules/zod
// is 4.x. So the zod that mcp-framework imports is loaded, as its users get it from their own zod 3.
const zodPackage = createRequire(import.meta.resolve('mcp-framework')).resolve('zod/package.json');
const { z } = await import(new URL(JSON.parse(readFileSync(zodPackage, 'utf8')).exports['.'].import, pathToFileURL(zodPackage)).href);

class EchoTool extends MCPTool {
  name = 'echo';
  description = 'Echoes the message back';
  annotations = { readOnlyHint: true };
  schema = z.object({ message: z.string().describe('the text to echo') });
  async execute(input) {
    return `echo: ${input.message}`;
  }
}

class AddTool extends MCPTool {
  name = 'add';
  description = 'Adds two numbers';
  annotations = { readOnlyHint: true };
  schema = z.object({ a: z.number().describe('first addend'), b: z.number().describe('second addend') });
  async execute(input) {
    return String(input.a + input.b);
  }
}

class GreetPrompt extends MCPPrompt {
  name = 'greet';
  description = 'Asks for a greeting';
  schema = { name: { type: z.string(), description: 'who to greet', required: true } };
  async generateMessages(args) {
    return [{ role: 'user', content: { type: 'text', text: `Say hello to ${args.name}` } }];
  }
}

class NoteResource extends MCPResource {
  uri = 'note://greeting';
  name = 'greeting';
  description = 'A fixed note';
  mimeType = 'text/plain';
  async read() {
    return [{ uri: this.uri, mimeType: this.mimeType, text: 'hello from mcp-framework' }];
  }
}

function transport() {
  const args = process.argv.slice(2);
  if (!args.includes('--http')) return { type: 'stdio' };
  const port = Number(args[args.indexOf('--port') + 1]);
  return { type: 'http-stream', options: { port, host: '127.0.0.1', endpoint: '/mcp' } };
}

// basePath: this folder, which has no tools/, prompts/ or resources/ for the framework's loaders to scan
const server = new MCPServer({ name: 'mcpcheck-mcp-framework', version: '1.0.0', basePath: fileURLToPath(new URL('.', import.meta.url)), transport: transport() });
server.addTool(EchoTool);
server.addTool(AddTool);
server.addPrompt(GreetPrompt);
server.addResource(NoteResource);
await server.start();
