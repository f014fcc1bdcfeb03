/**
 * A validator rule registers in one place: the rule table of the module that judges it.
 * VALIDATOR_RULES is derived from those tables; these tests hold the tables to the catalog and to
 * the ids the modules' code actually cites.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRequirement } from '../src/spec/catalog.js';
import { TRANSPORT_RULES, VALIDATOR_RULES } from '../src/validate/coverage.js';
import { MESSAGE_RULES } from '../src/validate/message.js';
import type { RuleTable } from '../src/validate/rule-table.js';
import { SESSION_RULES } from '../src/validate/session.js';
import { ERA_CONCERNS } from '../src/validate/session/eras.js';

const VALIDATE = join(import.meta.dirname, '../src/validate');
const ID = /['"`]([A-Z]+(?:-[A-Z]+)*-\d{2})['"`]/g;

/** The requirement ids a source file writes as string literals. */
function cited(file: string): Set<string> {
  return new Set([...readFileSync(file, 'utf8').matchAll(ID)].map((m) => m[1]!));
}

function outside(ids: Iterable<string>, table: RuleTable): string[] {
  const listed = new Set(table);
  return [...ids].filter((id) => !listed.has(id));
}

/** The list VALIDATOR_RULES was kept by hand as, before it was derived. */
const HAND_KEPT = [
  'BASE-MSG-01', 'BASE-MSG-02', 'BASE-MSG-04', 'BASE-MSG-05', 'BASE-ID-01', 'BASE-ID-02', 'BASE-ID-03', 'BASE-ID-04',
  'BASE-RES-01', 'BASE-RES-02', 'BASE-RES-03', 'BASE-ERR-01', 'BASE-ERR-02', 'BASE-NOTIF-01', 'BASE-SCHEMA-01', 'ROBUST-08',
  'META-KEY-01', 'META-KEY-02', 'META-KEY-03', 'META-KEY-04', 'META-RSV-01', 'META-RSV-03',
  'JSCH-DIAL-01', 'JSCH-DIAL-03', 'JSCH-VAL-02', 'JSCH-VAL-03', 'TOOL-SCHEMA-01',
  'ICON-FMT-01', 'ICON-FMT-02', 'ICON-FMT-03',
  'LIFE-INIT-01', 'LIFE-INIT-02', 'LIFE-INIT-03', 'LIFE-INIT-04', 'LIFE-INIT-05', 'LIFE-VER-01', 'LIFE-VER-03', 'LIFE-VER-04',
  'LIFE-OP-01', 'LIFE-OP-02', 'LIFE-CAP-01',
  'STDIO-FRAME-01', 'STDIO-OUT-01', 'STDIO-IN-01',
  'PING-01', 'CANCEL-01', 'CANCEL-02', 'CANCEL-04', 'PROG-01', 'PROG-02', 'PROG-04',
  'LOG-CAP-01', 'LOG-LVL-01', 'LOG-SET-01', 'LOG-SET-02', 'COMP-RES-01', 'COMP-REQ-01', 'PAGE-01',
  'TOOL-LIST-01', 'TOOL-NAME-01', 'TOOL-NAME-03', 'TOOL-CALL-01', 'TOOL-CONT-01', 'TOOL-OUT-01', 'TOOL-OUT-03',
  'RES-LIST-01', 'RES-READ-01', 'RES-TPL-01', 'RES-SUB-01', 'RES-SUB-02', 'RES-URI-02', 'PROMPT-LIST-01', 'PROMPT-GET-01', 'PROMPT-CONT-01',
  'ROOTS-LIST-01', 'SAMP-REQ-01', 'SAMP-RES-01', 'SAMP-TOOLS-01', 'ELIC-REQ-01', 'ELIC-FORM-02', 'ELIC-CAP-02',
  'ELIC-RESP-01', 'ELIC-RESP-02', 'ELIC-URL-03', 'ELIC-URL-01', 'ELIC-ERR-01', 'ELIC-FORM-04', 'ELIC-CMPL-01',
  'BASE-ERR-03', 'SAMP-MSG-01', 'SAMP-MSG-02', 'SAMP-CTX-01', 'RES-ANN-01', 'TOOL-CONT-02',
];

describe('VALIDATOR_RULES, derived from the rule tables', () => {
  it('is the hand-kept list it replaces, as a set', () => {
    expect([...VALIDATOR_RULES].sort()).toEqual([...HAND_KEPT].sort());
  });

  it('lists each rule once, every one in the catalog', () => {
    expect(new Set(VALIDATOR_RULES).size).toBe(VALIDATOR_RULES.length);
    expect(VALIDATOR_RULES.filter((id) => findRequirement(id) === undefined)).toEqual([]);
  });

  it('lists every rule a validator module cites (the HTTP client rules are transport rules)', () => {
    const listed = [...VALIDATOR_RULES, ...TRANSPORT_RULES.http];
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
    for (const name of ['ids.ts', 'frames.ts', 'capabilities.ts']) expect(outside(cited(join(session, name)), SESSION_RULES), name).toEqual([]);
    const messageModules = ['message.ts', 'envelope.ts', 'walk.ts', 'meta.ts', 'icons.ts', 'dialects.ts', 'content.ts', 'tools.ts', 'uri-template.ts', 'sampling.ts', 'echo.ts'];
    for (const name of messageModules) expect(outside(cited(join(VALIDATE, name)), MESSAGE_RULES), name).toEqual([]);
  });
});
