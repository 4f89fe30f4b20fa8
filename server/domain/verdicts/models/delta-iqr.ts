import { quartiles, relativeChanges } from '../sample-statistics.js';
import { around, type Boundaries, type TestOutcome } from './sided.js';

/**
 * `delta_iqr`: median ± |median|·b·IQR of the relative changes |xᵢ₊₁ − xᵢ| / |xᵢ| between
 * consecutive values (oldest first). Needs one change, so two values (a pair starting at zero has
 * none and is left out). Without spread in the changes, both limits are the median.
 */
export function deltaIqrLimits(sample: readonly number[], boundaries: Boundaries): TestOutcome {
  const changes = relativeChanges(sample);
  if (changes.length === 0) return 'too-few-values';
  const { median } = quartiles(sample);
  const delta = quartiles(changes);
  return around(median, boundaries, (b) => Math.abs(median) * b * (delta.q3 - delta.q1));
}
