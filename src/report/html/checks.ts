import type { CheckResult, Evidence, RequirementVerdict, Status } from '../../model.js';
import type { AreaGroup } from '../areas.js';
import { evidenceWhere, STATUS_LABEL as LABEL } from '../describe.js';
import { esc, safeHref } from './escape.js';

export const STATUSES: readonly Status[] = ['fail', 'error', 'warn', 'pass', 'skip'];

function requirementLine(id: string, verdict: RequirementVerdict | undefined, fallbackLevel: string): string {
  const href = verdict ? safeHref(verdict.url) : undefined;
  const name = href ? `<a href="${href}" rel="noreferrer">${esc(id)}</a>` : esc(id);
  return `<li>${name} <b>${esc(verdict?.level ?? fallbackLevel)}</b> ${esc(verdict?.title ?? '')}</li>`;
}

function evidenceLine(ev: Evidence): string {
  return `<li>${esc(evidenceWhere(ev))}${ev.excerpt !== undefined ? ` <code>${esc(ev.excerpt)}</code>` : ''}</li>`;
}

function wireDetails(check: CheckResult, frames: (id: string) => number): string {
  const ids = check.wire ?? [];
  const count = ids.reduce((n, id) => n + frames(id), 0);
  if (count === 0) return '';
  const cited = check.evidence.flatMap((e) => (e.frame !== undefined ? [e.frame] : []));
  return `<details class="wire" data-wire="${esc(ids.join(' '))}" data-cite="${cited.join(' ')}"><summary>wire log (${count} frames)</summary></details>`;
}

/** One check: a tbody of its own, so filters hide it whole; its data attributes are what they filter on. */
function checkBody(check: CheckResult, verdicts: Map<string, RequirementVerdict>, frames: (id: string) => number): string {
  const tag = check.expected ? ' <span class="exp">expected (baselined)</span>' : '';
  const extra: string[] = [];
  extra.push(sameDefect(check));
  if (check.evidence.length > 0) extra.push(`<ul class="ev">${check.evidence.map(evidenceLine).join('')}</ul>`);
  if (check.reproduce !== undefined) extra.push(`<div class="re">reproduce: <code>${esc(check.reproduce)}</code></div>`);
  extra.push(wireDetails(check, frames));
  return (
    `<tbody class="check" data-status="${check.status}" data-level="${esc(check.level)}" data-area="${esc(check.area)}">` +
    `<tr><td><span class="st ${check.status}">${LABEL[check.status]}</span></td><td>${esc(check.level)}</td>` +
    `<td><code class="id">${esc(check.id)}</code>${tag}<div class="ti">${esc(check.title)}</div>` +
    `<div class="msg">${esc(check.message)}</div>` +
    `<ul class="rq">${check.requirements.map((id) => requirementLine(id, verdicts.get(id), check.level)).join('')}</ul>` +
    `${extra.join('')}</td></tr></tbody>`
  );
}

/** The checks that saw the same defect: those a check reports (also), or the one that reports it (defectOf); '' for neither. */
export function sameDefect(check: CheckResult): string {
  if (check.also !== undefined) return `<div class="also">also (the same defect): ${check.also.map((id) => `<code>${esc(id)}</code>`).join(', ')}</div>`;
  return check.defectOf !== undefined ? `<div class="also">the same defect as <code>${esc(check.defectOf)}</code></div>` : '';
}

/** An area's id in the page: its name, with what an id cannot hold replaced (so a link can reach it). */
export function areaAnchor(area: string): string {
  return `area-${area.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
}

/** The checks of each status, as badges, the statuses in STATUSES order. */
export function counts(checks: readonly CheckResult[]): string {
  return STATUSES.map((s) => [s, checks.filter((c) => c.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `<span class="st ${s}">${n} ${LABEL[s]}</span>`)
    .join(' ');
}

/** An area's table of checks, in the order groupByArea gives. */
export function areaSection(group: AreaGroup, verdicts: Map<string, RequirementVerdict>, frames: (id: string) => number, whose = ''): string {
  // Closed until opened: the failures are above already, and a pass is one click away.
  return (
    `<section class="area" data-area="${esc(group.area)}" id="${areaAnchor(`${whose}${group.area}`)}"><details class="area"><summary><h2>${esc(group.area)} ${counts(group.checks)}</h2></summary>` +
    `<table><thead><tr><th>status</th><th>level</th><th>check</th></tr></thead>${group.checks.map((c) => checkBody(c, verdicts, frames)).join('')}</table></details></section>`
  );
}
