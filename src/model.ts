import type { Level, Role } from './spec/catalog.js';

/**
 * The one result model: checks → requirement verdicts → grade. `validate`, `server` and every
 * report format read and write exactly this; no output format computes anything of its own.
 */
export type Status = 'pass' | 'fail' | 'warn' | 'skip' | 'error';

/** A frame that shows why a check ended as it did. Text a target sent is kept escaped and bounded. */
export interface Evidence {
  /** Index of the frame in the session/transcript. */
  frame?: number;
  from?: 'client' | 'server';
  /** Where in the message (JSON pointer). */
  pointer?: string;
  /** Up to 500 characters of the frame, JSON-escaped. */
  excerpt?: string;
  /** Transcript file and line, for `validate`. */
  location?: string;
  /** The wire log (`RunReport.wire`) of the session the frame is in: frames are numbered per session. */
  wire?: string;
}

export interface CheckResult {
  /** Stable check id, e.g. `server.base.null-id-rejected` or `validate.BASE-ID-01`. */
  id: string;
  title: string;
  requirements: string[];
  level: Level;
  status: Status;
  /** Expected vs actual; for skip, the reason; for error, what the harness could not do. */
  message: string;
  /** Spec area of the first requirement (used to group reports). */
  area: string;
  evidence: Evidence[];
  /** The scenario the check ran in (server runs). */
  scenario?: string;
  /** The command that reproduces this check. */
  reproduce?: string;
  /** Set by grading when a baseline lists this check as an expected failure. */
  expected?: boolean;
  /** The baseline entry's reason for expecting this failure, when it gives one. */
  baselineReason?: string;
  /**
   * The check's own time: since the previous check of its scenario (or the scenario's start), so a
   * scenario's checks add up to its time. Absent for checks judged over a whole run or transcript.
   */
  durationMs?: number;
  /** Ids of the wire logs (`RunReport.wire`) of the sessions the check's traffic went over. */
  wire?: string[];
  /**
   * Set on the check that reports a defect other checks saw too (grade/defects.ts): their ids, in
   * report order. They stay in the report, each with `defectOf` naming this one.
   */
  also?: string[];
  /** The check that reports this check's defect (it lists this one in `also`); views show it there. */
  defectOf?: string;
  /**
   * The protocol revision the session the check was judged on negotiated: its requirements are
   * graded at their level in it (`levelIn`). Absent for checks over a whole run or transcript.
   */
  revision?: string;
}

/** One frame of a wire log: what went over the wire, bounded, kept as data (never markup). */
export interface WireFrame {
  /** Index of the frame in its session (what `Evidence.frame` names). */
  index: number;
  from: 'client' | 'server';
  /** Milliseconds since the session opened (absent in transcripts without times). */
  at?: number;
  /** The frame's text as sent (or its JSON), cut to a few KB (then ending in …). */
  text: string;
  /** The full length in characters, when `text` was cut. */
  length?: number;
}

/**
 * The frames of one session as far as a scenario (or a transcript) used it, shared by the checks
 * that cite it so a report holds each frame once. Bounded: the first and last frames and those
 * cited as evidence; `omitted` says how many others were left out.
 */
export interface WireLog {
  id: string;
  /** What the traffic served: a scenario id, `discovery`, a transcript file. */
  label: string;
  frames: WireFrame[];
  omitted?: number;
}

export interface TargetInfo {
  kind: 'transcript' | 'stdio' | 'http';
  /** The command, URL (credentials never included) or file(s). */
  description: string;
  protocolVersion?: string;
  serverInfo?: { name?: string; version?: string };
  /** What a client under test said of itself in initialize. */
  clientInfo?: { name?: string; version?: string };
  /** The role graded: only rules binding it count. Absent when both sides of a transcript were judged. */
  role?: Role;
}

export interface RequirementVerdict {
  id: string;
  /**
   * The level it is graded and tallied at: the catalog's, or lower when the checks that decided it
   * graded the rule lower (a ruling that makes a MUST a warning, a revision where it was a SHOULD).
   */
  level: Level;
  status: Status;
  /** Ids of the checks that decided it. */
  checks: string[];
  url: string;
  title: string;
}

