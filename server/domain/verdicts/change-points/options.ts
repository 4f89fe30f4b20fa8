import type { ChangePointOptions } from './change-point.js';

export type ResolvedOptions = Required<ChangePointOptions>;

export const CHANGE_POINT_DEFAULTS: ResolvedOptions = {
  p_value: 0.01,
  min_segment: 3,
  window: 500,
  settle_after: 30,
};

/** The options with their defaults; a RangeError for values that cannot work. */
export function resolveOptions(options: ChangePointOptions): ResolvedOptions {
  const resolved = { ...CHANGE_POINT_DEFAULTS, ...options };
  const { p_value, min_segment, window, settle_after } = resolved;
  if (!(p_value > 0 && p_value < 1)) throw new RangeError('p_value must be in (0, 1).');
  if (!Number.isInteger(min_segment) || min_segment < 2) {
    throw new RangeError('min_segment must be a whole number, at least 2.');
  }
  if (!Number.isInteger(window) || window < 4 * min_segment) {
    throw new RangeError('window must be a whole number, at least 4 · min_segment.');
  }
  if (!Number.isInteger(settle_after) || settle_after < min_segment || settle_after > window / 2) {
    throw new RangeError('settle_after must be a whole number from min_segment to window / 2.');
  }
  return resolved;
}
