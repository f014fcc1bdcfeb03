import type { CoverageMatrix, CoverageRow, Coverer, Totals } from '../grade/coverage.js';
import { eraOf, REVISIONS, STATEFUL_REVISIONS } from '../spec/revisions.js';

// Views of the requirement matrix (`mcpcheck coverage`); JSON is the matrix itself.

const LEVEL_KEYS = ['MUST', 'SHOULD', 'MAY'] as const;
/** Scenarios named per row before "+N more": the JSON has them all. */
const SHOWN = 3;

/** `MUST 15/16 · SHOULD 2/2 · all 17/18`: a level with no requirement is left out. */
export function totalsLine(t: Totals): string {
  const parts = LEVEL_KEYS.filter((l) => t[l].total > 0).map((l) => `${l} ${t[l].covered}/${t[l].total}`);
  return [...parts, `all ${t.all.covered}/${t.all.total}`].join(' · ');
}

/** The revisions of the 2025-11-25 catalog a rule holds in; a 2026-07-28 rule holds in its one revision. */
function revisionsText(row: CoverageRow): string {
  if (eraOf(row.revisions[0]!) === 'stateless') return row.revisions.join(', ');
  if (row.revisions.length === STATEFUL_REVISIONS.length) return 'all revisions';
  const from = REVISIONS.indexOf(row.revisions[0]!);
  const contiguous = row.revisions.every((rev, i) => REVISIONS[from + i] === rev);
  // Contiguous up to the latest stateful revision: a rule a later revision dropped (2025-03-26's alone) is listed by name.
  if (contiguous && row.revisions.at(-1) === STATEFUL_REVISIONS.at(-1)) return `since ${row.revisions[0]}`;
  return row.revisions.length === 1 ? `${row.revisions[0]} only` : row.revisions.join(', ');
}

/** Scenario and oracle ids by name (a few), validator checks by kind. */
function coverersText(coveredBy: Coverer[]): string {
  const named = coveredBy.filter((c) => c.kind !== 'live' && c.kind !== 'validate').map((c) => c.id);
  const shown = named.slice(0, SHOWN);
  if (named.length > SHOWN) shown.push(`+${named.length - SHOWN} more`);
  for (const kind of ['live', 'validate'] as const) {
    const c = coveredBy.find((x) => x.kind === kind);
    if (c) shown.push(c.id);
  }
  return shown.join(', ');
}

function filterText(m: CoverageMatrix): string {
  const parts = [`role ${m.filter.role ?? 'server, client and AS'}`];
  if (m.filter.area !== undefined) parts.push(`area ${JSON.stringify(m.filter.area)}`);
  if (m.filter.uncovered) parts.push('uncovered requirements only');
  return parts.join(', ');
}

function rowsByArea(m: CoverageMatrix): Map<string, CoverageRow[]> {
  const byArea = new Map<string, CoverageRow[]>();
  for (const row of m.rows) {
    const list = byArea.get(row.area);
    if (list) list.push(row);
    else byArea.set(row.area, [row]);
  }
  return byArea;
}

/** ", of which 33 of the extension io.modelcontextprotocol/tasks": an extension's rules are its own catalog's, beside the revision's. */
function extensionsText(m: CoverageMatrix): string {
  return m.extensions.map((e) => `, of which ${e.total} of the extension ${e.extension}`).join('');
}

export function renderCoverageText(m: CoverageMatrix): string {
  const out = [`mcpcheck coverage of the ${m.spec} catalog: ${m.totals.all.total} requirements${extensionsText(m)} (${filterText(m)})`];
  const byArea = rowsByArea(m);
  const idWidth = Math.max(0, ...m.rows.map((r) => r.id.length));
  for (const { area, totals } of m.areas) {
    const rows = byArea.get(area) ?? [];
    if (m.filter.uncovered && rows.length === 0) continue;
    out.push('', `${area}: ${totalsLine(totals)}`);
    for (const row of rows) {
      const head = `  ${row.id.padEnd(idWidth)}  ${row.level.padEnd(6)}  binds ${row.binds.padEnd(7)}`;
      out.push(
        row.covered
          ? `${head}  ${row.roles.join('+')} over ${row.transports.join('+')}, ${revisionsText(row)}: ${coverersText(row.coveredBy)}`
          : `${head}  NOT COVERED (${revisionsText(row)})`,
      );
    }
  }
  out.push('', `Total: ${totalsLine(m.totals)} covered`);
  return out.join('\n') + '\n';
}

/** Catalog text holds no `|` today; escaped anyway so a table cannot break. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

export function renderCoverageMarkdown(m: CoverageMatrix): string {
  const out = [`# mcpcheck coverage`, '', `The ${m.spec} catalog: ${m.totals.all.total} requirements${extensionsText(m)} (${filterText(m)}).`, '', '| area | covered |', '|---|---|'];
  for (const { area, totals } of m.areas) out.push(`| ${cell(area)} | ${totalsLine(totals)} |`);
  out.push(`| **total** | **${totalsLine(m.totals)}** |`);
  const byArea = rowsByArea(m);
  for (const { area } of m.areas) {
    const rows = byArea.get(area) ?? [];
    if (rows.length === 0) continue;
    out.push('', `## ${cell(area)}`, '', '| requirement | level | binds | covered for | transports | revisions | covered by |', '|---|---|---|---|---|---|---|');
    for (const row of rows) {
      const by = row.covered ? cell(coverersText(row.coveredBy)) : '**not covered**';
      out.push(`| [${row.id}](${row.url}) | ${row.level} | ${cell(row.binds)} | ${row.roles.join(', ') || '—'} | ${row.transports.join(', ') || '—'} | ${revisionsText(row)} | ${by} |`);
    }
  }
  return out.join('\n') + '\n';
}
