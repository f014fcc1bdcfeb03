import type { CheckResult } from '../../model.js';
import type { AreaGroup } from '../areas.js';
import { STATUS_LABEL as LABEL } from '../describe.js';
import { areaAnchor, counts, STATUSES } from './checks.js';
import { esc } from './escape.js';

/**
 * Where the target stands, area by area: one bar each, its parts as wide as the checks of each
 * status. Drawn as SVG rectangles in the page itself (widths are attributes, colours the page's
 * own style), so it needs no script and no inline style the page's CSP would refuse.
 */
export function areaPicture(groups: readonly AreaGroup[]): string {
  const rows = groups.map(({ area, checks }) => `<tr><th scope="row"><a href="#${areaAnchor(area)}">${esc(area)}</a></th><td>${bar(checks)}</td><td class="n">${counts(checks)}</td></tr>`);
  return `<section id="picture"><h2>Where it stands, by area</h2><table class="bars">${rows.join('')}</table></section>`;
}

function bar(checks: readonly CheckResult[]): string {
  let x = 0;
  const parts: string[] = [];
  const said: string[] = [];
  for (const status of STATUSES) {
    const n = checks.filter((c) => c.status === status).length;
    if (n === 0) continue;
    const width = (n / checks.length) * 100;
    parts.push(`<rect class="${status}" x="${x.toFixed(2)}" width="${width.toFixed(2)}" height="10"><title>${n} ${LABEL[status]}</title></rect>`);
    said.push(`${n} ${LABEL[status]}`);
    x += width;
  }
  return `<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${esc(said.join(', '))}">${parts.join('')}</svg>`;
}

