import type { CheckResult, Evidence, RequirementVerdict, RunReport, WireFrame } from '../../model.js';
import { gradedLevel, ruleLevel } from '../../grade/verdicts.js';
import { RULINGS } from '../../spec/rulings.js';
import { evidenceWhere, STATUS_LABEL as LABEL } from '../describe.js';
import { esc, safeHref } from './escape.js';
import { highlightJson, prettyJson } from './json.js';
import { markedJsonHtml } from './marked-json.js';
import { evidenceLog } from '../../wire.js';
import { sameDefect } from './checks.js';

/** A defect is shown with this many of its frames: the ones that show it; the wire log has the rest. */
const FRAMES_SHOWN = 2;

/**
 * Failures, warnings and checks that could not run, before anything else: one card per defect
 * (a check whose defect another reports is listed on that one's card), each with the rules it
 * broke (sentence, level, spec URL, and why a MUST is only a warning when it is), what was expected
 * and what came, the frames that show it with the offending value marked, and how to reproduce it.
 */
export function defectCards(report: RunReport, verdicts: Map<string, RequirementVerdict>): string {
  const frames = frameIndex(report);
  const byId = new Map(report.checks.map((c) => [c.id, c]));
  const cards = report.checks.filter((c) => (c.status === 'fail' || c.status === 'error' || c.status === 'warn') && c.defectOf === undefined);
  // What fails the run first, then what could not run, then warnings; baselined ones after those.
  const order = (c: CheckResult) => (c.expected ? 3 : c.status === 'fail' ? 0 : c.status === 'error' ? 1 : 2);
  cards.sort((a, b) => order(a) - order(b));
  const body = cards.length > 0 ? cards.map((c) => card(c, verdicts, frames, showing(c, byId))).join('') : '<p class="none">No check failed, warned or could not run.</p>';
  return `<section id="defects"><h2>Failures and warnings (${cards.length})</h2>${body}</section>`;
}

/**
 * The frames that show a defect: those that name the offending place (a pointer), the check's own
 * first, then those of the checks that saw the same defect; when none does, the check's first frames.
 */
function showing(check: CheckResult, byId: Map<string, CheckResult>): Array<{ e: Evidence; of: CheckResult }> {
  const others = (check.also ?? []).flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  const all = [check, ...others].flatMap((of) => of.evidence.map((e) => ({ e, of })));
  const pointed = all.filter(({ e }) => e.frame !== undefined && e.pointer !== undefined);
  const chosen: Array<{ e: Evidence; of: CheckResult }> = [];
  const seen = new Set<string>();
  // A frame that names the offending place says more than any other: only such frames, when there are some.
  for (const x of pointed.length > 0 ? pointed : check.evidence.map((e) => ({ e, of: check }))) {
    const key = `${evidenceLog(x.e, x.of)}#${x.e.frame}#${x.e.excerpt ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    chosen.push(x);
    if (chosen.length === FRAMES_SHOWN) break;
  }
  return chosen;
}

function card(check: CheckResult, verdicts: Map<string, RequirementVerdict>, frames: (e: Evidence, check: CheckResult) => WireFrame | undefined, shownFrames: Array<{ e: Evidence; of: CheckResult }>): string {
  const parts: string[] = [];
  parts.push(`<h3><span class="st ${check.status}">${LABEL[check.status]}</span> <code class="id">${esc(check.id)}</code>${check.expected ? ' <span class="exp">expected (baselined)</span>' : ''}</h3>`);
  parts.push(`<p class="ti">${esc(check.title)}</p>`);
  parts.push(`<ul class="rules">${check.requirements.map((id) => rule(check, id, verdicts.get(id))).join('')}</ul>`);
  parts.push(`<p class="msg">${esc(check.message)}</p>`);
  const shown = shownFrames.map(({ e, of }) => evidence(e, frames(e, of)));
  if (shown.length > 0) parts.push(`<div class="frames">${shown.join('')}</div>`);
  const rest = check.evidence.length - shownFrames.filter(({ of }) => of === check).length;
  if (rest > 0) parts.push(`<p class="more">${rest} more frame(s) in the check's row under its area below</p>`);
  parts.push(sameDefect(check));
  if (check.reproduce !== undefined) parts.push(`<p class="re">reproduce: <code>${esc(check.reproduce)}</code></p>`);
  return `<article class="defect ${check.status}">${parts.join('')}</article>`;
}

/** A rule the check cites: its id (linked to the spec), the level it was graded at, its sentence; why it is only a warning when it is a MUST. */
function rule(check: CheckResult, id: string, verdict: RequirementVerdict | undefined): string {
  const href = verdict ? safeHref(verdict.url) : undefined;
  const name = href ? `<a href="${href}" rel="noreferrer">${esc(id)}</a>` : esc(id);
  const graded = gradedLevel(check, id);
  const why = check.status === 'warn' ? warnedWhy(check, ruleLevel(check, id), graded) : undefined;
  return `<li>${name} <b>${esc(graded)}</b> ${esc(verdict?.title ?? '')}${why ? `<div class="why">${esc(why)}</div>` : ''}</li>`;
}

/** Why a MUST rule's check only warns: a ruling (named in its message) grades it lower, or mcpcheck could not be certain. */
function warnedWhy(check: CheckResult, level: string | undefined, graded: string): string | undefined {
  if (level !== 'MUST') return undefined;
  const ruling = RULINGS.find((r) => check.message.includes(`ruling ${r.id}`));
  if (graded !== 'MUST') return `The rule is a MUST; this check grades it ${graded}${ruling ? `, by mcpcheck's ruling ${ruling.id} (docs/RULINGS.md): ${ruling.ruling}` : ', as the revision or a ruling named in the message does'}.`;
  return 'The rule is a MUST; this is a warning because mcpcheck could not be certain (a heuristic, or a value it could not judge), so it does not fail the run.';
}

function evidence(e: Evidence, frame: WireFrame | undefined): string {
  const head = `<div class="fh">${esc(evidenceWhere(e))}</div>`;
  // The whole frame, with the value the check is about marked; a frame the report cut is shown as it is.
  const marked = frame && frame.length === undefined ? markedJsonHtml(frame.text, e.pointer) : undefined;
  if (marked !== undefined) return `<div class="f">${head}<pre>${marked}</pre></div>`;
  const text = frame?.text ?? e.excerpt;
  return text === undefined ? `<div class="f">${head}</div>` : `<div class="f">${head}<pre>${highlightJson(prettyJson(text, frame?.length !== undefined || text.endsWith('…')))}</pre></div>`;
}

/** The wire frame an evidence entry names: in its own log, or the check's only one. */
function frameIndex(report: RunReport): (e: Evidence, check: CheckResult) => WireFrame | undefined {
  const logs = new Map((report.wire ?? []).map((l) => [l.id, new Map(l.frames.map((f) => [f.index, f]))]));
  return (e, check) => {
    if (e.frame === undefined) return undefined;
    const log = evidenceLog(e, check);
    return log === undefined ? undefined : logs.get(log)?.get(e.frame);
  };
}
