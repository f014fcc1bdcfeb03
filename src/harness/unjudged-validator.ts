import { SessionValidator } from '../validate/session.js';
import type { Finding } from '../validate/finding.js';

/**
 * A stand-in for the session validator of an era that has none yet (2026-07-28, until the
 * stateless era lands in src/validate/session/eras.ts): it judges nothing, so every live rule is
 * "not exercised" (a skip), never a verdict by another era's rules. Remove once `ERA_CONCERNS`
 * has a 'stateless' entry.
 */
export class UnjudgedValidator extends SessionValidator {
  override message(): Finding[] {
    return [];
  }

  override raw(): Finding[] {
    return [];
  }

  override unreadableFrame(): void {}

  override leftUnanswered(): void {}

  override end(): Finding[] {
    return [];
  }
}
