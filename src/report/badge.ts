import type { RunReport } from '../model.js';
import { verdictOf } from './verdict.js';

const COLOR = { passed: '#1a7f37', failed: '#cf222e', incomplete: '#9a6700' } as const;

/** Verdana 11px, as badges are drawn: a width per character close enough for our own words and digits. */
function textWidth(text: string): number {
  return Math.ceil(text.length * 6.5) + 10;
}

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * An SVG badge for a project's README (`--badge FILE`): "mcpcheck | passed · MUST 57/57". Only
 * mcpcheck's own words and numbers are drawn (nothing a target sent), and nothing is loaded.
 */
export function renderBadge(report: RunReport): string {
  const { word } = verdictOf(report);
  const must = report.summary.levels.MUST;
  const label = report.tool.name;
  const value = `${word} · MUST ${must.passed}/${must.total}`;
  const lw = textWidth(label);
  const vw = textWidth(value);
  const w = lw + vw;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${xml(`${label}: ${value}`)}">` +
    `<title>${xml(`${label}: ${value} (${report.summary.headline})`)}</title>` +
    `<rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${vw}" height="20" fill="${COLOR[word]}"/>` +
    `<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">` +
    `<text x="${lw / 2}" y="14">${xml(label)}</text><text x="${lw + vw / 2}" y="14">${xml(value)}</text></g></svg>\n`
  );
}
