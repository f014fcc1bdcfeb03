/** Longest one-line reason a report shows for a check; the full message is in the body or the JSON. */
export const REASON_CHARS = 300;

/** The first line of a message, bounded: what one-line views (attributes, tables, annotations) show. */
export function firstLine(text: string, max = REASON_CHARS): string {
  const line = text.split(/\r\n|\r|\n/, 1)[0] ?? '';
  const points = Array.from(line);
  return points.length > max ? `${points.slice(0, max).join('')}…` : line;
}
