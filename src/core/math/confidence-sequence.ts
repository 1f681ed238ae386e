/**
 * Anytime-valid confidence sequences for a Bernoulli rate. By default a betting confidence
 * sequence (Waudby-Smith & Ramdas 2024, JRSS-B; see ./betting.ts); with a `BetaPrior` given,
 * the conjugate beta mixture martingale (Robbins 1970, "Statistical methods related to the
 * law of the iterated logarithm"), the bound of earlier versions, kept for comparison. Both
 * are bounded at every look by Ville's inequality (Ville 1939). Pure.
 *
 * For a true rate p, M_n(p) = ∫ θ^s (1-θ)^(n-s) dBeta(θ; a, b) / (p^s (1-p)^(n-s)) is a
 * nonnegative martingale with M_0 = 1, so P(∃n: M_n(p) ≥ 1/α) ≤ α, and
 * { p : M_n(p) < 1/α } covers p at every n at once with probability ≥ 1 − α.
 * Time-uniform confidence sequences: Howard, Ramdas, McAuliffe & Sekhon 2021 (Ann. Stat.);
 * the same mixture idea behind always-valid A/B tests: Johari, Pekelis & Walsh 2017 ("Peeking
 * at A/B tests"). On the stopping bench the betting sequence decides a 15-point effect on
 * about a third fewer decisions than the Beta(½, ½) mixture (docs/stopping-early.md).
 */
import { bettingRateBounds, type RateBounds } from './betting.ts'

export type { RateBounds }
import { lnGamma } from './gamma.ts'

/** The mixing prior Beta(a, b). */
export interface BetaPrior {
  readonly a: number
  readonly b: number
}

/**
 * Default prior: Beta(½, ½) (Jeffreys). Its spread suits the effects a gate meets (5 to 20
 * points); the bench in docs/stopping-early.md compares it with tighter priors.
 */
export const DEFAULT_PRIOR: BetaPrior = Object.freeze({ a: 0.5, b: 0.5 })


/** ln B(a, b). */
export function logBeta(a: number, b: number): number {
  return lnGamma(a) + lnGamma(b) - lnGamma(a + b)
}

/** ln M_n(p): the log beta-mixture martingale (Robbins 1970) of `successes` in `n` trials against the rate `p`. */
export function logMixtureMartingale(successes: number, n: number, p: number, prior: BetaPrior = DEFAULT_PRIOR): number {
  const failures = n - successes
  const mixture = logBeta(prior.a + successes, prior.b + failures) - logBeta(prior.a, prior.b)
  // 0 · ln 0 = 0: a rate of 0 (or 1) is only excluded by a success (or a failure).
  const null0 = (successes > 0 ? successes * Math.log(p) : 0) + (failures > 0 ? failures * Math.log1p(-p) : 0)
  return mixture - null0
}

/**
 * The anytime-valid bounds on a Bernoulli rate after `successes` of `n`, both ends together at
 * level `alpha`: by default the betting confidence sequence, each end at α/2; with `prior`, the
 * beta mixture ({@link betaMixtureConfidenceSequence}). With n = 0 it is [0, 1].
 */
export function bernoulliConfidenceSequence(successes: number, n: number, alpha: number, prior?: BetaPrior): RateBounds {
  if (prior) return betaMixtureConfidenceSequence(successes, n, alpha, prior)
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`)
  return bettingRateBounds(successes, n, alpha / 2, alpha / 2)
}

/**
 * The beta-mixture bounds on a Bernoulli rate after `successes` of `n`, at level `alpha`
 * (Howard et al. 2021): every p whose mixture martingale is still below 1/α (Ville 1939). The set is an interval around the
 * observed rate (ln M_n is convex in p and ≤ 0 there), found by bisection on each side.
 * With n = 0 it is [0, 1].
 */
export function betaMixtureConfidenceSequence(successes: number, n: number, alpha: number, prior: BetaPrior = DEFAULT_PRIOR): RateBounds {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`)
  if (!(Number.isInteger(n) && n >= 0 && Number.isInteger(successes) && successes >= 0 && successes <= n))
    throw new RangeError(`bernoulliConfidenceSequence: need integers 0 ≤ successes ≤ n, got ${successes} of ${n}`)
  if (n === 0) return { lower: 0, upper: 1 }
  const level = Math.log(1 / alpha)
  const rate = successes / n
  // The mixture's part does not depend on p: computed once, not per bisection step.
  const mixture = logMixtureMartingale(successes, n, 0.5, prior) + n * Math.log(0.5)
  const failures = n - successes
  const outside = (p: number) => mixture - (successes > 0 ? successes * Math.log(p) : 0) - (failures > 0 ? failures * Math.log1p(-p) : 0) >= level
  // The mixture never exceeds the maximum likelihood, so the observed rate is always inside.
  const lower = successes === 0 || !outside(0) ? 0 : bisect(0, rate, outside, true)
  const upper = successes === n || !outside(1) ? 1 : bisect(rate, 1, outside, false)
  return { lower, upper }
}

