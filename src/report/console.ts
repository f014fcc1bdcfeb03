import type { CheckResult, Evidence, RequirementVerdict, RunReport, Status } from '../model.js';
import { SESSIONS_TITLE, sessionText } from './sessions.js';
import { groupByArea, skipReasons } from './areas.js';
import { escapeTerminal, truncateAtBoundary, wrap } from './escape.js';
import { evidenceWhere, STATUS_LABEL as LABEL } from './describe.js';
import { gradedLevel } from '../grade/verdicts.js';
import { exitCode } from '../grade/grade.js';

export interface ConsoleOptions {
  color: boolean;
  /** Also list passing and skipped checks one by one, and print excerpts and scenarios in full. */
  verbose?: boolean;
  /** The terminal's width: prose is wrapped to it (default 100). Reproduce lines never are: they are pasted. */
  width?: number;
}

/** How many characters of an excerpt to show when not verbose: enough to recognise the frame. */
const EXCERPT_CHARS = 120;
const DEFAULT_WIDTH = 100;
/** Narrower than this, wrapping would leave too few characters a line to read. */
const MIN_WIDTH = 60;

export type Paint = (code: string, text: string) => string;

/** SGR colouring, or none. */
export function painter(color: boolean): Paint {
  return color ? (code, text) => `\x1b[${code}m${text}\x1b[0m` : (_code, text) => text;
}

const COLOR: Record<Status, string> = { fail: '31', error: '35', warn: '33', pass: '32', skip: '2' };
const INDENT = '        ';

/** A human-readable report; every string that may come from a target goes through `escapeTerminal`. */
export function renderConsole(report: RunReport, options: ConsoleOptions): string {
  const paint = painter(options.color);
  const esc = (text: string) => escapeTerminal(text);
  const out: string[] = [];
  const width = Math.max(MIN_WIDTH, options.width ?? DEFAULT_WIDTH);
  const verdicts = new Map(report.requirements.map((r) => [r.id, r]));
  /** A list item of prose: its first line after `bullet` (shown as `shown`, painted), the rest indented under it. */
  const item = (bullet: string, text: string, indent = ' '.repeat(bullet.length), shown = bullet) => wrap(text, width - indent.length).map((l, i) => `${i === 0 ? shown : indent}${l}`);

  out.push(...header(report, paint));

  for (const { area, checks } of groupByArea(report.checks)) {
    out.push('', `${paint('1', esc(area))}: ${areaCounts(checks)}`);
    const skipped = checks.filter((c) => c.status === 'skip');
    for (const check of checks) {
      const shownAlways = check.status === 'fail' || check.status === 'error' || check.status === 'warn';
      if (!shownAlways && !options.verbose) continue;
      out.push(...renderCheck(check, paint, { ...options, width }, verdicts));
    }
    if (!options.verbose && skipped.length > 0) out.push(...item('  skipped: ', skipSummary(skipped), '    ', `  ${paint(COLOR.skip, 'skipped:')} `));
  }

  if (report.summary.staleBaseline.length > 0) {
    out.push('', paint('31', 'Stale baseline entries (nothing they match fails any more; remove them from the baseline):'));
    for (const entry of report.summary.staleBaseline) out.push(`  - ${esc(entry)}`);
  }
  if (report.untested.length > 0) {
    out.push('', paint('1', 'Not tested by this run (a clean report says nothing of these):'));
    for (const u of report.untested) out.push(...item('  - ', `${esc(u.area)}: ${esc(u.why)}`));
  }
  if (report.notes.length > 0) {
    out.push('', paint('1', 'Notes:'));
    // A note several parts of a run made is said once.
    for (const note of new Set(report.notes)) out.push(...item('  - ', escapeTerminal(note, { allowNewlines: true })));
  }

  if (report.sessions && report.sessions.length > 0) {
    out.push('', paint('1', `${SESSIONS_TITLE}:`));
    for (const s of report.sessions) out.push(...item('  - ', esc(sessionText(s))));
  }
  if (report.eras) {
    out.push('', paint('1', 'Protocol eras (each graded over its own checks; the exit code covers all):'));
    for (const e of report.eras) out.push(`  ${esc(e.revision)} (${e.era}): ${e.status === 'tested' ? esc(e.headline ?? '') : `${e.status}: ${esc(e.detail)}`}`);
  }
  if (report.authorizationServers && report.authorizationServers.length > 0) {
    out.push('', paint('1', 'Authorization servers the protected resource names (each graded as one, on its metadata; the exit code covers them):'));
    for (const s of report.authorizationServers) {
      out.push(...item('  - ', `${esc(s.issuer)}: ${s.report ? esc(s.report.summary.headline) : `${s.status}: ${esc(s.detail)}`}`));
      if (!s.report) continue;
      const theirs = new Map(s.report.requirements.map((r) => [r.id, r]));
      for (const check of s.report.checks) {
        if (options.verbose || check.status === 'fail' || check.status === 'error' || check.status === 'warn') out.push(...renderCheck(check, paint, { ...options, width: width - 2 }, theirs).map((l) => `  ${l}`));
      }
    }
  }
  const ok = exitCode(report) !== 1 && !report.summary.interrupted;
  out.push('', paint(ok ? '1;32' : '1;31', esc(report.summary.headline)));
  return out.join('\n') + '\n';
}

