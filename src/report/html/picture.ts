import type { CheckResult, Status } from '../../model.js';
import type { AreaGroup } from '../areas.js';
import { STATUS_LABEL as LABEL } from '../describe.js';
import { esc } from './escape.js';

/** The order statuses are drawn in a bar: what needs a reader first. */
const ORDER: readonly Status[] = ['fail', 'error', 'warn', 'pass', 'skip'];

/**
 * Where the target stands, area by area: one bar each, its parts as wide as the checks of each
 * status. Drawn as SVG rectangles in the page itself (widths are attributes, colours the page's
 * own style), so it needs no script and no inline style the page's CSP would refuse.
 */
export function areaPicture(groups: readonly AreaGroup[]): string {
  const rows = groups.map(({ area, checks }) => `<tr><th scope="row"><a href="#${areaAnchor(area)}">${esc(area)}</a></th><td>${bar(checks)}</td><td class="n">${tally(checks)}</td></tr>`);
  return `<section id="picture"><h2>Where it stands, by area</h2><table class="bars">${rows.join('')}</table></section>`;
}

function bar(checks: readonly CheckResult[]): string {
  let x = 0;
  const parts: string[] = [];
  for (const status of ORDER) {
    const n = checks.filter((c) => c.status === status).length;
    if (n === 0) continue;
    const width = (n / checks.length) * 100;
    parts.push(`<rect class="${status}" x="${x.toFixed(2)}" width="${width.toFixed(2)}" height="10"><title>${n} ${LABEL[status]}</title></rect>`);
    x += width;
  }
  return `<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${esc(tallyText(checks))}">${parts.join('')}</svg>`;
}

function tallyText(checks: readonly CheckResult[]): string {
  return ORDER.map((s) => [s, checks.filter((c) => c.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${LABEL[s]}`)
    .join(', ');
}

function tally(checks: readonly CheckResult[]): string {
  return ORDER.map((s) => [s, checks.filter((c) => c.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `<span class="st ${s}">${n} ${LABEL[s]}</span>`)
    .join(' ');
}

/** An area's id in the page: its name, with what an id cannot hold replaced (so a link can reach it). */
export function areaAnchor(area: string): string {
  return `area-${area.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
}
