import type { Limits } from './limits.js';
import type { Direction } from './threshold-model.js';

export type Verdict = 'regression' | 'improvement' | 'ok' | 'no-baseline' | 'no-direction';

export interface Judgement {
  verdict: Verdict;
  /** The limit the value is beyond, if any (also for 'no-direction'). */
  side: 'lower' | 'upper' | null;
  limit: number | null;
}

/**
 * A value against the limits of its baseline, read through the key's direction. A value equal to
 * a limit is within it. Without a direction there is no regression or improvement, but the side
 * and limit a value is beyond are still given. Without limits (no baseline, too few values, no
 * spread): 'no-baseline'.
 */
export function judge(value: number, limits: Limits | undefined, direction: Direction): Judgement {
  const beyond = limits && sideBeyond(value, limits);
  const side = beyond?.side ?? null;
  const limit = beyond?.limit ?? null;
  if (direction === null) return { verdict: 'no-direction', side, limit };
  if (!limits) return { verdict: 'no-baseline', side, limit };
  if (!beyond) return { verdict: 'ok', side, limit };
  // Beyond the upper limit is worse when lower is better, and the reverse.
  const worse = (beyond.side === 'upper') === (direction === 'lower');
  return { verdict: worse ? 'regression' : 'improvement', side, limit };
}

function sideBeyond(value: number, limits: Limits) {
  if (limits.lower_limit !== null && value < limits.lower_limit) {
    return { side: 'lower' as const, limit: limits.lower_limit };
  }
  if (limits.upper_limit !== null && value > limits.upper_limit) {
    return { side: 'upper' as const, limit: limits.upper_limit };
  }
  return undefined;
}
