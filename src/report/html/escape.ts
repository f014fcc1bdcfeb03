import { escapeTerminal } from '../escape.js';

const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text as HTML text or attribute value: every character markup could start with is an entity,
 * so a target's `<script>`, `onerror=` or `</style>` stays text. Control characters, bidi
 * overrides and the like are first made visible (as on a terminal), so a name cannot reorder or
 * hide the report's own words around it.
 */
export function esc(text: string): string {
  return escapeTerminal(text, { allowNewlines: true }).replace(/[&<>"']/g, (ch) => ENTITY[ch]!);
}

/** An href for a URL of ours (the catalog's spec links): only https, anything else is no link. */
export function safeHref(url: string): string | undefined {
  return /^https:\/\/[^\s"'<>]+$/.test(url) ? esc(url) : undefined;
}
