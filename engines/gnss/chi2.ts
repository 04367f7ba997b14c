// Chi-square distribution: regularized incomplete gamma, tail probability and quantile for RAIM thresholds.

/** ln Gamma(x) by the Lanczos approximation (g = 7, n = 9), accurate to about 1e-15. */
function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = c[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularized upper incomplete gamma Q(a, x), by series below a+1 and continued fraction above. */
function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lnPre = -x + a * Math.log(x) - lnGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 500; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-15) break;
    }
    return 1 - sum * Math.exp(lnPre);
  }
  // Lentz's continued fraction.
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return Math.exp(lnPre) * h;
}

/** P(X > x) for X chi-square with `dof` degrees of freedom. */
export function chi2Survival(x: number, dof: number): number {
  return gammaQ(dof / 2, x / 2);
}

/** The x with P(X > x) = p for X chi-square with `dof` degrees of freedom (bisection on the survival function). */
export function chi2Quantile(p: number, dof: number): number {
  let lo = 0;
  let hi = Math.max(10, dof * 10);
  while (chi2Survival(hi, dof) > p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (chi2Survival(mid, dof) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
