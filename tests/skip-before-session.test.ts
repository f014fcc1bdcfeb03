/**
 * A scenario whose skip discovery and the options already decide opens no session for it: over
 * HTTP a session costs the server an initialize and a DELETE, over stdio a process of its own.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING, LOOPBACK, requireBuild, runHttp } from './server-helpers.js';

beforeAll(requireBuild);

const SKIPPED = ['server.tasks.listed', 'server.tasks.get-not-streamed', 'server.tasks.isolation'];

describe('a skip known before any traffic', () => {
  it('opens no session: the task scenarios under --call-tools none, and task isolation on an unprotected server (server-everything over HTTP)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-skip-'));
    try {
      const report = await runHttp((port) => `PORT=${port} node --import ${LOOPBACK} ${EVERYTHING} streamableHttp`, { only: SKIPPED, callTools: 'none', transcriptDir: dir });
      for (const id of SKIPPED) {
        const checks = report.checks.filter((c) => c.scenario === id);
        expect(checks.length, id).toBeGreaterThan(0);
        for (const c of checks) expect(c.status, `${c.id}: ${c.message}`).toBe('skip');
      }
      // Discovery's session has frames; a skipped scenario's transcript, none.
      const transcripts = readdirSync(dir);
      expect(transcripts.some((f) => f.includes('discovery'))).toBe(true);
      const frames = (f: string) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).length - 1;
      expect(transcripts.filter((f) => SKIPPED.some((id) => f.includes(id)) && frames(f) > 0)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
