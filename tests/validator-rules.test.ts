/**
 * A validator rule registers in one place: the rule table of the module that judges it.
 * VALIDATOR_RULES is derived from those tables; these tests hold the tables to the catalog and to
 * the ids the modules' code actually cites.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRequirementId } from '../src/spec/catalog.js';
import { TRANSPORT_RULES, VALIDATOR_RULES } from '../src/validate/coverage.js';
import { MESSAGE_RULES } from '../src/validate/message.js';
import { HEADER_RULES } from '../src/validate/modern-headers.js';
import { SERVER_ANSWER_RULES } from '../src/validate/server-http.js';
import type { RuleTable } from '../src/validate/rule-table.js';
import { DISPATCH_RULES } from '../src/validate/session.js';
import { FRAME_RULES } from '../src/validate/session/frames.js';
import { Ids } from '../src/validate/session/ids.js';
import { ERA_CONCERNS } from '../src/validate/session/eras.js';

const VALIDATE = join(import.meta.dirname, '../src/validate');
const ID = /['"`]([A-Z]+(?:-[A-Z]+)*-\d{2})['"`]/g;

/** The requirement ids a source file writes as string literals. */
function cited(file: string): Set<string> {
  return new Set([...readFileSync(file, 'utf8').matchAll(ID)].map((m) => m[1]!));
}

function outside(ids: Iterable<string>, table: RuleTable): string[] {
  const listed = new Set<string>(table);
  return [...ids].filter((id) => !listed.has(id));
}

describe('VALIDATOR_RULES, derived from the rule tables', () => {
  it('lists each rule once, every one in a catalog (2025-11-25 or 2026-07-28)', () => {
    expect(new Set(VALIDATOR_RULES).size).toBe(VALIDATOR_RULES.length);
    expect(VALIDATOR_RULES.filter((id) => !isRequirementId(id))).toEqual([]);
  });

  it('lists every rule a validator module cites (the HTTP client rules are transport rules)', () => {
    // The modern request headers are judged by the HTTP transport through modern-headers.ts, as the HTTP client rules are;
    // a server's answers by mcpcheck proxy through server-http.ts.
    const listed = [...VALIDATOR_RULES, ...TRANSPORT_RULES.http, ...HEADER_RULES, ...SERVER_ANSWER_RULES];
    for (const dir of [VALIDATE, join(VALIDATE, 'session')]) {
      for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts') && n !== 'coverage.ts')) {
        expect(outside(cited(join(dir, name)), listed), name).toEqual([]);
      }
    }
  });

  it("holds each session concern to its own table, and the message validator's modules to MESSAGE_RULES", () => {
    const session = join(VALIDATE, 'session');
    for (const [era, kinds] of Object.entries(ERA_CONCERNS)) {
      for (const kind of kinds) {
        const file = readdirSync(session).find((n) => readFileSync(join(session, n), 'utf8').includes(`export class ${kind.name} `));
        expect(file, `${era}: ${kind.name}`).toBeDefined();
        expect(outside(cited(join(session, file!)), kind.rules), file).toEqual([]);
      }
    }
    const own: Array<[string, RuleTable]> = [[join(session, 'ids.ts'), Ids.rules], [join(session, 'frames.ts'), FRAME_RULES], [join(VALIDATE, 'session.ts'), DISPATCH_RULES]];
    for (const [file, table] of own) expect(outside(cited(file), table), file).toEqual([]);
    const messageModules = ['message.ts', 'envelope.ts', 'walk.ts', 'meta.ts', 'icons.ts', 'dialects.ts', 'content.ts', 'tools.ts', 'uri-template.ts', 'sampling.ts', 'echo.ts', 'modern.ts'];
    for (const name of messageModules) expect(outside(cited(join(VALIDATE, name)), MESSAGE_RULES), name).toEqual([]);
  });
});
