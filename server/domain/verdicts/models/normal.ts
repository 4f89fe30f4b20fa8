import { normalQuantile, studentTQuantile } from '../distributions.js';
import { mean, sampleStandardDeviation } from '../sample-statistics.js';
import { around, type Boundaries, type TestOutcome } from './sided.js';

/**
 * `z_score`: the upper limit is the inverse CDF at b of the normal distribution with the sample's
 * mean and standard deviation s (n − 1); the lower limit mirrors the inverse CDF at its b around
 * the mean: 2·mean − (mean + s·Φ⁻¹(b)).
 */
export function zScoreLimits(sample: readonly number[], boundaries: Boundaries): TestOutcome {
  const centre = mean(sample);
  const s = sampleStandardDeviation(sample, centre);
  if (!(s > 0)) return 'no-spread';
  return around(centre, boundaries, (b) => s * normalQuantile(b));
}

/**
 * `t_test`: the same with Student's t, n − 1 degrees of freedom and scale s·√(1 + 1/n): the
 * prediction interval of one new value drawn like the sample.
 */
export function tTestLimits(sample: readonly number[], boundaries: Boundaries): TestOutcome {
  const n = sample.length;
  const centre = mean(sample);
  const s = sampleStandardDeviation(sample, centre);
  if (!(s > 0)) return 'no-spread';
  const scale = s * Math.sqrt(1 + 1 / n);
  return around(centre, boundaries, (b) => scale * studentTQuantile(b, n - 1));
}
