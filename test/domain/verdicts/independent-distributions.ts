/**
 * CDFs computed in the tests independently of the library the server uses (jStat's inverse CDFs):
 * the normal CDF from the Taylor series of erf, Student's t CDF for whole degrees of freedom from
 * the closed forms of Abramowitz & Stegun 26.7.3–26.7.4. A limit is right when the CDF at it is
 * its boundary.
 */

/** erf(x) = 2/√π · Σ (−1)ⁿ x²ⁿ⁺¹ / (n! (2n + 1)), summed until the terms vanish (|x| ≤ 5). */
export function erf(x: number): number {
  let term = x;
  let sum = x;
  for (let n = 1; n < 400; n++) {
    term *= (-x * x) / n;
    const next = term / (2 * n + 1);
    sum += next;
    if (Math.abs(next) < 1e-17 * Math.abs(sum)) break;
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

/**
 * erfc(x) for x ≥ 2 by the continued fraction erfc(x) = e^(−x²)/√π · 1/(x + ½/(x + 1/(x + 3/2/(x + …)))),
 * evaluated from the tail up: no cancellation, so far tails keep their relative precision.
 */
export function erfcContinuedFraction(x: number): number {
  let fraction = x;
  for (let k = 200; k >= 1; k--) fraction = x + k / 2 / fraction;
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / fraction;
}

/** Φ(z), the standard normal CDF (the lower tail below −3 from the continued fraction). */
export function normalCdf(z: number): number {
  if (z < -3) return 0.5 * erfcContinuedFraction(-z / Math.SQRT2);
  return 0.5 * (1 + erf(z / Math.SQRT2));
}

/**
 * P(T ≤ t) for Student's t with ν (a whole number) degrees of freedom, with θ = atan(t/√ν):
 * A(t|ν) = P(|T| ≤ |t|) is 2θ/π for ν = 1; (2/π)(θ + sinθ·Σ) for odd ν, Σ = cosθ + (2/3)cos³θ + …
 * + (2·4…(ν−3))/(1·3…(ν−2))·cos^(ν−2)θ; sinθ·(1 + (1/2)cos²θ + … + (1·3…(ν−3))/(2·4…(ν−2))·cos^(ν−2)θ)
 * for even ν.
 */
export function studentTCdfClosedForm(t: number, nu: number): number {
  const theta = Math.atan(Math.abs(t) / Math.sqrt(nu));
  const sin = Math.sin(theta);
  const cos = Math.cos(theta);
  let a: number;
  if (nu % 2 === 1) {
    let sum = 0;
    if (nu > 1) {
      let term = cos;
      sum = term;
      for (let k = 3; k <= nu - 2; k += 2) {
        term *= ((k - 1) / k) * cos * cos;
        sum += term;
      }
    }
    a = (2 / Math.PI) * (theta + sin * sum);
  } else {
    let term = 1;
    let sum = 1;
    for (let k = 2; k <= nu - 2; k += 2) {
      term *= ((k - 1) / k) * cos * cos;
      sum += term;
    }
    a = sin * sum;
  }
  return t >= 0 ? (1 + a) / 2 : (1 - a) / 2;
}

/** The sample mean and standard deviation (n − 1), written out for the tests. */
export function meanAndDeviation(values: readonly number[]) {
  const n = values.length;
  const m = values.reduce((total, value) => total + value, 0) / n;
  const s = Math.sqrt(
    values.reduce((total, value) => total + (value - m) * (value - m), 0) / (n - 1),
  );
  return { n, m, s };
}
