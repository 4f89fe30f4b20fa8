import { normalQuantile } from '../distributions.js';
import { mean, sampleStandardDeviation } from '../sample-statistics.js';
import type { Boundaries, TestOutcome } from './sided.js';

/**
 * `log_normal`: the normal test on ln(x). Location μ = mean of ln x, scale σ = its sample standard
 * deviation; baseline exp(μ); upper limit the log-normal inverse CDF exp(μ + σ·Φ⁻¹(b)); lower limit
 * 2·baseline − exp(μ + σ·Φ⁻¹(b)). A value ≤ 0 has no logarithm: no limits.
 */
export function logNormalLimits(sample: readonly number[], boundaries: Boundaries): TestOutcome {
  if (sample.some((value) => value <= 0)) return 'non-positive-values';
  const logs = sample.map(Math.log);
  const location = mean(logs);
  const scale = sampleStandardDeviation(logs, location);
  if (!(scale > 0)) return 'no-spread';
  const baseline = Math.exp(location);
  const inverseCdf = (b: number) => Math.exp(location + scale * normalQuantile(b));
  return {
    baseline,
    lower_limit: boundaries.lower === null ? null : 2 * baseline - inverseCdf(boundaries.lower),
    upper_limit: boundaries.upper === null ? null : inverseCdf(boundaries.upper),
  };
}
