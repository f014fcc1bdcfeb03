import type { WireFrame, WireLog } from '../../model.js';
import { esc } from './escape.js';
import { highlightJson, prettyJson } from './json.js';

const DIRECTION = { client: 'client→server', server: 'server→client' } as const;

function frame(f: WireFrame): string {
  const time = f.at !== undefined ? ` · ${f.at} ms` : '';
  const cut = f.length !== undefined ? ` · first ${f.text.length - 1} of ${f.length} characters` : '';
  return `<div class="f ${f.from}" data-i="${f.index}"><div class="fh">#${f.index} ${DIRECTION[f.from]}${time}${cut}</div><pre>${highlightJson(prettyJson(f.text, f.length !== undefined))}</pre></div>`;
}

/**
 * One wire log as an inert template: the checks citing it clone it into their own collapsible
 * log when opened, so a log shared by many checks is in the file once.
 */
export function wireTemplate(log: WireLog): string {
  const parts = log.frames.map((f, i) => {
    const before = log.frames[i - 1];
    // Frames between two kept ones were left out to keep the report small.
    const gap = before !== undefined && f.index > before.index + 1 ? `<p class="om">… #${before.index + 1}–#${f.index - 1} left out</p>` : '';
    return gap + frame(f);
  });
  const omitted = log.omitted ? ` (${log.omitted} of its frames left out: the report keeps the first, the last and the cited ones)` : '';
  return `<template id="wire-${esc(log.id)}"><div class="log"><div class="lh">${esc(log.label)}${omitted}</div>${parts.join('')}</div></template>`;
}
