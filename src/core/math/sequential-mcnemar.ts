/**
 * A sequential McNemar test: an e-process on the discordant pairs of two paired runs
 * (in the spirit of the safe tests for 2×2 tables, Turner, Ly & Grünwald 2024). Pure.
 *
 * Among discordant pairs, H0 "not worse" says a pair goes the bad way with chance θ ≤ ½.
 * The likelihood ratio of any θ₁ ≥ ½ against ½ is a supermartingale under every such θ,
 * and so is its mixture over θ₁ uniform on [½, 1]:
 *   E = 2 · 2^(w+b) · ∫_{½}^{1} θ^w (1 − θ)^b dθ = 2^(w+b+1) · B(w+1, b+1) · P(Bin(w+b+1, ½) ≤ w),
 * (the incomplete beta of integer arguments is a binomial tail). By Ville's inequality
 * P(∃ look: E ≥ 1/α) ≤ α, so "regressed" may be declared at any look (or stopping time).
 */
import { binomialLowerTail, logFactorial } from './binomial.ts'

/** The e-value of "regressed" (Turner, Ly & Grünwald 2024) after `worse` pairs went the bad way and `better` the good way. */
export function mcnemarEValue(worse: number, better: number): number {
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
