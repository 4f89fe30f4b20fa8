import type { ChangePoint, ChangePointOptions } from './change-point.js';

/**
 * What an incremental detection keeps between updates: plain JSON, so it can be stored. Holds at
 * most `window` values whatever the series' length.
 */
export interface ChangePointState {
  /** How many values the series has had so far. */
  length: number;
  /** Series index of values[0]. */
  offset: number;
  /** The values analysed at the next update: from the last settled change point on, at most `window`. */
  values: number[];
  /** The last settled change point (the start of the current level), or null before the first. */
  anchor: ChangePoint | null;
  /** Count and sum of the current level's values before offset (dropped from the window), so its mean stays exact. */
  dropped: { count: number; sum: number };
}

export interface ChangePointUpdate {
  state: ChangePointState;
  /** Series index from which `change_points` replace every change point the caller holds. */
  from: number;
  /** The change points at index ≥ from (the anchor's after_mean updated, settled and provisional ones). */
  change_points: ChangePoint[];
}

export function initialChangePointState(): ChangePointState {
  return { length: 0, offset: 0, values: [], anchor: null, dropped: { count: 0, sum: 0 } };
}

/**
 * Adds the newest values (oldest first) and re-detects over the window only: a new value costs
 * O(W log W) for a window of W values, never a scan of the whole history.
 */
export function updateChangePoints(
  _state: ChangePointState,
  _newValues: readonly number[],
  _options: ChangePointOptions = {},
): ChangePointUpdate {
  throw new Error('not implemented yet');
}
