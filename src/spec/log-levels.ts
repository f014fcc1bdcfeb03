/** RFC 5424 severities as MCP orders them, least severe first (server/utilities/logging.mdx#log-levels). */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The position of a level in LOG_LEVELS, −1 for anything that is none. */
export function severityOf(level: unknown): number {
  return (LOG_LEVELS as readonly unknown[]).indexOf(level);
}
