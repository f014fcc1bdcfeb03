import type { CheckResult, RequirementVerdict, RunReport } from '../model.js';
import { isUnexpectedFailure } from './areas.js';
import { gradedAuthorizationServers } from '../grade/grade.js';
import { escapeTerminal } from './escape.js';
import { firstLine } from './line.js';

/**
 * GitHub Actions annotations, one workflow command per line: `::error` for what fails the run
 * (an unexpected MUST failure, a check that could not run, a stale baseline entry) and `::warning`
 * for a broken SHOULD. Baselined failures, passes and skips are not annotated, nor the checks whose
 * defect another check reports (it lists them: one annotation per defect).
 *
 * The runner reads every output line starting with `::` as a command, so target text must never
 * end a line or pose as a property: data escapes `%`, CR and LF (`%25`, `%0D`, `%0A`), properties
 * also `:` and `,` (`%3A`, `%2C`), as GitHub's workflow-command rules say. Controls are made
 * visible first, as on a terminal, so the annotation shows what the target sent.
 */
export function renderGithub(report: RunReport): string {
  const lines: string[] = [];
  // The authorization servers a protected resource names are graded apart: their checks say whose they are.
  const graded = [{ whose: '', report }, ...gradedAuthorizationServers(report).map((s) => ({ whose: ` (authorization server ${s.issuer})`, report: s.report }))];
  for (const { whose, report: r } of graded) {
    const verdicts = new Map(r.requirements.map((v) => [v.id, v]));
    for (const check of r.checks) {
      // One annotation per defect: the check that reports it names the others.
      if (check.defectOf !== undefined) continue;
      if (isUnexpectedFailure(check)) lines.push(annotation('error', check, verdicts, whose));
      else if (check.status === 'warn' && !check.expected) lines.push(annotation('warning', check, verdicts, whose));
    }
  }
  for (const entry of report.summary.staleBaseline) {
    lines.push(command('error', { title: `mcpcheck: stale baseline entry ${entry}` }, [`${entry} no longer fails: remove it from the baseline`]));
  }
  return lines.map((l) => `${l}\n`).join('');
}

function annotation(kind: 'error' | 'warning', check: CheckResult, verdicts: Map<string, RequirementVerdict>, whose: string): string {
  const what = check.status === 'error' ? 'could not run' : check.level;
  const cited = check.requirements.map((id) => {
    const url = verdicts.get(id)?.url;
    return url ? `${id} ${url}` : id;
  });
  const also = check.also !== undefined ? [`also (the same defect): ${check.also.join(', ')}`] : [];
  return command(kind, { title: `mcpcheck ${what}: ${check.id}${whose}` }, [firstLine(check.message), ...cited, ...also]);
}

/**
 * `::kind key=value,…::line%0Aline`. Each piece has its controls made visible before it is
 * escaped for its place, so the only line breaks in the message are the ones between `lines`.
 */
function command(kind: string, properties: Record<string, string>, lines: string[]): string {
  const props = Object.entries(properties)
    .map(([k, v]) => `${k}=${escapeProperty(escapeTerminal(v))}`)
    .join(',');
  return `::${kind}${props ? ` ${props}` : ''}::${escapeData(lines.map((l) => escapeTerminal(l)).join('\n'))}`;
}

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