/** The boundary between `inside` and `outside` in [lo, hi]; `outsideLow` says which end is outside. 60 halvings: below 1e-17. */
function bisect(lo: number, hi: number, outside: (p: number) => boolean, outsideLow: boolean): number {
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (outside(mid) === outsideLow) lo = mid
    else hi = mid
  }
  // Report the inside end: the bound itself is still a plausible rate.
  return outsideLow ? hi : lo
}

/** Successes of `n` trials of one class. */
export interface RateCount {
  readonly successes: number
  readonly n: number
}

/**
 * Anytime-valid bounds on the mean of several Bernoulli rates (balanced accuracy: the mean
 * of per-class recalls), each class observed on its own decisions. The product of the
 * classes' mixture martingales is one martingale (each decision moves one factor), so by
 * Ville (1939) the true rates stay in { r : Σ ln M_k(r_k) < ln(1/α) } at every look with
 * probability ≥ 1 − α, and the bounds are the least and greatest mean over that set:
 * a convex problem solved through its Lagrange multiplier (each class's optimum is the
 * root of a quadratic). Tighter than a union bound over per-class intervals, which pays
 * the classes' widths one by one. A class not observed yet may be anywhere in [0, 1].
 */
export function meanRateConfidenceSequence(classes: readonly RateCount[], alpha: number, prior: BetaPrior = DEFAULT_PRIOR): RateBounds {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`)
  if (classes.length === 0) return { lower: 0, upper: 1 }
  const lower = leastMean(classes, alpha, prior)
  const upper = 1 - leastMean(classes.map(({ successes, n }) => ({ successes: n - successes, n })), alpha, prior)
  return { lower, upper }
}

/** The least mean rate of the set above (the upper bound is this for the failures, mirrored). */
function leastMean(classes: readonly RateCount[], alpha: number, prior: BetaPrior): number {
  const level = Math.log(1 / alpha)
  // For a multiplier g > 0, class k's minimiser of r/K + (1/g)·ln M_k(r) solves g r² − (n + g) r + s = 0 (the root below s/n).
  const rates = (g: number) =>
    classes.map(({ successes: s, n }) => {
      if (n === 0 || s === 0) return 0
      const b = n + g
      // The stable form of (b − √(b² − 4gs)) / 2g.
      return (2 * s) / (b + Math.sqrt(b * b - 4 * g * s))
    })
  // Each class's mixture part is fixed for this look; only the likelihood of r moves.
  const mixture = classes.reduce((sum, { successes, n }) => sum + (n === 0 ? 0 : logMixtureMartingale(successes, n, 0.5, prior) + n * Math.log(0.5)), 0)
  const spent = (r: readonly number[]) =>
    classes.reduce((sum, { successes: s, n }, k) => sum - (s > 0 ? s * Math.log(r[k]!) : 0) - (n - s > 0 ? (n - s) * Math.log1p(-r[k]!) : 0), mixture)
  const mean = (r: readonly number[]) => r.reduce((a, b) => a + b, 0) / r.length
  // Every rate at 0 and still inside: nothing bounds the mean from below.
  const floor = rates(Infinity)
  if (spent(floor) < level) return 0
  // ln g from tiny (rates at their observed values, inside) to huge (rates near 0, outside).
  let lo = -40
  let hi = 40
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2
    if (spent(rates(Math.exp(mid))) < level) lo = mid
    else hi = mid
  }
  return mean(rates(Math.exp(lo)))
}
