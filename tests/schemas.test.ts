import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../src/paths.js';
import { applySchemaPatches } from '../src/spec/rulings.js';
import { REVISIONS } from '../src/validate/revisions.js';
import { schemaFor } from '../src/validate/schemas.js';

// src/validate/schemas.ts skips Ajv's meta-schema check of the bundled schemas at run time; this is it.
describe('the bundled official MCP schemas', () => {
  for (const revision of REVISIONS) {
    it(`${revision}, with mcpcheck's patches, is valid against its meta-schema`, () => {
      const file = JSON.parse(readFileSync(join(packageRoot(), 'schemas/mcp', `${revision}.json`), 'utf8')) as Record<string, unknown>;
      const modern = file.$defs !== undefined;
      applySchemaPatches(revision, (file.$defs ?? file.definitions) as Record<string, unknown>);
      const ajv = modern ? new Ajv2020({ strict: false }) : new Ajv({ strict: false });
      expect(ajv.validateSchema(file), JSON.stringify(ajv.errors)).toBe(true);
      expect(schemaFor(revision).validate('JSONRPCMessage', { jsonrpc: '2.0', id: 1, method: 'ping' })).toBeNull();
    });
  }
});
