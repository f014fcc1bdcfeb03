import type { ScenarioIdentity } from './scenario.js';

/**
 * Whether a --only/--skip token names a scenario: its id, an id prefix (`server.tools`), its area
 * (`tools`, the second part of the id) or one of its requirement ids (`ROBUST-01`).
 */
export function matches(s: ScenarioIdentity, token: string): boolean {
  const t = token.trim();
  if (t === '') return false;
  if (s.id === t || s.id.startsWith(t + '.')) return true;
  if (s.id.split('.')[1] === t) return true;
  if (s.alias === t) return true;
  return s.requirements.some((r) => r.toUpperCase() === t.toUpperCase());
}

export function select<S extends ScenarioIdentity>(scenarios: S[], only: string[], skip: string[]): S[] {
  return scenarios.filter((s) => (only.length === 0 || only.some((t) => matches(s, t))) && !skip.some((t) => matches(s, t)));
}
