import { describe, expect, it } from 'vitest';
import { stderrGist } from '../src/transport/stderr-gist.js';

/** What Node 20 prints for `node x` when x does not exist. */
const NODE_MODULE_NOT_FOUND = `node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/tmp/x.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at Module._load (node:internal/modules/cjs/loader:1051:27)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`;

const PYTHON_IMPORT = `Traceback (most recent call last):
  File "/srv/server.py", line 3, in <module>
    import mcp_magic
ModuleNotFoundError: No module named 'mcp_magic'
`;

const NODE_THROWN_WITH_CAUSE = `file:///srv/server.js:4
throw new Error('no API key', { cause: new TypeError('KEY is undefined') });
      ^

Error: no API key
    at file:///srv/server.js:4:7 {
  [cause]: TypeError: KEY is undefined
      at file:///srv/server.js:4:40
}

Node.js v20.20.2
`;

describe('stderrGist', () => {
  it("says why a Node process died: the error statement, not the stack, the dump's properties or the version banner", () => {
    expect(stderrGist(NODE_MODULE_NOT_FOUND)).toBe("Error: Cannot find module '/tmp/x.js'");
  });

  it("a Python traceback's exception line", () => {
    expect(stderrGist(PYTHON_IMPORT)).toBe("ModuleNotFoundError: No module named 'mcp_magic'");
  });

  it('an error and its cause, in order', () => {
    expect(stderrGist(NODE_THROWN_WITH_CAUSE)).toBe('Error: no API key | [cause]: TypeError: KEY is undefined');
  });

  it('without an error statement, the last meaningful lines; nothing for blank stderr', () => {
    expect(stderrGist('starting\nlistening on 3000\n\nbye\n\n')).toBe('starting | listening on 3000 | bye');
    expect(stderrGist('\n  \n')).toBe('');
  });

  it('cut to one readable line', () => {
    const gist = stderrGist(`Error: ${'x'.repeat(2000)}\n`);
    expect(gist.length).toBe(400);
    expect(gist.endsWith('…')).toBe(true);
  });
});
