import type { CheckResult, Evidence, RequirementVerdict, RunReport } from '../model.js';
import { groupByArea } from './areas.js';
import { gradedAuthorizationServers } from '../grade/grade.js';
import { firstLine } from './line.js';
import { xmlSafe } from './xml-safe.js';

/**
 * JUnit XML for CI: one testsuite per spec area, one testcase per check, valid against Jenkins'
 * junit-4.xsd (the strictest schema CI tools share; tests/report-formats.test.ts checks it).
 *
 * Mapping, chosen so the CI verdict matches mcpcheck's exit code as closely as JUnit allows:
 * - the check id is the testcase name, `mcpcheck.<area slug>` its classname;
 * - fail  → <failure message="first line of the message">, the message and evidence in the body;
 * - error → <error> (the harness could not run the check: not the target's fault, but not a pass);
 * - skip  → <skipped>reason</skipped> (the XSD gives <skipped> text and no attributes);
 * - a baselined (expected) failure → <skipped> saying "expected failure (baselined)", since the
 *   baseline exists precisely so that known failures do not turn CI red;
 * - warn  → a passing testcase with the warning in system-out: a broken SHOULD must not fail the
 *   build, matching exit code 0 for warnings;
 * - a failure whose defect another check reports (`defectOf`) → <skipped> naming that check, so a
 *   defect is one failure in CI's count; the reporting check's body lists the others ("also");
 * - pass  → a testcase with only its system-out.
 * What a check cites (title, level, requirement ids with their spec URLs, scenario) goes to the
 * testcase's system-out: the XSD allows no <properties> inside a testcase. The report's notes, what
 * the run did not test (`not tested: AREA: WHY`) and the seed are properties of a testsuite "notes"
 * without testcases (XSD: properties live on suites).
 *
 * Times, in seconds, and the rule that makes them true:
 * - a testcase's time is the check's own time (`durationMs`: since the previous check of its
 *   scenario, or the scenario's start; 0 for checks with no time of their own, such as live
 *   checks over all traffic or a transcript's findings);
 * - scenarios run concurrently, so checks' times add up to more than the run took. A suite's time
 *   is therefore its share of the run's wall-clock time, in proportion to its checks' time (by
 *   check count when no check has a time), and the suites' times add up exactly to the run's
 *   duration, which is the <testsuites> time. Within a suite, testcase times may add up to more.
 * Every string passes through `xmlSafe`, since target text may hold characters XML 1.0 cannot carry.
 */
