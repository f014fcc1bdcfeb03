import type { CheckResult, RequirementVerdict, RunReport } from '../model.js';
import { groupByArea, isUnexpectedFailure, skipReasons } from './areas.js';
import { escapeMarkdown } from './escape.js';
import { firstLine } from './line.js';
import { sessionWords } from './sessions.js';
import { verdictOf } from './verdict.js';

/** Rows per table: a step summary is capped (1 MiB on GitHub), and the JSON report has them all. */
export const MAX_ROWS = 100;

/**
 * A Markdown summary for pull requests and GitHub's job summary: the headline, then only what
 * needs a reader — unexpected failures, warnings and checks that could not run (each with its
 * requirements linked to the spec and a one-line reason), expected (baselined) failures, stale
 * baseline entries, areas where nothing ran, what the run did not test, and the run's notes.
 * Every string from the run goes through `escapeMarkdown`: a target names tools and writes
 * messages, and none of it may become markup, a link or a mention.
 */
export function renderMarkdown(report: RunReport): string {
  const verdicts = new Map(report.requirements.map((r) => [r.id, r]));
  const { summary } = report;
  const out: string[] = [`## ${escapeMarkdown(report.tool.name)} ${escapeMarkdown(report.tool.version)}: ${VERDICT[verdictOf(report).word]}`, '', `**${escapeMarkdown(summary.headline)}**`, ''];
  out.push(...facts(report), '');

  // One row per defect: the check that reports it names the others.
  const unexpected = report.checks.filter((c) => !c.expected && c.defectOf === undefined && (isUnexpectedFailure(c) || c.status === 'warn'));
  // Stable sort: what fails the run first (fail, error), then warnings, each in report order.
  unexpected.sort((a, b) => Number(a.status === 'warn') - Number(b.status === 'warn'));
  section(out, `Failures and warnings (${unexpected.length})`, checkTable(unexpected, verdicts));
  const expected = report.checks.filter((c) => c.expected);
  section(out, `Expected failures, baselined (${expected.length})`, checkTable(expected, verdicts));
  if (summary.staleBaseline.length > 0) {
    section(out, `Stale baseline entries (${summary.staleBaseline.length})`, [
      'These entries no longer fail; they fail the run until they are removed from the baseline.',
      '',
      ...bounded(summary.staleBaseline.map((entry) => `- ${escapeMarkdown(entry)}`)),
    ]);
  }
  const skippedAreas = groupByArea(report.checks).filter((g) => g.checks.every((c) => c.status === 'skip'));
  if (skippedAreas.length > 0) {
    section(out, `Skipped areas (${skippedAreas.length})`, [
      '| Area | Checks | Reason |',
      '| --- | --- | --- |',
      ...bounded(skippedAreas.map((g) => `| ${escapeMarkdown(g.area)} | ${g.checks.length} | ${reasonCell(g.checks)} |`)),
    ]);
  }
  if (report.untested.length > 0) section(out, 'Not tested by this run', bounded(report.untested.map((u) => `- **${escapeMarkdown(u.area)}**: ${escapeMarkdown(u.why)}`)));
  if (report.sessions && report.sessions.length > 0) {
    section(out, `Sessions (${report.sessions.length})`, [
      '| Session | Frames | Protocol and peers | Violations | Transcript |',
      '| --- | --- | --- | --- | --- |',
      ...bounded(report.sessions.map(sessionWords).map((s) => `| ${escapeMarkdown(s.label)} | ${s.frames} | ${escapeMarkdown(s.who)} | ${escapeMarkdown(s.violations)}${s.stopped !== undefined ? ` (judging stopped, ${escapeMarkdown(firstLine(s.stopped))})` : ''} | ${s.transcript !== undefined ? escapeMarkdown(s.transcript) : ''} |`)),
    ]);
  }
  for (const s of report.authorizationServers ?? []) {
    const theirs = s.report;
    const failing = theirs ? theirs.checks.filter((c) => !c.expected && c.defectOf === undefined && (isUnexpectedFailure(c) || c.status === 'warn')) : [];
    section(out, 'Authorization server the protected resource names (graded apart; the exit code covers it)', [
      `**${escapeMarkdown(s.issuer)}**: ${escapeMarkdown(theirs ? theirs.summary.headline : `${s.status}: ${s.detail}`)}`,
      ...(theirs && failing.length > 0 ? ['', ...checkTable(failing, new Map(theirs.requirements.map((r) => [r.id, r])))] : []),
    ]);
  }
  if (report.notes.length > 0) section(out, 'Notes', bounded(report.notes.map((n) => `- ${escapeMarkdown(n)}`)));
  return `${out.join('\n').trimEnd()}\n`;
}

