import type { RunReport } from '../../model.js';
import { groupByArea } from '../areas.js';
import { CSP, SCRIPT, STYLE } from './assets.js';
import { STATUS_LABEL as LABEL } from '../describe.js';
import { areaSection, STATUSES } from './checks.js';
import { esc } from './escape.js';
import { wireTemplate } from './wire.js';
import { verdictOf } from '../verdict.js';
import { areaPicture } from './picture.js';
import { defectCards } from './defects.js';
import { SESSIONS_TITLE, sessionText } from '../sessions.js';

function targetList(report: RunReport): string {
  const { target } = report;
  const rows: Array<[string, string]> = [
    ['target', `${target.kind}: ${target.description}`],
    ...(target.role ? [['graded role', target.role] as [string, string]] : []),
    ...(target.protocolVersion !== undefined ? [['protocol', target.protocolVersion] as [string, string]] : []),
  ];
  for (const [label, info] of [['server', target.serverInfo], ['client', target.clientInfo]] as const) {
    if (info) rows.push([label, `${info.name ?? '(no name)'}${info.version !== undefined ? ` ${info.version}` : ''}`]);
  }
  rows.push(['started', `${report.startedAt} (${(report.summary.durationMs / 1000).toFixed(1)} s)`]);
  if (report.seed !== undefined) rows.push(['seed', `${report.seed} (--seed ${report.seed} generates the same cases)`]);
  rows.push(['tool', `${report.tool.name} ${report.tool.version}`]);
  return `<dl class="target">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
}

function filters(report: RunReport, areas: string[]): string {
  const status = STATUSES.map((s) => `<label><input type="checkbox" name="status" value="${s}" checked> ${LABEL[s]} (${report.summary.checks[s]})</label>`).join('');
  const level = (['MUST', 'SHOULD', 'MAY'] as const).map((l) => `<label><input type="checkbox" name="level" value="${l}" checked> ${l}</label>`).join('');
  const options = areas.map((a) => `<option value="${esc(a)}">${esc(a)}</option>`).join('');
  return (
    `<form id="filters"><fieldset><legend>status</legend>${status}</fieldset><fieldset><legend>level</legend>${level}</fieldset>` +
    `<label>area <select id="area"><option value="">all areas</option>${options}</select></label>` +
    `<input type="search" id="search" placeholder="search checks" aria-label="search checks"><span id="shown"></span></form>`
  );
}

function list(title: string, items: string[]): string {
  return items.length > 0 ? `<h2>${esc(title)}</h2><ul>${items.map((i) => `<li class="note">${esc(i)}</li>`).join('')}</ul>` : '';
}

/** The verdict first: the word the exit code gives and what it means, the headline, the target and its revision. */
function verdictHeader(report: RunReport): string {
  const { word, meaning } = verdictOf(report);
  return (
    `<header class="verdict ${word}" id="verdict"><p class="word">${esc(word.toUpperCase())}</p><p class="meaning">${esc(meaning)}</p>` +
    `<p class="headline" id="headline">${esc(report.summary.headline)}</p>${targetList(report)}</header>`
  );
}

function sessions(report: RunReport): string {
  if (!report.sessions) return '';
  return list(SESSIONS_TITLE, report.sessions.map(sessionText));
}

function eras(report: RunReport): string {
  if (!report.eras) return '';
  const items = report.eras.map((e) => `${e.revision} (${e.era}): ${e.status === 'tested' ? (e.headline ?? '') : `${e.status}: ${e.detail}`}`);
  return list('Protocol eras (each graded over its own checks; the exit code covers all)', items);
}

/** The authorization servers a protected resource names: each one's grade, then its checks by area (closed until opened). */
function authorizationServers(report: RunReport): string {
  const sections = report.authorizationServers ?? [];
  if (sections.length === 0) return '';
  return (
    `<h2>Authorization servers the protected resource names (each graded as one, on its metadata; the exit code covers them)</h2>` +
    sections
      .map((s, i) => {
        if (!s.report) return `<p class="note">${esc(s.issuer)}: ${esc(`${s.status}: ${s.detail}`)}</p>`;
        const verdicts = new Map(s.report.requirements.map((r) => [r.id, r]));
        const areas = groupByArea(s.report.checks).map((g) => areaSection(g, verdicts, () => 0, `as-${i}-`));
        return `<section class="as"><p class="note"><b>${esc(s.issuer)}</b>: ${esc(s.report.summary.headline)} (${esc(s.detail)})</p>${areas.join('\n')}</section>`;
      })
      .join('\n')
  );
}

/**
 * The report as one self-contained HTML file: a view of the result model. The verdict comes
 * first, then where the target stands per area, then every failure and warning (one card a
 * defect), then all checks by area, each area closed until opened (so a pass is one click away,
 * never in the way). Every string in it that is not the report's own markup goes through `esc`;
 * the file loads nothing and runs only its own script (CSP).
 */
export function renderHtml(report: RunReport): string {
  const groups = groupByArea(report.checks);
  const verdicts = new Map(report.requirements.map((r) => [r.id, r]));
  const logs = report.wire ?? [];
  const sizes = new Map(logs.map((l) => [l.id, l.frames.length]));
  const frames = (id: string) => sizes.get(id) ?? 0;
  const title = `${report.tool.name} report: ${verdictOf(report).word}: ${report.target.description}`;
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head>\n<body>` +
    `<h1>${esc(report.tool.name)} report</h1>` +
    verdictHeader(report) +
    list('Stale baseline entries (nothing they match fails any more; remove them from the baseline)', report.summary.staleBaseline) +
    eras(report) +
    authorizationServers(report) +
    sessions(report) +
    areaPicture(groups) +
    defectCards(report, verdicts) +
    `<h2>All checks, by area</h2>` +
    filters(report, groups.map((g) => g.area)) +
    `<main>${groups.map((g) => areaSection(g, verdicts, frames)).join('\n')}</main>` +
    list('Not tested by this run (a clean report says nothing of these)', report.untested.map((u) => `${u.area}: ${u.why}`)) +
    list('Notes', [...new Set(report.notes)]) +
    `\n${logs.map(wireTemplate).join('\n')}\n<script>${SCRIPT}</script></body></html>\n`
  );
}
