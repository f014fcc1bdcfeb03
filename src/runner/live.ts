import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checksFromFindings } from '../checks.js';
import type { PeerSession, RecordedFrame, Side } from '../harness/peer-session.js';
import type { CheckResult, Evidence } from '../model.js';
import { formatTranscript } from '../transcript/format.js';
import type { Finding } from '../validate/finding.js';
import type { Redactor } from '../redact.js';
import { excerptOf } from '../wire.js';
import type { Era } from '../spec/revisions.js';

interface LiveFinding {
  finding: Finding;
  scenario: string;
  /** The session whose traffic it arose in: its frame indices are that session's. */
  session?: PeerSession;
  frame?: RecordedFrame;
}


/**
 * What live validation saw over a whole run, whichever side the target plays: every finding about
 * the target's frames, tied to the scenario whose traffic it was, and the rules its traffic exercised.
 */
export class LiveLedger {
  private readonly live: LiveFinding[] = [];
  private readonly applied = new Set<string>();
  private readonly sessions: Array<{ session: PeerSession; label: string }> = [];

  /** The sink for a session's findings; `scenarioOf` names the scenario running on it at that moment. */
  sink(scenarioOf: () => string, sessionOf: () => PeerSession | undefined): (finding: Finding) => void {
    return (finding) => {
      // Findings buffered before the session existed (a start-up banner) arrive during its construction.
      const session = sessionOf();
      const frame = finding.frame !== undefined && session !== undefined ? session.frames.find((f) => f.index === finding.frame) : undefined;
      this.live.push({ finding, scenario: scenarioOf(), ...(session ? { session } : {}), ...(frame ? { frame } : {}) });
    };
  }

  /** Keeps the session for transcripts. */
  track(session: PeerSession, label: string): void {
    this.sessions.push({ session, label });
  }

  get tracked(): readonly PeerSession[] {
    return this.sessions.map((s) => s.session);
  }

  /** At a session's end: only what the target's own traffic exercised can pass for it. */
  absorb(session: PeerSession): void {
    session.end();
    for (const id of session.appliedBy(session.them)) this.applied.add(id);
  }

  /**
   * One check per requirement over the traffic of every scenario. A failing one is reproduced by
   * the scenario in whose traffic its first violation arose (`setup`: traffic of no scenario), and
   * refers to the wire logs (`wireOf` a scenario and session) of the traffic its violations arose
   * in, and names the session each frame of its evidence is in.
   */
  checks(judged: Side, reproduce: string, setup: string, wireOf: (scenario: string, session: PeerSession | undefined) => string[] | undefined = () => undefined, eras?: readonly Era[]): CheckResult[] {
    const scenarioOf = new Map<Finding, string>(this.live.map((l) => [l.finding, l.scenario]));
    const sessionOf = new Map<Finding, PeerSession | undefined>(this.live.map((l) => [l.finding, l.session]));
    const labels = new Map<PeerSession, string>(this.sessions.map((s) => [s.session, s.label]));
    const where = new Map<Finding, Evidence>();
    for (const l of this.live) {
      const label = l.session ? labels.get(l.session) : undefined;
      const text = l.frame ? (l.frame.raw ?? JSON.stringify(l.frame.message) ?? '') : undefined;
      const logs = l.finding.frame !== undefined ? wireOf(l.scenario, l.session) : undefined;
      where.set(l.finding, {
        ...(logs?.length === 1 ? { wire: logs[0]! } : {}),
        ...(l.finding.frame !== undefined ? { frame: l.finding.frame } : {}),
        ...(l.frame ? { from: l.frame.from } : {}),
        ...(l.finding.pointer ? { pointer: l.finding.pointer } : {}),
        ...(text !== undefined ? { excerpt: excerptOf(text) } : {}),
        location: `scenario ${l.scenario}${label !== undefined && label !== l.scenario ? `, session ${label}` : ''}`,
      });
    }
    // Only frames the target sent are its responsibility; mcpcheck's own probes break rules on purpose.
    const fromTarget = this.live.filter((l) => l.frame === undefined || l.frame.from === judged).map((l) => l.finding);
    return checksFromFindings({
      idPrefix: 'live.',
      findings: fromTarget,
      applied: this.applied,
      coverage: [],
      evidence: (f) => where.get(f) ?? {},
      skipReason: `not exercised: the ${judged}'s traffic gave this rule no chance to fail`,
      reproduce: (id, findings) => {
        const scenario = scenarioOf.get(findings[0]!);
        return reproduce.replace('{scenario}', scenario === undefined || scenario === setup ? `live.${id}` : scenario);
      },
      wire: (findings) => [...new Set(findings.flatMap((f) => wireOf(scenarioOf.get(f) ?? '', sessionOf.get(f)) ?? []))],
      ...(eras ? { eras } : {}),
    });
  }

  /** One transcript per session, in the order they opened, with `redactor`'s secrets replaced. */
  async writeTranscripts(dir: string, transport: 'stdio' | 'http', redactor?: Redactor): Promise<void> {
    await mkdir(dir, { recursive: true });
    let n = 0;
    for (const { session, label } of this.sessions) {
      n++;
      const name = `${String(n).padStart(3, '0')}-${label.replace(/[^A-Za-z0-9._-]+/g, '_')}.jsonl`;
      await writeFile(join(dir, name), formatTranscript(transport, redactor ? redactor.deep(session.frames) : session.frames), 'utf8');
    }
  }
}