export interface LevelCount {
  passed: number;
  total: number;
}

export interface Summary {
  /** e.g. "requirements: MUST 57/60 · SHOULD 30/34 · 4 skipped · 0 could not run" */
  headline: string;
  /** Checks per status. */
  checks: Record<Status, number>;
  /** Requirement verdicts per status: what the headline counts. */
  requirements: Record<Status, number>;
  levels: Record<Level, LevelCount>;
  /** Unexpected failures of MUST-level checks (these make the exit code 1). */
  mustFailures: number;
  /** Checks that could not run and are not baselined (these make the exit code 3, unless 1 applies). */
  incomplete: number;
  /** Baseline entries that failed as expected. */
  expectedFailures: number;
  /** Baseline entries that now pass: they fail the run so the baseline is kept honest. */
  staleBaseline: string[];
  durationMs: number;
  /** The run was stopped (Ctrl-C) before it finished: the checks it did not finish could not run. */
  interrupted?: true;
}

export interface RunReport {
  tool: { name: string; version: string };
  target: TargetInfo;
  startedAt: string;
  /** The seed of what the run generated (property scenarios); the same seed generates the same cases. */
  seed?: number;
  summary: Summary;
  requirements: RequirementVerdict[];
  checks: CheckResult[];
  /** Notes the run wants a reader to know (tools called and why, seeds, …). */
  notes: string[];
  /** The wire logs checks refer to (`CheckResult.wire`). */
  wire?: WireLog[];
  /** What this run did not test, so that silence is never read as a pass. */
  untested: UntestedArea[];
  /**
   * Server runs: the protocol eras, each with what became of it (tested, not served, could not
   * run) and, when tested, its own grade: the checks whose `revision` is the section's.
   */
  eras?: EraSection[];
  /** Proxy runs: each session that passed, with what it was and which failing checks its traffic gave evidence to. */
  sessions?: SessionSection[];
  /**
   * Server runs against a protected resource: each authorization server its metadata names, graded
   * as one (by rules binding an authorization server, which are no part of the server's grade).
   */
  authorizationServers?: AuthorizationServerSection[];
}

/** An authorization server a protected resource names, and what became of its metadata. */
export interface AuthorizationServerSection {
  /** The issuer identifier as the Protected Resource Metadata lists it. */
  issuer: string;
  status: 'graded' | 'not contacted' | 'could not run';
  /** Why it was not contacted or could not run; where its metadata was, when graded. */
  detail: string;
  /** When graded: its own report, as `mcpcheck authorization` gives it for the metadata scenarios. */
  report?: RunReport;
}

/** One session mcpcheck proxy carried: a stdio connection, an MCP-Session-Id, or the HTTP traffic that named none. */
export interface SessionSection {
  label: string;
  frames: number;
  /** The revision it negotiated, or the eras it was judged in when it negotiated none. */
  protocol: string;
  clientInfo?: { name?: string; version?: string };
  serverInfo?: { name?: string; version?: string };
  /** The failing and warning checks that hold findings of this session, with how many. */
  violations: Array<{ check: string; status: Status; findings: number }>;
  /** Its transcript, when one was written whole (`mcpcheck validate` of it reproduces its findings). */
  transcript?: string;
  /** Its wire log (`RunReport.wire`). */
  wire?: string;
  /** Why judging stopped before the session's end, if it did. */
  stopped?: string;
}

/** One protocol era of a server run. */
export interface EraSection {
  revision: string;
  era: 'stateful' | 'stateless';
  status: 'tested' | 'not served' | 'could not run';
  /** What the era's probe or run showed. */
  detail: string;
  /** When tested: the era's own grade, over its checks alone. */
  headline?: string;
  summary?: Pick<Summary, 'checks' | 'requirements' | 'mustFailures' | 'incomplete'>;
}

/** A part of the specification a run did not test: a catalog area no check of the run cites, or a known gap. */
export interface UntestedArea {
  /** A catalog area (as in `requirements.json`), or a part of the spec that cuts across areas. */
  area: string;
  why: string;
}
