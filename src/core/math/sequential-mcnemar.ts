/**
 * A sequential McNemar test: an e-process on the discordant pairs of two paired runs
 * (in the spirit of the safe tests for 2×2 tables, Turner, Ly & Grünwald 2024). Pure.
 *
 * Both e-values here are betting e-processes (Shafer 2021, "Testing by betting", JRSS-A;
 * Waudby-Smith & Ramdas 2024, JRSS-B): with X = 1 for a pair that went the bad way,
 * M_t = ∏ (1 + λ (2X_i − 1)) for a stake λ ∈ [0, 1) fixed before the pairs is a nonnegative
 * supermartingale under every "bad way" chance θ ≤ ½ (each factor has mean 1 + λ(2θ − 1) ≤ 1),
 * and so is any mixture over λ; a mixture of constant stakes depends on the counts only (any
 * order of the pairs gives the same e-value). With θ = (1 + λ)/2 the likelihood ratio
 * (2θ)^w (2(1 − θ))^b is exactly that capital, so the default, uniform over λ, is the
 * Beta mixture below. {@link mcnemarBettingEValue} weighs λ by a half-normal instead; on the
 * bench (bench:stop) it needs ~2% fewer pairs for a weak regression (θ = 0.65) but one more
 * one-way flip (8) for a clear one, and a stopped run's gate sees few pairs, so the
 * uniform mixture stays the default:
 *
 * Among discordant pairs, H0 "not worse" says a pair goes the bad way with chance θ ≤ ½.
 * The likelihood ratio of any θ₁ ≥ ½ against ½ is a supermartingale under every such θ,
 * and so is its mixture over θ₁ uniform on [½, 1]:
 *   E = 2 · 2^(w+b) · ∫_{½}^{1} θ^w (1 − θ)^b dθ = 2^(w+b+1) · B(w+1, b+1) · P(Bin(w+b+1, ½) ≤ w),
 * (the incomplete beta of integer arguments is a binomial tail). By Ville's inequality
 * P(∃ look: E ≥ 1/α) ≤ α, so "regressed" may be declared at any look (or stopping time).
 */
import { binomialLowerTail, logFactorial } from './binomial.ts'

/** Half-normal scale of the mixture over stakes λ (grid of 32 midpoints of (0, 1)). */
export const MCNEMAR_BET_SCALE = 0.5

const STAKES: readonly number[] = Array.from({ length: 32 }, (_, j) => (j + 0.5) / 32)

/** The e-value of "regressed" after `worse` pairs went the bad way and `better` the good way: the uniform mixture over stakes. */
export function mcnemarEValue(worse: number, better: number): number {
  return mcnemarBetaMixtureEValue(worse, better)
}

/** The betting mixture's capital over stakes λ weighted by a half-normal of scale `scale`. */
export function mcnemarBettingEValue(worse: number, better: number, scale: number = MCNEMAR_BET_SCALE): number {
  if (!(Number.isInteger(worse) && worse >= 0 && Number.isInteger(better) && better >= 0))
    throw new RangeError(`mcnemarEValue: counts must be non-negative integers, got ${worse} and ${better}`)
  if (!(scale > 0)) throw new RangeError(`scale must be > 0, got ${scale}`)
  if (worse + better === 0) return 1
  const logWeights = STAKES.map((l) => -(l * l) / (2 * scale * scale))
  const logTotal = Math.log(logWeights.reduce((sum, w) => sum + Math.exp(w), 0))
  const terms = STAKES.map((l, j) => logWeights[j]! - logTotal + (worse > 0 ? worse * Math.log1p(l) : 0) + (better > 0 ? better * Math.log1p(-l) : 0))
  const max = terms.reduce((a, b) => (b > a ? b : a), -Infinity)
  return Math.exp(max + Math.log(terms.reduce((sum, t) => sum + Math.exp(t - max), 0)))
}

/** The Beta-mixture e-value of "regressed" (uniform over θ ≥ ½, i.e. over stakes λ; Turner, Ly & Grünwald 2024). */
export function mcnemarBetaMixtureEValue(worse: number, better: number): number {
  if (!(Number.isInteger(worse) && worse >= 0 && Number.isInteger(better) && better >= 0))
    throw new RangeError(`mcnemarEValue: counts must be non-negative integers, got ${worse} and ${better}`)
  const n = worse + better
  // B(w+1, b+1) = w! b! / (n+1)!
  const logB = logFactorial(worse) + logFactorial(better) - logFactorial(n + 1)
  const tail = binomialLowerTail(worse, n + 1, 0.5)
  return Math.exp((n + 1) * Math.LN2 + logB) * tail
}

/** Whether the e-process has crossed 1/α: a regression, anytime-valid at level `alpha` by Ville's inequality (1939). */
export function mcnemarRegressed(worse: number, better: number, alpha: number): boolean {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`)
  return mcnemarEValue(worse, better) >= 1 / alpha
}

/**
 * The e-value of "not worse by `margin` or more" (the other side of the gate): with D = +1 for a
 * pair that went the bad way, −1 the good way and 0 for a pair that did not change, among
 * `n` pairs, H0 says the mean drop E[D] ≥ `margin`. For a stake λ ∈ [0, 1/(1 − margin)) fixed
 * before the pairs, ∏ (1 + λ (margin − D_i)) is a nonnegative supermartingale under H0 (each
 * factor has mean 1 + λ (margin − E[D]) ≤ 1), and so is the uniform mixture over 32 stakes;
 * it depends on the counts only (Shafer 2021; Waudby-Smith & Ramdas 2024). By Ville's
 * inequality P(∃ look: E ≥ 1/α) ≤ α when the true drop is `margin` or more.
 */
export function mcnemarNotWorseEValue(worse: number, better: number, n: number, margin: number): number {
  if (!(Number.isInteger(worse) && worse >= 0 && Number.isInteger(better) && better >= 0 && Number.isInteger(n) && n >= worse + better))
    throw new RangeError(`mcnemarNotWorseEValue: counts must be non-negative integers with worse + better ≤ n, got ${worse}, ${better}, ${n}`)
  if (!(margin > 0 && margin < 1)) throw new RangeError(`margin must be in (0, 1), got ${margin}`)
  if (n === 0) return 1
  const same = n - worse - better
  // λ = c / (1 − margin), c the share of the largest stake that keeps a bad pair's factor ≥ 0.
  const terms = STAKES.map((c) => {
    const lambda = c / (1 - margin)
    return (worse > 0 ? worse * Math.log1p(-c) : 0) + (better > 0 ? better * Math.log1p(lambda * (1 + margin)) : 0) + (same > 0 ? same * Math.log1p(lambda * margin) : 0)
  })
  const max = terms.reduce((a, b) => (b > a ? b : a), -Infinity)
  return Math.exp(max + Math.log(terms.reduce((sum, t) => sum + Math.exp(t - max), 0) / STAKES.length))
}
