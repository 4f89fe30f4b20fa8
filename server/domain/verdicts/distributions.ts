import jstat from 'jstat';

/**
 * The inverse CDFs and the t CDF the verdicts need, from jStat (one package, no dependencies;
 * accurate to about 1e-8 relative, far below any benchmark's noise): kept behind these names so the
 * library could be swapped.
 */
const { jStat } = jstat;

/** The standard normal distribution's inverse CDF: Φ⁻¹(p), p in (0, 1). */
export function normalQuantile(p: number): number {
  return jStat.normal.inv(p, 0, 1);
}

/**
 * Φ(z), the standard normal CDF. For z ≤ 0 its absolute error is about 1e-16, so a tail
 * probability far below any significance level used here keeps its meaning.
 */
export function normalCdf(z: number): number {
  return jStat.normal.cdf(z, 0, 1);
}

/** Student's t distribution's inverse CDF with `df` degrees of freedom, p in (0, 1). */
export function studentTQuantile(p: number, df: number): number {
  return jStat.studentt.inv(p, df);
}

/**
 * P(T ≤ t) for Student's t with `df` degrees of freedom. Call it with t ≤ 0 for a tail
 * probability: the lower tail is computed directly, so tiny p-values keep their precision.
 */
export function studentTCdf(t: number, df: number): number {
  return jStat.studentt.cdf(t, df);
}