/** The verdict the exit code gives, in words. */
const VERDICT: Record<ReturnType<typeof verdictOf>['word'], string> = { passed: '✅ passed', failed: '❌ failed', incomplete: '⚠️ incomplete' };

function facts(report: RunReport): string[] {
  const { target } = report;
  const rows: Array<[string, string]> = [['Target', `${target.kind}: ${target.description}`]];
  if (target.protocolVersion !== undefined) rows.push(['Protocol', target.protocolVersion]);
  for (const [label, info] of [['Server', target.serverInfo], ['Client', target.clientInfo]] as const) {
    if (info) rows.push([label, `${info.name ?? '(no name)'}${info.version !== undefined ? ` ${info.version}` : ''}`]);
  }
  rows.push(['Started', `${report.startedAt} (${(report.summary.durationMs / 1000).toFixed(1)} s)`]);
  if (report.seed !== undefined) rows.push(['Seed', `${report.seed} (--seed ${report.seed} generates the same cases)`]);
  return ['| | |', '| --- | --- |', ...rows.map(([k, v]) => `| ${k} | ${escapeMarkdown(firstLine(v))} |`)];
}

/** `title` is mcpcheck's own words (and counts); everything from the run is escaped in `body`. */
function section(out: string[], title: string, body: string[]): void {
  if (body.length === 0) return;
  out.push(`### ${title}`, '', ...body, '');
}

function checkTable(checks: CheckResult[], verdicts: Map<string, RequirementVerdict>): string[] {
  if (checks.length === 0) return [];
  const rows = checks.map((c) => `| ${c.status.toUpperCase()} | ${escapeMarkdown(c.id)} | ${c.level} | ${c.requirements.map((id) => requirementLink(id, verdicts.get(id))).join(', ')} | ${escapeMarkdown(firstLine(c.message))}${c.also ? ` (also: ${c.also.map(escapeMarkdown).join(', ')})` : ''} |`);
  return ['| Status | Check | Level | Requirements | Reason |', '| --- | --- | --- | --- | --- |', ...bounded(rows)];
}

/** `[ID](spec URL) (LEVEL)`; the URL is the catalog's, percent-encoded where Markdown would end it. */
function requirementLink(id: string, verdict: RequirementVerdict | undefined): string {
  const level = verdict ? ` (${verdict.level})` : '';
  if (!verdict?.url) return `${escapeMarkdown(id)}${level}`;
  const url = verdict.url.replace(/[\s()<>[\]"'`\\|]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `[${escapeMarkdown(id)}](${url})${level}`;
}

/** The most frequent skip reasons, first lines only: the JSON report has each check's own. */
function reasonCell(skipped: CheckResult[]): string {
  return skipReasons(skipped)
    .slice(0, 3)
    .map(({ reason, count }) => escapeMarkdown(`${firstLine(reason)}${count > 1 ? ` (×${count})` : ''}`))
    .join('; ');
}

function bounded(rows: string[]): string[] {
  if (rows.length <= MAX_ROWS) return rows;
  return [...rows.slice(0, MAX_ROWS), '', `…and ${rows.length - MAX_ROWS} more (the JSON report lists them all).`];
}
