/**
 * Limits a conforming JSON parser may set (RFC 8259 §9: "An implementation may set limits on the
 * size of texts that it accepts … on the maximum depth of nesting"). Common parsers stop far below
 * what mcpcheck's hostile probes send: .NET's System.Text.Json at 64 levels, serde_json at 128,
 * and HTTP stacks often at a few MB. A request beyond these may never have been read as a request.
 */
export const PARSER_LIMITS = { depth: 64, chars: 1024 * 1024 } as const;

/**
 * Why a message's value is beyond what a parser may accept (nesting deeper than 64, or a text of
 * more than 1 MiB, estimated from its strings and structure), or undefined when it is within both.
 * Iterative, so that 10,000-deep nesting cannot overflow the stack.
 */
export function beyondParserLimits(value: unknown): string | undefined {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  let chars = 0;
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (typeof v === 'string') chars += v.length + 2;
    else if (v !== null && typeof v === 'object') {
      const d = depth + 1;
      if (d > PARSER_LIMITS.depth) return `nested deeper than ${PARSER_LIMITS.depth} levels`;
      if (Array.isArray(v)) {
        chars += 2 + v.length;
        for (const x of v) stack.push({ v: x, depth: d });
      } else {
        for (const [k, x] of Object.entries(v)) {
          chars += k.length + 4;
          stack.push({ v: x, depth: d });
        }
      }
    } else chars += 5;
    if (chars > PARSER_LIMITS.chars) return `longer than ${PARSER_LIMITS.chars / (1024 * 1024)} MiB as text`;
  }
  return undefined;
}
