import { createRequire } from 'node:module';
import type { Builder, TestCase } from 'junit-report-builder';
import type { CheckResult, Evidence, RequirementVerdict, RunReport } from '../model.js';
import { groupByArea } from './areas.js';
import { xmlSafe } from './xml-safe.js';

// The package is CommonJS (`module.exports = builder`) but its typings declare an ES default
// export, which NodeNext types as `{ default }` while Node hands over module.exports itself.
// `require` has one unambiguous shape at runtime and under vitest alike. Loaded on first use:
// it and its dependencies cost every run ~50 ms of start-up, and most runs write no JUnit.
const require = createRequire(import.meta.url);
let junitReportBuilder: Builder | undefined;

/**
 * JUnit XML for CI: one testsuite per spec area, one testcase per check.
 *
 * Mapping, chosen so the CI verdict matches mcpcheck's exit code as closely as JUnit allows:
 * - fail  → <failure>, message and evidence frames in the body;
 * - error → <error> (the harness could not run the check: not the target's fault, but not a pass);
 * - skip  → <skipped>; the reason goes to system-out because the library's <skipped> has no message;
 * - a baselined (expected) failure → <skipped> with "expected failure (baselined)" in system-out,
 *   since the baseline exists precisely so that known failures do not turn CI red;
 * - warn  → a passing testcase with the message in system-out: a broken SHOULD, or a heuristic
 *   suspicion, is worth reading but must not fail the build, matching exit code 0 for warnings;
 * - pass  → a plain testcase.
 * The report's notes (what was called) and what the run did not test (`not tested: AREA: WHY`) go to
 * a testsuite "notes" of their own, one `note` property each, since the library has no testsuites-level output.
 * Every string passes through `xmlSafe`, since target text may hold characters XML 1.0 cannot carry.
 */
export function renderJunit(report: RunReport): string {
  // A fresh builder per call: the package's default export is a shared singleton that accumulates suites.
  const builder = (junitReportBuilder ??= require('junit-report-builder') as Builder).newBuilder();
  builder.name(xmlSafe(`${report.tool.name} ${report.target.description}`));
  const verdicts = new Map(report.requirements.map((r) => [r.id, r]));

  for (const { area, checks } of groupByArea(report.checks)) {
    const suite = builder.testSuite().name(xmlSafe(area)).timestamp(xmlSafe(report.startedAt));
    const suiteMs = checks.reduce((sum, c) => sum + (c.durationMs ?? 0), 0);
    if (suiteMs > 0) suite.time(suiteMs / 1000);
    for (const check of checks) addTestCase(suite.testCase(), check, area, verdicts);
  }
  const notes = [...report.notes, ...report.untested.map((u) => `not tested: ${u.area}: ${u.why}`)];
  if (notes.length > 0 || report.seed !== undefined) {
    const suite = builder.testSuite().name('notes').timestamp(xmlSafe(report.startedAt));
    if (report.seed !== undefined) suite.property('seed', String(report.seed));
    for (const note of notes) {
      if (note.includes('\n')) suite.multilineProperty('note', xmlSafe(note));
      else suite.property('note', xmlSafe(note));
    }
  }
  return builder.build();
}

function addTestCase(tc: TestCase, check: CheckResult, area: string, verdicts: Map<string, RequirementVerdict>): void {
  tc.className(xmlSafe(`mcpcheck.${slug(area)}`)).name(xmlSafe(check.id));
  if (check.durationMs !== undefined) tc.time(check.durationMs / 1000);

  tc.property('title', xmlSafe(check.title));
  tc.property('level', check.level);
  for (const id of check.requirements) {
    const verdict = verdicts.get(id);
    tc.property('requirement', xmlSafe(`${id} (${verdict?.level ?? check.level})`));
    if (verdict?.url) tc.property(`spec.${xmlSafe(id)}`, xmlSafe(verdict.url));
  }
  if (check.scenario !== undefined) tc.property('scenario', xmlSafe(check.scenario));

  const details = xmlSafe(detailText(check));
  const summary = xmlSafe(firstLine(check.message));
  if (check.expected) {
    tc.skipped().standardOutput(xmlSafe(`expected failure (baselined): ${check.status.toUpperCase()}\n${detailText(check)}`));
    return;
  }
  switch (check.status) {
    case 'fail':
      tc.failure(summary, `${check.level} requirement not met`).stacktrace(details);
      break;
    case 'error':
      tc.error(summary, 'could not run', details);
      break;
    case 'skip':
      tc.skipped().standardOutput(xmlSafe(`skipped: ${check.message || 'no reason given'}`));
      break;
    case 'warn':
      tc.standardOutput(xmlSafe(`warning (does not fail the build): ${detailText(check)}`));
      break;
    case 'pass':
      break;
  }
}

/** The message, the evidence frames and how to reproduce, as the body of a failure. */
function detailText(check: CheckResult): string {
  const lines = [check.message];
  for (const ev of check.evidence) lines.push(evidenceLine(ev));
  if (check.reproduce !== undefined) lines.push(`reproduce: ${check.reproduce}`);
  return lines.join('\n');
}

function evidenceLine(ev: Evidence): string {
  const where: string[] = [];
  if (ev.frame !== undefined) where.push(`frame #${ev.frame}`);
  if (ev.from !== undefined) where.push(`from ${ev.from}`);
  if (ev.pointer !== undefined) where.push(`at ${ev.pointer === '' ? '(whole message)' : ev.pointer}`);
  if (ev.location !== undefined) where.push(`(${ev.location})`);
  return `${where.join(' ') || 'evidence'}${ev.excerpt !== undefined ? `: ${ev.excerpt}` : ''}`;
}

/** Attributes are shown on one line by CI UIs; the full text is in the element body. */
function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** `Base protocol — JSON-RPC messages` → `base-protocol-json-rpc-messages`, a stable class name. */
export function slug(area: string): string {
  return (
    area
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'general'
  );
}
