/** A JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The value as a JSON object, or undefined when it is not one. */
export function obj(v: unknown): Record<string, unknown> | undefined {
  return isObject(v) ? v : undefined;
}