function header(report: RunReport, paint: Paint): string[] {
  const esc = (text: string) => escapeTerminal(text);
  const { target } = report;
  const lines = [paint('1', `${esc(report.tool.name)} ${esc(report.tool.version)}`), `target    ${target.kind}: ${esc(target.description)}`];
  if (target.protocolVersion !== undefined) lines.push(`protocol  ${esc(target.protocolVersion)}`);
  for (const [label, info] of [['server', target.serverInfo], ['client', target.clientInfo]] as const) {
    if (info) lines.push(`${label}    ${esc(info.name ?? '(no name)')}${info.version !== undefined ? ` ${esc(info.version)}` : ''}`);
  }
  lines.push(`started   ${esc(report.startedAt)} (${(report.summary.durationMs / 1000).toFixed(1)} s)`);
  if (report.seed !== undefined) lines.push(`seed      ${report.seed} (--seed ${report.seed} generates the same cases)`);
  return lines;
}

function areaCounts(checks: CheckResult[]): string {
  const count = (pred: (c: CheckResult) => boolean) => checks.filter(pred).length;
  const parts: Array<[number, string]> = [
    [count((c) => c.status === 'fail' && !c.expected), 'failed'],
    [count((c) => c.status === 'error' && !c.expected), 'could not run'],
    [count((c) => c.status === 'warn' && !c.expected), 'warned'],
    [count((c) => !!c.expected), 'expected (baselined)'],
    [count((c) => c.status === 'pass'), 'passed'],
    [count((c) => c.status === 'skip'), 'skipped'],
  ];
  return parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`).join(', ');
}

/** A check's first line: status, id, baseline tag, title. */
export function checkLine(check: CheckResult, paint: Paint): string {
  const esc = (text: string) => escapeTerminal(text);
  const label = LABEL[check.status].padEnd(5);
  const tag = check.expected ? ` ${paint('36', check.baselineReason !== undefined ? `(expected, baselined: ${esc(check.baselineReason)})` : '(expected, baselined)')}` : '';
  return `  ${paint(check.expected ? '2' : COLOR[check.status], label)} ${esc(check.id)}${tag} — ${esc(check.title)}`;
}

/**
 * One block per failing check: the rule it broke (its sentence, the level it was graded at, the
 * spec URL), what was expected and what came, the frames (cut short unless verbose), the line that
 * reproduces it. Prose is wrapped to the terminal; a reproduce line is not, so it pastes whole.
 */
function renderCheck(check: CheckResult, paint: Paint, options: ConsoleOptions & { width: number }, verdicts: Map<string, RequirementVerdict>): string[] {
  const esc = (text: string) => escapeTerminal(text);
  const prose = (text: string) => wrap(escapeTerminal(text, { allowNewlines: true }), options.width - INDENT.length).map((l) => `${INDENT}${l}`);
  const lines = [checkLine(check, paint)];
  // A defect is told once, by the check that reports it; the others point there.
  if (check.defectOf !== undefined && !options.verbose) return [...lines, `${INDENT}the same defect as ${esc(check.defectOf)} (told there)`];

  // Passing and skipped checks are listed only in verbose mode, and one line (plus reason) is enough.
  if (check.status === 'pass') return lines;
  if (check.status === 'skip') return [...lines, ...prose(check.message)];

  for (const id of check.requirements) {
    const verdict = verdicts.get(id);
    lines.push(...prose(`${id} (${gradedLevel(check, id)})${verdict ? `: ${verdict.title}` : ''}`));
    if (verdict?.url) lines.push(`${INDENT}  ${esc(verdict.url)}`);
  }
  if (options.verbose && check.scenario !== undefined) lines.push(`${INDENT}scenario: ${esc(check.scenario)}`);
  if (check.also !== undefined) lines.push(...prose(`also: ${check.also.join(', ')} (the same defect)`));
  if (check.defectOf !== undefined) lines.push(`${INDENT}the same defect as ${esc(check.defectOf)}`);
  if (check.message !== '') lines.push(...prose(check.message));
  for (const ev of check.evidence) lines.push(`${INDENT}${evidenceLine(ev, options.verbose ? Infinity : EXCERPT_CHARS)}`);
  if (check.reproduce !== undefined) lines.push(`${INDENT}reproduce: ${esc(check.reproduce)}`);
  return lines;
}

function evidenceLine(ev: Evidence, max: number): string {
  const excerpt = ev.excerpt !== undefined ? `: ${escapeTerminal(truncateAtBoundary(ev.excerpt, max))}` : '';
  return `${escapeTerminal(evidenceWhere(ev))}${excerpt}`;
}

function skipSummary(skipped: CheckResult[]): string {
  return skipReasons(skipped)
    .map(({ reason, count }) => escapeTerminal(count > 1 ? `${reason} (×${count})` : reason))
    .join('; ');
}
