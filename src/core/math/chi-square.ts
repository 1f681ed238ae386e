/**
 * The χ² distribution's upper tail, for the slot-bias goodness-of-fit test: the
 * regularised upper incomplete gamma function Q(a, x) = Γ(a, x)/Γ(a), by its power
 * series below x = a + 1 and by its continued fraction (modified Lentz) above
 * (Press et al., *Numerical Recipes*, 3rd ed., §6.2).
 */
import { lnGamma } from './gamma.ts'

const EPS = 1e-16
const MAX_ITERATIONS = 10_000

/** Regularised lower incomplete gamma P(a, x) by its series (converges fast for x < a + 1). */
function lowerSeries(a: number, x: number): number {
  let term = 1 / a
  let sum = term
  for (let n = 1; n < MAX_ITERATIONS; n++) {
    term *= x / (a + n)
    sum += term
    if (Math.abs(term) < Math.abs(sum) * EPS) break
  }
  return sum * Math.exp(-x + a * Math.log(x) - lnGamma(a))
}

/** Regularised upper incomplete gamma Q(a, x) by its continued fraction (x ≥ a + 1), modified Lentz. */
function upperFraction(a: number, x: number): number {
  const tiny = 1e-300
  let b = x + 1 - a
  let c = 1 / tiny
  let d = 1 / b
  let h = d
  for (let i = 1; i < MAX_ITERATIONS; i++) {
    const an = -i * (i - a)
    b += 2
    d = an * d + b
    if (Math.abs(d) < tiny) d = tiny
    c = b + an / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const delta = d * c
    h *= delta
    if (Math.abs(delta - 1) < EPS) break
  }
  return Math.exp(-x + a * Math.log(x) - lnGamma(a)) * h
}

/** Regularised upper incomplete gamma Q(a, x) = 1 − P(a, x), for a > 0, x ≥ 0 (Press et al. 2007, §6.2). */
export function regularizedGammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`regularizedGammaQ needs a > 0 and x ≥ 0, got a = ${a}, x = ${x}`)
  if (x === 0) return 1
  if (x === Infinity) return 0
  return x < a + 1 ? 1 - lowerSeries(a, x) : upperFraction(a, x)
}

/** P(X ≥ x) for X ~ χ²(df): the p-value of Pearson's (1900) χ² statistic, Q(df/2, x/2). */
export function chiSquareSurvival(x: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`χ² needs df > 0, got ${df}`)
  if (!(x >= 0)) return 1
  return regularizedGammaQ(df / 2, x / 2)
}
