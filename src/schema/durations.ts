import { validateWithSchema } from '../validate/dialects.js';
import { isObject } from '../json.js';
import { num } from './keywords.js';

const TIME_WORD = /duration|delay|sleep|wait|seconds|secs|millis|interval|pause/i;
/** Milliseconds, by the name (delayMs, delay_ms, millis) or the description ("in ms", "milliseconds"). */
const msName = (name: string) => /(?:^|[_-])ms$|millis/i.test(name) || /[a-z0-9]Ms$/.test(name);
const MS_TEXT = /\bms\b|milli/i;
const isTimeName = (name: string) => TIME_WORD.test(name) || msName(name);
const PER_STEP = /delay|interval|sleep|wait|pause|per[\s_-]?step|each/i;
const STEP_NAME = /^(?:steps?|count|iterations?|repeat|repetitions|ticks|n)$/i;
/** More steps than this make a timed call long however short each step (one progress notification each, say). */
const MAX_STEPS = 10;
/** The step count set when a per-step delay has a count argument with no value and no default. */
const UNSTATED_STEPS = 3;

export interface TimedArguments {
  args: Record<string, unknown>;
  /** Roughly how long the call should take, by the argument names' and descriptions' meaning. */
  estimateMs: number;
  /** The properties that were read as times. */
  timeProperties: string[];
}

/**
 * Sets the time-like numeric arguments of a tool (duration, delayMs, seconds, …) so that the call
 * should take about `targetMs` in total, when the schema allows it. Units are guessed: "ms"/"milli"
 * in the name or description means milliseconds, otherwise seconds; a per-step delay beside a
 * step-count argument is divided by the count (set to UNSTATED_STEPS when it has neither value nor
 * default), and a count above MAX_STEPS comes down to it. Returns undefined when the tool has no time-like
 * argument or the adjusted arguments would not validate.
 */
export function timedArguments(inputSchema: unknown, base: Record<string, unknown>, targetMs: number): TimedArguments | undefined {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return undefined;
  const props = inputSchema.properties;
  const numeric = (s: unknown): s is Record<string, unknown> => isObject(s) && (s.type === 'number' || s.type === 'integer' || (Array.isArray(s.type) && (s.type.includes('number') || s.type.includes('integer'))));
  const args = { ...base };
  const stepName = Object.keys(props).find((n) => STEP_NAME.test(n) && numeric(props[n]));
  if (stepName !== undefined && typeof args[stepName] === 'number' && args[stepName] > MAX_STEPS) {
    args[stepName] = Math.max(MAX_STEPS, num((props[stepName] as Record<string, unknown>).minimum) ?? MAX_STEPS);
  }
  const stepValue = stepName === undefined ? undefined : typeof args[stepName] === 'number' ? args[stepName] : (props[stepName] as Record<string, unknown>).default;
  let steps = typeof stepValue === 'number' && stepValue > 0 ? stepValue : undefined;
  const timeProperties: string[] = [];
  let estimateMs = 0;
  for (const [name, prop] of Object.entries(props)) {
    if (name === stepName || !numeric(prop) || !isTimeName(name)) continue;
    const text = `${name} ${typeof prop.description === 'string' ? prop.description : ''}`;
    const ms = msName(name) || MS_TEXT.test(text);
    const perStep = stepName !== undefined && (PER_STEP.test(text) || /step/i.test(name));
    if (perStep && steps === undefined) {
      // No count given and none by default: the server's own would multiply the delay unseen.
      const bounds = props[stepName] as Record<string, unknown>;
      steps = Math.min(Math.max(UNSTATED_STEPS, num(bounds.minimum) ?? 1), num(bounds.maximum) ?? UNSTATED_STEPS);
      args[stepName] = steps;
    }
    const wantedMs = perStep ? targetMs / (steps ?? 1) : targetMs;
    const integer = prop.type === 'integer' || (Array.isArray(prop.type) && !prop.type.includes('number'));
    let value = ms ? wantedMs : wantedMs / 1000;
    if (integer) value = Math.max(ms ? 0 : 1, Math.round(value));
    const lo = num(prop.minimum);
    const hi = num(prop.maximum);
    if (lo !== undefined && value < lo) value = lo;
    if (hi !== undefined && value > hi) value = hi;
    args[name] = value;
    timeProperties.push(name);
    const thisMs = (ms ? value : value * 1000) * (perStep ? (steps ?? 1) : 1);
    estimateMs = Math.max(estimateMs, thisMs);
  }
  if (timeProperties.length === 0) return undefined;
  if (validateWithSchema(inputSchema, args).status !== 'valid') return undefined;
  return { args, estimateMs, timeProperties };
}