export function renderJunit(report: RunReport): string {
  // The authorization servers a protected resource names come after its own suites, each area a
  // suite named for the issuer; their time was part of the run's, so the run's own suites share the rest.
  const graded = gradedAuthorizationServers(report).map((s) => ({ prefix: `authorization server ${s.issuer}: `, report: s.report }));
  const nestedMs = graded.reduce((sum, g) => sum + g.report.summary.durationMs, 0);
  const suites = [
    ...areaSuites(report, '', Math.max(0, report.summary.durationMs - nestedMs)),
    ...graded.flatMap((g) => areaSuites(g.report, g.prefix, g.report.summary.durationMs)),
  ];
  const properties: Array<[string, string]> = [];
  if (report.seed !== undefined) properties.push(['seed', String(report.seed)]);
  for (const note of report.notes) properties.push(['note', note]);
  for (const u of report.untested) properties.push(['note', `not tested: ${u.area}: ${u.why}`]);
  for (const s of report.authorizationServers ?? []) if (!s.report) properties.push(['note', `authorization server ${s.issuer}: ${s.status}: ${s.detail}`]);
  if (properties.length > 0) {
    const props = element('properties', {}, properties.map(([name, value]) => element('property', { name, value })));
    suites.push(element('testsuite', { name: 'notes', tests: 0, time: seconds(0), timestamp: report.startedAt }, [props]));
  }
  const all = [...report.checks, ...graded.flatMap((g) => g.report.checks)];
  const root = element('testsuites', { name: `${report.tool.name} ${report.target.description}`, ...counts(all), time: seconds(report.summary.durationMs) }, suites);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root.xml}\n`;
}

/** One testsuite per area of a report's checks (`prefix` names whose they are), sharing `totalMs`. */
function areaSuites(report: RunReport, prefix: string, totalMs: number): Markup[] {
  const verdicts = new Map(report.requirements.map((r) => [r.id, r]));
  const groups = groupByArea(report.checks);
  const suiteMs = apportion(totalMs, groups.map((g) => g.checks));
  return groups.map(({ area, checks }, i) => {
    const cases = checks.map((c) => testCase(c, `${prefix}${area}`, verdicts));
    return element('testsuite', { name: `${prefix}${area}`, ...counts(checks), skipped: checks.filter((c) => c.status === 'skip' || c.expected || told(c)).length, time: seconds(suiteMs[i]!), timestamp: report.startedAt }, cases);
  });
}

/** A failure told by the check that reports its defect. */
function told(check: CheckResult): boolean {
  return check.defectOf !== undefined && !check.expected;
}

/** tests, failures, errors as CI counts them: a baselined failure is neither, nor one another check reports. */
function counts(checks: CheckResult[]): { tests: number; failures: number; errors: number } {
  const unexpected = (status: string) => checks.filter((c) => c.status === status && !c.expected && !told(c)).length;
  return { tests: checks.length, failures: unexpected('fail'), errors: unexpected('error') };
}

/**
 * Split `totalMs` over the groups in proportion to their checks' own time, in whole milliseconds
 * that add up to `totalMs` (largest remainder), so rounding cannot break the sum.
 */
function apportion(totalMs: number, groups: CheckResult[][]): number[] {
  const timed = groups.map((checks) => checks.reduce((sum, c) => sum + (c.durationMs ?? 0), 0));
  const weights = timed.some((w) => w > 0) ? timed : groups.map((checks) => checks.length);
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return groups.map(() => 0);
  const total = Math.round(totalMs);
  const exact = weights.map((w) => (total * w) / sum);
  const shares = exact.map(Math.floor);
  let left = total - shares.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left-- <= 0) break;
    shares[i]! += 1;
  }
  return shares;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function testCase(check: CheckResult, area: string, verdicts: Map<string, RequirementVerdict>): Markup {
  const children: Markup[] = [];
  const summary = firstLine(check.message);
  const details = detailText(check);
  const out = [citation(check, verdicts)];
  if (check.expected) {
    children.push(element('skipped', {}, [text(`expected failure (baselined): ${check.status.toUpperCase()} ${summary}`)]));
    out.push(`expected failure (baselined): ${check.status.toUpperCase()}`, details);
  } else if (told(check) && check.status === 'fail') {
    children.push(element('skipped', {}, [text(`the same defect as ${check.defectOf} (reported there): FAIL ${summary}`)]));
    out.push(`the same defect as ${check.defectOf}: FAIL`, details);
  } else if (check.status === 'fail') {
    children.push(element('failure', { message: summary, type: `${check.level} requirement not met` }, [text(details)]));
  } else if (check.status === 'error') {
    children.push(element('error', { message: summary, type: 'could not run' }, [text(details)]));
  } else if (check.status === 'skip') {
    const reason = check.message || 'no reason given';
    children.push(element('skipped', {}, [text(firstLine(reason))]));
    out.push(`skipped: ${reason}`);
  } else if (check.status === 'warn') {
    out.push(`warning (does not fail the build): ${details}`);
  }
  children.push(element('system-out', {}, [text(out.join('\n'))]));
  return element('testcase', { classname: `mcpcheck.${slug(area)}`, name: check.id, time: seconds(check.durationMs ?? 0) }, children);
}

/** What the check cites, one line each: where the XSD lets a testcase say it. */
function citation(check: CheckResult, verdicts: Map<string, RequirementVerdict>): string {
  const lines = [`title: ${check.title}`, `level: ${check.level}`];
  for (const id of check.requirements) {
    const verdict = verdicts.get(id);
    lines.push(`requirement: ${id} (${verdict?.level ?? check.level})${verdict?.url ? ` ${verdict.url}` : ''}`);
  }
  if (check.scenario !== undefined) lines.push(`scenario: ${check.scenario}`);
  return lines.join('\n');
}

/** The message, the evidence frames and how to reproduce, as the body of a failure. */
function detailText(check: CheckResult): string {
  const lines = [check.message];
  if (check.also !== undefined) lines.push(`also (the same defect): ${check.also.join(', ')}`);
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

/** Escaped XML: `element` takes only this as children, so nothing is escaped twice or left raw. */
interface Markup {
  readonly xml: string;
}

function text(value: string): Markup {
  return { xml: escapeXml(xmlSafe(value), false) };
}

function element(name: string, attrs: Record<string, string | number>, children: Markup[] = []): Markup {
  const attrText = Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${escapeXml(xmlSafe(String(v)), true)}"`)
    .join('');
  if (children.length === 0) return { xml: `<${name}${attrText}/>` };
  return { xml: `<${name}${attrText}>${children.map((c) => c.xml).join('')}</${name}>` };
}

/**
 * `&`, `<`, `>` always; in attributes also `"` and the whitespace a parser would otherwise
 * normalise to spaces (a note's newlines must survive in its property value).
 */
function escapeXml(value: string, attribute: boolean): string {
  const s = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return attribute ? s.replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;') : s.replace(/\r/g, '&#13;');
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
