import type { Limits } from './limits.js';
import type { Direction } from './threshold-model.js';

export type Verdict = 'regression' | 'improvement' | 'ok' | 'no-baseline' | 'no-direction';

export interface Judgement {
  verdict: Verdict;
  /** The limit the value is beyond, if any (also for 'no-direction'). */
  side: 'lower' | 'upper' | null;
  limit: number | null;
}

/** A value against the limits of its baseline, read through the key's direction. */
export function judge(
  _value: number,
  _limits: Limits | undefined,
  _direction: Direction,
): Judgement {
  throw new Error('not implemented yet');
}
