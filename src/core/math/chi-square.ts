/**
 * The χ² distribution's upper tail, for the slot-bias goodness-of-fit test: the
 * regularised upper incomplete gamma function Q(a, x) = Γ(a, x)/Γ(a), by its power
 * series below x = a + 1 and by its continued fraction (modified Lentz) above
 * (Press et al., *Numerical Recipes*, 3rd ed., §6.2), with ln Γ by the Lanczos
 * approximation (g = 7, 9 terms; relative error about 1e-15).
 */

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
]

/** ln Γ(z) for z > 0 (Lanczos, g = 7). */
export function lnGamma(z: number): number {
  if (!(z > 0)) throw new RangeError(`lnGamma needs z > 0, got ${z}`)
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - lnGamma(1 - z)
  const x = z - 1
  let sum = LANCZOS[0]!
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (x + i)
  const t = x + 7.5
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(sum)
}

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

/** Regularised upper incomplete gamma Q(a, x) = 1 − P(a, x), for a > 0, x ≥ 0. */
export function regularizedGammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`regularizedGammaQ needs a > 0 and x ≥ 0, got a = ${a}, x = ${x}`)
  if (x === 0) return 1
  if (x === Infinity) return 0
  return x < a + 1 ? 1 - lowerSeries(a, x) : upperFraction(a, x)
}

/** P(X ≥ x) for X ~ χ²(df): the p-value of a χ² statistic. */
export function chiSquareSurvival(x: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`χ² needs df > 0, got ${df}`)
  if (!(x >= 0)) return 1
  return regularizedGammaQ(df / 2, x / 2)
}
